package io.metaroce.core.sack;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import io.metaroce.core.sack.SendScoreboardPropertyTest.Recorder;
import io.metaroce.core.sack.SendScoreboardPropertyTest.Verdict;
import io.metaroce.core.wire.Packet;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cumulative fast path of {@link SendScoreboard#onAck} (everything from the lowest transmission
 * in flight up to the ACK's largest acknowledged, with no hole) against the general walk
 * ({@link SendScoreboard#onAckByWalk}): two scoreboards given the same sends, ACKs, timeouts and
 * cancellations must report the same verdicts in the same runs, return the same counts and hold the
 * same flight totals after every step, under random loss, reordering, duplication, lost and stale
 * ACKs. The case's seed is in the test's name and in every assertion message.
 */
class SendScoreboardFastPathPropertyTest {

    private static final int PATH = 5;

    static LongStream seeds() {
        return PropertySeeds.of(40);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void fastPathReportsWhatTheWalkReports(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        int[] capacities = {1, 4, 16, 64, 256, 1024};
        int capacity = capacities[rnd.nextInt(capacities.length)];
        int allowance = rnd.nextBoolean() ? 0 : rnd.nextInt(129);
        // A quarter of the cases lose, reorder and duplicate nothing, so that the fast path is taken
        // at nearly every ACK; the rest mix it with every way out of it.
        boolean clean = rnd.nextInt(4) == 0;
        double dropRate = clean ? 0 : rnd.nextInt(4) * 0.05;
        SendScoreboard fast = new SendScoreboard(PATH, capacity);
        SendScoreboard walk = new SendScoreboard(PATH, capacity);
        Recorder fastRec = new Recorder(true);
        Recorder walkRec = new Recorder(true);
        Packet ack = new Packet();
        BitSet received = new BitSet();
        long highestReceived = -1;
        List<Long> network = new ArrayList<>();
        List<long[]> savedAcks = new ArrayList<>();
        TreeSet<Long> inFlight = new TreeSet<>();
        long now = rnd.nextLong(0, 1_000_000_000L);
        long csn = 0;
        int eligibleAcks = 0;
        int acks = 0; // ACKs that acknowledge something new

        for (int step = 0; step < 1500; step++) {
            now += rnd.nextInt(1000);
            int op = rnd.nextInt(100);
            String what = "nothing";
            int fastReturn = -2;
            int walkReturn = -2;
            if (op < 40) {
                if (fast.hasRoom()) {
                    long c = !clean && rnd.nextInt(6) == 0 && csn > 0 ? rnd.nextLong(csn) : csn++;
                    int bytes = 1 + rnd.nextInt(9000);
                    long psn = fast.onSent(c, bytes, now);
                    assertThat(walk.onSent(c, bytes, now)).as("seed %d step %d: psn", seed, step).isEqualTo(psn);
                    inFlight.add(psn);
                    if (rnd.nextDouble() >= dropRate) {
                        network.add(psn);
                    }
                    what = "send " + psn;
                }
            } else if (op < 70) {
                // A clean case delivers as fast as it sends, so the flight stays within one ACK's
                // 256 bits; the others let it build up.
                for (int d = clean ? 2 : 1; d > 0 && !network.isEmpty(); d--) {
                    int idx = !clean && rnd.nextInt(3) == 0 ? Math.min(network.size() - 1, rnd.nextInt(1 + allowance)) : 0;
                    long psn = !clean && rnd.nextInt(20) == 0 ? network.get(idx) : network.remove(idx);
                    received.set((int) psn);
                    highestReceived = Math.max(highestReceived, psn);
                    what = "deliver " + psn;
                }
            } else if (op < 92) {
                SendScoreboardPropertyTest.writeAck(received, highestReceived, ack);
                if (rnd.nextInt(8) == 0) {
                    savedAcks.add(new long[] {ack.sackBase, ack.sackBits[0], ack.sackBits[1], ack.sackBits[2], ack.sackBits[3]});
                }
                if (!clean && rnd.nextInt(6) == 0) {
                    what = "ack lost";
                } else {
                    what = "ack base " + ack.sackBase + " highest " + highestReceived;
                    boolean eligible = eligible(ack, inFlight, fast.nextPathSequence());
                    fastReturn = fast.onAck(ack, allowance, fastRec);
                    walkReturn = walk.onAckByWalk(ack, allowance, walkRec);
                    if (walkReturn > 0) {
                        acks++;
                        eligibleAcks += eligible ? 1 : 0;
                    }
                }
            } else if (op < 95) {
                if (!savedAcks.isEmpty()) {
                    long[] s = savedAcks.get(rnd.nextInt(savedAcks.size()));
                    ack.sackBase = s[0];
                    System.arraycopy(s, 1, ack.sackBits, 0, 4);
                    what = "stale ack base " + s[0];
                    fastReturn = fast.onAck(ack, allowance, fastRec);
                    walkReturn = walk.onAckByWalk(ack, allowance, walkRec);
                }
            } else if (op < 98 && !clean) {
                long cutoff = now - rnd.nextInt(20_000);
                boolean atLeastOne = rnd.nextBoolean();
                what = "timeout at " + cutoff;
                fastReturn = fast.onTimeout(cutoff, atLeastOne, fastRec);
                walkReturn = walk.onTimeout(cutoff, atLeastOne, walkRec);
            } else if (!inFlight.isEmpty()) {
                // A NAK's cancellation: leaves a hole in the ring that the fast path must notice.
                long psn = inFlight.first() + rnd.nextLong(fast.nextPathSequence() - inFlight.first());
                what = "cancel " + psn;
                int fastBytes = cancelAny(fast, psn);
                int walkBytes = cancelAny(walk, psn);
                assertThat(fastBytes).as("seed %d step %d: %s", seed, step, what).isEqualTo(walkBytes);
                if (fastBytes >= 0) {
                    inFlight.remove(psn);
                }
            }
            List<Verdict> fastVerdicts = fastRec.take();
            List<Verdict> walkVerdicts = walkRec.take();
            String w = "step " + step + " " + what;
            assertThat(fastVerdicts).as("seed %d %s: verdicts (allowance %d, capacity %d)", seed, w, allowance, capacity)
                    .containsExactlyElementsOf(walkVerdicts);
            assertThat(fastReturn).as("seed %d %s: return value", seed, w).isEqualTo(walkReturn);
            for (Verdict v : fastVerdicts) {
                inFlight.remove(v.psn());
            }
            assertThat(fast.packetsInFlight()).as("seed %d %s: packetsInFlight", seed, w).isEqualTo(walk.packetsInFlight())
                    .isEqualTo(inFlight.size());
            assertThat(fast.bytesInFlight()).as("seed %d %s: bytesInFlight", seed, w).isEqualTo(walk.bytesInFlight());
            assertThat(fast.highestAcked()).as("seed %d %s: highestAcked", seed, w).isEqualTo(walk.highestAcked());
            assertThat(fast.hasRoom()).as("seed %d %s: hasRoom", seed, w).isEqualTo(walk.hasRoom());
            assertThat(fast.oldestSentAtNanos()).as("seed %d %s: oldestSentAtNanos", seed, w)
                    .isEqualTo(walk.oldestSentAtNanos());
        }
        assertThat(fastRec.runCount).as("seed %d: runs", seed).isEqualTo(walkRec.runCount);
        if (clean) {
            // Without loss, reordering, timeouts or lost ACKs almost every ACK that acknowledges
            // anything is cumulative (a cancellation's hole is the exception): the fast path is
            // what this case tested.
            assertThat(eligibleAcks).as("seed %d: ACKs the fast path takes, of %d that acknowledge something", seed, acks)
                    .isGreaterThanOrEqualTo(acks / 2);
            // And the code took it: a fast path never taken would report what the walk reports too.
            assertThat(fast.fastPathAcks).as("seed %d: ACKs applied by the fast path, of %d eligible", seed, eligibleAcks)
                    .isPositive().isGreaterThanOrEqualTo(eligibleAcks / 2);
            assertThat(walk.fastPathAcks).as("seed %d: the walk never takes the fast path", seed).isZero();
        }
    }

    /** {@link SendScoreboard#allSet} against a bit-by-bit loop, on random words and ranges. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void allSetMatchesABitLoop(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 1);
        long[] bits = new long[4];
        for (int i = 0; i < 5000; i++) {
            for (int w = 0; w < 4; w++) {
                // Mostly all ones, so that long set ranges with a single hole come up.
                bits[w] = rnd.nextInt(3) == 0 ? rnd.nextLong() : -1L;
                if (rnd.nextInt(4) == 0) {
                    bits[w] &= ~(1L << rnd.nextInt(64));
                }
            }
            int from = rnd.nextInt(256);
            int to = from + rnd.nextInt(256 - from);
            boolean expected = true;
            for (int k = from; k <= to; k++) {
                expected &= (bits[k >>> 6] & (1L << (k & 63))) != 0;
            }
            assertThat(SendScoreboard.allSet(bits, from, to)).as("seed %d case %d: bits %d..%d of %s", seed, i, from, to,
                    java.util.Arrays.toString(bits)).isEqualTo(expected);
        }
    }

    /**
     * Whether the fast path applies to {@code ack}: every transmission from the lowest in flight to
     * {@code next} is in flight, and the ACK acknowledges all of them up to its largest, that
     * largest being at or above the lowest and below {@code next}.
     */
    private static boolean eligible(Packet ack, TreeSet<Long> inFlight, long next) {
        if (inFlight.isEmpty()) {
            return false;
        }
        long lowest = inFlight.first();
        if (inFlight.size() != next - lowest || ack.sackBase > lowest) {
            return false;
        }
        long largest = -1;
        for (int k = 255; k >= 0; k--) {
            if ((ack.sackBits[k >>> 6] & (1L << (k & 63))) != 0) {
                largest = ack.sackBase + k;
                break;
            }
        }
        if (largest < lowest || largest >= next) {
            return false;
        }
        for (long psn = lowest; psn <= largest; psn++) {
            long rel = psn - ack.sackBase;
            if ((ack.sackBits[(int) (rel >>> 6)] & (1L << (rel & 63))) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Cancels {@code psn} with whatever CSN the scoreboard holds for it (as a NAK naming it would). */
    private static int cancelAny(SendScoreboard sb, long psn) {
        return sb.cancel(psn, sb.connectionSequenceOf(psn));
    }
}
