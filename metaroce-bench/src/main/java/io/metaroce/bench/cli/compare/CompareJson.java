package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.JsonText;
import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON form of a {@link CompareResult}: an object per size keyed by the size in bytes, then
 * {@code latency_us}, then the run's settings and notes. {@code metaroce_gbps} and the ratios are
 * with the variants' check ({@code metaroce_full_check_every}: 1 every byte, N every N-th message
 * in full and the others by their ends); {@code metaroce_full_check_gbps} and
 * {@code metaroce_full_check_over_raw_udp} are the best variant with every byte checked.
 * {@code metaroce_over_raw_udp_median} and {@code metaroce_over_aeron_median} are the goodput
 * verdict: the medians of the alternating rounds' ratios ({@code round_results}, {@link Rounds}),
 * null with {@code --rounds 0}; {@code goodput_verdict_method} says how it was reached.
 * {@code latency_only} is true when only the raw UDP and MetaRoCE ping-pongs ran (no size objects).
 * Thread-safe (stateless).
 */
final class CompareJson {
    private CompareJson() {
    }

    /** The whole result as one JSON object. */
    static String of(CompareResult r) {
        StringBuilder b = new StringBuilder("{\n");
        for (SizeResult s : r.sizes()) {
            b.append("  \"").append(s.size()).append("\": {\n");
            field(b, "raw_udp_gbps", s.rawUdpGbps());
            field(b, "raw_udp_plain_gbps", s.rawUdpPlainGbps());
            field(b, "raw_udp_gso_gbps", s.rawUdpGsoGbps());
            field(b, "metaroce_gbps", s.metaroceGbps());
            b.append("    \"metaroce_variant\": ").append(JsonText.quote(s.metaroceVariant())).append(",\n");
            b.append("    \"metaroce_variants_gbps\": {");
            String sep = "";
            for (Map.Entry<String, Double> e : s.metaroceVariants().entrySet()) {
                b.append(sep).append(JsonText.quote(e.getKey())).append(": ").append(number(e.getValue()));
                sep = ", ";
            }
            b.append("},\n");
            field(b, "tcp_gbps", s.tcpGbps());
            field(b, "aeron_gbps", s.aeronGbps());
            field(b, "aeron_best_gbps", s.aeronBestGbps());
            field(b, "metaroce_over_raw_udp", s.metaroceOverRawUdp());
            field(b, "metaroce_full_check_gbps", s.metaroceFullCheckGbps());
            field(b, "metaroce_full_check_over_raw_udp", s.metaroceFullCheckOverRawUdp());
            field(b, "metaroce_over_tcp", s.metaroceOverTcp());
            field(b, "metaroce_over_aeron", s.metaroceOverAeron());
            b.append("    \"metaroce_over_aeron_best\": ").append(number(s.metaroceOverAeronBest())).append(",\n");
            rounds(b, s.rounds());
            b.append("  },\n");
        }
        b.append("  \"latency_us\": {\n");
        String sep = "";
        for (Map.Entry<String, LatencyPercentiles> e : r.latency().entrySet()) {
            LatencyPercentiles l = e.getValue();
            b.append(sep).append("    ").append(JsonText.quote(e.getKey())).append(": ");
            b.append(l == null ? "null" : "{\"p50\": " + number(l.p50Us()) + ", \"p99\": " + number(l.p99Us())
                    + ", \"samples\": " + l.samples() + "}");
            sep = ",\n";
        }
        b.append("\n  },\n");
        b.append("  \"latency_jit_ms\": {");
        sep = "";
        for (Map.Entry<String, Long> e : r.latencyJitMillis().entrySet()) {
            b.append(sep).append(JsonText.quote(e.getKey())).append(": ").append(e.getValue());
            sep = ", ";
        }
        b.append("},\n");
        b.append("  \"latency_ratios\": {\n");
        sep = "";
        for (Map.Entry<String, double[]> e : r.latencyRatios().entrySet()) {
            double[] v = e.getValue();
            b.append(sep).append("    ").append(JsonText.quote(e.getKey())).append(": ");
            b.append(v == null ? "null" : "{\"p50\": " + number(v[0]) + ", \"p99\": " + number(v[1]) + "}");
            sep = ",\n";
        }
        b.append("\n  },\n");
        b.append("  \"date\": ").append(JsonText.quote(r.date())).append(",\n");
        b.append("  \"duration_s\": ").append(number(r.durationSeconds())).append(",\n");
        b.append("  \"warmup_s\": ").append(number(r.warmupSeconds())).append(",\n");
        b.append("  \"latency_warmup_s\": ").append(number(r.latencyWarmupSeconds())).append(",\n");
        b.append("  \"raw_udp_transport\": ").append(JsonText.quote(r.transport())).append(",\n");
        b.append("  \"metaroce_congestion_control\": ").append(JsonText.quote(r.congestionControl())).append(",\n");
        b.append("  \"metaroce_full_check_every\": ").append(r.metaroceFullCheckEvery()).append(",\n");
        b.append("  \"rounds\": ").append(r.rounds()).append(",\n");
        b.append("  \"round_duration_s\": ").append(number(r.roundDurationSeconds())).append(",\n");
        b.append("  \"round_warmup_s\": ").append(number(r.roundWarmupSeconds())).append(",\n");
        b.append("  \"goodput_verdict_method\": ").append(JsonText.quote(r.goodputVerdictMethod())).append(",\n");
        b.append("  \"latency_only\": ").append(r.latencyOnly()).append(",\n");
        b.append("  \"notes\": [");
        sep = "";
        for (String note : r.notes()) {
            b.append(sep).append("\n    ").append(JsonText.quote(note));
            sep = ",";
        }
        b.append("\n  ]\n}\n");
        return b.toString();
    }

    /**
     * A size's rounds, last in its object: the medians (null without rounds), the variant and raw
     * UDP kind they ran, the ranges and each round's figures in the order they ran.
     */
    private static void rounds(StringBuilder b, Rounds rounds) {
        field(b, "metaroce_over_raw_udp_median", rounds.metaroceOverRawUdpMedian());
        field(b, "metaroce_over_aeron_median", rounds.metaroceOverAeronMedian());
        b.append("    \"metaroce_over_raw_udp_range\": ").append(pair(rounds.metaroceOverRawUdpRange())).append(",\n");
        b.append("    \"metaroce_over_aeron_range\": ").append(pair(rounds.metaroceOverAeronRange())).append(",\n");
        b.append("    \"round_metaroce_variant\": ").append(JsonText.quote(rounds.metaroceVariant())).append(",\n");
        b.append("    \"round_raw_udp\": ")
                .append(JsonText.quote(rounds.each().isEmpty() ? null : rounds.rawUdpGso() ? "gso" : "plain"))
                .append(",\n");
        b.append("    \"round_results\": [");
        String sep = "";
        for (Rounds.Round r : rounds.each()) {
            b.append(sep).append("\n      {\"round\": ").append(r.number()).append(", \"order\": [");
            String comma = "";
            for (String peer : r.order()) {
                b.append(comma).append(JsonText.quote(peer));
                comma = ", ";
            }
            b.append("], \"raw_udp_gbps\": ").append(number(r.rawUdpGbps()))
                    .append(", \"metaroce_gbps\": ").append(number(r.metaroceGbps()))
                    .append(", \"aeron_gbps\": ").append(number(r.aeronGbps()))
                    .append(", \"metaroce_over_raw_udp\": ").append(number(r.metaroceOverRawUdp()))
                    .append(", \"metaroce_over_aeron\": ").append(number(r.metaroceOverAeron())).append("}");
            sep = ",";
        }
        b.append(rounds.each().isEmpty() ? "]\n" : "\n    ]\n");
    }

    private static String pair(double[] v) {
        return v == null ? "null" : "[" + number(v[0]) + ", " + number(v[1]) + "]";
    }

    private static void field(StringBuilder b, String name, Double value) {
        b.append("    \"").append(name).append("\": ").append(number(value)).append(",\n");
    }

    private static String number(Double value) {
        return value == null || value.isNaN() || value.isInfinite() ? "null"
                : String.format(Locale.ROOT, "%.4f", value);
    }
}
