package io.metaroce.bench.cli.compare;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the rate of a byte counter over a window after a warm-up: the counter is read when the
 * warm-up ends and when the window ends, so start-up and tear-down never count. Thread-safe (the
 * counter is read from the measuring thread while a peer's thread adds to it; {@code onWarm} must
 * be safe to run from any thread, many times).
 *
 * @param warmupNanos time before the window
 * @param durationNanos length of the window
 * @param onWarm run by a peer each time it finds its warm-up over ({@link #isWarm}), from the
 *     first time on: a {@link JitMeter} takes its reading then, after the peer's set-up
 */
record Window(long warmupNanos, long durationNanos, Runnable onWarm) {
    private static final Runnable NOTHING = () -> { };

    /** A window that tells nobody when its warm-up ends. */
    Window(long warmupNanos, long durationNanos) {
        this(warmupNanos, durationNanos, NOTHING);
    }

    /** This window, telling {@code listener} when a peer's warm-up ends. */
    Window onWarm(Runnable listener) {
        return new Window(warmupNanos, durationNanos, listener);
    }

    /** Whether a run started (set up) at {@code startNanos} is past its warm-up at {@code nowNanos}; if so, says so to {@code onWarm}. */
    boolean isWarm(long startNanos, long nowNanos) {
        if (nowNanos < warmupEnd(startNanos)) {
            return false;
        }
        onWarm.run();
        return true;
    }

    /** Sleeps through the warm-up and the window and returns the counter's rate, in Gb/s. */
    double measureGbps(AtomicLong bytes) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(warmupNanos);
        onWarm.run();
        long b0 = bytes.get();
        long t0 = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(durationNanos);
        long b1 = bytes.get();
        long t1 = System.nanoTime();
        return (b1 - b0) * 8.0 / (t1 - t0);
    }

    /** When the warm-up of a run started at {@code startNanos} ends. */
    long warmupEnd(long startNanos) {
        return startNanos + warmupNanos;
    }

    /** When a run started at {@code startNanos} ends. */
    long end(long startNanos) {
        return startNanos + warmupNanos + durationNanos;
    }
}
