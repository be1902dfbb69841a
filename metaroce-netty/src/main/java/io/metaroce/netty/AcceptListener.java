package io.metaroce.netty;

/**
 * Told about each connection a listening {@link UdpEndpoint} accepts. Called on the endpoint's
 * event loop: it must not block (hand the connection to another thread, or post work, which only
 * queues a task).
 */
@FunctionalInterface
public interface AcceptListener {
    /** A connection was accepted; work can be posted on it. */
    void onAccepted(UdpConnection connection);
}
