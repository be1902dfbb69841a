package io.metaroce.bench.cli.compare;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * How long the JIT compilers worked during a run's measured part, from the JVM's
 * {@link CompilationMXBean}: a reading is taken when the peer finds its warm-up over (it calls
 * {@link #warmupEnded()} through its {@link Window}, after its own set-up, which compiles much of
 * its own) and another when the run returns. On a 2-vCPU host the compiler threads compete with
 * the event loops for the cores, and a ping-pong measured while they still compile the engine's
 * receive and send paths measures the JIT; a figure taken with the JIT quiet measures the
 * datapath. Thread-safe: {@link #warmupEnded()} may run on any thread, many times (the first one
 * counts); {@link #measuredMillis()} is read once by the meter's owner.
 */
final class JitMeter {
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    /** Not yet read. */
    private static final long UNREAD = Long.MIN_VALUE;

    private volatile long atWarmupEnd = UNREAD;

    /** A meter of a run that has not yet ended its warm-up. */
    JitMeter() {
    }

    /** The peer's warm-up is over: the first call reads the compilation time, later ones do nothing. */
    void warmupEnded() {
        if (atWarmupEnd == UNREAD) {
            atWarmupEnd = compileMillis();
        }
    }

    /**
     * Milliseconds the JIT compiled from the warm-up's end until now (call when the run returns),
     * or -1 if the JVM does not report compilation time or the run never ended its warm-up.
     */
    long measuredMillis() {
        long start = atWarmupEnd;
        long now = compileMillis();
        return start == UNREAD || start < 0 || now < 0 ? -1 : now - start;
    }

    /** The JVM's total compilation time so far, ms (summed over the compiler threads), or -1 if not reported. */
    static long compileMillis() {
        return COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported()
                ? COMPILER.getTotalCompilationTime() : -1;
    }
}
