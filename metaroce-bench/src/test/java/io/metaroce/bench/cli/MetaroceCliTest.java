package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Runs the {@code metaroce} command tree in-process with captured output. */
class MetaroceCliTest {

    /** Output of one in-process run. */
    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = MetaroceCli.newCommandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exitCode = cli.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }

    @Test
    void helpListsTheSubcommandsAndExitsZero() {
        Run run = run("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .contains("Usage: metaroce")
                .contains("Commands:")
                .containsPattern("(?m)^\\s+version\\s")
                .containsPattern("(?m)^\\s+help\\s")
                .contains("sim", "perf", "compare");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void helpSubcommandShowsUsageOfAnotherCommand() {
        Run run = run("help", "version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: metaroce version");
    }

    @Test
    void versionSubcommandPrintsVersionJavaAndOs() {
        Run run = run("version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .containsPattern("(?m)^metaroce \\S+$")
                .contains("Java " + Runtime.version())
                .contains(System.getProperty("os.arch"));
        assertThat(run.err()).isEmpty();
    }

    @Test
    void versionOptionPrintsTheSameAsTheVersionSubcommand() {
        Run option = run("--version");

        assertThat(option.exitCode()).isZero();
        assertThat(option.out()).isEqualTo(run("version").out());
    }

    @Test
    void versionFallsBackToDevOutsideThePackagedJar() {
        // Tests run from target/classes, which has no manifest Implementation-Version.
        assertThat(VersionProvider.toolVersion()).isEqualTo(VersionProvider.DEV_VERSION);
    }

    @Test
    void unknownOptionIsAUsageErrorWithExitCodeTwo() {
        Run run = run("--no-such-option");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option: '--no-such-option'").contains("Usage: metaroce");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void noSubcommandIsAUsageError() {
        Run run = run();

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Missing required subcommand").contains("Usage: metaroce");
    }
}
