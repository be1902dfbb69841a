package io.metaroce.core.path;

/**
 * Round-trip time of one path: smoothed, variance and minimum (RFC 6298 arithmetic), and the
 * retransmission timeout derived from them.
 *
 * <p>Not thread-safe. Allocates nothing.
 */
public final class RttEstimator {
    private final long initialRttNanos;
    private long smoothedNanos;
    private long varianceNanos;
    private long minNanos = Long.MAX_VALUE;
    private long latestNanos;
    private boolean hasSample;

    /** An estimator that assumes {@code initialRttNanos} until the first sample. */
    public RttEstimator(long initialRttNanos) {
        this.initialRttNanos = initialRttNanos;
        this.smoothedNanos = initialRttNanos;
        this.varianceNanos = initialRttNanos / 2;
    }

    /** Adds a sample; non-positive samples are ignored. */
    public void update(long sampleNanos) {
        if (sampleNanos <= 0) {
            return;
        }
        latestNanos = sampleNanos;
        minNanos = Math.min(minNanos, sampleNanos);
        if (!hasSample) {
            smoothedNanos = sampleNanos;
            varianceNanos = sampleNanos / 2;
            hasSample = true;
        } else {
            long deviation = Math.abs(smoothedNanos - sampleNanos);
            varianceNanos = (3 * varianceNanos + deviation) / 4;
            smoothedNanos = (7 * smoothedNanos + sampleNanos) / 8;
        }
    }

    /** Smoothed RTT. */
    public long smoothedNanos() {
        return smoothedNanos;
    }

    /** RTT variance (mean deviation). */
    public long varianceNanos() {
        return varianceNanos;
    }

    /** Smallest sample seen, or the initial estimate before any sample. */
    public long minNanos() {
        return hasSample ? minNanos : initialRttNanos;
    }

    /** Most recent sample, or 0. */
    public long latestNanos() {
        return latestNanos;
    }

    /** Whether any sample has been taken. */
    public boolean hasSample() {
        return hasSample;
    }

    /**
     * The retransmission timeout: {@code smoothed + 4 * variance + maxAckDelay}, at least
     * {@code minRto}, doubled {@code backoff} times, at most {@code maxRto}.
     */
    public long rtoNanos(long maxAckDelayNanos, long minRtoNanos, long maxRtoNanos, int backoff) {
        long base = Math.max(minRtoNanos, smoothedNanos + 4 * varianceNanos + maxAckDelayNanos);
        long rto = backoff >= 40 ? maxRtoNanos : base << backoff;
        return rto < 0 ? maxRtoNanos : Math.min(maxRtoNanos, rto);
    }
}
