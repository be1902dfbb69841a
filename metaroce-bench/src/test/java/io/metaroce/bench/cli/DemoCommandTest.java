package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code metaroce demo} moves verified data of every kind over real UDP with loss, shows progress
 * and the per-path table, and says so.
 */
class DemoCommandTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortDemoVerifiesEveryKindOverLossyPathsAndPrintsThePathTable() {
        CliRun run = CliRun.of("demo", "--duration", "3", "--paths", "3", "--streams", "4", "--size", "16384",
                "--loss", "0.02");
        String text = run.out();

        assertThat(run.exitCode()).as(text + run.err()).isZero();
        assertThat(text).containsPattern("(?m)^t=\\s*1\\.\\ds").contains("path  src_port").contains("summary");
        assertThat(text.lines().filter(l -> l.matches("\\s+[0-2]\\s+\\d+\\s+[0-9,]+\\s+[0-9,]+\\s+.*(active|suspect|failed|probing)")))
                .as(text).hasSize(3);
        for (String kind : new String[] {"SEND", "WRITE", "WRITE_WITH_IMM", "READ"}) {
            assertThat(count(text, kind)).as(kind + " in " + text).isPositive();
        }
        assertThat(text).contains(" 0 mismatches, 0 failures");
        assertThat(count(text, "loss")).as("datagrams dropped on purpose").isPositive();
        assertThat(text.strip()).endsWith("verified");
    }

    @Test
    void nonsenseOptionsAreAUsageError() {
        CliRun run = CliRun.of("demo", "--paths", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--paths");
        assertThat(CliRun.of("demo", "--loss", "1").exitCode()).isEqualTo(2);
    }

    /** The number on the summary line of {@code label}. */
    private static long count(String text, String label) {
        Matcher m = Pattern.compile("(?m)^  " + Pattern.quote(label) + "\\s+([0-9,]+)").matcher(text);
        assertThat(m.find()).as(label + " in " + text).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
