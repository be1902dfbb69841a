package io.metaroce.bench.cli.compare;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Waits, before a ping-pong starts, until the JIT has finished what earlier runs left it to
 * compile. On the 2-vCPU reference host under load the C2 queue still held 20 to 80 methods
 * when {@code compare} reached MetaRoCE's ping-pong (those of the throughput runs and of raw
 * UDP's ping-pong among them), and the JIT compiled 1.5 to 3.4 s during a 2 s measured part: the
 * ping-pong's own methods queued behind the earlier runs' and were measured in their profiling
 * tier. The JIT counts as settled once its total compilation time grew by at most
 * {@link #QUIET_MILLIS} over one {@link #INTERVAL_MILLIS} interval. Every peer waits the same
 * way, so the pairs stay like with like. Stateless and thread-safe.
 */
final class JitSettle {
    /** Length of one look at the compilation time. */
    static final long INTERVAL_MILLIS = 250;
    /** Compilation time, summed over the compiler threads, that still counts as quiet in one interval. */
    static final long QUIET_MILLIS = 5;

    /** How the wait sleeps (a test passes one that only advances its clock). */
    @FunctionalInterface
    interface Sleeper {
        /** Sleeps {@code millis} milliseconds. */
        void sleep(long millis) throws InterruptedException;
    }

    private JitSettle() {
    }

    /**
     * Waits until the compilers have been quiet for one interval, or {@code maxMillis} have
     * passed; returns the milliseconds waited. Returns at once when the JVM does not report
     * compilation time ({@code compileMillis} negative).
     *
     * @param compileMillis the JVM's total compilation time so far, in ms (negative: unknown)
     * @param maxMillis the longest wait
     * @param sleeper sleeps between looks
     */
    static long await(LongSupplier compileMillis, long maxMillis, Sleeper sleeper) throws InterruptedException {
        if (maxMillis < 0) {
            throw new IllegalArgumentException("maxMillis must be >= 0, not " + maxMillis);
        }
        long before = compileMillis.getAsLong();
        long waited = 0;
        while (before >= 0 && waited < maxMillis) {
            long step = Math.min(INTERVAL_MILLIS, maxMillis - waited);
            sleeper.sleep(step);
            waited += step;
            long after = compileMillis.getAsLong();
            if (after < 0 || (step == INTERVAL_MILLIS && after - before <= QUIET_MILLIS)) {
                break;
            }
            before = after;
        }
        return waited;
    }

    /** {@link #await(LongSupplier, long, Sleeper)} on this JVM's compilers, sleeping for real. */
    static long await(long maxMillis) throws InterruptedException {
        return await(JitMeter::compileMillis, maxMillis, TimeUnit.MILLISECONDS::sleep);
    }
}
