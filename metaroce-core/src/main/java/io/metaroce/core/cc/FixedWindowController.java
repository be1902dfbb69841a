package io.metaroce.core.cc;

import io.metaroce.core.EngineConfig;

/**
 * A fixed connection-wide window: congestion control off. It ignores ECN and delay and never
 * shrinks the window on loss, so it is the ceiling a benchmark on a link nothing else shares can
 * reach, and the baseline for testing reliability in isolation; it is not the default (that is
 * {@link AimdController}, [SPEC-CC-4]) since on a shared lossy fabric it keeps sending into
 * congestion. It honours the receiver's
 * rate hint ([SPEC-CC-4]): while the hint is non-zero, the connection's packets (all paths
 * together) leave {@code bytes / hint} apart, after at most {@code pacingBurstBytes} back to back;
 * with no hint it does not pace.
 *
 * <p>Not thread-safe.
 */
public final class FixedWindowController implements CongestionController {
    private final long windowBytes;
    private final long burstBytes;
    private long bytesInFlight;
    private long rateHint;
    private long nextSend = Long.MIN_VALUE;

    /**
     * A controller with the window {@link EngineConfig#congestionWindowBytes()} and the burst
     * {@link EngineConfig#pacingBurstBytes()} of {@code config}; usable as
     * {@code FixedWindowController::new} wherever a controller factory is asked for.
     */
    public FixedWindowController(EngineConfig config) {
        this(config.congestionWindowBytes(), config.pacingBurstBytes());
    }

    /** A controller allowing {@code windowBytes} in flight across all paths, pacing to a hint with no burst. */
    public FixedWindowController(long windowBytes) {
        this(windowBytes, 0);
    }

    /**
     * A controller allowing {@code windowBytes} in flight across all paths; under a rate hint, up to
     * {@code burstBytes} may leave back to back after an idle spell.
     */
    public FixedWindowController(long windowBytes, long burstBytes) {
        if (windowBytes <= 0) {
            throw new IllegalArgumentException("windowBytes must be > 0, was " + windowBytes);
        }
        if (burstBytes < 0) {
            throw new IllegalArgumentException("burstBytes must be >= 0, was " + burstBytes);
        }
        this.windowBytes = windowBytes;
        this.burstBytes = burstBytes;
    }

    @Override
    public long sendAllowanceBytes(int pathId, long nowNanos) {
        return windowBytes - bytesInFlight;
    }

    /** True: the allowance is the window less the flight, the next send time a stored clock. */
    @Override
    public boolean pacingAnswersReusable() {
        return true;
    }

    /** True: asking for the allowance changes nothing here. */
    @Override
    public boolean allowanceQuestionSettled(int pathId, long nowNanos) {
        return true;
    }

    /** Never: asking for the allowance changes nothing here. */
    @Override
    public long allowanceQuestionChangesNanos(int pathId) {
        return Long.MAX_VALUE;
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        return rateHint == 0 ? nowNanos : Math.max(nextSend, nowNanos);
    }

    @Override
    public void onPacketSent(int pathId, int bytes, long nowNanos) {
        bytesInFlight += bytes;
        if (rateHint > 0) {
            long credit = (long) (burstBytes * 1e9 / rateHint);
            long start = nextSend == Long.MIN_VALUE ? nowNanos - credit : Math.max(nextSend, nowNanos - credit);
            nextSend = start + (long) (bytes * 1e9 / rateHint);
        }
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
        rateHint = Math.max(0, bytesPerSecond);
    }

    /** The latest rate hint from the receiver, bytes per second (0: none, no pacing). */
    public long rateHintBytesPerSecond() {
        return rateHint;
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
