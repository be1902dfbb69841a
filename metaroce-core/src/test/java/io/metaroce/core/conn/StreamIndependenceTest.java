package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * R-CONN-1, R-OOO-1: streams do not block each other. Stream 1's SENDs are posted first and
 * cannot be delivered (its receiver posts no receive, so they are refused with
 * RECEIVER_NOT_READY and retried); stream 2's SENDs, posted after them on the same connection and
 * the same paths, complete meanwhile, in their own order and with their bytes. Stream 1 then
 * completes once its receives are posted.
 */
class StreamIndependenceTest {
    private static final int BLOCKED = 1;
    private static final int FREE = 2;
    private static final int MESSAGES = 8;
    private static final int SIZE = 20_000;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void aStreamWaitingForItsReceivesDoesNotHoldBackTheStreamsPostedAfterIt(long seed) {
        double loss = seed % 2 == 0 ? 0.05 : 0;
        NetworkConditions net = NetworkConditions.perfect().withLoss(loss).withDelay(10_000, 2_000, 20_000);
        List<long[]> clientDone = new ArrayList<>();
        List<long[]> serverDone = new ArrayList<>();
        Pair pair = Pair.create(seed, 2, net, EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new long[] {s, w, st}))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new long[] {s, w, st, b}))
                .connect();
        MemoryRegion src = TestMemory.region(pair.client(), 2L * MESSAGES * SIZE, Access.ALL, seed);
        MemoryRegion dst = TestMemory.region(pair.server(), 2L * MESSAGES * SIZE, Access.ALL, 0);
        Connection client = pair.clientConnection();
        Connection server = pair.serverConnection();
        for (int k = 0; k < MESSAGES; k++) {
            client.postSend(BLOCKED, 100 + k, src, (long) k * SIZE, SIZE);
        }
        for (int k = 0; k < MESSAGES; k++) {
            long off = (long) (MESSAGES + k) * SIZE;
            client.postSend(FREE, 200 + k, src, off, SIZE);
            server.postRecv(FREE, 2_000 + k, dst, off, SIZE);
        }

        pair.driveUntil(() -> count(clientDone, FREE) == MESSAGES && count(serverDone, FREE) == MESSAGES,
                2_000_000_000L, "stream " + FREE + " while stream " + BLOCKED + " waits (seed " + seed + ")");

        assertThat(count(clientDone, BLOCKED) + count(serverDone, BLOCKED))
                .as("stream %d has no receive yet, so nothing of it completed", BLOCKED).isZero();
        assertThat(server.stats().receiverNotReady()).as("stream %d's SENDs were there and refused", BLOCKED)
                .isPositive();
        assertThat(serverDone.stream().filter(d -> d[0] == FREE).map(d -> d[1]).toList())
                .as("stream %d's receives complete in posting order", FREE)
                .containsExactly(2_000L, 2_001L, 2_002L, 2_003L, 2_004L, 2_005L, 2_006L, 2_007L);
        assertThat(clientDone).allMatch(d -> d[2] == CompletionStatus.SUCCESS);
        assertThat(serverDone).allMatch(d -> d[2] == CompletionStatus.SUCCESS && d[3] == SIZE);
        long freeBytes = (long) MESSAGES * SIZE;
        assertThat(dst.segment().asSlice(freeBytes, freeBytes).mismatch(src.segment().asSlice(freeBytes, freeBytes)))
                .as("stream %d's bytes", FREE).isEqualTo(-1);

        for (int k = 0; k < MESSAGES; k++) {
            server.postRecv(BLOCKED, 1_000 + k, dst, (long) k * SIZE, SIZE);
        }
        pair.driveUntil(() -> count(clientDone, BLOCKED) == MESSAGES && count(serverDone, BLOCKED) == MESSAGES,
                10_000_000_000L, "stream " + BLOCKED + " after its receives (seed " + seed + ")");
        assertThat(dst.segment().mismatch(src.segment())).as("every byte of both streams").isEqualTo(-1);
    }

    private static long count(List<long[]> done, int stream) {
        return done.stream().filter(d -> d[0] == stream).count();
    }
}
