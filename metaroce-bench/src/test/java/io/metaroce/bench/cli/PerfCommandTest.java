package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code metaroce perf loopback} moves verified data over real UDP on 127.0.0.1 and reports it. */
class PerfCommandTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aShortSendRunVerifiesEveryByteAndWritesTheJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", "--duration", "1", "--size", "8192", "--paths", "2", "--json", json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("goodput").contains("messages/s").contains("retransmits")
                .contains("path  src_port").containsPattern("(?m)^result: .*verified$");
        assertThat(run.out().lines().filter(l -> l.matches("\\s+[0-9]+\\s+[0-9]+\\s+[0-9,]+\\s+[0-9,]+\\s+.*active")))
                .as(run.out()).hasSize(2);

        String text = Files.readString(json);
        assertThat(text).contains("\"op\": \"send\"", "\"size\": 8192", "\"streams\": 4", "\"paths\": 2",
                "\"duration_s\"", "\"goodput_gbps\"", "\"messages_per_s\"", "\"retransmits\"", "\"verified\": true",
                "\"errors\": 0", "\"per_path\"", "\"path\"", "\"src_port\"", "\"packets\"", "\"bytes\"", "\"srtt_us\"",
                "\"ecn_fraction\"", "\"state\": \"active\"");
        assertThat(Pattern.compile("\"state\"").matcher(text).results().count()).isEqualTo(2);
        assertThat(number(text, "goodput_gbps")).isPositive();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void droppedDatagramsAreRetransmittedAndStillVerified(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("perf.json");
        CliRun run = CliRun.of("perf", "loopback", "--duration", "1", "--paths", "2", "--drop", "0.05", "--json", json.toString());

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        String text = Files.readString(json);
        assertThat(text).contains("\"verified\": true");
        assertThat(number(text, "retransmits")).as(text).isPositive();
    }

    @Test
    void nonsenseOptionsAreAUsageError() {
        CliRun run = CliRun.of("perf", "loopback", "--op", "atomic");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--op");
        assertThat(CliRun.of("perf", "loopback", "--paths", "0").exitCode()).isEqualTo(2);
        CliRun bare = CliRun.of("perf");
        assertThat(bare.exitCode()).isEqualTo(2);
        assertThat(bare.err()).contains("loopback");
    }

    private static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": ([-0-9.eE+]+)").matcher(json);
        assertThat(m.find()).as("%s in %s", key, json).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
