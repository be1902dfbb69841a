package io.metaroce.bench.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@link EnginePairCpuTime} for two builds at once: loads {@link EnginePairBenchmark} from two
 * shaded jars (A, say main, and B, a branch) into one JVM, each through its own class loader, and
 * times blocks of DATA packets of A and B by turns (AB, then BA), in thread CPU time. On a shared
 * machine the load changes from second to second; blocks that alternate within a second see the
 * same load, so the ratio B/A of each pair of blocks is steadier than two runs one after the other.
 * Prints every pair, each side's median and best, and the median and range of the ratios.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar io.metaroce.bench.jmh.EnginePairInterleaved A.jar B.jar [payload sizes] [packets per block] [rounds] [warm-up packets]
 * </pre>
 *
 * <p>A command-line tool: one thread, not thread-safe.
 */
public final class EnginePairInterleaved {
    private EnginePairInterleaved() {
    }

    private static final ThreadMXBean T = ManagementFactory.getThreadMXBean();

    /** One jar's benchmark instance, driven through reflection (its classes are not this loader's). */
    private static final class Bench {
        private final Object benchmark;
        private final Method run;
        private final Method sent;
        private final Method tearDown;

        Bench(ClassLoader loader, int payload, boolean send) throws Exception {
            Class<?> c = loader.loadClass(EnginePairBenchmark.class.getName());
            benchmark = c.getDeclaredConstructor().newInstance();
            set(c, "messageBytes", 1 << 20);
            set(c, "batch", 16);
            set(c, "payloadBytes", payload);
            Method setup = c.getDeclaredMethod("setup", boolean.class);
            setup.setAccessible(true);
            setup.invoke(benchmark, send);
            run = c.getDeclaredMethod("run");
            run.setAccessible(true);
            sent = c.getDeclaredMethod("dataPacketsSent");
            sent.setAccessible(true);
            tearDown = c.getDeclaredMethod("tearDown");
        }

        private void set(Class<?> c, String field, int value) throws Exception {
            Field f = c.getDeclaredField(field);
            f.setAccessible(true);
            f.setInt(benchmark, value);
        }

        private long sent() throws Exception {
            return (long) sent.invoke(benchmark);
        }

        /** Runs whole invocations until at least {@code packets} DATA packets went; returns CPU ns per packet. */
        double block(long packets) throws Exception {
            long start = sent();
            long cpu0 = T.getCurrentThreadCpuTime();
            while (sent() - start < packets) {
                run.invoke(benchmark);
            }
            return (T.getCurrentThreadCpuTime() - cpu0) / (double) (sent() - start);
        }

        /** The benchmark's teardown: fails if anything was resent or the delivered bytes differ. */
        void finish() throws Exception {
            tearDown.invoke(benchmark);
        }
    }

    /**
     * Times both jars' engine pair by turns and prints the figures.
     *
     * @param a jar A, jar B, then optional: payload sizes, comma-separated (256), DATA packets per
     *     block (300,000), rounds (12), warm-up packets (1,000,000)
     * @throws Exception if a jar cannot be loaded or its benchmark fails
     */
    public static void main(String[] a) throws Exception {
        if (a.length < 2) {
            throw new IllegalArgumentException("usage: EnginePairInterleaved A.jar B.jar [sizes] [packets] [rounds] [warm-up]");
        }
        ClassLoader la = new URLClassLoader(new URL[] {Path.of(a[0]).toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        ClassLoader lb = new URLClassLoader(new URL[] {Path.of(a[1]).toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        int[] sizes = Arrays.stream((a.length > 2 ? a[2] : "256").split(",")).mapToInt(Integer::parseInt).toArray();
        long packets = a.length > 3 ? Long.parseLong(a[3]) : 300_000;
        int rounds = a.length > 4 ? Integer.parseInt(a[4]) : 12;
        long warm = a.length > 5 ? Long.parseLong(a[5]) : 1_000_000;
        for (int size : sizes) {
            for (boolean send : new boolean[] {false, true}) {
                Bench x = new Bench(la, size, send);
                Bench y = new Bench(lb, size, send);
                x.block(warm);
                y.block(warm);
                double[] xa = new double[rounds];
                double[] ya = new double[rounds];
                double[] ratio = new double[rounds];
                StringBuilder each = new StringBuilder();
                for (int i = 0; i < rounds; i++) {
                    // AB, then BA: neither side always runs right after the JIT's work for the other.
                    if (i % 2 == 0) {
                        xa[i] = x.block(packets);
                        ya[i] = y.block(packets);
                    } else {
                        ya[i] = y.block(packets);
                        xa[i] = x.block(packets);
                    }
                    ratio[i] = ya[i] / xa[i];
                    each.append(String.format(" %.0f/%.0f", xa[i], ya[i]));
                }
                x.finish();
                y.finish();
                Arrays.sort(xa);
                Arrays.sort(ya);
                Arrays.sort(ratio);
                System.out.printf("%s %4d B: ns CPU per DATA packet, A/B per round:%s%n  A median %.0f best %.0f"
                        + " | B median %.0f best %.0f | B/A median %.3f (%.3f..%.3f)%n", send ? "send " : "write", size,
                        each, xa[rounds / 2], xa[0], ya[rounds / 2], ya[0], ratio[rounds / 2], ratio[0],
                        ratio[rounds - 1]);
            }
        }
    }
}
