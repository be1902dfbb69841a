package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Tables that a burst grew and the keep-alive point shrank back [SPEC-CONN-18] serve the
 * next burst exactly: bursts of SENDs and READs on random streams, over a lossy network with two
 * paths, each followed by a keep-alive interval of idleness; every work request completes once,
 * successfully, in posting order per stream, with the bytes that were sent, and once the
 * keep-alive point has passed the connection is back within its idle footprint (plus the stream
 * table's share). The same with keep-alive off, where the idle point is nothing sent for a third of
 * the idle timeout.
 * Work request slots come back with new generations, so a DATA header template of the last burst
 * is never taken for a message of the next.
 */
class IdleShrinkPropertyTest {
    static final int MAX_LENGTH = 3000;
    static final int STREAMS = 600;

    record Expected(long wrId, long srcOffset, long dstOffset, long length, boolean read) { }

    /**
     * A seed whose second round ends with a retransmission after its last completion (a packet
     * whose ACK was lost after its completion was delivered), which moves the keep-alive point
     * (counted from the last send) past {@code keepAlive} after the last completion.
     */
    @Example
    void aRoundWhoseLastSendFollowsItsLastCompletion() {
        burstsAfterTheIdleShrinkCompleteExactly(9521134123119L);
    }

    @Property(tries = 5)
    void burstsAfterTheIdleShrinkCompleteExactly(@ForAll long seed) {
        rounds(seed, EngineConfig.defaults());
    }

    /**
     * The same with keep-alive off on both sides: the idle point is then nothing sent for a third
     * of the idle timeout, and each round idles past it (but not past the idle timeout).
     */
    @Property(tries = 4)
    void withoutKeepAliveBurstsAfterTheIdleShrinkCompleteExactly(@ForAll long seed) {
        rounds(seed, EngineConfig.defaults().toBuilder().keepAliveNanos(0).build());
    }

    private static void rounds(long seed, EngineConfig config) {
        SplittableRandom r = new SplittableRandom(seed);
        Map<Integer, List<Long>> clientOrder = new HashMap<>();
        Map<Integer, List<Long>> serverOrder = new HashMap<>();
        Pair p = Pair.create(seed, 2, NetworkConditions.perfect().withLoss(0.02), config)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).as("client completion %d", w).isEqualTo(CompletionStatus.SUCCESS);
                    clientOrder.computeIfAbsent(s, k -> new ArrayList<>()).add(w);
                })
                .onServerCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).as("server completion %d", w).isEqualTo(CompletionStatus.SUCCESS);
                    serverOrder.computeIfAbsent(s, k -> new ArrayList<>()).add(w);
                })
                .connect();
        Connection client = p.clientConnection();
        Connection server = p.serverConnection();
        // The idle point [SPEC-CONN-18]: the keep-alive, or without it a third of the idle timeout.
        long keepAlive = config.keepAliveNanos() > 0 ? config.keepAliveNanos() : config.idleShrinkIntervalNanos();
        long maxRto = config.maxRtoNanos();
        int space = 400 * MAX_LENGTH;
        MemoryRegion src = TestMemory.region(p.client(), space, Access.NONE, seed | 1);
        MemoryRegion readBack = TestMemory.region(p.client(), space, Access.LOCAL_WRITE, 0);
        MemoryRegion remote = TestMemory.region(p.server(), space, Access.REMOTE_READ, seed | 3);
        long wrId = 0;
        int highestStream = 0;
        for (int round = 0; round < 3; round++) {
            MemoryRegion dst = TestMemory.region(p.server(), space, Access.LOCAL_WRITE, 0);
            clientOrder.clear();
            serverOrder.clear();
            Map<Integer, List<Long>> wantClient = new HashMap<>();
            Map<Integer, List<Long>> wantServer = new HashMap<>();
            List<Expected> expected = new ArrayList<>();
            int messages = r.nextInt(50, 400);
            long offset = 0;
            for (int m = 0; m < messages; m++) {
                int stream = r.nextInt(STREAMS);
                highestStream = Math.max(highestStream, stream);
                long length = r.nextInt(1, MAX_LENGTH);
                long id = ++wrId;
                boolean read = r.nextInt(4) == 0;
                if (read) {
                    assertThat(client.postRead(stream, id, readBack, offset, length, remote.remoteKey(), offset))
                            .isEqualTo(PostResult.OK);
                } else {
                    assertThat(server.postRecv(stream, id, dst, offset, length)).isEqualTo(PostResult.OK);
                    assertThat(client.postSend(stream, id, src, offset, length)).isEqualTo(PostResult.OK);
                    wantServer.computeIfAbsent(stream, k -> new ArrayList<>()).add(id);
                }
                wantClient.computeIfAbsent(stream, k -> new ArrayList<>()).add(id);
                expected.add(new Expected(id, offset, offset, length, read));
                offset += length;
            }
            int sends = (int) expected.stream().filter(e -> !e.read()).count();
            p.driveUntil(() -> count(clientOrder) == messages && count(serverOrder) == sends, 20_000_000_000L,
                    "round " + round + " (seed " + seed + ")");
            assertThat(clientOrder).as("client completions per stream, round %d", round).isEqualTo(wantClient);
            assertThat(serverOrder).as("server completions per stream, round %d", round).isEqualTo(wantServer);
            for (Expected e : expected) {
                var want = (e.read() ? remote : src).segment().asSlice(e.srcOffset(), e.length());
                var got = (e.read() ? readBack : dst).segment().asSlice(e.dstOffset(), e.length());
                assertThat(got.mismatch(want)).as("bytes of work request %d (read %s)", e.wrId(), e.read()).isEqualTo(-1);
            }
            // The keep-alive point counts from the last send, not the last completion: a packet
            // whose ACK was lost after its completion was delivered is resent when its timeout
            // fires, up to one RTO (at most maxRto) after the last completion, and that moves the
            // keep-alive point (seed 9521134123119, round 2: resent at 10.005070 s, keep-alive
            // point 15.005070 s, after the 15.004080 s that keepAlive + 1 ms would have waited).
            // A lost ACK of the resend adds a backed-off RTO of a few ms at these RTTs; maxRto
            // (1 s) covers a chain of them.
            p.advance(keepAlive + maxRto + 1_000_000L);
            assertThat(client.outstandingWork()).isZero();
            assertThat(server.outstandingWork()).isZero();
            long streamShare = StateFootprintTest.STREAM_GOAL_BYTES * (highestStream + 1);
            assertThat(StateFootprintTest.footprint(client, p.client()).bytes())
                    .as("client footprint after round %d and its keep-alive point", round)
                    .isLessThanOrEqualTo(StateFootprintTest.CONNECTION_MARGIN_BYTES + streamShare);
            assertThat(StateFootprintTest.footprint(server, p.server()).bytes())
                    .as("server footprint after round %d and its keep-alive point", round)
                    .isLessThanOrEqualTo(StateFootprintTest.CONNECTION_MARGIN_BYTES + streamShare);
        }
        assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    }

    private static int count(Map<Integer, List<Long>> byStream) {
        int n = 0;
        for (List<Long> l : byStream.values()) {
            n += l.size();
        }
        return n;
    }
}
