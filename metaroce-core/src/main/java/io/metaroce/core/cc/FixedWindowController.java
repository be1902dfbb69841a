package io.metaroce.core.cc;

/**
 * A fixed connection-wide window and no pacing: the placeholder controller until the AIMD/ECN
 * controller lands. It ignores ECN and rate hints and never shrinks the window on loss, which
 * makes it a clean baseline for testing reliability in isolation.
 *
 * <p>Not thread-safe.
 */
public final class FixedWindowController implements CongestionController {
    private final long windowBytes;
    private long bytesInFlight;

    /** A controller allowing {@code windowBytes} in flight across all paths. */
    public FixedWindowController(long windowBytes) {
        if (windowBytes <= 0) {
            throw new IllegalArgumentException("windowBytes must be > 0, was " + windowBytes);
        }
        this.windowBytes = windowBytes;
    }

    @Override
    public long sendAllowanceBytes(int pathId, long nowNanos) {
        return windowBytes - bytesInFlight;
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        return nowNanos;
    }

    @Override
    public void onPacketSent(int pathId, int bytes, long nowNanos) {
        bytesInFlight += bytes;
    }

    @Override
    public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
        bytesInFlight -= bytes;
    }

    @Override
    public void onPacketLost(int pathId, int bytes, long nowNanos) {
        bytesInFlight -= bytes;
    }

    @Override
    public void onPacketDiscarded(int pathId, int bytes, long nowNanos) {
        bytesInFlight -= bytes;
    }

    @Override
    public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
        // A fixed window does not react to congestion marks.
    }

    @Override
    public void onRateHint(long bytesPerSecond, long nowNanos) {
        // A fixed window does not pace.
    }

    /** Bytes in flight across all paths. */
    public long bytesInFlight() {
        return bytesInFlight;
    }

    /** The fixed window. */
    public long windowBytes() {
        return windowBytes;
    }
}
