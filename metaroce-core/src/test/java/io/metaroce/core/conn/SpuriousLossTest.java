package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Losses that a later ACK proves spurious [SPEC-LOSS-9], [SPEC-CC-27]: a packet declared lost
 * whose original transmission arrives is counted, the window cut it caused is undone, and the
 * path's timers learn to wait that long; a packet that really was lost is never counted.
 */
class SpuriousLossTest {
    private static final int SIZE = 1 << 20;

    /** One 1 MiB SEND over {@code net}; returns the client connection's stats after it completed, checked. */
    private static ConnectionStats send(long seed, NetworkConditions net, EngineConfig config) {
        List<Integer> statuses = new ArrayList<>();
        Pair p = Pair.create(seed, 2, net, config)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> statuses.add(st))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> statuses.add(st))
                .connect();
        MemoryRegion src = TestMemory.region(p.client(), SIZE, 0, seed);
        MemoryRegion dst = TestMemory.region(p.server(), SIZE, Access.LOCAL_WRITE, 0);
        assertThat(p.serverConnection().postRecv(0, 1, dst, 0, SIZE)).isEqualTo(PostResult.OK);
        assertThat(p.clientConnection().postSend(0, 2, src, 0, SIZE)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> statuses.size() == 2, 60_000_000_000L, "send (seed " + seed + ")");
        assertThat(statuses).as("seed %d", seed).containsOnly(CompletionStatus.SUCCESS);
        assertThat(dst.segment().mismatch(src.segment())).as("seed %d", seed).isEqualTo(-1);
        return p.clientConnection().stats();
    }

    @Test
    void slowPacketsDeclaredLostAreFoundSpuriousAndTeachTheTimersToWait() {
        // Nothing is dropped, but one datagram in 50 waits 2 ms more: well past the overdue wait
        // (50 us floor here), so it is declared lost, and its SACK bit arrives later.
        EngineConfig config = EngineConfig.defaults().toBuilder().overdueFloorNanos(50_000).build();
        long spurious = 0;
        long losses = 0;
        for (long seed = 1; seed <= 4; seed++) {
            NetworkConditions net = NetworkConditions.perfect().withDelay(5_000, 0, 0)
                    .withInPathReordering(2_000_000);
            ConnectionStats s = send(seed, net, config);
            assertThat(s.spuriousLosses()).as("seed %d", seed).isLessThanOrEqualTo(s.losses());
            spurious += s.spuriousLosses();
            losses += s.losses();
        }
        assertThat(losses).as("the slow packets are declared lost").isPositive();
        assertThat(spurious).as("and then found to have arrived").isPositive();
    }

    @Test
    void aRetransmissionStillWaitingItsTurnWhenTheOriginalIsProvenToHaveArrivedIsNotSent() {
        // The receiver hands out 20 MB/s, so the sender paces a datagram about every 200 us and a
        // retransmission waits up to that long for its turn. Datagrams are held up to 1 ms at
        // random: many are declared lost after the 50 us overdue floor and their SACK bits arrive
        // while the retransmission still waits; those are delivered by the proof and never resent.
        EngineConfig config = EngineConfig.defaults().toBuilder().overdueFloorNanos(50_000)
                .receiveCapacityBytesPerSecond(20_000_000).build();
        long losses = 0;
        long retransmissions = 0;
        long spurious = 0;
        for (long seed = 11; seed <= 14; seed++) {
            NetworkConditions net = NetworkConditions.perfect().withDelay(5_000, 0, 0)
                    .withInPathReordering(1_000_000);
            ConnectionStats s = send(seed, net, config);
            assertThat(s.retransmissions()).as("seed %d", seed).isLessThanOrEqualTo(s.losses());
            losses += s.losses();
            retransmissions += s.retransmissions();
            spurious += s.spuriousLosses();
        }
        System.out.printf("SpuriousLossTest paced: %d losses, %d spurious, %d retransmissions%n",
                losses, spurious, retransmissions);
        assertThat(spurious).as("the held datagrams are declared lost, then found to have arrived").isPositive();
        assertThat(retransmissions).as("a loss proven spurious before its retransmission's turn is not resent")
                .isLessThan(losses);
    }

    @Test
    void aPacketThatWasReallyLostIsNeverSpurious() {
        for (long seed = 1; seed <= 6; seed++) {
            ConnectionStats s = send(seed, NetworkConditions.perfect().withDelay(5_000, 0, 0).withLoss(0.03),
                    EngineConfig.defaults());
            assertThat(s.losses()).as("seed %d", seed).isPositive();
            assertThat(s.spuriousLosses()).as("seed %d: a retransmission has a new PSN; a lost original never"
                    + " gets its bit", seed).isZero();
        }
    }

    @Test
    void theAimdControllerUndoesTheCutOfASpuriousLossOnce() {
        EngineConfig config = EngineConfig.defaults();
        int d = config.maxDatagramBytes();
        AimdController cc = new AimdController(config);
        for (int i = 0; i < 8; i++) {
            cc.onPacketSent(0, d, 0);
        }
        long before = cc.windowBytes(0);
        cc.onPacketLost(0, d, 1);
        long cut = cc.windowBytes(0);
        assertThat(cut).isLessThan(before);
        cc.onSpuriousLoss(0, d, 2);
        assertThat(cc.windowBytes(0)).as("the cut is undone").isEqualTo(before);
        cc.onSpuriousLoss(0, d, 3);
        assertThat(cc.windowBytes(0)).as("once").isEqualTo(before);
        // A cut followed by a congestion mark is not undone: the mark is evidence of its own.
        for (int i = 0; i < 64; i++) {
            cc.onPacketSent(1, d, 0);
            cc.onPacketAcked(1, d, -1, 0);
        }
        cc.onPacketLost(1, d, 10);
        for (int i = 0; i < 64; i++) {
            cc.onPacketAcked(1, d, -1, 11);
        }
        cc.onEcnFeedback(1, 4, 4, 12);
        long afterMark = cc.windowBytes(1);
        cc.onSpuriousLoss(1, d, 13);
        assertThat(cc.windowBytes(1)).isEqualTo(afterMark);
    }
}
