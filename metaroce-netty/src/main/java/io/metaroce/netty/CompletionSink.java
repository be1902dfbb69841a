package io.metaroce.netty;

/**
 * Told about every completion of every connection of a {@link UdpEndpoint} with primitive
 * arguments, so that delivering a completion allocates nothing: the completion side of the
 * zero-allocation posting path ({@link UdpConnection#postSendDirect} and the other
 * {@code post...Direct} methods, whose completions reach only this sink). Completions of posts
 * made with futures reach it too, with the application's id. Called on the endpoint's event loop,
 * in the order the engine produced the completions, before any future completes: it must not
 * block; it may post more work with the direct methods. Set with
 * {@link UdpEndpoint.Builder#completionSink}.
 *
 * <p>Thread safety: called on one event loop thread only.
 */
@FunctionalInterface
public interface CompletionSink {
    /**
     * Work request {@code workRequestId} (the application's id) on {@code connection} finished.
     *
     * @param opcode a {@link io.metaroce.core.api.WorkOpcode} constant
     * @param status a {@link io.metaroce.core.api.CompletionStatus} constant
     * @param byteLength bytes moved (for a receive: the SEND's length)
     * @param hasImmediate whether {@code immediate} carries the peer's immediate data
     */
    void onCompletion(UdpConnection connection, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate);
}
