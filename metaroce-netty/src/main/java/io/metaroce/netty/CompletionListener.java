package io.metaroce.netty;

/**
 * Told about every completion of every connection of a {@link UdpEndpoint}, in the order the
 * engine produced them, before the work request's future completes. Called on the endpoint's
 * event loop: it must not block (hand the completion to another thread, or post work, which only
 * queues a task). Set with {@link UdpEndpoint.Builder#completionListener}.
 */
@FunctionalInterface
public interface CompletionListener {
    /** {@code completion} finished on {@code connection}. */
    void onCompletion(UdpConnection connection, Completion completion);
}
