package io.metaroce.bench.cli.perf;

import io.metaroce.bench.cli.JsonText;

/**
 * The {@code --json} document of a run. Fields: {@code op}, {@code size}, {@code streams},
 * {@code paths}, {@code duration_s}, {@code goodput_gbps}, {@code messages_per_s},
 * {@code retransmits}, {@code verified}, {@code full_check_every} (1: every message checked byte
 * for byte; N: every N-th in full, the others by their ends), {@code errors}, {@code datapath} (the client's socket
 * layer: {@code linux} or {@code nio}), {@code congestion_control} (the client's controller:
 * {@code aimd} or {@code fixed}), {@code per_path} (objects with
 * {@code path}, {@code src_port}, {@code packets}, {@code bytes}, {@code srtt_us},
 * {@code ecn_fraction}, {@code state}) and, for a latency run, {@code latency_us} with
 * {@code p50}, {@code p99}, {@code p999}. A latency run's {@code op} is {@code "lat"}.
 *
 * <p>No JSON library is on the classpath, so this writes the fixed shape by hand; strings are
 * escaped per RFC 8259 and non-finite numbers become {@code null}. Thread-safe (stateless).
 */
final class PerfJson {
    private PerfJson() {
    }

    /** The document, ending with a newline. */
    public static String of(PerfReport r) {
        RunParams p = r.params();
        StringBuilder b = new StringBuilder(1024);
        b.append("{\n");
        field(b, "op", JsonText.quote(p.latency() ? "lat" : p.op().name()));
        field(b, "size", Long.toString(p.size()));
        field(b, "streams", Long.toString(p.streams()));
        field(b, "paths", Long.toString(p.paths()));
        field(b, "duration_s", number(r.durationSeconds()));
        field(b, "goodput_gbps", number(r.goodputGbps()));
        field(b, "messages_per_s", number(r.messagesPerSecond()));
        field(b, "retransmits", Long.toString(r.retransmits()));
        field(b, "verified", Boolean.toString(r.verified()));
        field(b, "full_check_every", Long.toString(p.sampled() ? p.fullCheckEvery() : 1));
        field(b, "errors", Long.toString(r.errors()));
        field(b, "datapath", JsonText.quote(r.datapath()));
        field(b, "congestion_control", JsonText.quote(r.congestionControl()));
        if (r.latency() != null) {
            field(b, "latency_us", "{\"p50\": " + number(r.latency().p50Us()) + ", \"p99\": "
                    + number(r.latency().p99Us()) + ", \"p999\": " + number(r.latency().p999Us()) + "}");
        }
        b.append("  \"per_path\": [");
        for (int i = 0; i < r.perPath().size(); i++) {
            PathRow row = r.perPath().get(i);
            b.append(i == 0 ? "\n" : ",\n");
            b.append("    {\"path\": ").append(row.path())
                    .append(", \"src_port\": ").append(row.srcPort())
                    .append(", \"packets\": ").append(row.packets())
                    .append(", \"bytes\": ").append(row.bytes())
                    .append(", \"srtt_us\": ").append(number(row.srttUs()))
                    .append(", \"ecn_fraction\": ").append(number(row.ecnFraction()))
                    .append(", \"state\": ").append(JsonText.quote(row.state())).append('}');
        }
        b.append(r.perPath().isEmpty() ? "]\n" : "\n  ]\n");
        b.append("}\n");
        return b.toString();
    }

    private static void field(StringBuilder b, String name, String value) {
        b.append("  ").append(JsonText.quote(name)).append(": ").append(value).append(",\n");
    }

    /** A JSON number with at most 6 decimals; NaN and infinities become {@code null}. */
    static String number(double v) {
        if (!Double.isFinite(v)) {
            return "null";
        }
        if (Math.abs(v) >= 1e12) {
            return Double.toString(v);
        }
        double rounded = Math.round(v * 1e6) / 1e6;
        return rounded == Math.rint(rounded) ? Long.toString((long) rounded) : Double.toString(rounded);
    }
}
