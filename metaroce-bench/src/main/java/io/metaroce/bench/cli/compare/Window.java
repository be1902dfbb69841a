package io.metaroce.bench.cli.compare;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the rate of a byte counter over a window after a warm-up: the counter is read when the
 * warm-up ends and when the window ends, so start-up and tear-down never count. Thread-safe (the
 * counter is read from the measuring thread while a peer's thread adds to it).
 *
 * @param warmupNanos time before the window
 * @param durationNanos length of the window
 */
record Window(long warmupNanos, long durationNanos) {

    /** Sleeps through the warm-up and the window and returns the counter's rate, in Gb/s. */
    double measureGbps(AtomicLong bytes) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(warmupNanos);
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
