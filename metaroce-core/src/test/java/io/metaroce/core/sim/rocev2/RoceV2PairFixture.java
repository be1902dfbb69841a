package io.metaroce.core.sim.rocev2;

import java.util.ArrayList;
import java.util.List;

/**
 * Two baseline endpoints at addresses 0 (A) and 1 (B) with one queue pair between them (QPN 1 on
 * A, 2 on B), on a {@link TestNetwork}, recording the sizes of the messages each side sees
 * complete and delivered.
 */
final class RoceV2PairFixture {
    static final int QP_A = 1;
    static final int QP_B = 2;

    final RoceV2Endpoint a;
    final RoceV2Endpoint b;
    final TestNetwork net;
    final List<Integer> completedAtA = new ArrayList<>();
    final List<Integer> deliveredAtB = new ArrayList<>();
    final List<Integer> failedAtA = new ArrayList<>();

    RoceV2PairFixture(long seed, RoceV2Config configA, RoceV2Config configB, int psnAtoB) {
        a = new RoceV2Endpoint(configA, new RoceV2Listener() {
            @Override
            public void onMessageCompleted(int qpn, long nowNanos, int bytes) {
                completedAtA.add(bytes);
            }

            @Override
            public void onQueuePairFailed(int qpn, long nowNanos) {
                failedAtA.add(qpn);
            }
        });
        b = new RoceV2Endpoint(configB, new RoceV2Listener() {
            @Override
            public void onMessageDelivered(int qpn, long nowNanos, int bytes) {
                deliveredAtB.add(bytes);
            }
        });
        a.openQueuePair(TestNetwork.address(1), 7, QP_A, QP_B, psnAtoB, 0);
        b.openQueuePair(TestNetwork.address(0), 9, QP_B, QP_A, 0, psnAtoB);
        net = new TestNetwork(seed, a, b);
    }

    RoceV2PairFixture(long seed, RoceV2Config config) {
        this(seed, config, config, 0);
    }

    QueuePairStats statsA() {
        return a.queuePairStats(QP_A);
    }

    QueuePairStats statsB() {
        return b.queuePairStats(QP_B);
    }

    /** Runs until every byte posted on A is acknowledged. */
    void runUntilAcknowledged(long maxNanos) {
        net.runUntil(() -> statsA().bytesAcknowledged() == statsA().bytesPosted(), maxNanos, "full acknowledgement");
    }
}
