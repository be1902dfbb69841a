package io.metaroce.core.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's API example, compiled and run, and kept identical to the README's text. */
class ReadmeExampleTest {

    @Test
    void theExampleRunsAndCompletesEveryWorkRequest() {
        List<String> log = new ArrayList<>();
        // README-BEGIN
        // Two engines joined by the in-memory test network: 4 paths, 1% loss.
        Pair pair = Pair.create(1, 4, NetworkConditions.perfect().withLoss(0.01), EngineConfig.defaults())
                .onClientCompletion((conn, stream, wrId, opcode, status, bytes, imm, hasImm) ->
                        log.add("client " + WorkOpcode.name(opcode) + " " + CompletionStatus.name(status)))
                .onServerCompletion((conn, stream, wrId, opcode, status, bytes, imm, hasImm) ->
                        log.add("server " + WorkOpcode.name(opcode) + " " + bytes + " bytes"))
                .connect();

        // Register memory. The server's inbox may be written by the peer; keys name it remotely.
        MemoryRegion inbox = pair.server().protectionDomain()
                .register(Arena.ofAuto().allocate(1 << 20), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        MemoryRegion outbox = pair.client().protectionDomain()
                .register(Arena.ofAuto().allocate(1 << 20), Access.LOCAL_WRITE);

        // Stream 7: the server posts a receive; the client WRITEs 64 KiB, then SENDs 4 KiB.
        pair.serverConnection().postRecv(7, 1, inbox, 0, 4096);
        Connection conn = pair.clientConnection();
        conn.postWrite(7, 100, outbox, 4096, 65536, inbox.remoteKey(), 4096);
        conn.postSend(7, 101, outbox, 0, 4096);

        // Drive virtual time until all three completions are in (a real driver polls sockets instead).
        pair.driveUntil(() -> log.size() == 3, 1_000_000_000L, "example");
        log.forEach(System.out::println);
        // README-END
        assertThat(log).containsExactlyInAnyOrder("client WRITE SUCCESS", "client SEND SUCCESS", "server RECV 4096 bytes");
        assertThat(log.indexOf("client WRITE SUCCESS")).isLessThan(log.indexOf("client SEND SUCCESS"));
    }

    @Test
    void theReadmeShowsExactlyTheCodeThatRunsHere() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher block = Pattern.compile("## API example.*?```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("README.md has a java block under '## API example'").isTrue();
        String source = Files.readString(Path.of("src/test/java/io/metaroce/core/docs/ReadmeExampleTest.java"));
        String region = source.substring(source.indexOf("// README-BEGIN") + "// README-BEGIN".length(),
                source.indexOf("        // README-END"));
        assertThat(normalize(block.group(1))).isEqualTo(normalize(region));
    }

    private static String normalize(String code) {
        StringBuilder b = new StringBuilder();
        for (String line : code.strip().split("\n")) {
            b.append(line.strip()).append('\n');
        }
        return b.toString();
    }
}
