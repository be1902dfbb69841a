package io.metaroce.core.sim.workload;

/**
 * What a bulk flow asks of its protocol: how many paths (UDP source ports) to use, the size of
 * each message the application posts, how many messages it keeps outstanding, and how many bytes
 * in all it posts ({@link Long#MAX_VALUE}: until told to stop).
 *
 * <p>Immutable and thread-safe.
 *
 * @param paths UDP source ports (paths) the flow may use; a single-path protocol uses the first
 * @param messageBytes bytes of each posted message
 * @param outstandingMessages messages posted and not yet completed, at most
 * @param totalBytes bytes to post in all
 */
public record FlowSpec(int paths, int messageBytes, int outstandingMessages, long totalBytes) {
    /** Validates. */
    public FlowSpec {
        if (paths < 1 || messageBytes < 1 || outstandingMessages < 1 || totalBytes < 1) {
            throw new IllegalArgumentException("a flow needs paths, messageBytes, outstandingMessages and totalBytes >= 1");
        }
    }

    /** An endless bulk flow: {@code outstandingMessages} messages of {@code messageBytes} in flight until stopped. */
    public static FlowSpec bulk(int paths, int messageBytes, int outstandingMessages) {
        return new FlowSpec(paths, messageBytes, outstandingMessages, Long.MAX_VALUE);
    }
}
