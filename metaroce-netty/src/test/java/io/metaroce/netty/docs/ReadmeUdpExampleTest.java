package io.metaroce.netty.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Completion;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpEndpoint;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's UDP example, compiled and run over loopback, and kept identical to the README's text. */
class ReadmeUdpExampleTest {

    @Test
    @Timeout(60)
    void theUdpExampleMovesBytesOverRealSockets() throws Exception {
        List<String> log = new ArrayList<>();
        // README-UDP-BEGIN
        var accepted = new LinkedBlockingQueue<UdpConnection>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().build()) {
            // Four paths: four sockets, four UDP source ports, four routes through an ECMP fabric.
            UdpConnection conn = client.connect(server.localAddress(), 4).get(5, TimeUnit.SECONDS);
            UdpConnection peer = accepted.take();

            MemoryRegion inbox = server.register(arena.allocate(1 << 20), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemoryRegion outbox = client.register(arena.allocate(1 << 20), Access.NONE);
            outbox.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 42);

            // Posting works from any thread; each post returns a future of its completion.
            CompletableFuture<Completion> recv = peer.postRecv(3, 1, inbox, 0, 4096);
            CompletableFuture<Completion> write = conn.postWrite(3, 2, outbox, 0, 65536, inbox.remoteKey(), 8192);
            CompletableFuture<Completion> send = conn.postSend(3, 3, outbox, 0, 4096);
            log.add(write.get(5, TimeUnit.SECONDS) + ", " + send.get(5, TimeUnit.SECONDS) + ", "
                    + recv.get(5, TimeUnit.SECONDS) + ", byte " + inbox.segment().get(ValueLayout.JAVA_BYTE, 8192)
                    + " at the WRITE's target, over " + client.datapathName());
            conn.close().get(5, TimeUnit.SECONDS);
        }
        // README-UDP-END
        assertThat(log).singleElement().asString().contains("WRITE, SUCCESS, bytes=65536", "SEND, SUCCESS",
                "RECV, SUCCESS, bytes=4096", "byte 42 at the WRITE's target");
    }

    @Test
    void theReadmeShowsExactlyTheCodeThatRunsHere() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        Matcher block = Pattern.compile("## Over UDP.*?```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("README.md has a java block under '## Over UDP'").isTrue();
        String source = Files.readString(Path.of("src/test/java/io/metaroce/netty/docs/ReadmeUdpExampleTest.java"));
        String region = source.substring(source.indexOf("// README-UDP-BEGIN") + "// README-UDP-BEGIN".length(),
                source.indexOf("        // README-UDP-END"));
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
