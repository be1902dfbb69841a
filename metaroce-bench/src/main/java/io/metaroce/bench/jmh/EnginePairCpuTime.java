package io.metaroce.bench.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * {@link EnginePairBenchmark}'s loop timed by the thread's CPU time instead of the wall clock, for
 * a machine shared with other work: time slices lost to other processes do not count, so the
 * figure says what the two engines cost, not what the machine had to spare. For each payload
 * size it first times the byte work alone ({@link DataBoundBenchmark#copyCrcTwice}: two copies and
 * two CRC32C passes, the floor under the pair). For each variant
 * ({@code write} and {@code send}, 4 KiB and 256 B payloads) it runs a warm-up, then
 * {@code blocks} blocks of {@code packets} DATA packets, and prints the CPU nanoseconds per packet
 * of every block, the best and the median, and packets per CPU-second. It checks the delivered
 * bytes at the end, as the benchmark's teardown does.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar io.metaroce.bench.jmh.EnginePairCpuTime [packets] [blocks] [warm-up packets] [payload sizes]
 * </pre>
 *
 * <p>A command-line tool: one thread, not thread-safe.
 */
public final class EnginePairCpuTime {
    private EnginePairCpuTime() {
    }

    /**
     * Runs every variant and prints its figures.
     *
     * @param args optional: DATA packets per block (default 2,000,000), blocks (5), warm-up packets (3,000,000),
     *     payload sizes in bytes, comma-separated (4096,256)
     */
    public static void main(String[] args) {
        long packets = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
        int blocks = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long warmUp = args.length > 2 ? Long.parseLong(args[2]) : 3_000_000;
        int[] payloads = args.length > 3
                ? java.util.Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {4096, 256};
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int payload : payloads) {
            byteWork(threads, payload, packets, blocks, warmUp);
            for (boolean send : new boolean[] {false, true}) {
                EnginePairBenchmark b = EnginePairBenchmark.setUpOutsideJmh(payload, send);
                drive(b, warmUp);
                double[] nanos = new double[blocks];
                StringBuilder each = new StringBuilder();
                for (int i = 0; i < blocks; i++) {
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    long done = drive(b, packets);
                    nanos[i] = (threads.getCurrentThreadCpuTime() - cpu0) / (double) done;
                    each.append(String.format(" %.0f", nanos[i]));
                }
                b.tearDown();
                java.util.Arrays.sort(nanos);
                double median = nanos[blocks / 2];
                System.out.printf("%s %5d B: ns CPU per DATA packet, blocks:%s; best %.0f, median %.0f"
                        + " -> %.2f M packets per CPU-second (median)%n", send ? "send " : "write", payload, each,
                        nanos[0], median, 1e3 / median);
            }
        }
    }

    /** Times {@link DataBoundBenchmark#copyCrcTwice}, the byte work alone, the same way. */
    private static void byteWork(ThreadMXBean threads, int payload, long packets, int blocks, long warmUp) {
        DataBoundBenchmark d = new DataBoundBenchmark();
        d.payloadBytes = payload;
        d.setup();
        int sink = 0;
        for (long i = 0; i < warmUp; i++) {
            sink += d.copyCrcTwice();
        }
        double[] nanos = new double[blocks];
        StringBuilder each = new StringBuilder();
        for (int b = 0; b < blocks; b++) {
            long cpu0 = threads.getCurrentThreadCpuTime();
            for (long i = 0; i < packets; i++) {
                sink += d.copyCrcTwice();
            }
            nanos[b] = (threads.getCurrentThreadCpuTime() - cpu0) / (double) packets;
            each.append(String.format(" %.0f", nanos[b]));
        }
        java.util.Arrays.sort(nanos);
        System.out.printf("bytes %5d B: ns CPU per packet for two copies and two CRC32C passes alone, blocks:%s;"
                + " best %.0f, median %.0f -> %.2f M packets per CPU-second (median) [%d]%n", payload, each, nanos[0],
                nanos[blocks / 2], 1e3 / nanos[blocks / 2], sink & 1);
    }

    /** Runs whole invocations of the benchmark until at least {@code packets} DATA packets went; returns how many. */
    private static long drive(EnginePairBenchmark b, long packets) {
        long start = b.dataPacketsSent();
        while (b.dataPacketsSent() - start < packets) {
            b.run();
        }
        return b.dataPacketsSent() - start;
    }
}
