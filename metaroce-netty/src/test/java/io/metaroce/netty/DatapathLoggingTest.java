package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.logging.RecordingLoggerProvider;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * R-JAVA-3: the datapath logs through SLF4J, and never per packet. The module's tests run with
 * {@link RecordingLoggerProvider}, which records every call of an {@code io.metaroce} logger at
 * every level; a transfer of thousands of packets with loss, retransmissions and four paths must
 * record nothing, while the one line the datapath does log (it cannot read ECN) is recorded.
 */
class DatapathLoggingTest {
    private static final int PATHS = 4;
    private static final int MESSAGES = 400;
    private static final int SIZE = 16_384;
    private static final int IN_FLIGHT = 32;
    private static final long WAIT_SECONDS = 30;
    /** As in {@code UdpLoopbackTest}: a loaded build machine may deschedule one side for a second. */
    private static final EngineConfig CONFIG = EngineConfig.defaults().toBuilder()
            .maxRtoNanos(5_000_000_000L).maxConsecutiveTimeouts(14).build();

    @Test
    void theProviderRecordsTheDatapathsLoggersAtEveryLevel() {
        assertThat(LoggerFactory.getILoggerFactory().getClass().getName())
                .as("SLF4J bound to the recording provider of this module's tests")
                .startsWith(RecordingLoggerProvider.class.getName());
        RecordingLoggerProvider.clear();
        try (UdpEndpoint nio = UdpEndpoint.builder().datapath(Datapath.NIO).build()) {
            assertThat(nio.stats().ecnCapable()).isFalse();
        }
        assertThat(RecordingLoggerProvider.recorded()).as("the NIO datapath says once that it cannot read ECN")
                .anyMatch(line -> line.startsWith("INFO io.metaroce.netty.UdpEndpoint") && line.contains("cannot read ECN"));
    }

    @ParameterizedTest
    @EnumSource(Datapath.class)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLossyMultipathTransferLogsNothing(Datapath datapath) throws Exception {
        assumeTrue(datapath != Datapath.LINUX || LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(datapath).config(CONFIG).listening(true)
                        .dropProbability(0.05).dropSeed(3).acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(datapath).config(CONFIG)
                        .dropProbability(0.05).dropSeed(4).build()) {
            UdpConnection conn = client.connect(server.localAddress(), PATHS).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection peer = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(peer).as("the server accepted the connection").isNotNull();
            MemoryRegion inbox = server.register(arena.allocate((long) SIZE * IN_FLIGHT),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemoryRegion outbox = client.register(arena.allocate((long) SIZE * IN_FLIGHT), Access.LOCAL_WRITE);
            RecordingLoggerProvider.clear();

            for (int first = 0; first < MESSAGES; first += IN_FLIGHT) {
                List<CompletableFuture<Completion>> round = new ArrayList<>();
                for (int i = 0; i < IN_FLIGHT; i++) {
                    long id = first + i;
                    long offset = (long) i * SIZE;
                    int stream = 1 + i % 4;
                    round.add(peer.postRecv(stream, id, inbox, offset, SIZE));
                    round.add(conn.postSend(stream, id, outbox, offset, SIZE));
                    round.add(conn.postWrite(stream, MESSAGES + id, outbox, offset, SIZE, inbox.remoteKey(), offset));
                }
                for (CompletableFuture<Completion> f : round) {
                    assertThat(f.get(WAIT_SECONDS, TimeUnit.SECONDS).status()).isEqualTo(CompletionStatus.SUCCESS);
                }
            }
            UdpConnectionStats stats = conn.stats();
            List<String> logged = RecordingLoggerProvider.recorded();
            conn.close().get(WAIT_SECONDS, TimeUnit.SECONDS);

            assertThat(stats.packetsSent()).as("enough packets that one line per packet would show")
                    .isGreaterThan(2L * MESSAGES);
            assertThat(stats.retransmissions()).as("the dropped datagrams were repaired").isPositive();
            assertThat(logged).as("lines logged over %d packets on datapath %s", stats.packetsSent(),
                    client.datapathName()).isEmpty();
        }
    }
}
