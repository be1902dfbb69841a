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
        // The goodput verdict by default: five alternating rounds after the back-to-back runs,
        // slices of a third of --duration after a quarter of that of warm-up, named everywhere.
        assertThat(number(text, "rounds")).isEqualTo(5.0);
        assertThat(number(text, "round_duration_s")).isCloseTo(0.25 / 3, within(1e-4));
        assertThat(number(text, "round_warmup_s")).isCloseTo(0.25 / 12, within(1e-4));
        assertThat(text).containsPattern("\"goodput_verdict_method\": \"the median over 5 rounds of the ratio within"
                + " a round; a round runs raw UDP of the kind that won the back-to-back runs at that size"
                + " \\((plain or GSO/GRO|plain, no GSO here); round_raw_udp\\), MetaRoCE's best variant");
        assertThat(notes).contains("goodput verdict: the median over 5 rounds");
        assertThat(run.out).contains("goodput verdict: median of 5 rounds", "goodput verdict, median of 5 rounds:");
        assertRounds(size, notes, 5);
    }

    @Test
    void withoutRoundsTheVerdictIsTheBackToBackRunsAndSaysSo(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("compare.json");
        Run run = run("compare", "--size", "1024", "--duration", "0.2", "--warmup", "0.05", "--latency-warmup", "0.05",
                "--rounds", "0", "--json", json.toString());
        assertThat(run.exitCode).as(run.out + run.err).isZero();
        String text = Files.readString(json);
        String size = object(text, "1024");
        assertThat(number(text, "rounds")).isZero();
        assertThat(text).contains("\"goodput_verdict_method\": \"the back-to-back runs, one per peer (--rounds 0)\"");
        assertThat(number(size, "metaroce_over_raw_udp_median")).isNull();
        assertThat(number(size, "metaroce_over_aeron_median")).isNull();
        assertThat(size).contains("\"metaroce_over_raw_udp_range\": null", "\"round_metaroce_variant\": null",
                "\"round_results\": []");
        assertThat(run.out).contains("goodput verdict: the back-to-back runs (--rounds 0)",
                "goodput verdict: the back-to-back runs above (--rounds 0)").doesNotContain("round 1");
        // The back-to-back figures keep their meaning.
        assertThat(number(size, "metaroce_gbps")).isNotNull().isPositive();
    }

    @Test
    void roundsRunAsAskedWithTheirOwnSliceLength(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("compare.json");
        Run run = run("compare", "--size", "1024", "--duration", "0.2", "--warmup", "0.05", "--latency-warmup", "0.05",
                "--rounds", "2", "--round-duration", "0.1", "--json", json.toString());
        assertThat(run.exitCode).as(run.out + run.err).isZero();
        String text = Files.readString(json);
        assertThat(number(text, "round_duration_s")).isEqualTo(0.1);
        assertThat(number(text, "round_warmup_s")).isEqualTo(0.025);
        assertThat(text).contains("each for 0.100 s after 0.025 s of warm-up");
        assertRounds(object(text, "1024"), text.substring(text.indexOf("\"notes\"")), 2);
        // Each slice shows as it runs, in the round's order.
        assertThat(run.out).containsSubsequence("1024 B round 1 raw UDP", "1024 B round 1 MetaRoCE",
                "1024 B round 1 Aeron", "1024 B round 2 Aeron", "1024 B round 2 MetaRoCE", "1024 B round 2 raw UDP");
    }

    @Test
    void latencyOnlyRunsTheRawUdpAndMetaroceSleepingAndBusyPingPongsAndNothingElse(@TempDir Path dir)
            throws Exception {
        Path json = dir.resolve("compare.json");
        Run run = run("compare", "--latency-only", "--duration", "0.2", "--latency-warmup", "0.1", "--json",
                json.toString());
        assertThat(run.exitCode).as(run.out + run.err).isZero();
        assertThat(run.out).contains("--latency-only", "64-byte ping-pong").doesNotContain("-byte messages",
                "B raw UDP", "B MetaRoCE", "B TCP", "B Aeron", "round 1");
        String text = Files.readString(json);
        assertThat(text).contains("\"latency_only\": true",
                "\"goodput_verdict_method\": \"none: no goodput runs (--latency-only)\"");
        assertThat(number(text, "rounds")).isZero();
        assertThat(text).doesNotContainPattern("\"\\d+\": \\{");
        String latency = object(text, "latency_us");
        Matcher keys = Pattern.compile("\"([a-z_]+)\": (null|\\{)").matcher(latency);
        List<String> peers = new java.util.ArrayList<>();
        while (keys.find()) {
            peers.add(keys.group(1));
        }
        assertThat(peers).containsExactly("latency_us", "raw_udp", "metaroce", "raw_udp_busy_poll",
                "metaroce_busy_poll");
        String notes = text.substring(text.indexOf("\"notes\""));
        for (String peer : peers.subList(1, peers.size())) {
            Matcher m = Pattern.compile("\"" + peer + "\": \\{\"p50\": ([0-9.]+), \"p99\": ([0-9.]+)").matcher(latency);
            if (m.find()) {
                assertThat(Double.parseDouble(m.group(2))).as(peer).isGreaterThanOrEqualTo(Double.parseDouble(m.group(1)));
            } else {
                assertThat(notes).contains(peer + " latency failed");
            }
        }
        assertThat(number(text, "latency_warmup_s")).isEqualTo(0.1);
        String ratios = object(text, "latency_ratios");
        assertLatencyRatio(latency, ratios, "metaroce_over_raw_udp", "metaroce", "raw_udp");
        assertLatencyRatio(latency, ratios, "metaroce_busy_poll_over_raw_udp_busy_poll", "metaroce_busy_poll",
                "raw_udp_busy_poll");
        assertThat(notes).contains("latency only (--latency-only)");
        // The JIT waits: one per ping-pong that ran, four.
        Matcher settle = Pattern.compile("waited for the JIT[^{]*\\{([^}]*)}").matcher(notes);
        assertThat(settle.find()).as("the JIT waits in " + notes).isTrue();
        assertThat(settle.group(1).split(", ")).hasSize(4);
    }

    @Test
    void latencyOnlyRefusesTheGoodputRunsOptions() {
        for (String option : CompareCommand.GOODPUT_ONLY_OPTIONS) {
            Run run = run("compare", "--latency-only", option, "2");
            assertThat(run.exitCode).as(option + ": " + run.err).isEqualTo(2);
            assertThat(run.err).contains(option + " applies to the goodput runs, which --latency-only leaves out");
        }
    }

    /**
     * A size's rounds: {@code count} of them in alternating order, MetaRoCE the back-to-back runs'
     * best variant, each round's ratios its own figures', and the medians and ranges theirs.
     */
    private static void assertRounds(String size, String notes, int count) {
        String variant = string(size, "metaroce_variant");
        assertThat(string(size, "round_metaroce_variant")).isEqualTo(variant);
        String kind = string(size, "round_raw_udp");
        assertThat(kind).isIn("gso", "plain");
        // The rounds run the raw UDP kind that won the back-to-back runs, whose figure raw_udp_gbps is.
        assertThat(number(size, kind.equals("gso") ? "raw_udp_gso_gbps" : "raw_udp_plain_gbps"))
                .as("round_raw_udp %s: its back-to-back figure is raw_udp_gbps", kind)
                .isEqualTo(number(size, "raw_udp_gbps"));
        Matcher m = Pattern.compile("\\{\"round\": (\\d+), \"order\": \\[([^\\]]*)], \"raw_udp_gbps\": (null|[0-9.]+), "
                + "\"metaroce_gbps\": (null|[0-9.]+), \"aeron_gbps\": (null|[0-9.]+), "
                + "\"metaroce_over_raw_udp\": (null|[0-9.]+), \"metaroce_over_aeron\": (null|[0-9.]+)}").matcher(size);
        List<Double> overRaw = new java.util.ArrayList<>();
        List<Double> overAeron = new java.util.ArrayList<>();
        int n = 0;
        while (m.find()) {
            n++;
            assertThat(Integer.parseInt(m.group(1))).isEqualTo(n);
            assertThat(m.group(2)).isEqualTo(n % 2 == 1 ? "\"raw_udp\", \"metaroce\", \"aeron\""
                    : "\"aeron\", \"metaroce\", \"raw_udp\"");
            Double raw = parse(m.group(3));
            Double metaroce = parse(m.group(4));
            Double aeron = parse(m.group(5));
            // A slice that failed says so in the notes; on a loaded host a tiny slice may move nothing.
            for (String[] slice : List.of(new String[] {"raw UDP", m.group(3)}, new String[] {"MetaRoCE", m.group(4)},
                    new String[] {"Aeron", m.group(5)})) {
                if (slice[1].equals("null")) {
                    assertThat(notes).contains("round " + n + " " + slice[0]);
                }
            }
            checkRoundRatio(parse(m.group(6)), metaroce, raw, overRaw);
            checkRoundRatio(parse(m.group(7)), metaroce, aeron, overAeron);
        }
        assertThat(n).as("rounds in " + size).isEqualTo(count);
        assertMedian(size, "metaroce_over_raw_udp", overRaw);
        assertMedian(size, "metaroce_over_aeron", overAeron);
    }

    private static void checkRoundRatio(Double ratio, Double numerator, Double denominator, List<Double> ratios) {
        if (ratio != null) {
            ratios.add(ratio);
        }
        if (numerator == null || denominator == null) {
            assertThat(ratio).as("a round's ratio without both figures").isNull();
            return;
        }
        if (denominator == 0) {
            return; // nothing moved, or too little to show in 4 decimals: no ratio, or one we cannot recompute
        }
        assertThat(ratio).as("a round's ratio with both figures").isNotNull();
        double expected = numerator / denominator;
        // Figures to 4 decimals: the ratio of two rounded figures is off by up to their relative rounding.
        double rounding = 0.5e-4 * (1 + expected) / denominator + 0.5e-4;
        assertThat(ratio).isCloseTo(expected, within(1e-3 * Math.max(1, expected) + rounding));
    }

    private static void assertMedian(String size, String ratio, List<Double> ratios) {
        Double median = number(size, ratio + "_median");
        if (ratios.isEmpty()) {
            assertThat(median).isNull();
            assertThat(size).contains("\"" + ratio + "_range\": null");
            return;
        }
        List<Double> sorted = ratios.stream().sorted().toList();
        int n = sorted.size();
        double expected = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        assertThat(median).as(ratio + " median of " + ratios).isCloseTo(expected, within(2e-4));
        Matcher range = Pattern.compile("\"" + ratio + "_range\": \\[([0-9.]+), ([0-9.]+)]").matcher(size);
        assertThat(range.find()).as(ratio + " range in " + size).isTrue();
        assertThat(Double.parseDouble(range.group(1))).isEqualTo(sorted.get(0));
        assertThat(Double.parseDouble(range.group(2))).isEqualTo(sorted.get(n - 1));
    }

    private static Double parse(String text) {
        return text.equals("null") ? null : Double.valueOf(text);
    }

    private static String string(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\": (null|\"([^\"]*)\")").matcher(json);
        assertThat(m.find()).as(field + " in " + json).isTrue();
        return m.group(2);
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
                new String[] {"compare", "--rounds", "-1"},
                new String[] {"compare", "--rounds", "101"},
                new String[] {"compare", "--round-duration", "0"},
                new String[] {"compare", "--round-duration", "-0.5"},
                new String[] {"compare", "--duration", "3", "--round-duration", "3601"},
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
