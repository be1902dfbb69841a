package io.metaroce.bench.jmh;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link EnginePairBenchmark}'s loop for a fixed number of DATA packets, for counting the work per
 * packet with an instruction counter rather than timing it: on a shared machine with no hardware
 * counters (no {@code perf stat -e instructions}), Valgrind's callgrind counts the instructions
 * the benchmark thread executes, which the load does not change. It runs a warm-up, calls
 * {@link System#gc()}, runs {@code packets} DATA packets, and calls {@link System#gc()} again; with
 * {@code --dump-before=JVM_GC} callgrind writes its counts at each of the two calls, so the second
 * dump of the benchmark thread is the measured packets alone. {@code -Xbatch} makes the JIT compile
 * in the same order on every run, so two runs of the same jar give the same count to within a
 * fraction of a percent.
 *
 * <pre>
 * valgrind --tool=callgrind --separate-threads=yes --dump-before=JVM_GC --callgrind-out-file=/tmp/cg.%p \
 *   java -Xbatch -XX:-UsePerfData -cp metaroce-bench/target/metaroce.jar io.metaroce.bench.jmh.EnginePairWork 256 write 300000 100000
 * </pre>
 *
 * <p>(The counts of the thread named {@code main} in the second dump, divided by the packets.) A
 * command-line tool: one thread, not thread-safe.
 */
public final class EnginePairWork {
    /** How long the driver waits for its go file at most (a script that died leaves no JVM behind). */
    private static final long GO_TIMEOUT_MILLIS = 600_000;
    /** How often it looks for the go file. */
    private static final long GO_POLL_MILLIS = 50;

    private EnginePairWork() {
    }

    /**
     * Runs the warm-up and the measured packets.
     *
     * @param args payload bytes (256), {@code write} or {@code send} ({@code write}), warm-up DATA
     *     packets (300,000), measured DATA packets (100,000), a go file (none): after the warm-up,
     *     print {@code warmed up} and wait until that file exists before the measured part
     */
    public static void main(String[] args) {
        int payload = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        boolean send = args.length > 1 && args[1].equals("send");
        long warmUp = args.length > 2 ? Long.parseLong(args[2]) : 300_000;
        long packets = args.length > 3 ? Long.parseLong(args[3]) : 100_000;
        Path goFile = args.length > 4 ? Path.of(args[4]) : null;
        EnginePairBenchmark b = EnginePairBenchmark.setUpOutsideJmh(payload, send);
        drive(b, warmUp);
        if (goFile != null) {
            // A handshake, not a fixed pause, for `callgrind_control -i on` when callgrind was started
            // with --instr-atstart=no (the warm-up and the JIT's compiling then run at Valgrind's
            // uninstrumented speed): counting must be on before the first System.gc(), or callgrind
            // dumps only once and there is no count of the measured packets.
            System.out.println("warmed up");
            System.out.flush();
            if (!awaitFile(goFile)) {
                System.err.println("no " + goFile + " after " + GO_TIMEOUT_MILLIS / 1000 + " s; nothing measured");
                System.exit(2);
            }
        }
        System.gc(); // callgrind: the first dump (warm-up)
        long done = drive(b, packets);
        System.gc(); // callgrind: the second dump (the measured packets)
        b.tearDown();
        System.out.printf("%s %d B: %d DATA packets measured after %d of warm-up%n", send ? "send" : "write", payload,
                done, warmUp);
    }

    /** Whether {@code file} appeared within {@link #GO_TIMEOUT_MILLIS}. */
    private static boolean awaitFile(Path file) {
        long deadline = System.nanoTime() + GO_TIMEOUT_MILLIS * 1_000_000;
        while (!Files.exists(file)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(GO_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
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
