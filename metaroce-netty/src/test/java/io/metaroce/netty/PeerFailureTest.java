package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.conn.ConnectionState;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a client sees when its server goes away over real sockets: closed (the server says so),
 * killed (silence), or merely quiet (idle timeout, and keep-alives that prevent it). In every case
 * the client's outstanding work completes with an error within a bounded time: nothing hangs.
 */
class PeerFailureTest {
    static {
        LeakRecorder.install();
    }

    private static final long WAIT_SECONDS = 20;

    private final UnpluggableSocketLayer serverCable = new UnpluggableSocketLayer();
    private final BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
    private Arena arena;
    private UdpEndpoint server;
    private UdpEndpoint client;

    @BeforeEach
    void clearLeaks() {
        LeakRecorder.clear();
        arena = Arena.ofShared();
    }

    @AfterEach
    void closeAndCheckLeaks() throws InterruptedException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        arena.close();
        assertThat(LeakRecorder.collect()).as("Netty buffer leaks").isEmpty();
    }

    private UdpConnection connect(EngineConfig clientConfig, EngineConfig serverConfig) throws Exception {
        server = UdpEndpoint.builder().listening(true).config(serverConfig).socketLayer(serverCable)
                .acceptListener(accepted::add).build();
        client = UdpEndpoint.builder().config(clientConfig).build();
        UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
        return c;
    }

    @Test
    @Timeout(60)
    void serverEndpointClosedFailsTheClientsPendingWorkAtOnce() throws Exception {
        UdpConnection c = connect(EngineConfig.defaults(), EngineConfig.defaults());
        MemoryRegion src = client.register(arena.allocate(1 << 16), Access.NONE);
        // No receive is posted on the server, so these SENDs wait (receiver not ready) until the end.
        CompletableFuture<Completion> send = c.postSend(1, 1, src, 0, 1 << 16);
        Thread.sleep(50);
        assertThat(send).isNotDone();

        long start = System.nanoTime();
        server.close();
        Completion done = send.get(WAIT_SECONDS, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(done.status()).as("%s", done).isEqualTo(CompletionStatus.CONNECTION_CLOSED);
        assertThat(c.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.PEER_ABORT);
        assertThat(tookMs).as("the server says it is closing: no timeout needed").isLessThan(5_000);
        assertThat(client.stats().openSockets()).as("path sockets released").isEqualTo(1);
    }

    @Test
    @Timeout(60)
    void serverKilledSilentlyFailsTheClientsPendingWorkWithinTheRetryBudget() throws Exception {
        UdpConnection c = connect(EngineConfig.defaults(), EngineConfig.defaults());
        MemoryRegion target = server.register(arena.allocate(1 << 20), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        MemoryRegion src = client.register(arena.allocate(1 << 20), Access.NONE);
        assertThat(c.postWrite(1, 1, src, 0, 4096, target.remoteKey(), 0).get(WAIT_SECONDS, TimeUnit.SECONDS)
                .isSuccess()).isTrue();

        serverCable.unplug();
        long start = System.nanoTime();
        CompletableFuture<Completion> write = c.postWrite(1, 2, src, 0, 1 << 20, target.remoteKey(), 0);
        Completion done = write.get(WAIT_SECONDS, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(done.status()).as("%s", done).isNotEqualTo(CompletionStatus.SUCCESS);
        assertThat(c.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.PEER_UNREACHABLE);
        assertThat(tookMs).as("bounded by the retransmission budget (maxConsecutiveTimeouts, maxRto)")
                .isLessThan(15_000);
    }

    @Test
    @Timeout(60)
    void aSilentPeerIsDroppedAfterTheIdleTimeout() throws Exception {
        EngineConfig quick = EngineConfig.builder().idleTimeoutNanos(400_000_000L).keepAliveNanos(0).build();
        UdpConnection c = connect(quick, quick);
        serverCable.unplug();
        long start = System.nanoTime();
        assertThat(c.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.IDLE_TIMEOUT);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs).as("idle timeout 400 ms").isBetween(300L, 5_000L);
        MemoryRegion src = client.register(arena.allocate(64), Access.NONE);
        assertThat(c.postSend(0, 1, src, 0, 64)).failsWithin(5, TimeUnit.SECONDS);
    }

    @Test
    @Timeout(60)
    void keepAlivesHoldAnIdleButLiveConnectionOpenPastTheIdleTimeout() throws Exception {
        EngineConfig quick = EngineConfig.builder().idleTimeoutNanos(400_000_000L).keepAliveNanos(100_000_000L)
                .build();
        UdpConnection c = connect(quick, quick);
        Thread.sleep(1_500);
        assertThat(c.closeFuture()).as("closed although the peer answers keep-alives").isNotDone();
        assertThat(c.stats().state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(c.close().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.LOCAL_CLOSE);
    }
}
