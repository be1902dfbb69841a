package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A ping-pong over real UDP on 127.0.0.1 where each side answers from its completion callback:
 * the driver polls completions before transmits, so the answer leaves in the same drive as the
 * ACK of what it answers, and the ACK rides ahead of it in one datagram [SPEC-SACK-13]. About one
 * datagram each way per round trip instead of two, every byte checked.
 */
class AckBundlingLoopbackTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final int ROUNDS = 300;
    private static final int SIZE = 64;
    private static final long WAIT_SECONDS = 30;

    @ParameterizedTest
    @EnumSource(Datapath.class)
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPingPongPostedFromCallbacksCarriesItsAcksInTheReplies(Datapath datapath) throws Exception {
        assumeTrue(datapath != Datapath.LINUX || LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        long[] bundled = run(datapath, EngineConfig.defaults());
        long[] alone = run(datapath, EngineConfig.defaults().toBuilder().bundleAcks(false).build());
        // {datagrams, packets}: a bundle is one datagram carrying two packets.
        assertThat(bundled[0]).as("datagrams with bundling, packets %d", bundled[1])
                .isLessThanOrEqualTo(bundled[1] * 6 / 10);
        assertThat(alone[0]).as("datagrams without bundling").isEqualTo(alone[1]);
        assertThat(bundled[0]).as("bundled against alone").isLessThan(alone[0] * 7 / 10);
    }

    /** Runs the ping-pong; returns the datagrams and packets both endpoints sent meanwhile. */
    private static long[] run(Datapath datapath, EngineConfig config) throws Exception {
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared()) {
            UdpEndpoint server = null;
            UdpEndpoint client = null;
            try {
                server = UdpEndpoint.builder().datapath(datapath).config(config).listening(true)
                        .acceptListener(accepted::add).build();
                client = UdpEndpoint.builder().datapath(datapath).config(config).build();
                UdpConnection cc = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
                UdpConnection sc = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(sc).isNotNull();
                MemorySegment pings = arena.allocate((long) SIZE * ROUNDS);
                byte[] bytes = new byte[SIZE * ROUNDS];
                new SplittableRandom(7).nextBytes(bytes);
                MemorySegment.copy(bytes, 0, pings, ValueLayout.JAVA_BYTE, 0, bytes.length);
                MemoryRegion src = client.register(pings, Access.NONE);
                MemoryRegion serverBuf = server.register(arena.allocate((long) SIZE * ROUNDS), Access.LOCAL_WRITE);
                MemoryRegion echoes = client.register(arena.allocate((long) SIZE * ROUNDS), Access.LOCAL_WRITE);

                long[] clientBefore = sent(client, cc);
                long[] serverBefore = sent(server, sc);
                CompletableFuture<Void> finished = new CompletableFuture<>();
                start(cc, sc, src, serverBuf, echoes, finished);
                cc.postSend(0, 0, src, 0, SIZE);
                finished.get(WAIT_SECONDS, TimeUnit.SECONDS);
                long[] clientAfter = sent(client, cc);
                long[] serverAfter = sent(server, sc);
                long datagrams = clientAfter[0] - clientBefore[0] + serverAfter[0] - serverBefore[0];
                long packets = clientAfter[1] - clientBefore[1] + serverAfter[1] - serverBefore[1];
                assertThat(echoes.segment().mismatch(src.segment())).as("every echo as sent").isEqualTo(-1);
                return new long[] {datagrams, packets};
            } finally {
                if (client != null) {
                    client.close();
                }
                if (server != null) {
                    server.close();
                }
            }
        }
    }

    /**
     * {datagrams the endpoint sent, packets its connection sent}, read in one task on the
     * endpoint's loop. The loop counts a packet when the connection emits it and the datagram
     * when it is queued on the socket, in the same drive; read in two tasks, a drive between them
     * (a delayed ACK, the last echo's) would count on one side only. Each endpoint's pair is
     * consistent on its own, so the two endpoints need not be read at one moment.
     */
    private static long[] sent(UdpEndpoint endpoint, UdpConnection connection) {
        return endpoint.callOnLoop(() -> new long[] {endpoint.stats().datagramsSent(),
                connection.stats().packetsSent()});
    }

    /**
     * Posts every receive first (so no ping finds the server without one); each server receive's
     * callback (on the server's loop) echoes, each client receive's callback posts the next ping.
     */
    private static void start(UdpConnection cc, UdpConnection sc, MemoryRegion src, MemoryRegion serverBuf,
            MemoryRegion echoes, CompletableFuture<Void> finished) {
        for (int i = 0; i < ROUNDS; i++) {
            int n = i;
            long off = (long) n * SIZE;
            sc.postRecv(0, n, serverBuf, off, SIZE).whenComplete((c, e) -> {
                if (e != null || !c.isSuccess()) {
                    finished.completeExceptionally(new AssertionError("server receive " + n + ": " + c, e));
                    return;
                }
                sc.postSend(0, n, serverBuf, off, SIZE);
            });
            cc.postRecv(0, n, echoes, off, SIZE).whenComplete((c, e) -> {
                if (e != null || !c.isSuccess()) {
                    finished.completeExceptionally(new AssertionError("client receive " + n + ": " + c, e));
                } else if (n + 1 == ROUNDS) {
                    finished.complete(null);
                } else {
                    cc.postSend(0, n + 1, src, off + SIZE, SIZE);
                }
            });
        }
    }
}
