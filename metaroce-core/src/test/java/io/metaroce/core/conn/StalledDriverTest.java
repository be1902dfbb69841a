package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A driver whose loop stalled, not a silent peer ([SPEC-LOSS-4]): the client's loop stops with a
 * flight out on every path, the server's ACKs of it come meanwhile and wait in the client's
 * sockets, and when the loop runs again it runs its timers before it reads them, late by more than
 * the capped RTO. A driver calls the engine's timers again for as long as their deadline has
 * passed (the UDP driver does so, with no socket read in between, for up to a second). Each path
 * may count one timeout at that late call, no more: the ACKs read next are progress, and the
 * connection goes on. Before the rule every packet of the flight expired at the one late time, one
 * timeout per call, and the connection ended PEER_UNREACHABLE after the first paths had failed.
 */
class StalledDriverTest {
    private static final int PATHS = 4;
    private static final long STALL_NANOS = 3_000_000_000L;
    /** Calls of the timers at the late time, at most: far more than a connection's timeout budget. */
    private static final int LATE_CALLS = 200;

    private record Held(int pathId, byte[] bytes) {
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {501, 502, 503, 504})
    void aLateTimerCountsOneTimeoutPerPathAndTheAcksWaitingInTheSocketsKeepTheConnection(long seed) {
        List<Held> held = new ArrayList<>();
        boolean[] holding = {false};
        List<Integer> sendStatus = new ArrayList<>();
        Pair p = Pair.create(seed, PATHS, NetworkConditions.perfect().withDelay(10_000, 2_000, 0),
                EngineConfig.defaults())
                .lossModel((fromClient, pathId, datagram, length, now) -> {
                    if (!holding[0] || fromClient) {
                        return false;
                    }
                    byte[] copy = new byte[length];
                    datagram.get(0, copy);
                    held.add(new Held(pathId, copy));
                    return true; // it waits in the client's socket while the client's loop is stalled
                })
                .onClientCompletion((c, s, w, o, status, b, i, h) -> sendStatus.add(status));
        p.connect();
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        int size = 1 << 20;
        MemoryRegion src = TestMemory.region(p.client(), size, Access.NONE, seed);
        MemoryRegion dst = TestMemory.region(p.server(), size, Access.LOCAL_WRITE, 0);
        assertThat(s.postRecv(0, 2, dst, 0, size)).isEqualTo(PostResult.OK);
        holding[0] = true;
        assertThat(c.postSend(0, 1, src, 0, size)).isEqualTo(PostResult.OK);
        // The flight leaves and reaches the server, whose ACKs are held; the client's loop stalls
        // before its first timer (its RTO is at least 1 ms).
        p.advance(200_000);
        assertThat(held).as("the server's ACKs, waiting in the client's sockets").isNotEmpty();
        PathStats stats = new PathStats();
        for (int i = 0; i < PATHS; i++) {
            assertThat(c.readPathStats(i, stats)).isTrue();
            assertThat(stats.timeouts).as("path %d before the stall (seed %d)", i, seed).isZero();
        }

        long late = p.now() + STALL_NANOS;
        Transmit out = new Transmit(ByteBuffer.allocate(EngineConfig.defaults().maxDatagramBytes()));
        int calls = 0;
        while (calls < LATE_CALLS && p.client().pollTimeoutNanos() <= late
                && c.state() == ConnectionState.ESTABLISHED) {
            p.client().handleTimeout(late);
            while (p.client().pollTransmit(late, out)) {
                // what the late timers resend leaves, and is lost: only the held ACKs come back
            }
            calls++;
        }
        assertThat(c.state()).as("after %d late timer calls (seed %d)", calls, seed)
                .isEqualTo(ConnectionState.ESTABLISHED);
        for (int i = 0; i < PATHS; i++) {
            assertThat(c.readPathStats(i, stats)).isTrue();
            assertThat(stats.consecutiveTimeouts).as("path %d after the late timers (seed %d)", i, seed)
                    .isEqualTo(1);
        }

        // The loop reads its sockets: the ACKs that came during the stall.
        holding[0] = false;
        for (Held h : held) {
            p.client().handleDatagram(late, ByteBuffer.wrap(h.bytes()), 0, h.bytes().length, h.pathId(),
                    Pair.SERVER_ADDRESS, 0);
        }
        p.server().handleTimeout(late);
        int progressed = 0;
        for (int i = 0; i < PATHS; i++) {
            assertThat(c.readPathStats(i, stats)).isTrue();
            if (stats.consecutiveTimeouts == 0) {
                progressed++;
            }
        }
        assertThat(progressed).as("paths whose held ACKs were progress (seed %d)", seed).isPositive();
        p.advance(late - p.now());
        p.driveUntil(() -> !sendStatus.isEmpty(), 5_000_000_000L, "the SEND after the stall, seed " + seed);
        assertThat(sendStatus).as("seed %d", seed).containsExactly(CompletionStatus.SUCCESS);
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(dst.segment().mismatch(src.segment())).as("seed %d", seed).isEqualTo(-1L);
    }
}
