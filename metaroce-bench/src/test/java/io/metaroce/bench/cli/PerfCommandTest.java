package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code metaroce perf}: a server and a client (here in one JVM, over 127.0.0.1 and ephemeral
 * ports, talking only through the addresses given on their command lines) and loopback move
 * verified data over real UDP and report it.
 */
class PerfCommandTest {
    /** A path's state in the JSON: the engine's, which a loaded host may move out of ACTIVE for a moment. */
    private static final String PATH_STATE = "\"state\": \"(active|suspect|failed|probing)\"";


    @ParameterizedTest
    @ValueSource(strings = {"send", "write", "read", "mixed"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aServerAndAClientRunEachOpVerifiedAndTheJsonSaysSo(String op, @TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun.Background server = CliRun.start("perf", "server", "--bind", "127.0.0.1:0");
        String port = server.await("listening on 127\\.0\\.0\\.1:(\\d+)", 20);

        CliRun client = CliRun.of("perf", "client", "--connect", "127.0.0.1:" + port, "--op", op, "--duration", "1",
                "--size", "4096", "--streams", "3", "--paths", "2", "--depth", "8", "--json", json.toString());
        CliRun served = server.join(30);

        assertThat(client.exitCode()).as(client.out() + client.err()).isZero();
        assertThat(served.exitCode()).as(served.out() + served.err()).isZero();
        assertThat(client.out()).contains("goodput").contains("messages/s").contains("retransmits")
                .contains("path  src_port").containsPattern("(?m)^result: .*verified$");
        assertThat(client.out().lines().filter(l -> l.matches("\\s+[0-9]+\\s+[0-9]+\\s+[0-9,]+\\s+[0-9,]+\\s+.*(active|suspect|failed|probing)")))
                .as(client.out()).hasSize(2);
        // The server learned the run from the client alone.
        assertThat(served.out()).contains(op + ", depth 8, 4096-byte messages, 3 streams, 2 paths, 1.0 s")
                .containsPattern("(?m)^served: .*verified$");

        String text = Files.readString(json);
        assertThat(text).contains("\"op\": \"" + op + "\"", "\"size\": 4096", "\"streams\": 3", "\"paths\": 2",
                "\"verified\": true", "\"errors\": 0").containsPattern(PATH_STATE);
        assertThat(Pattern.compile("\"src_port\": [1-9][0-9]*").matcher(text).results().count()).isEqualTo(2);
        assertThat(number(text, "duration_s")).isBetween(0.9, 5.0);
        assertThat(number(text, "goodput_gbps")).isPositive();
        assertThat(number(text, "messages_per_s")).isPositive();
        assertThat(number(text, "retransmits")).isGreaterThanOrEqualTo(0);
        assertThat(number(text, "packets")).isPositive();
        assertThat(number(text, "bytes")).isPositive();
        assertThat(number(text, "srtt_us")).isPositive();
        assertThat(number(text, "ecn_fraction")).isBetween(0.0, 1.0);
        assertThat(text).doesNotContain("latency_us");
        if (!op.equals("read")) {
            // The server checked what it received: its count is in its summary line.
            assertThat(served.out()).containsPattern("served: [1-9][0-9,]* messages checked here");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void latencyGivesOrderedPercentilesWithTheServerEchoing(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("lat.json");
        CliRun.Background server = CliRun.start("perf", "server", "--bind", "127.0.0.1:0");
        String port = server.await("listening on 127\\.0\\.0\\.1:(\\d+)", 20);

        CliRun client = CliRun.of("perf", "client", "--connect", "127.0.0.1:" + port, "--lat", "--duration", "1",
                "--warmup", "0.5", "--json", json.toString());
        CliRun served = server.join(30);

        assertThat(client.exitCode()).as(client.out() + client.err()).isZero();
        assertThat(served.exitCode()).as(served.out()).isZero();
        assertThat(served.out()).contains("ping-pong latency").contains("64-byte messages");
        assertThat(client.out()).contains("warm-up done").containsPattern("latency\\s+p50")
                .containsPattern("(?m)^t=\\s*\\d+\\.\\ds .* p50 +\\S+ us$"); // the progress line
        String text = Files.readString(json);
        assertThat(text).contains("\"op\": \"lat\"", "\"size\": 64", "\"verified\": true", "\"latency_us\"");
        double p50 = number(text, "p50");
        double p99 = number(text, "p99");
        double p999 = number(text, "p999");
        assertThat(p50).isPositive();
        assertThat(p50).isLessThanOrEqualTo(p99);
        assertThat(p99).isLessThanOrEqualTo(p999);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void loopbackWithDroppedDatagramsRetransmitsAndStillVerifies(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", "--duration", "1", "--paths", "2", "--drop", "0.05", "--json",
                json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        String text = Files.readString(json);
        assertThat(text).contains("\"verified\": true", "\"errors\": 0");
        assertThat(number(text, "retransmits")).as(text).isPositive();
        assertThat(run.out()).containsPattern("datagrams dropped on purpose: [1-9]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--lat", "--op=mixed"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void loopbackOnBusyPollingEventLoopsVerifies(String what, @TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", what, "--busy-poll", "--duration", "1", "--warmup", "0.3",
                "--json", json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        String text = Files.readString(json);
        assertThat(text).contains("\"verified\": true", "\"errors\": 0");
        assertThat(number(text, "messages_per_s")).as(text).isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"linux", "nio"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void eachDatapathIsNamedInTheReportAndTheJsonAndPathStatesAreReported(String datapath, @TempDir Path dir)
            throws Exception {
        assumeTrue(!datapath.equals("linux") || System.getProperty("os.name", "").toLowerCase().contains("linux"),
                "the linux datapath runs on Linux only");
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", "--duration", "1", "--paths", "2", "--datapath", datapath,
                "--json", json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        String text = Files.readString(json);
        assertThat(text).contains("\"datapath\": \"" + datapath + "\"").containsPattern(PATH_STATE);
        assertThat(run.out()).containsPattern("datapath\\s+" + datapath)
                .containsPattern("(?m)^cpu: [0-9.]+ s of the process over the measured part, [0-9.]+ us per message; "
                        + "JIT [0-9]+ ms$");
    }

    @ParameterizedTest
    @ValueSource(strings = {"send", "write", "mixed"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void corruptedPayloadsAreCaughtAndFailTheRun(String op, @TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", "--op", op, "--duration", "1", "--size", "4096", "--paths", "2",
                "--depth", "8", "--corrupt-every", "7", "--json", json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
        assertThat(run.out()).containsPattern("(?m)^result: .*MISMATCH \\([1-9][0-9]* messages differ; first: .*bytes differ");
        String text = Files.readString(json);
        assertThat(text).contains("\"verified\": false");
        assertThat(number(text, "errors")).isPositive();
    }

    /**
     * With a sampled check the run says so in its result line and JSON, passes when nothing is
     * wrong, and still fails on corrupted payloads: the messages checked in full catch them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"send", "write"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSampledCheckIsNamedPassesCleanRunsAndStillCatchesCorruption(String op, @TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", "--op", op, "--duration", "1", "--size", "4096", "--paths", "1",
                "--depth", "8", "--full-check-every", "4", "--json", json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).containsPattern("(?m)^result: [0-9,]+ messages, sampled check \\(1 SEND/WRITE_WITH_IMM "
                + "message in 4 of a stream checked byte for byte, the others by their first and last words\\): "
                + "verified$");
        assertThat(Files.readString(json)).contains("\"verified\": true", "\"full_check_every\": 4");

        Path corrupted = dir.resolve("corrupted.json");
        CliRun bad = CliRun.of("perf", "loopback", "--op", op, "--duration", "1", "--size", "4096", "--paths", "1",
                "--depth", "8", "--full-check-every", "4", "--corrupt-every", "7", "--json", corrupted.toString());
        assertThat(bad.exitCode()).as(bad.out() + bad.err()).isEqualTo(1);
        assertThat(Files.readString(corrupted)).contains("\"verified\": false");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aServerForeverServesOneRunAfterAnother() throws Exception {
        CliRun.Background server = CliRun.start("perf", "server", "--bind", "127.0.0.1:0", "--forever");
        try {
            String port = server.await("listening on 127\\.0\\.0\\.1:(\\d+)", 20);
            for (String op : new String[] {"write", "read"}) {
                CliRun client = CliRun.of("perf", "client", "--connect", "127.0.0.1:" + port, "--op", op, "--duration",
                        "0.5", "--size", "2048", "--paths", "1", "--depth", "4");
                assertThat(client.exitCode()).as(client.out() + client.err()).isZero();
            }
            server.await("(?s)(served: .*verified.*served: .*verified)", 20);
            assertThat(server.done()).isNotDone();
        } finally {
            server.thread().interrupt();
        }
        CliRun served = server.join(20); // interrupted while waiting for a third client
        assertThat(served.exitCode()).as(served.out() + served.err()).isZero();
        assertThat(served.out()).contains("stopped after 2 runs");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aClientWithNoServerFailsClearlyWithinBoundedTime() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // free once closed: nothing listens there
        }
        long start = System.nanoTime();
        CliRun run = CliRun.of("perf", "client", "--connect", "127.0.0.1:" + port, "--duration", "1");
        double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("no MetaRoCE perf server answered at 127.0.0.1:" + port);
        assertThat(seconds).isLessThan(15);
    }

    /**
     * The congestion controller is the engine's AIMD unless {@code --cc fixed} turns it off; the
     * report and the JSON name the one that ran.
     */
    @ParameterizedTest
    @ValueSource(strings = {"", "aimd", "fixed"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theCongestionControllerIsAimdUnlessFixedIsAskedForAndTheReportNamesIt(String cc, @TempDir Path dir)
            throws Exception {
        Path json = dir.resolve("perf.json");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("perf", "loopback", "--duration",
                "1", "--paths", "2", "--json", json.toString()));
        if (!cc.isEmpty()) {
            args.add("--cc=" + cc);
        }
        CliRun run = CliRun.of(args.toArray(String[]::new));

        String expected = cc.isEmpty() ? "aimd" : cc;
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(Files.readString(json)).contains("\"congestion_control\": \"" + expected + "\"",
                "\"verified\": true");
        assertThat(run.out()).containsPattern("congestion\\s+" + expected).contains("cc " + expected);
    }

    @Test
    void nonsenseOptionsAreUsageErrors() {
        CliRun badCc = CliRun.of("perf", "loopback", "--cc", "reno");
        assertThat(badCc.exitCode()).isEqualTo(2);
        assertThat(badCc.err()).contains("--cc", "expected aimd or fixed");
        CliRun badOp = CliRun.of("perf", "loopback", "--op", "atomic");
        assertThat(badOp.exitCode()).isEqualTo(2);
        assertThat(badOp.err()).contains("--op");
        assertThat(CliRun.of("perf", "loopback", "--paths", "0").err()).contains("--paths must be");
        assertThat(CliRun.of("perf", "loopback", "--size", "0").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("perf", "loopback", "--drop", "1").err()).contains("--drop must be");
        assertThat(CliRun.of("perf", "client", "--duration", "1").err()).contains("--connect");
        assertThat(CliRun.of("perf", "client", "--connect", "127.0.0.1:99999").err()).contains("port must be");
        assertThat(CliRun.of("perf", "server", "--bind", "[::1").exitCode()).isEqualTo(2);
        CliRun bare = CliRun.of("perf");
        assertThat(bare.exitCode()).isEqualTo(2);
        assertThat(bare.err()).contains("server, client or loopback");
    }

    private static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": ([-0-9.eE+]+)").matcher(json);
        assertThat(m.find()).as("%s in %s", key, json).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
