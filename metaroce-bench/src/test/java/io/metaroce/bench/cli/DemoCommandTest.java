package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code metaroce demo} moves verified data, shows progress and the per-path table, and says so. */
class DemoCommandTest {

    @Test
    void aShortDemoVerifiesEveryByteAndPrintsThePathTable() {
        StringWriter out = new StringWriter();
        CommandLine cli = MetaroceCli.newCommandLine();
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("demo", "--duration", "1.5", "--paths", "3", "--streams", "4", "--size", "65536");
        String text = out.toString();
        assertThat(code).as(text).isZero();
        assertThat(text).contains("t= 1.0s").contains("path  packets_sent").contains("no mismatch");
        assertThat(text.strip()).endsWith("verified");
        assertThat(text.lines().filter(l -> l.matches("\\s+[0-2]\\s+\\d+.*"))).hasSize(3);
    }

    @Test
    void nonsenseOptionsAreAUsageError() {
        StringWriter err = new StringWriter();
        CommandLine cli = MetaroceCli.newCommandLine();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("demo", "--paths", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--paths");
    }
}
