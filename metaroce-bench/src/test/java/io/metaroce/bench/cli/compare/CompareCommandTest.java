package io.metaroce.bench.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.metaroce.bench.cli.MetaroceCli;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code metaroce compare} end to end with one small size and a tiny duration, and its usage errors. */
class CompareCommandTest {
    private static final List<String> SIZE_FIELDS = List.of("raw_udp_gbps", "metaroce_gbps", "tcp_gbps", "aeron_gbps",
            "metaroce_over_raw_udp", "metaroce_over_tcp", "metaroce_over_aeron");

    @Test
    void aShortRunWritesEveryFieldWithConsistentRatios(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("compare.json");
        Run run = run("compare", "--size", "4096", "--duration", "0.25", "--warmup", "0.1", "--latency-warmup", "0.15",
                "--json", json.toString());
        assertThat(run.exitCode).as(run.out + run.err).isZero();
        assertThat(run.out).contains("4096-byte messages", "MetaRoCE/raw UDP", "64-byte ping-pong");
        String text = Files.readString(json);
        String size = object(text, "4096");
        String notes = text.substring(text.indexOf("\"notes\""));
        for (String field : SIZE_FIELDS) {
            Double value = number(size, field);
            if (value == null) {
                // A peer that cannot run here must say why in the notes.
                assertThat(notes).as(field + " is null without a note").contains("failed");
            } else {
                assertThat(value).as(field).isPositive();
            }
        }
        assertThat(size).containsPattern("\"metaroce_variant\": \"(SEND|WRITE), [14] paths?\"");
        Double metaroce = number(size, "metaroce_gbps");
        assertThat(metaroce).as("MetaRoCE must run here").isNotNull();
        assertRatio(size, "metaroce_over_raw_udp", metaroce, number(size, "raw_udp_gbps"));
        assertRatio(size, "metaroce_over_tcp", metaroce, number(size, "tcp_gbps"));
        assertRatio(size, "metaroce_over_aeron", metaroce, number(size, "aeron_gbps"));
        // By default the variants check a sample of their messages in full, say so, and the best
        // one runs again with every byte checked, beside them.
        assertThat(number(text, "metaroce_full_check_every")).isEqualTo(64.0);
        assertThat(run.out).contains("sampled check (1 message in 64 checked in full", "MetaRoCE (best), full check",
                "MetaRoCE with every byte checked/raw UDP");
        assertThat(notes).contains("the best variant run again with every byte filled and checked",
                "the receiver counts bytes and reads none of them");
        Double fullCheck = number(size, "metaroce_full_check_gbps");
        assertThat(fullCheck).as("the full-check run of the best variant").isNotNull().isPositive();
        assertRatio(size, "metaroce_full_check_over_raw_udp", fullCheck, number(size, "raw_udp_gbps"));
        String latency = object(text, "latency_us");
        for (String peer : List.of("raw_udp", "metaroce", "raw_udp_busy_poll", "metaroce_busy_poll", "tcp", "aeron")) {
            Matcher m = Pattern.compile("\"" + peer + "\": (null|\\{\"p50\": ([0-9.]+), \"p99\": ([0-9.]+))")
                    .matcher(latency);
            assertThat(m.find()).as(peer + " latency in " + latency).isTrue();
            if (m.group(2) == null) {
                assertThat(notes).contains(peer + " latency failed");
            } else {
                double p50 = Double.parseDouble(m.group(2));
                double p99 = Double.parseDouble(m.group(3));
                assertThat(p50).as(peer + " p50").isPositive();
                assertThat(p99).as(peer + " p99").isGreaterThanOrEqualTo(p50);
            }
        }
        // The ping-pongs' own warm-up, and the JIT's work while each was measured (-1: not known).
        assertThat(number(text, "latency_warmup_s")).isEqualTo(0.15);
        assertThat(number(text, "warmup_s")).isEqualTo(0.1);
        // MetaRoCE ran the engine's default controller, and says so.
        assertThat(text).contains("\"metaroce_congestion_control\": \"aimd\"");
        assertThat(run.out).contains("MetaRoCE cc aimd");
        // Each meter reads when its peer, set up, ends its warm-up, and again when the run returns:
        // a peer that ran has a reading (HotSpot reports compilation time), and the readings, over
        // disjoint measured parts of this JVM's life, add up to no more than all it has compiled.
        String jit = object(text, "latency_jit_ms");
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        double measuredJit = 0;
        for (String peer : List.of("raw_udp", "metaroce", "raw_udp_busy_poll", "metaroce_busy_poll", "tcp", "aeron")) {
            Double ms = number(jit, peer);
            assertThat(ms).as(peer + " JIT ms in " + jit).isNotNull();
            if (compiler != null && compiler.isCompilationTimeMonitoringSupported()
                    && Pattern.compile("\"" + peer + "\": \\{").matcher(latency).find()) {
                assertThat(ms).as(peer + " ran: its meter read at its warm-up's end, in " + jit)
                        .isGreaterThanOrEqualTo(0.0);
                measuredJit += ms;
            }
        }
        if (compiler != null && compiler.isCompilationTimeMonitoringSupported()) {
            assertThat(measuredJit).as("JIT ms of the measured parts, against all of this JVM's")
                    .isLessThanOrEqualTo((double) compiler.getTotalCompilationTime());
        }
        // Every ping-pong waited for the JIT to settle first, never longer than its warm-up (150 ms).
        Matcher settle = Pattern.compile("waited for the JIT[^{]*\\{([^}]*)}").matcher(notes);
        assertThat(settle.find()).as("the JIT waits in " + notes).isTrue();
        String[] waits = settle.group(1).split(", ");
        assertThat(waits).as(settle.group(1)).hasSize(6);
        for (String wait : waits) {
            assertThat(Long.parseLong(wait.substring(wait.indexOf('=') + 1))).as(wait).isBetween(0L, 150L);
        }
        // Like with like: MetaRoCE over raw UDP on parked loops, and on busy-polling loops.
        String ratios = object(text, "latency_ratios");
        assertLatencyRatio(latency, ratios, "metaroce_over_raw_udp", "metaroce", "raw_udp");
        assertLatencyRatio(latency, ratios, "metaroce_busy_poll_over_raw_udp_busy_poll", "metaroce_busy_poll",
                "raw_udp_busy_poll");
    }

    private static void assertLatencyRatio(String latency, String ratios, String field, String a, String b) {
        Matcher ma = Pattern.compile("\"" + a + "\": \\{\"p50\": ([0-9.]+), \"p99\": ([0-9.]+)").matcher(latency);
        Matcher mb = Pattern.compile("\"" + b + "\": \\{\"p50\": ([0-9.]+), \"p99\": ([0-9.]+)").matcher(latency);
        Matcher mr = Pattern.compile("\"" + field + "\": (null|\\{\"p50\": ([0-9.]+), \"p99\": ([0-9.]+))")
                .matcher(ratios);
        assertThat(mr.find()).as(field + " in " + ratios).isTrue();
        if (!ma.find() || !mb.find()) {
            assertThat(mr.group(1)).as(field + " without both sides").isEqualTo("null");
            return;
        }
        double p50 = Double.parseDouble(ma.group(1)) / Double.parseDouble(mb.group(1));
        double p99 = Double.parseDouble(ma.group(2)) / Double.parseDouble(mb.group(2));
        assertThat(Double.parseDouble(mr.group(2))).as(field + " p50").isCloseTo(p50, within(0.01 * p50 + 0.01));
        assertThat(Double.parseDouble(mr.group(3))).as(field + " p99").isCloseTo(p99, within(0.01 * p99 + 0.01));
    }

    @Test
    void badOptionsAreUsageErrors() {
        for (String[] args : List.of(new String[] {"compare", "--size", "0"},
                new String[] {"compare", "--size", "2000000"},
                new String[] {"compare", "--size", "abc"},
                new String[] {"compare", "--duration", "0"},
                new String[] {"compare", "--duration", "-1"},
                new String[] {"compare", "--warmup", "-1"},
                new String[] {"compare", "--latency-warmup", "-1"},
                new String[] {"compare", "--latency-warmup", "4000"},
                new String[] {"compare", "--full-check-every", "0"},
                new String[] {"compare", "--bogus"})) {
            Run run = run(args);
            assertThat(run.exitCode).as(String.join(" ", args) + ": " + run.err).isEqualTo(2);
            assertThat(run.err).isNotEmpty();
        }
    }

    private static void assertRatio(String size, String field, double numerator, Double denominator) {
        Double ratio = number(size, field);
        if (denominator == null) {
            assertThat(ratio).as(field).isNull();
        } else {
            // The JSON gives every figure to 4 decimals: the ratio of two rounded small figures (a
            // few hundredths of a Gb/s on a busy host) is off by up to their relative rounding.
            double expected = numerator / denominator;
            double rounding = 0.5e-4 * (expected / numerator + expected / denominator) + 0.5e-4;
            assertThat(ratio).as(field).isCloseTo(expected, within(1e-3 * Math.max(1, ratio) + rounding));
        }
    }

    private static String object(String json, String key) {
        int start = json.indexOf("\"" + key + "\": {");
        assertThat(start).as(key + " in " + json).isNotNegative();
        int depth = 0;
        for (int i = json.indexOf('{', start); i < json.length(); i++) {
            char c = json.charAt(i);
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            if (depth == 0) {
                return json.substring(start, i + 1);
            }
        }
        throw new AssertionError("unbalanced JSON: " + json);
    }

    private static Double number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\": (null|-?[0-9.]+)").matcher(json);
        assertThat(m.find()).as(field + " in " + json).isTrue();
        return m.group(1).equals("null") ? null : Double.valueOf(m.group(1));
    }

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = MetaroceCli.newCommandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
