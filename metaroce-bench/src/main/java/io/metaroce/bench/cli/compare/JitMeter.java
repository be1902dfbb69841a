package io.metaroce.bench.cli.compare;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * How long the JIT compilers worked during a run's measured part, from the JVM's
 * {@link CompilationMXBean}: a reading is taken when the warm-up ends (by a virtual thread that
 * sleeps through it) and another when the run returns. On a 2-vCPU host the compiler threads
 * compete with the event loops for the cores, and a ping-pong measured while they still compile
 * the engine's receive and send paths measures the JIT; a figure taken with the JIT quiet
 * measures the datapath. Thread-safe: one meter per run, read once by its caller.
 */
final class JitMeter {
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();

    private final Thread sampler;
    private volatile long atWarmupEnd = -1;

    private JitMeter(long warmupNanos) {
        sampler = Thread.ofVirtual().unstarted(() -> {
            try {
                TimeUnit.NANOSECONDS.sleep(warmupNanos);
                atWarmupEnd = compileMillis();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Starts metering a run that begins now and warms up for {@code warmupNanos}. */
    static JitMeter start(long warmupNanos) {
        JitMeter meter = new JitMeter(warmupNanos);
        meter.sampler.start();
        return meter;
    }

    /**
     * Milliseconds the JIT compiled from the warm-up's end until now (call when the run returns),
     * or -1 if the JVM does not report compilation time or the run ended within its warm-up.
     */
    long measuredMillis() {
        sampler.interrupt();
        long start = atWarmupEnd;
        long now = compileMillis();
        return start < 0 || now < 0 ? -1 : now - start;
    }

    private static long compileMillis() {
        return COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported()
                ? COMPILER.getTotalCompilationTime() : -1;
    }
}
