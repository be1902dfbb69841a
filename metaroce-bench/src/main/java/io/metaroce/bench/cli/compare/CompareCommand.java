package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.CongestionControlOption;
import io.metaroce.bench.cli.perf.RunParams;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce compare}: raw UDP, MetaRoCE, TCP and Aeron back to back on 127.0.0.1 at the same
 * message sizes and durations, and their 64-byte ping-pong. Not thread-safe (a picocli command).
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Raw UDP, MetaRoCE, TCP and Aeron back to back on 127.0.0.1.",
                "Runs, one after another at each message size: an unreliable raw UDP blast through Netty "
                + "(4096-byte datagrams, plain and with GSO/GRO where available: the UDP ceiling), MetaRoCE "
                + "(SEND and WRITE over 1 and 4 paths, 1 message in 64 checked in full by default; the best is "
                + "reported and named, then run once more with every byte checked), "
                + "TCP through the JDK's sockets, and Aeron reliable UDP unicast (embedded driver, "
                + "aeron:udp at mtu=4096 and at mtu=65504); then a 64-byte ping-pong of each. Prints a "
                + "table per size with the ratios MetaRoCE/raw UDP, MetaRoCE/TCP and MetaRoCE/Aeron. "
                + "Only ratios within one run mean much on a shared machine, and even there one run per peer "
                + "follows the load of its minute: by default (--rounds 5) raw UDP, MetaRoCE's best variant and "
                + "Aeron then run again in alternating short slices, and the goodput verdict is the median of "
                + "the rounds' ratios (metaroce_over_raw_udp_median in the JSON; metaroce_over_raw_udp is the "
                + "back-to-back runs' ratio). With --latency-only, only the raw UDP and MetaRoCE ping-pongs run."})
public final class CompareCommand implements Callable<Integer> {
    /** Message sizes when no --size is given. */
    static final List<Integer> DEFAULT_SIZES = List.of(1024, 8192, 65_536);
    /**
     * Least warm-up of a ping-pong, seconds: on the 2-vCPU reference host the JIT still compiles
     * the engine's round trip 10 s into a ping-pong (tier-4 compiles of the receive and send paths
     * queue behind each other), and a figure taken then measures the compiler, not the datapath.
     */
    static final double DEFAULT_LATENCY_WARMUP_SECONDS = 10;
    /** Largest --size. */
    static final int MAX_SIZE = 1 << 20;
    /**
     * --full-check-every by default: the raw UDP blast never writes its payload and its receiver
     * never reads it, while a MetaRoCE run that fills and checks every byte spends 9 to 13 % of each
     * side's CPU on that (docs/benchmarks.md, "Send datapath round (session 10)"); a sampled check
     * compares the transports, and the full-check run beside it keeps the application's cost in view.
     */
    static final int DEFAULT_FULL_CHECK_EVERY = 64;
    /**
     * --rounds by default: the median of five rounds outvotes two slices that a neighbour's load
     * spoiled, and five rounds of three one-second slices add about half a minute per size.
     */
    static final int DEFAULT_ROUNDS = 5;
    /** Largest --rounds. */
    static final int MAX_ROUNDS = 100;
    /** Options of the goodput runs only: refused with --latency-only, which runs none. */
    static final List<String> GOODPUT_ONLY_OPTIONS = List.of("--size", "--rounds", "--round-duration",
            "--full-check-every");
    /** A slice of a round measures this part of --duration unless --round-duration says otherwise. */
    static final double ROUND_DURATION_SHARE = 1.0 / 3;
    /**
     * A slice's warm-up, as a part of its measured time: the back-to-back runs have compiled every
     * peer's code by then, so the warm-up only covers set-up and the first round trips (MetaRoCE's
     * window opens within milliseconds on loopback).
     */
    static final double ROUND_WARMUP_SHARE = 1.0 / 4;

    @Spec
    CommandSpec spec;

    @Option(names = "--size", paramLabel = "N", description = "Bytes per message; repeat for several "
            + "(default 1024, 8192 and 65536).")
    List<Integer> sizes;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "3",
            description = "Seconds measured per run (default ${DEFAULT-VALUE}).")
    double durationSeconds;

    @Option(names = "--warmup", paramLabel = "S", description = "Seconds of traffic before each measured "
            + "part, not counted (default: a third of --duration).")
    Double warmupSeconds;

    @Option(names = "--latency-warmup", paramLabel = "S", description = "Seconds of ping-pong before each "
            + "measured ping-pong, not counted (default: the larger of --warmup and "
            + "10; on a 2-vCPU host the JIT needs about that long to compile a "
            + "round trip; the JSON's latency_jit_ms says how long it still compiled while measuring).")
    Double latencyWarmupSeconds;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON.")
    Path jsonFile;

    @Option(names = "--full-check-every", paramLabel = "N", defaultValue = "" + DEFAULT_FULL_CHECK_EVERY,
            description = "How MetaRoCE's goodput runs check their messages (default ${DEFAULT-VALUE}): 1, every "
                    + "byte of every message is filled by the sender and checked by the receiver; N > 1, a sampled "
                    + "check like the raw UDP blast's untouched payload: every N-th message of a stream in full, the "
                    + "others only by their first and last 8-byte words, and the best variant runs once more with "
                    + "every byte checked (metaroce_full_check_gbps).")
    int fullCheckEvery;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "" + DEFAULT_ROUNDS,
            description = "Rounds for the goodput verdict (default ${DEFAULT-VALUE}; 0: none, the verdict is the "
                    + "back-to-back runs'): after the back-to-back runs at each size, raw UDP (the kind, plain or "
                    + "GSO/GRO, that won the back-to-back runs at that size: round_raw_udp), MetaRoCE's best "
                    + "variant and Aeron mtu=4096 run again in short slices one after another, the order reversed "
                    + "every other round; each round's ratios and their median are printed. In the JSON, "
                    + "metaroce_over_raw_udp is the back-to-back figure (one run per peer) and "
                    + "metaroce_over_raw_udp_median (and metaroce_over_aeron_median, round_results) the rounds' "
                    + "verdict. The host's load moves between runs; slices seconds apart share it.")
    int rounds;

    @Option(names = "--round-duration", paramLabel = "S", description = "Seconds measured per slice of a round "
            + "(default: a third of --duration), each after a quarter of that of warm-up.")
    Double roundDurationSeconds;

    @Option(names = "--latency-only", description = "Only the ping-pongs of the latency goal: raw UDP and "
            + "MetaRoCE, 64 bytes, on event loops that sleep in the kernel and on busy-polling ones, each "
            + "--latency-warmup then --duration; no goodput runs, no TCP or Aeron ping-pong (about a minute with "
            + "the defaults). --size, --rounds, --round-duration and --full-check-every do not apply. The JSON "
            + "has latency_us and latency_ratios as in a full run, no size objects, and latency_only true.")
    boolean latencyOnly;

    @Mixin
    CongestionControlOption cc;

    /** Runs; see the command's description. */
    @Override
    public Integer call() throws InterruptedException, IOException {
        if (latencyOnly) {
            for (String goodputOnly : GOODPUT_ONLY_OPTIONS) {
                if (spec.commandLine().getParseResult().hasMatchedOption(goodputOnly)) {
                    throw new ParameterException(spec.commandLine(), goodputOnly + " applies to the goodput runs,"
                            + " which --latency-only leaves out: drop one of the two");
                }
            }
        }
        List<Integer> chosen = sizes == null || sizes.isEmpty() ? DEFAULT_SIZES : List.copyOf(sizes);
        for (int s : chosen) {
            if (s < 1 || s > MAX_SIZE) {
                throw new ParameterException(spec.commandLine(), "--size must be in [1, " + MAX_SIZE + "]");
            }
        }
        if (!(durationSeconds > 0) || durationSeconds > 3600) {
            throw new ParameterException(spec.commandLine(), "--duration must be in (0, 3600] seconds");
        }
        double warmup = warmupSeconds != null ? warmupSeconds : durationSeconds / 3;
        if (!(warmup >= 0) || warmup > 3600) {
            throw new ParameterException(spec.commandLine(), "--warmup must be in [0, 3600] seconds");
        }
        double latencyWarmup = latencyWarmupSeconds != null ? latencyWarmupSeconds
                : Math.max(warmup, DEFAULT_LATENCY_WARMUP_SECONDS);
        if (!(latencyWarmup >= 0) || latencyWarmup > 3600) {
            throw new ParameterException(spec.commandLine(), "--latency-warmup must be in [0, 3600] seconds");
        }
        if (fullCheckEvery < 1 || fullCheckEvery > RunParams.MAX_FULL_CHECK_EVERY) {
            throw new ParameterException(spec.commandLine(), "--full-check-every must be in [1, "
                    + RunParams.MAX_FULL_CHECK_EVERY + "]");
        }
        if (rounds < 0 || rounds > MAX_ROUNDS) {
            throw new ParameterException(spec.commandLine(), "--rounds must be in [0, " + MAX_ROUNDS + "]");
        }
        double roundDuration = roundDurationSeconds != null ? roundDurationSeconds
                : durationSeconds * ROUND_DURATION_SHARE;
        if (!(roundDuration > 0) || roundDuration > 3600) {
            throw new ParameterException(spec.commandLine(), "--round-duration must be in (0, 3600] seconds");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (latencyOnly) {
            out.printf(Locale.ROOT, "metaroce compare --latency-only: %d-byte ping-pongs of raw UDP and MetaRoCE,"
                    + " sleeping and busy-polling, %.1f s each after %.1f s warm-up, MetaRoCE cc %s, 127.0.0.1%n",
                    Comparison.LATENCY_SIZE, durationSeconds, latencyWarmup, cc.value.label());
        } else {
            header(out, chosen, warmup, latencyWarmup, roundDuration);
        }
        out.flush();
        Window window = new Window((long) (warmup * 1e9), (long) (durationSeconds * 1e9));
        Window roundWindow = new Window((long) (roundDuration * ROUND_WARMUP_SHARE * 1e9), (long) (roundDuration * 1e9));
        Window latencyWindow = new Window((long) (latencyWarmup * 1e9), (long) (durationSeconds * 1e9));
        CompareResult result = new Comparison(chosen, window, latencyWindow, new SecureRandom().nextLong(), cc.value,
                fullCheckEvery, rounds, roundWindow, latencyOnly, out).run();
        CompareTable.print(result, out);
        if (jsonFile != null) {
            Files.writeString(jsonFile, CompareJson.of(result), StandardCharsets.UTF_8);
            out.println("wrote " + jsonFile);
            out.flush();
        }
        return 0;
    }

    /** The first lines of a full run: what runs, and how the goodput verdict is reached. */
    private void header(PrintWriter out, List<Integer> chosen, double warmup, double latencyWarmup,
            double roundDuration) {
        out.printf(Locale.ROOT, "metaroce compare: sizes %s, %.1f s per run after %.1f s warm-up (ping-pongs %.1f s),"
                + " MetaRoCE cc %s, %s, 127.0.0.1%n", chosen, durationSeconds, warmup, latencyWarmup, cc.value.label(),
                fullCheckEvery == 1 ? "every byte checked"
                        : "sampled check (1 message in " + fullCheckEvery + " checked in full; best variant again in full)");
        if (rounds > 0) {
            out.printf(Locale.ROOT, "goodput verdict: median of %d rounds of alternating %.2f s slices (raw UDP,"
                    + " MetaRoCE's best variant, Aeron) after the back-to-back runs%n", rounds, roundDuration);
        } else {
            out.println("goodput verdict: the back-to-back runs (--rounds 0)");
        }
    }
}
