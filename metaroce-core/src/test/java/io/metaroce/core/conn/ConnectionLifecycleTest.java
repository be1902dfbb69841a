package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Closing, aborting, idling, keeping alive and losing the peer. */
class ConnectionLifecycleTest {
    /** One completion, with the state of its connection when it was delivered. */
    record Done(int stream, long wrId, int opcode, int status, long bytes, ConnectionState stateWhenDelivered) {
        @Override
        public String toString() {
            return "wr " + wrId + " " + WorkOpcode.name(opcode) + " " + CompletionStatus.name(status) + " " + bytes
                    + "B on stream " + stream + " (" + stateWhenDelivered + ")";
        }
    }

    private final List<Done> clientDone = new ArrayList<>();
    private final List<Done> serverDone = new ArrayList<>();
    private final List<CloseReason> serverClosed = new ArrayList<>();
    private Pair pair;

    private Pair pair(long seed, int paths, NetworkConditions net, EngineConfig config) {
        pair = Pair.create(seed, paths, net, config)
                .onClientCompletion((c, s, w, o, st, b, i, h) ->
                        clientDone.add(new Done(s, w, o, st, b, stateOf(pair.clientConnection()))))
                .onServerCompletion((c, s, w, o, st, b, i, h) ->
                        serverDone.add(new Done(s, w, o, st, b, stateOf(pair.serverConnection()))))
                .onServerEvents(new ConnectionListener() {
                    @Override
                    public void onClosed(Connection connection, CloseReason reason) {
                        serverClosed.add(reason);
                    }
                });
        return pair.connect();
    }

    private static ConnectionState stateOf(Connection c) {
        return c == null ? null : c.state();
    }


    private static boolean closed(Connection c) {
        return c.state() == ConnectionState.CLOSED;
    }

    // =====================================================================================
    // Graceful close
    // =====================================================================================

    @ParameterizedTest(name = "client closes: {0}")
    @ValueSource(booleans = {true, false})
    void gracefulCloseFinishesPostedSendsThenClosesBothSides(boolean clientCloses) {
        long seed = clientCloses ? 101 : 102;
        Pair p = pair(seed, 2, NetworkConditions.perfect().withDelay(5_000, 1_000, 10_000), EngineConfig.defaults());
        Connection closer = clientCloses ? p.clientConnection() : p.serverConnection();
        Connection peer = clientCloses ? p.serverConnection() : p.clientConnection();
        Endpoint closerEndpoint = clientCloses ? p.client() : p.server();
        Endpoint peerEndpoint = clientCloses ? p.server() : p.client();
        List<Done> closerDone = clientCloses ? clientDone : serverDone;
        List<Done> peerDone = clientCloses ? serverDone : clientDone;
        String why = "seed " + seed + ", client closes " + clientCloses;

        int size = 50_000;
        MemoryRegion src = TestMemory.region(closerEndpoint, 3 * size, Access.NONE, seed);
        MemoryRegion dst = TestMemory.region(peerEndpoint, 3 * size, Access.LOCAL_WRITE, 0);
        MemoryRegion spare = TestMemory.region(peerEndpoint, 1_000, Access.LOCAL_WRITE, 0);
        MemoryRegion closerSpare = TestMemory.region(closerEndpoint, 1_000, Access.LOCAL_WRITE, 0);
        for (int i = 0; i < 3; i++) {
            assertThat(peer.postRecv(0, 10 + i, dst, (long) i * size, size)).as(why).isEqualTo(PostResult.OK);
        }
        // Receives no SEND will ever consume, on both sides.
        assertThat(peer.postRecv(1, 20, spare, 0, 500)).as(why).isEqualTo(PostResult.OK);
        assertThat(peer.postRecv(0, 21, spare, 500, 500)).as(why).isEqualTo(PostResult.OK);
        assertThat(closer.postRecv(2, 30, closerSpare, 0, 1_000)).as(why).isEqualTo(PostResult.OK);
        for (int i = 0; i < 3; i++) {
            assertThat(closer.postSend(0, 1 + i, src, (long) i * size, size)).as(why).isEqualTo(PostResult.OK);
        }

        closer.close();

        assertThat(closer.state()).as(why).isEqualTo(ConnectionState.CLOSE_PENDING);
        assertThat(closer.postSend(0, 99, src, 0, 10)).as(why).isEqualTo(PostResult.CLOSED);
        assertThat(closer.postRecv(0, 98, closerSpare, 0, 10)).as(why).isEqualTo(PostResult.CLOSED);

        p.driveUntil(() -> closed(closer) && closed(peer), 2_000_000_000L, "graceful close, " + why);

        assertThat(closerDone).as(why)
                .extracting(Done::stream, Done::wrId, Done::opcode, Done::status, Done::bytes)
                .containsExactly(
                        tuple(0, 1L, WorkOpcode.SEND, CompletionStatus.SUCCESS, (long) size),
                        tuple(0, 2L, WorkOpcode.SEND, CompletionStatus.SUCCESS, (long) size),
                        tuple(0, 3L, WorkOpcode.SEND, CompletionStatus.SUCCESS, (long) size),
                        tuple(2, 30L, WorkOpcode.RECV, CompletionStatus.CONNECTION_CLOSED, 0L));
        // The SENDs finished before the connection closed; the unused receive only when it did.
        assertThat(closerDone.subList(0, 3)).as(why).extracting(Done::stateWhenDelivered)
                .containsOnly(ConnectionState.CLOSE_PENDING, ConnectionState.CLOSING);
        assertThat(closerDone.get(3).stateWhenDelivered()).as(why).isEqualTo(ConnectionState.CLOSED);
        assertThat(peerDone.subList(0, 3)).as(why).containsExactly(
                new Done(0, 10, WorkOpcode.RECV, CompletionStatus.SUCCESS, size, ConnectionState.ESTABLISHED),
                new Done(0, 11, WorkOpcode.RECV, CompletionStatus.SUCCESS, size, ConnectionState.ESTABLISHED),
                new Done(0, 12, WorkOpcode.RECV, CompletionStatus.SUCCESS, size, ConnectionState.ESTABLISHED));
        assertThat(peerDone.subList(3, peerDone.size())).as(why)
                .extracting(Done::wrId, Done::opcode, Done::status)
                .containsExactlyInAnyOrder(
                        tuple(20L, WorkOpcode.RECV, CompletionStatus.CONNECTION_CLOSED),
                        tuple(21L, WorkOpcode.RECV, CompletionStatus.CONNECTION_CLOSED));
        assertThat(dst.segment().mismatch(src.segment())).as(why).isEqualTo(-1);

        assertThat(closer.closeReason()).as(why).isEqualTo(CloseReason.LOCAL_CLOSE);
        assertThat(peer.closeReason()).as(why).isEqualTo(CloseReason.PEER_CLOSE);
        assertThat(serverClosed).as(why).containsExactly(clientCloses ? CloseReason.PEER_CLOSE : CloseReason.LOCAL_CLOSE);
        assertThat(closer.postSend(0, 97, src, 0, 10)).as(why).isEqualTo(PostResult.CLOSED);
        assertThat(peer.postRecv(0, 96, dst, 0, 10)).as(why).isEqualTo(PostResult.CLOSED);
        assertThat(closer.outstandingWork()).as(why).isZero();
        assertThat(peer.outstandingWork()).as(why).isZero();
        assertThat(p.client().connectionCount()).as(why).isZero();
        assertThat(p.server().connectionCount()).as(why).isZero();

        // Nothing follows: no completion for the refused posts, no timer, no datagram.
        int before = clientDone.size() + serverDone.size();
        p.advance(1_000_000_000L);
        assertThat(clientDone.size() + serverDone.size()).as(why).isEqualTo(before);
        assertThat(p.client().pollTimeoutNanos()).as(why).isEqualTo(Long.MAX_VALUE);
        assertThat(p.server().pollTimeoutNanos()).as(why).isEqualTo(Long.MAX_VALUE);
        assertThat(p.inFlight()).as(why).isZero();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {121, 122, 123, 124, 125, 126, 127, 128})
    void gracefulCloseOverALossyNetworkStillFinishesEverySendFirst(long seed) {
        clientDone.clear();
        serverDone.clear();
        Pair p = pair(seed, 2, NetworkConditions.perfect().withLoss(0.05).withDelay(5_000, 2_000, 20_000),
                EngineConfig.defaults());
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        int size = 200_000;
        MemoryRegion src = TestMemory.region(p.client(), 4 * size, Access.NONE, seed);
        MemoryRegion dst = TestMemory.region(p.server(), 4 * size, Access.LOCAL_WRITE, 0);
        for (int i = 0; i < 4; i++) {
            assertThat(s.postRecv(i % 2, 10 + i, dst, (long) i * size, size)).isEqualTo(PostResult.OK);
            assertThat(c.postSend(i % 2, 1 + i, src, (long) i * size, size)).isEqualTo(PostResult.OK);
        }
        c.close();
        String why = "seed " + seed;
        p.driveUntil(() -> closed(c) && closed(s), 20_000_000_000L, "graceful close over loss, " + why);

        assertThat(clientDone).as(why).extracting(Done::wrId, Done::status).containsExactlyInAnyOrder(
                tuple(1L, CompletionStatus.SUCCESS), tuple(2L, CompletionStatus.SUCCESS),
                tuple(3L, CompletionStatus.SUCCESS), tuple(4L, CompletionStatus.SUCCESS));
        assertThat(clientDone).as(why).extracting(Done::stateWhenDelivered).doesNotContain(ConnectionState.CLOSED);
        assertThat(serverDone).as(why).extracting(Done::wrId, Done::status).containsExactlyInAnyOrder(
                tuple(10L, CompletionStatus.SUCCESS), tuple(11L, CompletionStatus.SUCCESS),
                tuple(12L, CompletionStatus.SUCCESS), tuple(13L, CompletionStatus.SUCCESS));
        assertThat(dst.segment().mismatch(src.segment())).as(why).isEqualTo(-1);
        // If every reply to its CLOSE is lost, the closer gives up after closeRetries: PEER_UNREACHABLE.
        assertThat(c.closeReason()).as(why).isIn(CloseReason.LOCAL_CLOSE, CloseReason.PEER_UNREACHABLE);
        assertThat(s.closeReason()).as(why).isIn(CloseReason.PEER_CLOSE, CloseReason.IDLE_TIMEOUT);
        assertThat(p.client().connectionCount()).as(why).isZero();
        assertThat(p.server().connectionCount()).as(why).isZero();
    }

    @Test
    void simultaneousCloseByBothSidesEndsWithLocalCloseOnBoth() {
        long seed = 130;
        Pair p = pair(seed, 1, NetworkConditions.perfect(), EngineConfig.defaults());
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        c.close();
        s.close();
        p.driveUntil(() -> closed(c) && closed(s), 1_000_000_000L, "simultaneous close, seed " + seed);
        assertThat(c.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.LOCAL_CLOSE);
        assertThat(s.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.LOCAL_CLOSE);
        assertThat(p.client().connectionCount()).isZero();
        assertThat(p.server().connectionCount()).isZero();
    }

    @Test
    void closeWithNothingOutstandingClosesAtOnceOverALossyNetwork() {
        for (long seed = 110; seed < 120; seed++) {
            clientDone.clear();
            serverDone.clear();
            serverClosed.clear();
            Pair p = pair(seed, 1, NetworkConditions.perfect().withLoss(0.2), EngineConfig.defaults());
            Connection c = p.clientConnection();
            Connection s = p.serverConnection();
            c.close();
            p.driveUntil(() -> closed(c) && closed(s), 2_000_000_000L, "close over loss, seed " + seed);
            String why = "seed " + seed;
            // If every reply to its CLOSE is lost, the closer gives up after closeRetries: PEER_UNREACHABLE.
            assertThat(c.closeReason()).as(why).isIn(CloseReason.LOCAL_CLOSE, CloseReason.PEER_UNREACHABLE);
            assertThat(s.closeReason()).as(why).isIn(CloseReason.PEER_CLOSE, CloseReason.IDLE_TIMEOUT);
            assertThat(p.client().connectionCount()).as(why).isZero();
            assertThat(p.server().connectionCount()).as(why).isZero();
        }
    }

    // =====================================================================================
    // Abort
    // =====================================================================================

    @Test
    void abortCompletesOutstandingWorkWithConnectionClosedAndThePeerSeesPeerAbort() {
        long seed = 201;
        // A small window, so the SENDs are still mostly unsent (not just in flight) at the abort.
        EngineConfig config = EngineConfig.builder().congestionWindowBytes(64 * 1024).build();
        Pair p = pair(seed, 2, NetworkConditions.perfect(), config);
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        int size = 4 << 20;
        MemoryRegion src = TestMemory.region(p.client(), size, Access.NONE, seed);
        MemoryRegion dst = TestMemory.region(p.server(), size, Access.LOCAL_WRITE, 0);
        MemoryRegion clientRecv = TestMemory.region(p.client(), 100, Access.LOCAL_WRITE, 0);
        assertThat(s.postRecv(0, 50, dst, 0, size / 2)).isEqualTo(PostResult.OK);
        assertThat(s.postRecv(0, 51, dst, size / 2, size / 2)).isEqualTo(PostResult.OK);
        assertThat(c.postRecv(0, 60, clientRecv, 0, 100)).isEqualTo(PostResult.OK);
        assertThat(c.postSend(0, 1, src, 0, size / 2)).isEqualTo(PostResult.OK);
        assertThat(c.postSend(0, 2, src, size / 2, size / 2)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> c.stats().dataPacketsSent() >= 50, 1_000_000_000L, "first packets");
        assertThat(clientDone).as("nothing finished before the abort (seed %d)", seed).isEmpty();

        c.abort();

        assertThat(c.state()).isEqualTo(ConnectionState.CLOSING);
        assertThat(c.closeReason()).isEqualTo(CloseReason.LOCAL_ABORT);
        assertThat(c.postSend(0, 3, src, 0, 10)).isEqualTo(PostResult.CLOSED);
        p.flush();
        assertThat(clientDone).as("seed %d", seed).extracting(Done::wrId, Done::opcode, Done::status)
                .containsExactlyInAnyOrder(
                        tuple(1L, WorkOpcode.SEND, CompletionStatus.CONNECTION_CLOSED),
                        tuple(2L, WorkOpcode.SEND, CompletionStatus.CONNECTION_CLOSED),
                        tuple(60L, WorkOpcode.RECV, CompletionStatus.CONNECTION_CLOSED));
        assertThat(c.outstandingWork()).isZero();

        p.driveUntil(() -> closed(c) && closed(s), 2_000_000_000L, "abort");

        assertThat(c.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.LOCAL_ABORT);
        assertThat(s.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.PEER_ABORT);
        assertThat(serverClosed).as("seed %d", seed).containsExactly(CloseReason.PEER_ABORT);
        assertThat(serverDone).as("seed %d", seed).containsExactly(
                new Done(0, 50, WorkOpcode.RECV, CompletionStatus.CONNECTION_CLOSED, 0, ConnectionState.DRAINING),
                new Done(0, 51, WorkOpcode.RECV, CompletionStatus.CONNECTION_CLOSED, 0, ConnectionState.DRAINING));
        assertThat(clientDone).as("seed %d: no second completion", seed).hasSize(3);
        assertThat(p.client().connectionCount()).isZero();
        assertThat(p.server().connectionCount()).isZero();
    }

    // =====================================================================================
    // Idle timeout and keep-alive
    // =====================================================================================

    /**
     * [SPEC-STATE-8]: a datagram handed in after the idle deadline, before the driver ran its
     * timer (a late wake-up), ends the connection instead of reviving it.
     */
    @Test
    void aDatagramArrivingAfterTheIdleDeadlineEndsTheConnectionInsteadOfRevivingIt() {
        long idle = 10_000_000L;
        EngineConfig clientConfig = EngineConfig.builder().keepAliveNanos(0).idleTimeoutNanos(idle).build();
        // The server's keep-alive is the datagram the test holds back and hands in late.
        EngineConfig serverConfig = EngineConfig.builder().keepAliveNanos(idle / 2).idleTimeoutNanos(100 * idle).build();
        ByteBuffer[] held = {null};
        boolean[] holding = {false};
        Pair p = Pair.create(302, 1, NetworkConditions.perfect(), clientConfig, serverConfig)
                .lossModel((fromClient, pathId, datagram, length, now) -> {
                    if (!holding[0] || fromClient || held[0] != null) {
                        return false;
                    }
                    ByteBuffer copy = ByteBuffer.allocate(length);
                    for (int i = 0; i < length; i++) {
                        copy.put(i, datagram.get(i));
                    }
                    held[0] = copy;
                    return true;
                });
        p.connect();
        holding[0] = true;
        p.advance(idle * 3 / 4);
        assertThat(held[0]).as("the server's keep-alive was held back").isNotNull();
        Connection c = p.clientConnection();
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);

        long late = p.now() + idle;
        p.client().handleDatagram(late, held[0], 0, held[0].limit(), 0, Pair.SERVER_ADDRESS, 0);
        assertThat(c.state()).as("ended by the datagram that came after the idle deadline")
                .isEqualTo(ConnectionState.CLOSED);
        assertThat(c.closeReason()).isEqualTo(CloseReason.IDLE_TIMEOUT);
    }

    @Test
    void idleConnectionWithoutKeepAliveClosesWithIdleTimeoutOnBothSides() {
        long seed = 301;
        long idle = 50_000_000L;
        EngineConfig config = EngineConfig.builder().keepAliveNanos(0).idleTimeoutNanos(idle).build();
        Pair p = pair(seed, 2, NetworkConditions.perfect(), config);
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        MemoryRegion buf = TestMemory.region(p.server(), 100, Access.LOCAL_WRITE, 0);
        assertThat(s.postRecv(0, 7, buf, 0, 100)).isEqualTo(PostResult.OK);

        p.advance(idle - 1_000_000L);
        assertThat(c.state()).as("seed %d, before the idle timeout", seed).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(s.state()).as("seed %d, before the idle timeout", seed).isEqualTo(ConnectionState.ESTABLISHED);

        p.advance(2_000_000L);
        assertThat(c.state()).as("seed %d", seed).isEqualTo(ConnectionState.CLOSED);
        assertThat(s.state()).as("seed %d", seed).isEqualTo(ConnectionState.CLOSED);
        assertThat(c.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.IDLE_TIMEOUT);
        assertThat(s.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.IDLE_TIMEOUT);
        assertThat(serverClosed).as("seed %d", seed).containsExactly(CloseReason.IDLE_TIMEOUT);
        assertThat(serverDone).as("seed %d", seed)
                .extracting(Done::wrId, Done::status).containsExactly(
                        tuple(7L, CompletionStatus.PEER_UNREACHABLE));
        assertThat(p.client().connectionCount()).isZero();
        assertThat(p.server().connectionCount()).isZero();
        assertThat(c.stats().probesSent()).isZero();
    }

    @Test
    void keepAliveKeepsAnIdleConnectionOpenPastTheIdleTimeout() {
        long seed = 302;
        long idle = 50_000_000L;
        EngineConfig config = EngineConfig.builder().keepAliveNanos(10_000_000L).idleTimeoutNanos(idle).build();
        Pair p = pair(seed, 2, NetworkConditions.perfect().withDelay(20_000, 0, 0), config);
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();

        p.advance(20 * idle);

        assertThat(c.state()).as("seed %d", seed).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(s.state()).as("seed %d", seed).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(c.stats().probesSent()).as("seed %d", seed).isGreaterThanOrEqualTo(20);
        assertThat(serverClosed).as("seed %d", seed).isEmpty();

        // Still usable.
        MemoryRegion src = TestMemory.region(p.client(), 1_000, Access.NONE, seed);
        MemoryRegion dst = TestMemory.region(p.server(), 1_000, Access.LOCAL_WRITE, 0);
        assertThat(s.postRecv(0, 2, dst, 0, 1_000)).isEqualTo(PostResult.OK);
        assertThat(c.postSend(0, 1, src, 0, 1_000)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> clientDone.size() == 1 && serverDone.size() == 1, 100_000_000L, "send after idling");
        assertThat(clientDone.get(0).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    // =====================================================================================
    // Peer death
    // =====================================================================================

    @ParameterizedTest(name = "server also deaf: {0}")
    @ValueSource(booleans = {false, true})
    void peerDeathWithSendsOutstandingEndsInPeerUnreachableAndNothingLingers(boolean serverDeafToo) {
        long seed = serverDeafToo ? 402 : 401;
        long idle = 1_000_000_000L;
        EngineConfig config = EngineConfig.builder()
                .maxConsecutiveTimeouts(5)
                .maxRtoNanos(100_000_000L)
                .idleTimeoutNanos(idle)
                .keepAliveNanos(100_000_000L)
                .build();
        Pair p = pair(seed, 2, NetworkConditions.perfect(), config);
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        boolean[] dead = {false};
        p.lossModel((fromClient, pathId, datagram, length, now) -> dead[0] && (!fromClient || serverDeafToo));

        MemoryRegion src = TestMemory.region(p.client(), 300_000, Access.NONE, seed);
        MemoryRegion dst = TestMemory.region(p.server(), 300_000, Access.LOCAL_WRITE, 0);
        MemoryRegion clientRecv = TestMemory.region(p.client(), 100, Access.LOCAL_WRITE, 0);
        for (int i = 0; i < 3; i++) {
            assertThat(s.postRecv(0, 10 + i, dst, i * 100_000L, 100_000)).isEqualTo(PostResult.OK);
        }
        assertThat(c.postRecv(1, 20, clientRecv, 0, 100)).isEqualTo(PostResult.OK);
        dead[0] = true;
        long diedAt = p.now();
        for (int i = 0; i < 3; i++) {
            assertThat(c.postSend(0, 1 + i, src, i * 100_000L, 100_000)).isEqualTo(PostResult.OK);
        }

        String why = "seed " + seed + ", server deaf too " + serverDeafToo;
        p.driveUntil(() -> closed(c), idle + 1_000_000_000L, "client notices the dead peer, " + why);

        assertThat(p.now() - diedAt).as(why).isLessThanOrEqualTo(idle + 10_000_000L);
        assertThat(c.closeReason()).as(why).isIn(CloseReason.PEER_UNREACHABLE, CloseReason.IDLE_TIMEOUT);
        assertThat(clientDone).as(why).extracting(Done::wrId, Done::status).containsExactlyInAnyOrder(
                tuple(1L, CompletionStatus.PEER_UNREACHABLE),
                tuple(2L, CompletionStatus.PEER_UNREACHABLE),
                tuple(3L, CompletionStatus.PEER_UNREACHABLE),
                tuple(20L, CompletionStatus.PEER_UNREACHABLE));
        assertThat(c.outstandingWork()).as(why).isZero();
        assertThat(p.client().connectionCount()).as(why).isZero();

        // The server hears nothing more either: it must not keep a half-open connection.
        p.driveUntil(() -> closed(s), idle + 1_000_000_000L, "server lets go, " + why);
        assertThat(s.closeReason()).as(why).isIn(CloseReason.IDLE_TIMEOUT, CloseReason.PEER_UNREACHABLE);
        assertThat(serverClosed).as(why).hasSize(1);
        assertThat(p.server().connectionCount()).as(why).isZero();
        assertThat(s.outstandingWork()).as(why).isZero();
        assertThat(serverDone).as(why).hasSize(3);
        p.advance(1_000_000_000L);
        assertThat(p.client().pollTimeoutNanos()).as(why).isEqualTo(Long.MAX_VALUE);
        assertThat(p.server().pollTimeoutNanos()).as(why).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void peerDeathIsDetectedByRetransmissionTimeoutsLongBeforeTheIdleTimeout() {
        long seed = 403;
        EngineConfig config = EngineConfig.builder()
                .maxConsecutiveTimeouts(4)
                .minRtoNanos(1_000_000L)
                .maxRtoNanos(20_000_000L)
                .idleTimeoutNanos(10_000_000_000L)
                .keepAliveNanos(1_000_000_000L)
                .build();
        Pair p = pair(seed, 1, NetworkConditions.perfect(), config);
        Connection c = p.clientConnection();
        p.lossModel((fromClient, pathId, datagram, length, now) -> !fromClient);
        MemoryRegion src = TestMemory.region(p.client(), 10_000, Access.NONE, seed);
        long diedAt = p.now();
        assertThat(c.postSend(0, 1, src, 0, 10_000)).isEqualTo(PostResult.OK);

        p.driveUntil(() -> closed(c), 1_000_000_000L, "RTO gives up, seed " + seed);

        // 1 + 2 + 4 + 8 ms of backed-off timeouts (capped at 20 ms): well under a second.
        assertThat(p.now() - diedAt).as("seed %d", seed).isLessThan(200_000_000L);
        assertThat(c.closeReason()).as("seed %d", seed).isEqualTo(CloseReason.PEER_UNREACHABLE);
        // "maxConsecutiveTimeouts: timeouts in a row without progress after which the peer is
        // declared unreachable": after the 4th, not the 5th.
        assertThat(c.stats().timeouts()).as("seed %d", seed).isEqualTo(config.maxConsecutiveTimeouts());
        assertThat(clientDone).as("seed %d", seed).extracting(Done::wrId, Done::status)
                .containsExactly(tuple(1L, CompletionStatus.PEER_UNREACHABLE));
        assertThat(p.client().connectionCount()).isZero();
    }
}
