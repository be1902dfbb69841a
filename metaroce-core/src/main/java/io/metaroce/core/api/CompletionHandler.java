package io.metaroce.core.api;

/**
 * Receives completions from {@link CompletionQueue#poll}. Primitive arguments, so delivering a
 * completion allocates nothing.
 */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * One finished work request.
     *
     * @param connectionId the local id of the connection it belongs to
     * @param streamId the stream it was posted on
     * @param workRequestId the id the application gave when posting
     * @param opcode a {@link WorkOpcode}
     * @param status a {@link CompletionStatus}
     * @param byteLength bytes transferred (for a receive: bytes the SEND carried)
     * @param immediate immediate data, valid when {@code hasImmediate}
     * @param hasImmediate whether {@code immediate} is valid
     */
    void onCompletion(long connectionId, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate);
}
