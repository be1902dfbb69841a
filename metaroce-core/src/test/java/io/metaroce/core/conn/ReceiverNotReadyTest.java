package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A SEND that arrives before its receive is posted is refused with RECEIVER_NOT_READY, retried
 * after the advertised delay, and delivered once the receive is there: nothing lost, nothing
 * completed twice, other streams unaffected.
 */
class ReceiverNotReadyTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void sendsBeforeTheirReceivesAreEventuallyDelivered(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double loss = seed % 2 == 0 ? 0 : 0.05;
        NetworkConditions net = NetworkConditions.perfect().withLoss(loss).withDelay(10_000, 2_000, 20_000);
        List<long[]> clientDone = new ArrayList<>();
        List<long[]> serverDone = new ArrayList<>();
        Pair pair = Pair.create(seed, 3, net, EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new long[] {s, w, st}))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new long[] {s, w, st, b}))
                .connect();
        int streams = 4;
        int perStream = 5;
        int size = 30_000;
        MemoryRegion src = TestMemory.region(pair.client(), streams * perStream * size, Access.ALL, seed);
        MemoryRegion dst = TestMemory.region(pair.server(), streams * perStream * size, Access.ALL, 0);
        Connection client = pair.clientConnection();
        for (int s = 0; s < streams; s++) {
            for (int k = 0; k < perStream; k++) {
                long off = (long) (s * perStream + k) * size;
                client.postSend(s, s * 100 + k, src, off, size);
            }
        }
        // Receives trickle in later, one stream at a time, at random moments.
        Connection server = pair.serverConnection();
        for (int s = 0; s < streams; s++) {
            pair.advance(500_000 + rnd.nextLong(2_000_000));
            for (int k = 0; k < perStream; k++) {
                long off = (long) (s * perStream + k) * size;
                server.postRecv(s, 10_000 + s * 100 + k, dst, off, size);
            }
        }
        pair.driveUntil(() -> clientDone.size() == streams * perStream && serverDone.size() == streams * perStream,
                10_000_000_000L, "delivery after late receives (seed " + seed + ")");
        pair.advance(5_000_000);

        assertThat(clientDone).as("seed %d", seed).hasSize(streams * perStream).allMatch(d -> d[2] == CompletionStatus.SUCCESS);
        assertThat(serverDone).as("seed %d", seed).hasSize(streams * perStream).allMatch(d -> d[2] == CompletionStatus.SUCCESS);
        assertThat(dst.segment().mismatch(src.segment())).as("seed %d", seed).isEqualTo(-1);
        assertThat(server.stats().receiverNotReady()).as("refused while no receive was posted").isPositive();
        assertThat(client.stats().receiverNotReadyNaks()).isPositive();
        for (int s = 0; s < streams; s++) {
            int stream = s;
            assertThat(serverDone.stream().filter(d -> d[0] == stream).map(d -> d[1]).toList())
                    .as("receive order on stream %d, seed %d", s, seed)
                    .containsExactly(10_000L + s * 100, 10_001L + s * 100, 10_002L + s * 100, 10_003L + s * 100,
                            10_004L + s * 100);
        }
    }


    /** Refused packets are never recorded, so a wait of thousands of retries must not push the path past any limit. */
    @org.junit.jupiter.api.Test
    void aReceivePostedSecondsLaterStillGetsItsSend() {
        int[] status = {-1};
        Pair pair = Pair.create(2, 1, NetworkConditions.perfect(), EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> status[0] = st)
                .connect();
        MemoryRegion local = TestMemory.region(pair.client(), 64, Access.ALL, 9);
        MemoryRegion target = TestMemory.region(pair.server(), 64, Access.ALL, 0);
        pair.clientConnection().postSend(0, 1, local, 0, 8);
        pair.advance(2_500_000_000L); // more than 8,192 refusals at one per 200 us
        assertThat(pair.clientConnection().stats().receiverNotReadyNaks()).isGreaterThan(8_192);
        pair.serverConnection().postRecv(0, 9, target, 0, 64);
        pair.driveUntil(() -> status[0] >= 0, 30_000_000_000L, "send after a long wait");
        assertThat(status[0]).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(target.segment().asSlice(0, 8).mismatch(local.segment().asSlice(0, 8))).isEqualTo(-1);
    }

    /**
     * An idle sender's copies [SPEC-LOSS-8] respect a receiver-not-ready pause [SPEC-NAK-4]: the
     * refused packet waits out each back-off (200 us by default) instead of being resent a round
     * trip after every refusal.
     */
    @org.junit.jupiter.api.Test
    void idleResendsWaitOutAReceiverNotReadyPause() {
        int[] status = {-1};
        EngineConfig config = EngineConfig.defaults().toBuilder().idleResend(true).build();
        Pair pair = Pair.create(3, 1, NetworkConditions.perfect(), config)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> status[0] = st)
                .connect();
        MemoryRegion local = TestMemory.region(pair.client(), 64, Access.ALL, 9);
        MemoryRegion target = TestMemory.region(pair.server(), 64, Access.ALL, 0);
        pair.clientConnection().postSend(0, 1, local, 0, 8);
        pair.advance(4_000_000L);
        long naks = pair.clientConnection().stats().receiverNotReadyNaks();
        assertThat(naks).as("one refusal per 200 us pause over 4 ms, not one per round trip").isBetween(1L, 22L);
        assertThat(pair.clientConnection().stats().idleResends()).isZero();
        pair.serverConnection().postRecv(0, 9, target, 0, 64);
        pair.driveUntil(() -> status[0] >= 0, 30_000_000_000L, "send after the pauses");
        assertThat(status[0]).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(target.segment().asSlice(0, 8).mismatch(local.segment().asSlice(0, 8))).isEqualTo(-1);
    }
}
