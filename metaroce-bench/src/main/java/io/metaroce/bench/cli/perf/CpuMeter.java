package io.metaroce.bench.cli.perf;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What the whole process spent on a run's measured part: CPU time (every thread: both event
 * loops, the JIT compiler threads, the runner's own checks) and the JIT's compilation time. A
 * goodput figure on a shared machine says as much about the scheduler as about the transport; the
 * CPU per message does not depend on how much of a core the process got, and the JIT time says
 * whether the part measured a compiled engine. A meter is started ({@link #start}) at the measured
 * part's start and read once at its end ({@link #line}).
 *
 * <p>Not thread-safe: started and read by one thread.
 */
final class CpuMeter {
    private long cpuStart;
    private long jitStart;

    /** A meter started now. */
    CpuMeter() {
        start();
    }

    /** (Re)starts the meter: the measured part begins now. */
    void start() {
        cpuStart = processCpuNanos();
        // The JVM's running total, not jitMillis(): that one is relative to the previous start, so a
        // restart would leave the JIT time before the meter was created in every later reading.
        jitStart = jitMillisNow();
    }

    /** CPU nanoseconds of the process since {@link #start}, or -1 where the JVM cannot tell. */
    long cpuNanos() {
        long now = processCpuNanos();
        return now < 0 || cpuStart < 0 ? -1 : now - cpuStart;
    }

    /** Milliseconds the JIT compiled since {@link #start}, or -1 where the JVM cannot tell. */
    long jitMillis() {
        long now = jitMillisNow();
        return now < 0 || jitStart < 0 ? -1 : now - jitStart;
    }

    /**
     * The console line for {@code messages} measured since {@link #start}: for example {@code cpu:
     * 5.84 s of the process over the measured part, 13.67 us per message; JIT 197 ms}.
     */
    String line(long messages) {
        long cpu = cpuNanos();
        if (cpu < 0) {
            return "cpu: not measurable in this JVM";
        }
        return String.format(Locale.ROOT, "cpu: %.2f s of the process over the measured part, %.2f us per message;"
                + " JIT %d ms", cpu / 1e9, cpu / 1e3 / Math.max(1, messages), jitMillis());
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static long jitMillisNow() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }
}
