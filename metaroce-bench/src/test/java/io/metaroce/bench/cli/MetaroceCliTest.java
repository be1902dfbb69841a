package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Runs the {@code metaroce} command tree in-process with captured output. */
class MetaroceCliTest {

    @Test
    void helpListsTheSubcommandsAndExitsZero() {
        CliRun run = CliRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .contains("Usage: metaroce")
                .contains("Commands:")
                .containsPattern("(?m)^\\s+version\\s")
                .containsPattern("(?m)^\\s+help\\s")
                .containsPattern("(?m)^\\s+sim\\s")
                .contains("sim", "perf", "compare");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void helpSubcommandShowsUsageOfAnotherCommand() {
        CliRun run = CliRun.of("help", "version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: metaroce version");
    }

    @Test
    void versionSubcommandPrintsVersionJavaAndOs() {
        CliRun run = CliRun.of("version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .containsPattern("(?m)^metaroce \\S+$")
                .contains("Java " + Runtime.version())
                .contains(System.getProperty("os.arch"));
        assertThat(run.err()).isEmpty();
    }

    @Test
    void versionOptionPrintsTheSameAsTheVersionSubcommand() {
        CliRun option = CliRun.of("--version");

        assertThat(option.exitCode()).isZero();
        assertThat(option.out()).isEqualTo(CliRun.of("version").out());
    }

    @Test
    void versionFallsBackToDevOutsideThePackagedJar() {
        // Tests run from target/classes, which has no manifest Implementation-Version.
        assertThat(VersionProvider.toolVersion()).isEqualTo(VersionProvider.DEV_VERSION);
    }

    @Test
    void unknownOptionIsAUsageErrorWithExitCodeTwo() {
        CliRun run = CliRun.of("--no-such-option");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option: '--no-such-option'").contains("Usage: metaroce");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void noSubcommandIsAUsageError() {
        CliRun run = CliRun.of();

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Missing required subcommand").contains("Usage: metaroce");
    }
}
