package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/** Prints a {@link CompareResult} as tables for the console. Thread-safe (stateless). */
final class CompareTable {
    private CompareTable() {
    }

    /** One table per size, then the latency table and the notes. */
    static void print(CompareResult r, PrintWriter out) {
        for (SizeResult s : r.sizes()) {
            out.printf(Locale.ROOT, "%n%d-byte messages (Gb/s of payload at the receiver)%n", s.size());
            row(out, "raw UDP (best)", s.rawUdpGbps(), "");
            row(out, "  raw UDP plain", s.rawUdpPlainGbps(), "");
            row(out, "  raw UDP GSO/GRO", s.rawUdpGsoGbps(), "");
            String check = r.metaroceFullCheckEvery() == 1 ? "every byte checked"
                    : "sampled check: 1 message in " + r.metaroceFullCheckEvery() + " checked in full";
            row(out, "MetaRoCE (best)", s.metaroceGbps(),
                    (s.metaroceVariant() == null ? "" : s.metaroceVariant() + ", ") + check);
            for (Map.Entry<String, Double> e : s.metaroceVariants().entrySet()) {
                row(out, "  MetaRoCE " + e.getKey(), e.getValue(), "");
            }
            if (r.metaroceFullCheckEvery() != 1) {
                row(out, "MetaRoCE (best), full check", s.metaroceFullCheckGbps(), "every byte filled and checked");
            }
            row(out, "TCP", s.tcpGbps(), "");
            row(out, "Aeron mtu=" + AeronPeer.LIKE_MTU, s.aeronGbps(), "");
            row(out, "Aeron mtu=" + AeronPeer.BEST_MTU, s.aeronBestGbps(), "");
            out.printf(Locale.ROOT, "  MetaRoCE/raw UDP %s   MetaRoCE/TCP %s   MetaRoCE/Aeron %s (best setting %s)%n",
                    ratio(s.metaroceOverRawUdp()), ratio(s.metaroceOverTcp()), ratio(s.metaroceOverAeron()),
                    ratio(s.metaroceOverAeronBest()));
            if (r.metaroceFullCheckEvery() != 1) {
                out.printf(Locale.ROOT, "  MetaRoCE with every byte checked/raw UDP %s%n",
                        ratio(s.metaroceFullCheckOverRawUdp()));
            }
            rounds(r, s.rounds(), out);
        }
        out.printf(Locale.ROOT, "%n%d-byte ping-pong round trip (us), after %.1f s warm-up%n", Comparison.LATENCY_SIZE,
                r.latencyWarmupSeconds());
        out.printf(Locale.ROOT, "  %-28s %10s %10s %12s%n", "", "p50", "p99", "JIT ms");
        for (Map.Entry<String, LatencyPercentiles> e : r.latency().entrySet()) {
            LatencyPercentiles l = e.getValue();
            long jit = r.latencyJitMillis().getOrDefault(e.getKey(), -1L);
            String jitText = jit < 0 ? "-" : Long.toString(jit);
            if (l == null) {
                out.printf(Locale.ROOT, "  %-28s %10s %10s %12s%n", e.getKey(), "-", "-", jitText);
            } else {
                out.printf(Locale.ROOT, "  %-28s %10.1f %10.1f %12s%n", e.getKey(), l.p50Us(), l.p99Us(), jitText);
            }
        }
        for (Map.Entry<String, double[]> e : r.latencyRatios().entrySet()) {
            double[] v = e.getValue();
            out.printf(Locale.ROOT, "  %s: %s%n", e.getKey(), v == null ? "-"
                    : String.format(Locale.ROOT, "p50 %.2f, p99 %.2f", v[0], v[1]));
        }
        out.println();
        for (String note : r.notes()) {
            out.println("note: " + note);
        }
        out.flush();
    }

    /** The rounds of one size and their medians: the goodput verdict. */
    private static void rounds(CompareResult r, Rounds rounds, PrintWriter out) {
        if (rounds.each().isEmpty()) {
            out.printf(Locale.ROOT, "  goodput verdict: the back-to-back runs above (%s)%n",
                    r.rounds() == 0 ? "--rounds 0" : "no rounds ran");
            return;
        }
        out.printf(Locale.ROOT, "  rounds: raw UDP %s, MetaRoCE %s, Aeron mtu=%d; %.2f s slices after %.2f s warm-up%n",
                rounds.rawUdpGso() ? "GSO/GRO" : "plain", rounds.metaroceVariant(), AeronPeer.LIKE_MTU,
                r.roundDurationSeconds(), r.roundWarmupSeconds());
        out.printf(Locale.ROOT, "    %5s  %-26s %9s %9s %9s %17s %15s%n", "round", "order", "raw UDP", "MetaRoCE",
                "Aeron", "MetaRoCE/raw UDP", "MetaRoCE/Aeron");
        for (Rounds.Round round : rounds.each()) {
            out.printf(Locale.ROOT, "    %5d  %-26s %9s %9s %9s %17s %15s%n", round.number(),
                    String.join(" ", round.order()), gbps(round.rawUdpGbps()), gbps(round.metaroceGbps()),
                    gbps(round.aeronGbps()), ratio(round.metaroceOverRawUdp()), ratio(round.metaroceOverAeron()));
        }
        out.printf(Locale.ROOT, "  goodput verdict, median of %d rounds: MetaRoCE/raw UDP %s%s   MetaRoCE/Aeron %s%s%n",
                rounds.each().size(), ratio(rounds.metaroceOverRawUdpMedian()), range(rounds.metaroceOverRawUdpRange()),
                ratio(rounds.metaroceOverAeronMedian()), range(rounds.metaroceOverAeronRange()));
    }

    private static String gbps(Double gbps) {
        return gbps == null ? "-" : String.format(Locale.ROOT, "%.2f", gbps);
    }

    private static String range(double[] range) {
        return range == null ? "" : String.format(Locale.ROOT, " (rounds %.2f to %.2f)", range[0], range[1]);
    }

    private static void row(PrintWriter out, String name, Double gbps, String extra) {
        out.printf(Locale.ROOT, "  %-28s %10s  %s%n", name,
                gbps == null ? "-" : String.format(Locale.ROOT, "%.2f", gbps), extra);
    }

    private static String ratio(Double r) {
        return r == null ? "-" : String.format(Locale.ROOT, "%.2f", r);
    }
}
