package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code metaroce sim}: runs a scenario, prints its table, writes the JSON and the chart. */
class SimCommandTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSmallIncastRunsBothProtocolsSideBySideAndWritesJsonAndAPng(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("incast.json");
        Path png = dir.resolve("incast.png");
        CliRun run = CliRun.of("sim", "incast", "--senders", "4", "--k", "4", "--duration-us", "300",
                "--json", json.toString(), "--plot", png.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("incast / metaroce", "incast / rocev2", "incast, side by side",
                "convergence_rtts", "jain_fairness", "peak_queue_bytes", "goodput_fraction", "events/s")
                .contains("note: rocev2: one queue pair per flow");
        String sideBySide = run.out().substring(run.out().indexOf("incast, side by side"));
        assertThat(sideBySide.lines().skip(1).findFirst().orElseThrow()).contains("metaroce", "rocev2");
        assertThat(sideBySide.lines().filter(l -> l.trim().startsWith("goodput_fraction")).findFirst().orElseThrow()
                .trim().split("\\s+")).hasSize(3);
        String text = Files.readString(json);
        assertThat(text).contains("\"parameters\"", "\"scenario\": \"incast\"", "\"senders\": 4", "\"k\": 4",
                "\"metaroce\": {", "\"rocev2\": {", "\"convergence_rtts\"", "\"jain_fairness\"", "\"peak_queue_bytes\"",
                "\"drops\"", "\"goodput_fraction\"", "\"events_per_s\"").doesNotContain("\"rocev2\": null");
        String rocev2 = text.substring(text.indexOf("\"rocev2\": {"));
        assertThat(number(text, "goodput_fraction")).isPositive();
        assertThat(number(rocev2, "goodput_fraction")).isPositive();
        assertThat(number(text, "events_per_s")).isPositive();
        assertThat(Files.size(png)).isGreaterThan(1_000);
        byte[] head = Files.readAllBytes(png);
        assertThat(head[1]).isEqualTo((byte) 'P');
        assertThat(head[2]).isEqualTo((byte) 'N');
    }

    @Test
    void theSameSeedPrintsTheSameFigures() {
        CliRun a = CliRun.of("sim", "incast", "--senders", "2", "--k", "4", "--duration-us", "100", "--protocol", "metaroce");
        CliRun b = CliRun.of("sim", "incast", "--senders", "2", "--k", "4", "--duration-us", "100", "--protocol", "metaroce");
        assertThat(a.exitCode()).isZero();
        assertThat(figures(b.out())).isEqualTo(figures(a.out()));
    }

    @Test
    void theBaselineRunsAloneAndDeterministically() {
        CliRun a = CliRun.of("sim", "incast", "--senders", "2", "--k", "4", "--duration-us", "100", "--protocol", "rocev2");
        CliRun b = CliRun.of("sim", "incast", "--senders", "2", "--k", "4", "--duration-us", "100", "--protocol", "rocev2");
        assertThat(a.exitCode()).as(a.out() + a.err()).isZero();
        assertThat(a.out()).contains("incast / rocev2").doesNotContain("incast / metaroce", "side by side");
        assertThat(figures(b.out())).isEqualTo(figures(a.out()));
    }

    /**
     * The loss scenario keeps 64 messages posted per flow unless told otherwise (its flows' slots
     * wait for the last packets of messages under loss; docs/benchmarks.md, "Loss round (session
     * 9)"); the other scenarios keep 32, and {@code --outstanding} overrides either.
     */
    @Test
    void theLossScenarioKeepsMoreMessagesPostedThanTheOthersByDefault(@TempDir Path dir) throws Exception {
        assertThat(parameter(dir, "outstanding_messages", "loss")).isEqualTo(64);
        assertThat(parameter(dir, "outstanding_messages", "loss", "--outstanding", "16")).isEqualTo(16);
        assertThat(parameter(dir, "outstanding_messages", "failover")).isEqualTo(32);
        assertThat(parameter(dir, "outstanding_messages", "incast", "--outstanding", "8")).isEqualTo(8);
    }

    /**
     * The permutation runs 16 paths per flow unless told otherwise (the k=8 fat-tree's 16
     * equal-cost routes between pods; docs/benchmarks.md, "Permutation round (session 14)"); the
     * other scenarios run 8, and {@code --paths} overrides either.
     */
    @Test
    void thePermutationRunsSixteenPathsPerFlowByDefault(@TempDir Path dir) throws Exception {
        assertThat(parameter(dir, "paths", "permutation")).isEqualTo(16);
        assertThat(parameter(dir, "paths", "permutation", "--paths", "4")).isEqualTo(4);
        assertThat(parameter(dir, "paths", "incast")).isEqualTo(8);
        assertThat(parameter(dir, "paths", "failover", "--paths", "2")).isEqualTo(2);
    }

    /** Runs {@code sim scenario} briefly on a k=4 fabric with {@code more} options and reads {@code key} from its JSON. */
    private static double parameter(Path dir, String key, String scenario, String... more) throws Exception {
        Path json = dir.resolve(scenario + more.length + ".json");
        List<String> args = new ArrayList<>(List.of("sim", scenario, "--k", "4",
                "--senders", "2", "--duration-us", "20", "--protocol", "metaroce", "--json", json.toString()));
        args.addAll(List.of(more));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        return number(Files.readString(json), key);
    }

    /**
     * The planes scenario sweeps the plane counts on the multiplane topology, MetaRoCE beside the
     * baseline, and reports each count's goodput and the scaling between them.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void thePlanesScenarioSweepsThePlaneCountsForBothProtocolsAndPlotsTheScaling(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("planes.json");
        Path png = dir.resolve("planes.png");
        CliRun run = CliRun.of("sim", "planes", "--planes", "1,2", "--connections", "32", "--duration-us", "60",
                "--outstanding", "4", "--json", json.toString(), "--plot", png.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("sim planes: multiplane k=4 planes=1,2", "planes / metaroce", "planes / rocev2",
                "planes, side by side", "goodput_gbps_1_planes", "goodput_gbps_2_planes", "scaling_1_to_2",
                "linear_scaling_efficiency", "events/s");
        String text = Files.readString(json);
        assertThat(text).contains("\"scenario\": \"planes\"", "\"planes\": [1, 2]", "\"connections\": 32",
                "\"metaroce\": {", "\"rocev2\": {", "\"events_per_s\"").doesNotContain("\"rocev2\": null");
        String rocev2 = text.substring(text.indexOf("\"rocev2\": {"));
        assertThat(number(text, "goodput_gbps_2_planes")).isPositive();
        assertThat(number(text, "scaling_1_to_2")).isPositive();
        assertThat(number(rocev2, "goodput_gbps_2_planes")).isPositive();
        assertThat(Files.size(png)).isGreaterThan(1_000);
    }

    @Test
    void thePlanesScenarioTakesAnIncreasingListOfPlaneCountsOnTheMultiplaneTopologyOnly() {
        assertThat(CliRun.of("sim", "planes", "--planes", "4").err()).contains("at least two plane counts");
        assertThat(CliRun.of("sim", "planes", "--planes", "8,4").err()).contains("increasing");
        assertThat(CliRun.of("sim", "planes", "--topology", "fat-tree").err()).contains("multiplane topology only");
        assertThat(CliRun.of("sim", "planes", "--senders", "8").err()).contains("--connections");
        assertThat(CliRun.of("sim", "multiplane", "--planes", "2,4").err()).contains("one count");
        assertThat(CliRun.of("sim", "incast", "--connections", "8").err()).contains("planes scenario");
        CliRun tooShort = CliRun.of("sim", "planes", "--planes", "1,2", "--connections", "16", "--duration-us", "1");
        assertThat(tooShort.exitCode()).as(tooShort.out() + tooShort.err()).isEqualTo(2);
        assertThat(tooShort.err()).contains("at least two buckets").doesNotContain("Exception");
    }

    @Test
    void nonsenseOptionsAreUsageErrors() {
        assertThat(CliRun.of("sim", "tornado").err()).contains("unknown scenario");
        assertThat(CliRun.of("sim", "incast", "--buffer", "medium").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("sim", "incast", "--topology", "torus").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("sim", "incast", "--k", "3").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("sim", "incast", "--protocol", "tcp").exitCode()).isEqualTo(2);
        CliRun tooMany = CliRun.of("sim", "incast", "--k", "4", "--senders", "40", "--duration-us", "10");
        assertThat(tooMany.exitCode()).isNotZero();
        assertThat(tooMany.err()).contains("senders");
    }

    private static String figures(String out) {
        // Everything but wall-clock lines.
        return out.lines().filter(l -> !l.contains("wall") && !l.contains("cpu") && !l.contains("events/s"))
                .reduce("", (x, y) -> x + y + "\n");
    }

    private static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": ([-0-9.eE+]+)").matcher(json);
        assertThat(m.find()).as("%s in %s", key, json).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
