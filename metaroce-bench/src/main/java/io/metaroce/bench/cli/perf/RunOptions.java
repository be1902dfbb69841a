package io.metaroce.bench.cli.perf;

import io.metaroce.core.EngineConfig;
import java.nio.file.Path;
import java.security.SecureRandom;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options that describe a run, shared by {@code perf client} and {@code perf loopback} (a
 * picocli mixin). The client sends the resulting {@link RunParams} to the server, which therefore
 * needs none of them. Not thread-safe: filled by picocli, read by the command.
 */
public final class RunOptions {
    /** --size without --lat. */
    static final int DEFAULT_SIZE = 8192;
    /** --size with --lat. */
    static final int DEFAULT_LATENCY_SIZE = 64;

    @Option(names = "--op", description = "Operation: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}). 'write' "
            + "posts WRITE_WITH_IMM (the receive it consumes tells the server to check the bytes); 'mixed' cycles SEND, "
            + "WRITE (read back), WRITE_WITH_IMM and READ.", defaultValue = "send")
    Op op;

    @Option(names = "--size", description = "Bytes per message (default " + DEFAULT_SIZE + ", with --lat "
            + DEFAULT_LATENCY_SIZE + ").")
    Integer size;

    @Option(names = "--streams", description = "Data streams the messages are spread over (default ${DEFAULT-VALUE}).",
            defaultValue = "4")
    int streams;

    @Option(names = "--paths", description = "Paths of the connection, one UDP source port each (default ${DEFAULT-VALUE}).",
            defaultValue = "4")
    int paths;

    @Option(names = "--duration", description = "Seconds measured (default ${DEFAULT-VALUE}).", defaultValue = "5")
    double durationSeconds;

    @Option(names = "--warmup", description = "Seconds of traffic before the measured --duration, not counted "
            + "(default ${DEFAULT-VALUE}; the JIT needs several seconds on a small machine).", defaultValue = "0")
    double warmupSeconds;

    @Option(names = "--depth", description = "Messages in flight (default ${DEFAULT-VALUE}; 1 with --lat).",
            defaultValue = "128")
    int depth;

    @Option(names = "--lat", description = "Ping-pong latency instead of bandwidth: the client SENDs, the server "
            + "SENDs it back, one outstanding (--streams and --depth do not apply); p50, p99 and p99.9 of the round trip.")
    boolean latency;

    @Option(names = "--drop", description = "Fraction of its own outgoing datagrams this side's datapath drops, to "
            + "exercise recovery (default ${DEFAULT-VALUE}; loopback: both sides).", defaultValue = "0")
    double drop;

    @Option(names = "--window", description = "Window of the connection with --cc fixed, bytes (default ${DEFAULT-VALUE}).",
            defaultValue = "16777216")
    long windowBytes;

    @Mixin
    DatapathOption datapath;

    @Mixin
    CongestionControlOption cc;

    @Option(names = "--min-rto-us", paramLabel = "US", description = "Least retransmission timeout, microseconds "
            + "(default: the engine's, EngineConfig.minRtoNanos). On a busy shared host a few ms avoids timeouts "
            + "that only measure the scheduler.")
    Long minRtoMicros;

    @Option(names = "--initial-rtt-us", paramLabel = "US", description = "Round-trip estimate before the first "
            + "sample, microseconds (default: the engine's, EngineConfig.initialRttNanos).")
    Long initialRttMicros;

    @Option(names = "--full-check-every", paramLabel = "N", defaultValue = "1",
            description = "1 (default): every SEND and WRITE_WITH_IMM message is filled and checked byte for byte. "
                    + "N > 1: a sampled check, as an application that does not touch every byte: every N-th message "
                    + "of a stream in full, the others only by their first and last 8-byte words (READs and the "
                    + "WRITEs read back are always checked in full; a latency run and --op read ignore it). A sampled "
                    + "run needs a perf server of this version: the client refuses a server that does not announce it.")
    int fullCheckEvery;

    @Option(names = "--seed", description = "Seed of the message patterns (default: random).")
    Long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON.")
    Path jsonFile;

    @Option(names = "--corrupt-every", hidden = true, paramLabel = "N", defaultValue = "0",
            description = "Testing aid: flip one byte of every N-th SEND or WRITE payload after its pattern is "
                    + "written, to show that the checks catch it (the run then fails).")
    int corruptEvery;

    /** The run these options describe; a usage error if they make no sense. */
    RunParams params(CommandSpec spec) {
        int s = size != null ? size : latency ? DEFAULT_LATENCY_SIZE : DEFAULT_SIZE;
        if (!(durationSeconds > 0) || durationSeconds > 86_400) {
            throw new ParameterException(spec.commandLine(), "--duration must be in (0, 86400] seconds");
        }
        if (!(warmupSeconds >= 0) || warmupSeconds > 86_400) {
            throw new ParameterException(spec.commandLine(), "--warmup must be in [0, 86400] seconds");
        }
        RunParams p = new RunParams(op, s, latency ? 1 : streams, paths, latency ? 1 : depth,
                (long) (durationSeconds * 1e9), (long) (warmupSeconds * 1e9), latency,
                seed != null ? seed : new SecureRandom().nextLong(), fullCheckEvery);
        String problem = p.problem();
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        checkDrop(spec, drop);
        if (windowBytes < 65_536) {
            throw new ParameterException(spec.commandLine(), "--window must be at least 65536");
        }
        if (corruptEvery < 0) {
            throw new ParameterException(spec.commandLine(), "--corrupt-every must be 0 (off) or positive");
        }
        return p;
    }

    /** The controller in words, for the run's first line: {@code cc aimd} or {@code cc fixed, window N B}. */
    String ccDescription() {
        return cc.value == CongestionControl.FIXED ? "cc fixed, window " + windowBytes + " B" : "cc " + cc.value.label();
    }

    /** The engine configuration: the defaults with --window. */
    EngineConfig config() {
        EngineConfig.Builder b = EngineConfig.defaults().toBuilder().congestionWindowBytes(windowBytes);
        if (minRtoMicros != null) {
            b.minRtoNanos(minRtoMicros * 1000);
        }
        if (initialRttMicros != null) {
            b.initialRttNanos(initialRttMicros * 1000);
        }
        return b.build();
    }

    static void checkDrop(CommandSpec spec, double drop) {
        if (!(drop >= 0 && drop < 1)) {
            throw new ParameterException(spec.commandLine(), "--drop must be in [0, 1)");
        }
    }
}
