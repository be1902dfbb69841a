package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.CongestionControl;
import io.metaroce.bench.cli.perf.LatencyPercentiles;
import io.metaroce.bench.cli.perf.Op;
import io.metaroce.bench.cli.perf.PerfLoopbackCommand;
import io.metaroce.bench.cli.perf.PerfReport;
import io.metaroce.bench.cli.perf.RunParams;
import io.metaroce.core.EngineConfig;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;

/**
 * MetaRoCE through {@code perf loopback}'s runner: a server and a client in this process over
 * 127.0.0.1, every byte checked or, with a sampled check, every N-th message in full and the
 * others by their ends. The variants are SEND and WRITE (WRITE_WITH_IMM, so the receiver
 * can check each message) over 1 and 4 paths, with perf's defaults otherwise (4 streams, depth
 * 128, the chosen congestion controller: by default the engine's AIMD, or a fixed 16 MiB window)
 * but receive rings of {@link #RECEIVE_RING_FACTOR} times what is in flight.
 * Thread-safe (stateless; each run builds its own endpoints).
 */
final class MetarocePeer {
    /** The variants compared, in the order they run. */
    static final List<Variant> VARIANTS = List.of(new Variant(Op.send, 1), new Variant(Op.send, 4),
            new Variant(Op.write, 1), new Variant(Op.write, 4));
    private static final int STREAMS = 4;
    private static final int DEPTH = 128;
    /**
     * The server's receive rings: twice the messages in flight (2 MiB at 8 KiB messages, against
     * perf's default 16 times, 16 MiB). These runs lose nothing on purpose, so deep rings only cost
     * the receiver cache misses (about 1 µs an 8 KiB message, "Send datapath round (session 11)" in
     * docs/benchmarks.md); the raw UDP blast's receiver reads into the same few buffers throughout.
     */
    static final int RECEIVE_RING_FACTOR = 2;
    private static final long WINDOW_BYTES = 16 << 20;

    private final long seed;
    private final CongestionControl cc;
    private final int fullCheckEvery;

    /**
     * @param fullCheckEvery how the goodput runs check their messages ({@link RunParams#fullCheckEvery}):
     *     1 every byte, N every N-th message in full and the others by their ends
     */
    MetarocePeer(long seed, CongestionControl cc, int fullCheckEvery) {
        this.seed = seed;
        this.cc = cc;
        this.fullCheckEvery = fullCheckEvery;
    }

    /** One MetaRoCE setting. */
    record Variant(Op op, int paths) {
        /** For example {@code send/4 paths}. */
        String label() {
            return op.name().toUpperCase(java.util.Locale.ROOT) + ", " + paths + (paths == 1 ? " path" : " paths");
        }
    }

    /**
     * Goodput of {@code variant} at {@code size}, in Gb/s, with this peer's check of the messages;
     * fails if any checked byte was wrong or nothing moved.
     */
    double goodput(Variant variant, int size, Window window) throws InterruptedException {
        return goodput(variant, size, window, fullCheckEvery);
    }

    /** As {@link #goodput(Variant, int, Window)} with every byte of every message filled and checked. */
    double goodputFullCheck(Variant variant, int size, Window window) throws InterruptedException {
        return goodput(variant, size, window, 1);
    }

    /** Whether {@link #goodput(Variant, int, Window)} checks only a sample of the messages in full. */
    boolean sampled() {
        return fullCheckEvery > 1;
    }

    private double goodput(Variant variant, int size, Window window, int checkEvery) throws InterruptedException {
        RunParams params = new RunParams(variant.op(), size, STREAMS, variant.paths(), DEPTH, window.durationNanos(),
                window.warmupNanos(), false, seed, checkEvery, RECEIVE_RING_FACTOR);
        return checked(run(params)).goodputGbps();
    }

    /**
     * Ping-pong (SEND, echoed) of {@code size}-byte messages over one path; with {@code busyPoll}
     * both endpoints' event loops busy-poll.
     */
    LatencyPercentiles pingPong(int size, Window window, boolean busyPoll) throws InterruptedException {
        RunParams params = new RunParams(Op.send, size, 1, 1, 1, window.durationNanos(), window.warmupNanos(), true,
                seed);
        return checked(run(params, busyPoll, window.onWarm())).latency();
    }

    private PerfReport run(RunParams params) throws InterruptedException {
        return run(params, false, () -> { });
    }

    private PerfReport run(RunParams params, boolean busyPoll, Runnable onWarm) throws InterruptedException {
        String problem = params.problem();
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        EngineConfig config = EngineConfig.defaults().toBuilder().congestionWindowBytes(WINDOW_BYTES).build();
        return PerfLoopbackCommand.run(params, 0, config, busyPoll, cc, onWarm, new PrintWriter(Writer.nullWriter()));
    }

    private static PerfReport checked(PerfReport report) {
        if (!report.verified()) {
            throw new IllegalStateException("MetaRoCE run not verified: " + report.resultText());
        }
        return report;
    }
}
