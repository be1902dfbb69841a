package io.metaroce.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.bench.conformance.ConformanceCase;
import io.metaroce.bench.conformance.ConformanceSuite;
import io.metaroce.bench.conformance.SlowHostSkips;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code conformance} and {@code conformance-responder} commands, end to end in one process. */
class ConformanceCommandTest {

    @Test
    void listNamesEveryCaseWithItsRules() {
        CliRun run = CliRun.of("conformance", "--list");
        assertThat(run.exitCode()).isZero();
        for (ConformanceCase c : ConformanceSuite.cases()) {
            assertThat(run.out()).contains(c.id()).contains(String.join(" ", c.rules()));
        }
    }

    @Test
    void theSuitePassesAgainstTheResponderCommandAndWritesJson(@TempDir Path dir) throws Exception {
        CliRun.Background responder = CliRun.start("conformance-responder", "--bind", "127.0.0.1:0", "--seconds", "60");
        try {
            String address = responder.await("listening on (\\S+)", 30);
            assertThat(address).as(responder.err().toString()).isNotNull();
            Path json = dir.resolve("conformance.json");
            long selected = ConformanceSuite.cases().stream()
                    .filter(c -> c.id().startsWith("handshake.") || c.id().startsWith("close.")).count();
            CliRun run = CliRun.of("conformance", "--target", address, "--case", "handshake,close", "--wait-ms", "5000",
                    "--json", json.toString());
            assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("PASS  handshake.challenge").contains("PASS  close.graceful")
                    .containsPattern(selected + " cases: \\d+ passed, 0 failed, \\d+ skipped");
            assertOnlySlowHostSkips(run.out());
            String text = Files.readString(json);
            assertThat(text).contains("\"failed\": 0")
                    .contains("{\"id\": \"handshake.accept\", \"verdict\": \"PASS\", \"rules\": [\"SPEC-CONN-12\"");
        } finally {
            // Stopped here, not left to run its 60 s beside the tests that follow.
            responder.thread().interrupt();
        }
        responder.thread().join(30_000);
        assertThat(responder.thread().isAlive()).isFalse();
    }

    /**
     * Every SKIP in the suite's output ({@code SKIP  id  rules}, then {@code       -- detail}) is
     * one of a case that may SKIP on a host too slow, for that reason.
     */
    private static void assertOnlySlowHostSkips(String out) {
        List<String> lines = out.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("SKIP  ")) {
                String id = lines.get(i).substring("SKIP  ".length()).trim().split("\\s+")[0];
                String detail = i + 1 < lines.size() ? lines.get(i + 1) : "";
                assertThat(SlowHostSkips.allowed(id, detail)).as(lines.get(i) + "\n" + detail).isTrue();
            }
        }
    }

    @Test
    void aTargetThatDoesNotAnswerFailsWithExitCodeOneAndSaysWhatWasMissing() {
        CliRun run = CliRun.of("conformance", "--target", "127.0.0.1:9", "--case", "handshake.challenge",
                "--wait-ms", "200", "--seed", "3");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("FAIL  handshake.challenge").contains("no CHALLENGE came within 200 ms")
                .contains("(seed 3)").contains("1 cases: 0 passed, 1 failed, 0 skipped");
    }

    @Test
    void aCaseFilterThatSelectsNothingIsAUsageError() {
        CliRun run = CliRun.of("conformance", "--target", "127.0.0.1:9", "--case", "no-such-case");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("selects no case");
    }
}
