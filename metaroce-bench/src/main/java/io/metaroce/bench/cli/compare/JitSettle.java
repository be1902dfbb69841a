package io.metaroce.bench.cli.compare;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Waits, before a ping-pong starts, until the JIT has finished what earlier runs left it to
 * compile. On the 2-vCPU reference host under load the C2 queue still held 20 to 80 methods
 * when {@code compare} reached MetaRoCE's ping-pong (those of the throughput runs and of raw
 * UDP's ping-pong among them), and the JIT compiled 1.5 to 3.4 s during a 2 s measured part: the
 * ping-pong's own methods queued behind the earlier runs' and were measured in their profiling
 * tier. The JIT counts as settled once nothing is queued or being compiled (HotSpot's
 * {@code Compiler.queue} diagnostic command), or, where that cannot be read, once its total
 * compilation time grew by at most {@link #QUIET_MILLIS} over one {@link #INTERVAL_MILLIS}
 * interval (a weaker test: the time grows only when a compile ends). Every peer waits the same
 * way, so the pairs stay like with like. Stateless and thread-safe.
 */
final class JitSettle {
    /** Length of one look at the compilation time. */
    static final long INTERVAL_MILLIS = 250;
    /** Compilation time, summed over the compiler threads, that still counts as quiet in one interval. */
    static final long QUIET_MILLIS = 5;

    /** A queued compile ("id level method") or one in progress ("C2 CompilerThread0 id level method"). */
    // HotSpot right-aligns the compile id: ids below 1000 start with a space.
    private static final Pattern COMPILE_LINE = Pattern.compile("(?m)^([ \\t]*\\d+\\s|\\S.*CompilerThread\\d+\\s+\\d)");

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
        return await(() -> -1, compileMillis, maxMillis, sleeper);
    }

    /**
     * As {@link #await(LongSupplier, long, Sleeper)}, but where {@code pendingCompiles} is known
     * (not negative) the JIT has settled when it is 0, whatever the compilation time did.
     *
     * @param pendingCompiles compiles queued or in progress now (negative: unknown)
     */
    static long await(IntSupplier pendingCompiles, LongSupplier compileMillis, long maxMillis, Sleeper sleeper)
            throws InterruptedException {
        if (maxMillis < 0) {
            throw new IllegalArgumentException("maxMillis must be >= 0, not " + maxMillis);
        }
        int pending = pendingCompiles.getAsInt();
        if (pending == 0) {
            return 0;
        }
        long before = compileMillis.getAsLong();
        long waited = 0;
        // Either measure suffices: a readable queue with an unreadable compilation time still waits.
        while ((pending >= 0 || before >= 0) && waited < maxMillis) {
            long step = Math.min(INTERVAL_MILLIS, maxMillis - waited);
            sleeper.sleep(step);
            waited += step;
            pending = pendingCompiles.getAsInt();
            long after = compileMillis.getAsLong();
            boolean quiet = pending >= 0 ? pending == 0
                    : before >= 0 && after >= 0 && step == INTERVAL_MILLIS && after - before <= QUIET_MILLIS;
            if (pending < 0 && after < 0 || quiet) {
                break;
            }
            before = after;
        }
        return waited;
    }

    /**
     * Compiles queued or in progress in this JVM, from HotSpot's {@code Compiler.queue}
     * diagnostic command; -1 where it cannot be read (another JVM, no such command).
     */
    static int pendingCompiles() {
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue",
                    new Object[] {null}, new String[] {String[].class.getName()});
            return text instanceof String s ? pendingCompiles(s) : -1;
        } catch (Exception | LinkageError e) {
            return -1;
        }
    }

    /** Compiles queued or in progress in a {@code Compiler.queue} listing. */
    static int pendingCompiles(String listing) {
        return (int) COMPILE_LINE.matcher(listing).results().count();
    }

    /** {@link #await(LongSupplier, long, Sleeper)} on this JVM's compilers, sleeping for real. */
    static long await(long maxMillis) throws InterruptedException {
        return await(JitSettle::pendingCompiles, JitMeter::compileMillis, maxMillis, TimeUnit.MILLISECONDS::sleep);
    }
}
