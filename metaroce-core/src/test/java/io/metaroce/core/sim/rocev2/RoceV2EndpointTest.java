package io.metaroce.core.sim.rocev2;

import static io.metaroce.core.sim.rocev2.RoceV2PairFixture.QP_A;
import static io.metaroce.core.sim.rocev2.RoceV2PairFixture.QP_B;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The baseline's go-back-N reliability end to end over the {@link TestNetwork}: exact in-order
 * delivery, recovery by NAK and by timeout, one NAK per gap, the retry limit, PSN wrap.
 */
class RoceV2EndpointTest {
    private static final RoceV2Config CONFIG = RoceV2Config.defaults();
    private static final int P = CONFIG.payloadBytesPerPacket();
    private static final long SECOND = 1_000_000_000L;

    private static boolean isData(ByteBuffer d) {
        return RoceV2Opcode.isSend(d.get(0) & 0xFF);
    }

    private static boolean isNak(ByteBuffer d) {
        return (d.get(0) & 0xFF) == RoceV2Opcode.ACKNOWLEDGE && (d.get(RoceV2Codec.BTH_BYTES) & 0xFF) == RoceV2Codec.SYNDROME_NAK;
    }

    private static int psn(ByteBuffer d) {
        return ((d.get(9) & 0xFF) << 16) | ((d.get(10) & 0xFF) << 8) | (d.get(11) & 0xFF);
    }

    /** Drops the first transmission of each of the given PSNs of data packets from A. */
    private static TestNetwork.DropRule dropFirstTransmissionOf(int... psns) {
        boolean[] done = new boolean[psns.length];
        return (from, to, d, length, now) -> {
            if (from != 0 || !isData(d)) {
                return false;
            }
            for (int i = 0; i < psns.length; i++) {
                if (!done[i] && psn(d) == psns[i]) {
                    done[i] = true;
                    return true;
                }
            }
            return false;
        };
    }

    private static long packetsOf(int bytes) {
        return (bytes + P - 1) / P;
    }

    @Test
    void everyMessageIsDeliveredOnceAndInOrderWithoutLossBothWays() {
        RoceV2PairFixture f = new RoceV2PairFixture(1, CONFIG);
        List<Integer> sizes = List.of(1, P - 1, P, P + 1, 3 * P, 100_000, 1_000_000, 17);
        long total = 0;
        long packets = 0;
        for (int s : sizes) {
            assertThat(f.a.postSend(QP_A, s)).isTrue();
            assertThat(f.b.postSend(QP_B, s)).isTrue();
            total += s;
            packets += packetsOf(s);
        }
        f.runUntilAcknowledged(SECOND);
        f.net.runUntil(() -> f.statsB().bytesAcknowledged() == f.statsB().bytesPosted(), SECOND, "B's sends");
        f.net.advance(100_000);

        assertThat(f.deliveredAtB).as("messages delivered at B, in posting order").isEqualTo(sizes);
        assertThat(f.completedAtA).as("messages completed at A, in posting order").isEqualTo(sizes);
        for (QueuePairStats s : List.of(f.statsA(), f.statsB())) {
            assertThat(s.bytesPosted()).isEqualTo(total);
            assertThat(s.bytesAcknowledged()).isEqualTo(total);
            assertThat(s.bytesDelivered()).isEqualTo(total);
            assertThat(s.messagesCompleted()).isEqualTo(sizes.size());
            assertThat(s.messagesDelivered()).isEqualTo(sizes.size());
            assertThat(s.dataPacketsSent()).isEqualTo(packets);
            assertThat(s.dataBytesSent()).as("real lengths on the wire").isEqualTo(total + packets * RoceV2Codec.DATA_OVERHEAD_BYTES);
            assertThat(s.retransmittedPackets() + s.timeouts() + s.naksSent() + s.naksReceived()
                    + s.outOfOrderDropped() + s.duplicatesReceived() + s.protocolViolations()).isZero();
            assertThat(s.acksSent()).isPositive();
        }
        assertThat(f.a.outstandingPackets(QP_A)).isZero();
        assertThat(f.a.queuedMessages(QP_A)).isZero();
        assertThat(f.a.pollTimeoutNanos()).as("nothing left to do").isEqualTo(Long.MAX_VALUE);
        assertThat(f.b.pollTimeoutNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void goBackNDeliversEveryByteExactlyOnceInOrderUnderRandomLoss() {
        double[] losses = {0.01, 0.03, 0.05};
        long retransmitted = 0;
        long lostData = 0;
        for (long seed = 1; seed <= 24; seed++) {
            double loss = losses[(int) (seed % losses.length)];
            RoceV2PairFixture f = new RoceV2PairFixture(seed, CONFIG);
            f.net.loss(loss);
            SplittableRandom r = new SplittableRandom(seed);
            List<Integer> sizes = new ArrayList<>();
            long total = 0;
            for (int i = 0; i < 12; i++) {
                int s = 1 + r.nextInt(r.nextBoolean() ? 3 * P : 300_000);
                sizes.add(s);
                total += s;
                f.a.postSend(QP_A, s);
            }
            f.runUntilAcknowledged(60 * SECOND);
            f.net.advance(2_000_000);
            String why = "seed " + seed + ", loss " + loss;
            assertThat(f.deliveredAtB).as(why).isEqualTo(sizes);
            assertThat(f.completedAtA).as(why).isEqualTo(sizes);
            assertThat(f.statsB().bytesDelivered()).as(why).isEqualTo(total);
            assertThat(f.statsB().messagesDelivered()).as(why).isEqualTo(sizes.size());
            // Every lost data packet had to go again at least once.
            assertThat(f.statsA().retransmittedPackets()).as(why).isGreaterThanOrEqualTo(f.net.droppedData);
            retransmitted += f.statsA().retransmittedPackets();
            lostData += f.net.droppedData;
        }
        assertThat(lostData).as("the runs lost data").isPositive();
        assertThat(retransmitted).as("go-back-N resends more than was lost (lost %d)", lostData)
                .isGreaterThan(2 * lostData);
    }

    @Test
    void aGapEarnsExactlyOneNakAndTheRequesterResendsFromIt() {
        RoceV2PairFixture f = new RoceV2PairFixture(3, CONFIG);
        f.net.dropRule(dropFirstTransmissionOf(10, 40));
        f.a.postSend(QP_A, 60 * P);
        f.runUntilAcknowledged(SECOND);
        f.net.advance(100_000);

        QueuePairStats a = f.statsA();
        QueuePairStats b = f.statsB();
        assertThat(b.naksSent()).as("one NAK per gap").isEqualTo(2);
        assertThat(a.naksReceived()).isEqualTo(2);
        assertThat(b.outOfOrderDropped()).as("several packets were in flight behind each gap").isGreaterThan(4);
        assertThat(a.retransmittedPackets()).as("the lost packets and everything dropped behind them")
                .isEqualTo(b.outOfOrderDropped() + 2);
        assertThat(a.timeouts()).isZero();
        assertThat(b.bytesDelivered()).isEqualTo(60L * P);
        assertThat(f.deliveredAtB).containsExactly(60 * P);
    }

    @Test
    void aLostLastPacketIsRecoveredByTheRetransmissionTimeout() {
        RoceV2PairFixture f = new RoceV2PairFixture(4, CONFIG);
        f.net.dropRule(dropFirstTransmissionOf(4));
        f.a.postSend(QP_A, 5 * P);
        f.runUntilAcknowledged(SECOND);

        assertThat(f.statsA().timeouts()).isEqualTo(1);
        assertThat(f.statsB().naksSent()).as("no later packet revealed the gap").isZero();
        assertThat(f.statsA().retransmittedPackets()).isEqualTo(1);
        assertThat(f.deliveredAtB).containsExactly(5 * P);
        assertThat(f.net.now()).as("recovered one timeout after the last ACK")
                .isBetween(CONFIG.retransmitTimeoutNanos(), CONFIG.retransmitTimeoutNanos() + 20_000);
    }

    @Test
    void aLostNakIsRecoveredByTheRetransmissionTimeoutBecauseTheResponderStaysSilent() {
        RoceV2PairFixture f = new RoceV2PairFixture(5, CONFIG);
        TestNetwork.DropRule data = dropFirstTransmissionOf(3);
        boolean[] nakDropped = {false};
        f.net.dropRule((from, to, d, length, now) -> {
            if (from == 1 && isNak(d) && !nakDropped[0]) {
                nakDropped[0] = true;
                return true;
            }
            return data.drop(from, to, d, length, now);
        });
        f.a.postSend(QP_A, 10 * P);
        f.runUntilAcknowledged(SECOND);

        assertThat(f.statsB().naksSent()).isEqualTo(1);
        assertThat(f.statsA().naksReceived()).isZero();
        assertThat(f.statsB().outOfOrderDropped()).as("packets 4..9, silently").isEqualTo(6);
        assertThat(f.statsA().timeouts()).isEqualTo(1);
        assertThat(f.statsA().retransmittedPackets()).as("3..9 again").isEqualTo(7);
        assertThat(f.deliveredAtB).containsExactly(10 * P);
    }

    @Test
    void retriesExhaustedPutTheQueuePairInTheErrorStateAfterDoublingTimeouts() {
        RoceV2Config config = CONFIG.toBuilder().retryCount(2).build();
        RoceV2PairFixture f = new RoceV2PairFixture(6, config);
        f.net.dropRule((from, to, d, length, now) -> from == 0);
        f.a.postSend(QP_A, 3 * P);
        f.net.runUntil(() -> !f.failedAtA.isEmpty(), SECOND, "failure");

        long rto = config.retransmitTimeoutNanos();
        assertThat(f.net.now()).as("timeouts of rto, 2 rto and 4 rto").isEqualTo(7 * rto);
        assertThat(f.statsA().timeouts()).isEqualTo(3);
        assertThat(f.a.isFailed(QP_A)).isTrue();
        assertThat(f.failedAtA).containsExactly(QP_A);
        assertThat(f.a.pollTimeoutNanos()).as("a failed queue pair has no timers").isEqualTo(Long.MAX_VALUE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.a.postSend(QP_A, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("error state");
    }

    @Test
    void psnsWrapAt2To24EvenAcrossARecoveredGap() {
        int start = (1 << 24) - 5;
        RoceV2PairFixture f = new RoceV2PairFixture(7, CONFIG, CONFIG, start);
        f.net.dropRule(dropFirstTransmissionOf(0, 20));
        f.a.postSend(QP_A, 10 * P);
        f.a.postSend(QP_A, 20 * P);
        f.runUntilAcknowledged(SECOND);

        assertThat(f.b.expectedPsn(QP_B)).isEqualTo((start + 30) & RoceV2Codec.MASK_24).isEqualTo(25);
        assertThat(f.deliveredAtB).containsExactly(10 * P, 20 * P);
        assertThat(f.statsB().naksSent()).isEqualTo(2);
        assertThat(f.statsA().timeouts()).isZero();
        assertThat(f.statsA().staleAcknowledgements()).isZero();
    }

    @Test
    void aFullSendQueueRefusesThePostAndChangesNothing() {
        RoceV2Config config = CONFIG.toBuilder().sendQueueDepth(2).build();
        RoceV2PairFixture f = new RoceV2PairFixture(8, config);
        assertThat(f.a.postSend(QP_A, 100)).isTrue();
        assertThat(f.a.postSend(QP_A, 200)).isTrue();
        assertThat(f.a.postSend(QP_A, 300)).isFalse();
        assertThat(f.statsA().bytesPosted()).isEqualTo(300);
        f.runUntilAcknowledged(SECOND);
        assertThat(f.a.postSend(QP_A, 300)).as("room again once messages complete").isTrue();
        f.runUntilAcknowledged(SECOND);
        assertThat(f.deliveredAtB).containsExactly(100, 200, 300);
    }

    @Test
    void aWindowOfOnePacketStillCompletesBecauseTheWindowEdgeAsksForAnAck() {
        RoceV2Config config = CONFIG.toBuilder().windowPackets(1).ackEveryPackets(64).maxAckDelayNanos(SECOND).build();
        RoceV2PairFixture f = new RoceV2PairFixture(9, config);
        f.a.postSend(QP_A, 20 * P);
        f.runUntilAcknowledged(SECOND);
        assertThat(f.statsA().timeouts()).isZero();
        assertThat(f.statsB().acksSent()).as("one ACK per packet").isEqualTo(20);
        assertThat(f.net.now()).as("never waited for the coalescing timer").isLessThan(100_000);
    }

    @Test
    void aTwoMessageSendQueueRefilledFromCompletionsDeliversEveryMessageInOrder() {
        RoceV2Config config = CONFIG.toBuilder().sendQueueDepth(2).build();
        for (long seed = 40; seed < 44; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            List<Integer> posted = new ArrayList<>();
            List<Integer> delivered = new ArrayList<>();
            RoceV2Endpoint[] ends = new RoceV2Endpoint[2];
            ends[0] = new RoceV2Endpoint(config, new RoceV2Listener() {
                @Override
                public void onMessageCompleted(int qpn, long nowNanos, int bytes) {
                    if (posted.size() < 200) {
                        int s = 1 + r.nextInt(3 * P);
                        assertThat(ends[0].postSend(qpn, s)).isTrue();
                        posted.add(s);
                    }
                }
            });
            ends[1] = new RoceV2Endpoint(config, new RoceV2Listener() {
                @Override
                public void onMessageDelivered(int qpn, long nowNanos, int bytes) {
                    delivered.add(bytes);
                }
            });
            ends[0].openQueuePair(TestNetwork.address(1), 0, QP_A, QP_B);
            ends[1].openQueuePair(TestNetwork.address(0), 0, QP_B, QP_A);
            TestNetwork net = new TestNetwork(seed, ends).loss(0.02);
            for (int i = 0; i < 2; i++) {
                int s = 1 + r.nextInt(3 * P);
                ends[0].postSend(QP_A, s);
                posted.add(s);
            }
            net.runUntil(() -> posted.size() == 200 && ends[0].queuedMessages(QP_A) == 0, 60 * SECOND, "200 messages");
            assertThat(delivered).as("seed %d", seed).isEqualTo(posted);
        }
    }
}
