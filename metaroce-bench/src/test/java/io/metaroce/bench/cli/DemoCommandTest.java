package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code metaroce demo} moves verified data, shows progress and the per-path table, and says so. */
class DemoCommandTest {

    @Test
    void aShortDemoVerifiesEveryByteAndPrintsThePathTable() {
        CliRun run = CliRun.of("demo", "--duration", "1.5", "--paths", "3", "--streams", "4", "--size", "65536");
        String text = run.out();
        assertThat(run.exitCode()).as(text).isZero();
        assertThat(text).contains("t= 1.0s").contains("path  packets_sent").contains("no mismatch");
        assertThat(text.strip()).endsWith("verified");
        assertThat(text.lines().filter(l -> l.matches("\\s+[0-2]\\s+\\d+.*"))).hasSize(3);
    }

    @Test
    void nonsenseOptionsAreAUsageError() {
        CliRun run = CliRun.of("demo", "--paths", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--paths");
    }
}
