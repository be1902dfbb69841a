package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ending a connection in the middle of transfers (an abort by the receiver, or a sender's source
 * region deregistered under it) completes every work request and every posted receive exactly
 * once, even while the peer's packets for half-placed messages keep arriving; nothing throws.
 */
class AbortDuringTransferTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
    void everyWorkRequestCompletesOnceWhenAConnectionEndsMidTransfer(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<Long, Integer> clientCount = new HashMap<>();
        Map<Long, Integer> serverCount = new HashMap<>();
        Pair pair = Pair.create(seed, 1 + rnd.nextInt(4),
                        NetworkConditions.perfect().withLoss(rnd.nextDouble() * 0.05).withDelay(10_000, 2_000, 30_000),
                        // A small window keeps the senders mid-message when the connection ends.
                        EngineConfig.builder().congestionWindowBytes(64 * 1024).build())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientCount.merge(w, 1, Integer::sum))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverCount.merge(w, 1, Integer::sum))
                .connect();
        int messages = 12;
        int size = 12_000 + (int) (seed % 5) * 9_000;
        MemoryRegion src = TestMemory.region(pair.client(), (long) messages * size, Access.ALL, seed);
        MemoryRegion dst = TestMemory.region(pair.server(), (long) messages * size, Access.ALL, 0);
        for (int k = 0; k < messages; k++) {
            pair.serverConnection().postRecv(k % 2, 100 + k, dst, (long) k * size, size);
            pair.clientConnection().postSend(k % 2, k, src, (long) k * size, size);
        }
        pair.advance(5_000 + rnd.nextLong(60_000)); // part-way through
        boolean receiverAborts = seed % 2 == 0;
        if (receiverAborts) {
            pair.serverConnection().abort();
        } else {
            src.close(); // the sender's memory goes away under its SENDs
        }
        pair.advance(2_000_000_000L); // past the drain period

        assertThat(clientCount).as("seed %d", seed).hasSize(messages).allSatisfy((w, n) -> assertThat(n).isEqualTo(1));
        assertThat(serverCount).as("seed %d", seed).hasSize(messages).allSatisfy((w, n) -> assertThat(n).isEqualTo(1));
        assertThat(pair.clientConnection().state()).isEqualTo(ConnectionState.CLOSED);
        assertThat(pair.serverConnection().state()).isEqualTo(ConnectionState.CLOSED);
        if (receiverAborts) {
            assertThat(pair.clientConnection().closeReason()).isEqualTo(CloseReason.PEER_ABORT);
        } else {
            assertThat(pair.clientConnection().stats().localProtectionErrors()).isPositive();
            assertThat(pair.serverConnection().closeReason()).isEqualTo(CloseReason.PEER_ABORT);
        }
        assertThat(pair.client().connectionCount() + pair.server().connectionCount()).isZero();
    }

}
