package io.metaroce.core.sack;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.Packet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * [SPEC-SACK-14]: a receiver sends each ACK of a path once while it sees the path lose little,
 * twice while it sees more than {@code ackRepeatAboveLossPercent} of the path's sequence numbers
 * skipped, three times above twice that; every copy says the same.
 */
class AckRepeatTest {
    private static final int PERCENT = EngineConfig.defaults().ackRepeatAboveLossPercent();

    /**
     * Feeds {@code arrivals} packets, skipping one sequence number before every {@code period}-th
     * (none with period 0), each asking for an immediate ACK, and returns how many ACKs the last
     * arrival made the tracker write; every copy of one ACK must be identical.
     */
    private static int acksPerArrival(PathReceiveTracker tracker, int period, int arrivals) {
        Packet first = new Packet();
        Packet copy = new Packet();
        long psn = 0;
        int acks = 0;
        for (int i = 0; i < arrivals; i++) {
            if (period > 0 && i > 0 && i % period == 0) {
                psn++; // lost
            }
            tracker.record(psn++, i, i);
            tracker.noteAckEliciting(true, 2, 20_000, i);
            acks = 0;
            while (tracker.ackDue(i)) {
                assertThat(tracker.ackDeadlineNanos()).as("an ACK due is due at once").isEqualTo(Long.MIN_VALUE);
                tracker.writeAck(acks == 0 ? first : copy, i);
                if (acks > 0) {
                    assertThat(copy.sackBase).isEqualTo(first.sackBase);
                    assertThat(copy.sackBits).containsExactly(first.sackBits);
                    assertThat(copy.echoTimestampNanos).isEqualTo(first.echoTimestampNanos);
                }
                acks++;
                assertThat(acks).as("at most three copies").isLessThanOrEqualTo(3);
            }
            assertThat(tracker.ackDeadlineNanos()).as("nothing awaits acknowledgement").isEqualTo(Long.MAX_VALUE);
        }
        return acks;
    }

    @Test
    void eachAckGoesOnceTwiceOrThriceWithTheLossTheReceiverSees() {
        assertThat(PERCENT).isEqualTo(15);
        assertThat(acksPerArrival(new PathReceiveTracker(PERCENT), 0, 300)).as("no loss").isEqualTo(1);
        assertThat(acksPerArrival(new PathReceiveTracker(PERCENT), 10, 300)).as("1 in 11 lost").isEqualTo(1);
        assertThat(acksPerArrival(new PathReceiveTracker(PERCENT), 3, 300)).as("1 in 4 lost").isEqualTo(2);
        assertThat(acksPerArrival(new PathReceiveTracker(PERCENT), 2, 300)).as("1 in 3 lost").isEqualTo(3);
        assertThat(acksPerArrival(new PathReceiveTracker(100), 2, 300)).as("100: never repeated").isEqualTo(1);
        assertThat(acksPerArrival(new PathReceiveTracker(), 1, 300)).as("the default tracker: never").isEqualTo(1);
    }

    /**
     * A PROBE_ACK, which nothing on its path repeats, goes out as many times as an ACK of the path
     * would ([SPEC-SACK-14]): the deterministic patterns above give 1, 2 and 3.
     */
    @Test
    void anAnswerToAProbeIsRepeatedAsTheAcksOfItsPathAre() {
        int[] periods = {0, 10, 3, 2};
        int[] expected = {1, 1, 2, 3};
        for (int k = 0; k < periods.length; k++) {
            PathReceiveTracker tracker = new PathReceiveTracker(PERCENT);
            int acks = acksPerArrival(tracker, periods[k], 300);
            assertThat(tracker.answerCopies()).as("period %d", periods[k]).isEqualTo(expected[k]).isEqualTo(acks);
        }
        PathReceiveTracker off = new PathReceiveTracker(100);
        acksPerArrival(off, 1, 300);
        assertThat(off.answerCopies()).as("100: never repeated").isEqualTo(1);
    }

    /** Seeded random loss: copies only where the loss is high, and never more than three. */
    @Test
    void underRandomLossCopiesFollowTheLossRate() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            double loss = random.nextDouble(0.6);
            PathReceiveTracker tracker = new PathReceiveTracker(PERCENT);
            Packet ack = new Packet();
            long psn = 0;
            long acks = 0;
            int arrivals = 2_000;
            for (int i = 0; i < arrivals; i++) {
                while (random.nextDouble() < loss) {
                    psn++;
                }
                tracker.record(psn++, i, i);
                tracker.noteAckEliciting(true, 2, 20_000, i);
                int answers = tracker.answerCopies();
                int copies = 0;
                while (tracker.ackDue(i)) {
                    tracker.writeAck(ack, i);
                    copies++;
                }
                assertThat(copies).as("seed %d, loss %.3f", seed, loss).isBetween(1, 3);
                assertThat(answers).as("a PROBE_ACK goes as often as the ACK, seed %d, loss %.3f", seed, loss)
                        .isEqualTo(copies);
                acks += copies;
            }
            double perArrival = acks / (double) arrivals;
            String where = String.format("seed %d, loss %.3f: %.3f ACKs per arrival", seed, loss, perArrival);
            if (loss < 0.08) {
                assertThat(perArrival).as(where).isLessThan(1.05);
            } else if (loss > 0.45) {
                assertThat(perArrival).as(where).isGreaterThan(2.6);
            } else if (loss > 0.25) {
                assertThat(perArrival).as(where).isGreaterThan(1.6);
            }
        }
    }
}
