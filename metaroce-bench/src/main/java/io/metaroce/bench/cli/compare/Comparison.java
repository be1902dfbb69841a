package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.CongestionControl;
import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs every peer back to back, one at a time, at each message size and then the ping-pong, and
 * collects the figures (or, latency only, just the raw UDP and MetaRoCE ping-pongs). A peer that fails gives null and a note rather than ending the comparison.
 * Not thread-safe: one {@link #run} at a time.
 */
final class Comparison {
    /** Bytes per ping-pong message. */
    static final int LATENCY_SIZE = 64;
    /** Latency keys of the busy-polling pair (event loops that never sleep in the kernel). */
    static final String RAW_UDP_BUSY_POLL = "raw_udp_busy_poll";
    static final String METAROCE_BUSY_POLL = "metaroce_busy_poll";

    private final List<Integer> sizes;
    private final Window window;
    /** The ping-pongs' window: its warm-up gives the JIT time to compile each peer's round trip. */
    private final Window latencyWindow;
    private final PrintWriter progress;
    private final RawUdpPeer rawUdp = new RawUdpPeer();
    private final TcpPeer tcp = new TcpPeer();
    private final AeronPeer aeron = new AeronPeer();
    private final MetarocePeer metaroce;
    private final List<String> notes = new ArrayList<>();
    /** Per ping-pong: milliseconds the JIT compiled during its measured part (-1 if not known). */
    private final Map<String, Long> latencyJitMillis = new LinkedHashMap<>();
    /** Per ping-pong: milliseconds waited before it for the JIT to settle ({@link JitSettle}). */
    private final Map<String, Long> latencySettleMillis = new LinkedHashMap<>();

    private final CongestionControl cc;

    private final int fullCheckEvery;

    /** Alternating rounds per size for the goodput verdict ({@link Rounds}); 0 for none. */
    private final int rounds;
    /** Each slice of a round: a short warm-up (the code is compiled by then) and a short window. */
    private final Window roundWindow;
    /** Only the raw UDP and MetaRoCE ping-pongs, sleeping and busy-polling (no sizes, TCP or Aeron). */
    private final boolean latencyOnly;

    /**
     * @param fullCheckEvery how the MetaRoCE goodput runs check their messages: 1 every byte, N every
     *     N-th message in full and the others by their ends; with N &gt; 1 the best variant runs once
     *     more with every byte checked
     * @param rounds after the back-to-back runs at each size, how many rounds of alternating slices
     *     (raw UDP, MetaRoCE's best variant, Aeron) to run for the goodput verdict; 0 for none
     * @param roundWindow each slice's warm-up and measured window
     * @param latencyOnly run only the ping-pongs of the latency goal: raw UDP and MetaRoCE on sleeping
     *     and on busy-polling loops ({@code sizes} then unused)
     */
    Comparison(List<Integer> sizes, Window window, Window latencyWindow, long seed, CongestionControl cc,
            int fullCheckEvery, int rounds, Window roundWindow, boolean latencyOnly, PrintWriter progress) {
        this.sizes = List.copyOf(sizes);
        this.window = window;
        this.latencyWindow = latencyWindow;
        this.cc = cc;
        this.fullCheckEvery = fullCheckEvery;
        this.rounds = rounds;
        this.roundWindow = roundWindow;
        this.latencyOnly = latencyOnly;
        this.metaroce = new MetarocePeer(seed, cc, fullCheckEvery);
        this.progress = progress;
    }

    /** A figure-producing run that may fail. */
    @FunctionalInterface
    interface Attempt<T> {
        T run() throws Exception;
    }

    /** Runs everything; see the class comment. */
    CompareResult run() throws InterruptedException {
        String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<SizeResult> results = new ArrayList<>();
        if (latencyOnly) {
            notes.add("latency only (--latency-only): no goodput runs; the ping-pongs of raw UDP and MetaRoCE"
                    + " (1 path, " + cc.label() + "), not TCP's or Aeron's");
        } else {
            goodputNotes();
            for (int size : sizes) {
                results.add(runSize(size));
            }
        }
        notes.add("latency: raw_udp and metaroce on event loops that sleep in the kernel between datagrams;"
                + " raw_udp_busy_poll and metaroce_busy_poll on event loops that poll on every turn");
        Map<String, LatencyPercentiles> latency = new LinkedHashMap<>();
        latency.put("raw_udp", latency("raw_udp", w -> rawUdp.pingPong(LATENCY_SIZE, w, false)));
        latency.put("metaroce", latency("metaroce", w -> metaroce.pingPong(LATENCY_SIZE, w, false)));
        // Like with like: both on busy-polling event loops.
        latency.put(RAW_UDP_BUSY_POLL, latency(RAW_UDP_BUSY_POLL, w -> rawUdp.pingPong(LATENCY_SIZE, w, true)));
        latency.put(METAROCE_BUSY_POLL, latency(METAROCE_BUSY_POLL, w -> metaroce.pingPong(LATENCY_SIZE, w, true)));
        if (!latencyOnly) {
            latency.put("tcp", latency("tcp", w -> tcp.pingPong(LATENCY_SIZE, w)));
            latency.put("aeron", latency("aeron", w -> aeron.pingPong(LATENCY_SIZE, w)));
        }
        notes.add("latency: before each ping-pong, waited for the JIT to finish what earlier runs queued (at most the"
                + " ping-pong warm-up), ms: " + latencySettleMillis);
        return new CompareResult(date, window.durationNanos() / 1e9, window.warmupNanos() / 1e9,
                latencyWindow.warmupNanos() / 1e9, rawUdp.transport(), cc.label(), results, latency, latencyJitMillis,
                notes, fullCheckEvery, latencyOnly ? 0 : rounds, roundWindow.durationNanos() / 1e9,
                roundWindow.warmupNanos() / 1e9, verdictMethod(), latencyOnly);
    }

    /** The notes that say how the goodput runs' peers are set up and how the verdict is reached. */
    private void goodputNotes() {
        if (!rawUdp.gsoSupported()) {
            notes.add("raw UDP: GSO/GRO not available here (" + rawUdp.transport() + "); plain datagrams only");
        }
        notes.add("raw UDP: unreliable, " + rawUdp.transport() + " event loops, datagrams of "
                + RawUdpPeer.DATAGRAM + " B (GSO: up to " + RawUdpPeer.GSO_BYTES + " B per send, GRO on); the sender"
                + " resends one buffer it never writes, the receiver counts bytes and reads none of them");
        notes.add("aeron: embedded driver, dedicated threading mode with yielding idle strategies; aeron_gbps at mtu=" + AeronPeer.LIKE_MTU
                + ", aeron_best_gbps at mtu=" + AeronPeer.BEST_MTU + "; 2 MiB receiver window and socket buffers");
        notes.add("metaroce: perf loopback runner, direct posting, "
                + (fullCheckEvery == 1 ? "every byte of every message filled and checked"
                        : "sampled check (metaroce_gbps): 1 message in " + fullCheckEvery + " of a stream filled and"
                        + " checked byte for byte, the others only their first and last 8-byte words (like the raw"
                        + " UDP blast, the application does not touch the rest); metaroce_full_check_gbps: the best"
                        + " variant run again with every byte filled and checked")
                + "; 4 streams, depth 128, receive buffers reused after " + MetarocePeer.RECEIVE_RING_FACTOR
                + " times what is in flight (perf's default: 16),"
                + (cc == CongestionControl.FIXED ? " congestion control off (fixed 16 MiB window)"
                        : " AIMD congestion control (the engine's default)"));
        notes.add("goodput verdict: " + verdictMethod());
    }

    /** A ping-pong in a given window. */
    @FunctionalInterface
    interface PingPong {
        LatencyPercentiles run(Window window) throws Exception;
    }

    /**
     * One ping-pong, with the JIT's work during its measured part recorded under {@code key}: the
     * meter reads when the peer, set up and warmed up, starts measuring. It starts once the JIT
     * has settled ({@link JitSettle}, at most the ping-pong's warm-up), so that its warm-up
     * compiles its own round trip rather than what the runs before it left queued.
     */
    private LatencyPercentiles latency(String key, PingPong run) throws InterruptedException {
        latencySettleMillis.put(key, JitSettle.await(latencyWindow.warmupNanos() / 1_000_000));
        JitMeter jit = new JitMeter();
        Window w = latencyWindow.onWarm(jit::warmupEnded);
        LatencyPercentiles result = attempt(key + " latency", () -> run.run(w));
        latencyJitMillis.put(key, jit.measuredMillis());
        return result;
    }

    private SizeResult runSize(int size) throws InterruptedException {
        Double plain = rawUdp(size, false);
        Double gso = rawUdp.gsoSupported() ? rawUdp(size, true) : null;
        Map<String, Double> variants = new LinkedHashMap<>();
        for (MetarocePeer.Variant v : MetarocePeer.VARIANTS) {
            variants.put(v.label(), attempt(size + " B MetaRoCE " + v.label(), () -> metaroce.goodput(v, size, window)));
        }
        Double fullCheck = null;
        if (!metaroce.sampled()) {
            fullCheck = best(variants);
        } else {
            MetarocePeer.Variant best = bestVariant(variants);
            if (best != null) {
                fullCheck = attempt(size + " B MetaRoCE " + best.label() + ", full check",
                        () -> metaroce.goodputFullCheck(best, size, window));
            }
        }
        Double tcpGbps = attempt(size + " B TCP", () -> tcp.blast(size, window));
        Double aeronGbps = attempt(size + " B Aeron mtu=" + AeronPeer.LIKE_MTU,
                () -> aeron.blast(size, AeronPeer.LIKE_MTU, window));
        Double aeronBest = attempt(size + " B Aeron mtu=" + AeronPeer.BEST_MTU,
                () -> aeron.blast(size, AeronPeer.BEST_MTU, window));
        MetarocePeer.Variant best = bestVariant(variants);
        Rounds verdictRounds = Rounds.NONE;
        if (rounds > 0 && best == null) {
            notes.add(size + " B: no MetaRoCE variant ran, so no rounds");
        } else if (rounds > 0) {
            verdictRounds = rounds(size, best, Rounds.rawUdpGso(plain, gso));
        }
        return new SizeResult(size, plain, gso, variants, tcpGbps, aeronGbps, aeronBest, fullCheck, verdictRounds);
    }

    /** How the goodput verdict is reached, for the notes and the JSON. */
    private String verdictMethod() {
        if (latencyOnly) {
            return "none: no goodput runs (--latency-only)";
        }
        if (rounds == 0) {
            return "the back-to-back runs, one per peer (--rounds 0)";
        }
        return String.format(Locale.ROOT, "the median over %d rounds of the ratio within a round;"
                + " a round runs raw UDP of the kind that won the back-to-back runs at that size (%s;"
                + " round_raw_udp), MetaRoCE's best variant of the back-to-back runs (with their check)"
                + " and Aeron mtu=%d one after another, each for %.3f s after %.3f s of warm-up, the order reversed"
                + " every other round", rounds, rawUdp.gsoSupported() ? "plain or GSO/GRO" : "plain, no GSO here",
                AeronPeer.LIKE_MTU,
                roundWindow.durationNanos() / 1e9, roundWindow.warmupNanos() / 1e9);
    }

    /**
     * The verdict's rounds at one size with MetaRoCE's {@code best} variant and the raw UDP kind
     * that won the back-to-back runs ({@code gso}, {@link Rounds#rawUdpGso}); see {@link Rounds}.
     */
    private Rounds rounds(int size, MetarocePeer.Variant best, boolean gso) throws InterruptedException {
        List<Rounds.Round> each = new ArrayList<>();
        for (int n = 1; n <= rounds; n++) {
            List<String> order = Rounds.order(n);
            Map<String, Double> got = new LinkedHashMap<>();
            for (String peer : order) {
                String what = size + " B round " + n + " ";
                got.put(peer, switch (peer) {
                    case Rounds.RAW_UDP -> {
                        RawUdpPeer.Blast b = attempt(what + "raw UDP" + (gso ? " GSO/GRO" : ""),
                                () -> rawUdp.blast(size, gso, roundWindow));
                        yield b == null ? null : b.receivedGbps();
                    }
                    case Rounds.METAROCE -> attempt(what + "MetaRoCE " + best.label(),
                            () -> metaroce.goodput(best, size, roundWindow));
                    case Rounds.AERON -> attempt(what + "Aeron mtu=" + AeronPeer.LIKE_MTU,
                            () -> aeron.blast(size, AeronPeer.LIKE_MTU, roundWindow));
                    default -> throw new IllegalStateException("no such peer: " + peer);
                });
            }
            each.add(new Rounds.Round(n, order, got.get(Rounds.RAW_UDP), got.get(Rounds.METAROCE),
                    got.get(Rounds.AERON)));
        }
        return new Rounds(best.label(), gso, each);
    }

    /** The variant with the best goodput, or null if none ran. */
    private static MetarocePeer.Variant bestVariant(Map<String, Double> byLabel) {
        MetarocePeer.Variant best = null;
        double bestGbps = 0;
        for (MetarocePeer.Variant v : MetarocePeer.VARIANTS) {
            Double g = byLabel.get(v.label());
            if (g != null && (best == null || g > bestGbps)) {
                best = v;
                bestGbps = g;
            }
        }
        return best;
    }

    private static Double best(Map<String, Double> byLabel) {
        MetarocePeer.Variant v = bestVariant(byLabel);
        return v == null ? null : byLabel.get(v.label());
    }

    /** A raw UDP blast; a note says how much of what was sent arrived, when not nearly all. */
    private Double rawUdp(int size, boolean gso) throws InterruptedException {
        String what = size + " B raw UDP" + (gso ? " GSO/GRO" : "");
        RawUdpPeer.Blast blast = attempt(what, () -> rawUdp.blast(size, gso, window));
        if (blast == null) {
            return null;
        }
        if (blast.deliveredFraction() < 0.95) {
            notes.add(String.format(Locale.ROOT, "%s: the receiver got %.0f%% of what the sender wrote", what,
                    blast.deliveredFraction() * 100));
        }
        return blast.receivedGbps();
    }

    private <T> T attempt(String what, Attempt<T> attempt) throws InterruptedException {
        progress.printf(Locale.ROOT, "  %-36s ", what);
        progress.flush();
        try {
            T value = attempt.run();
            progress.println(value instanceof Double d ? String.format(Locale.ROOT, "%.2f Gb/s", d)
                    : value instanceof RawUdpPeer.Blast b ? String.format(Locale.ROOT,
                            "%.2f Gb/s (%.0f%% of what was sent)", b.receivedGbps(), b.deliveredFraction() * 100)
                    : value instanceof LatencyPercentiles l
                            ? String.format(Locale.ROOT, "p50 %.1f us, p99 %.1f us", l.p50Us(), l.p99Us())
                            : String.valueOf(value));
            progress.flush();
            return value;
        } catch (InterruptedException e) {
            throw e;
        } catch (Throwable e) {
            String why = e.getClass().getSimpleName() + ": " + e.getMessage();
            progress.println("failed (" + why + ")");
            progress.flush();
            notes.add(what + " failed: " + why);
            return null;
        }
    }
}
