package io.metaroce.core.sack;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.wire.Packet;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PathReceiveTracker} against a plain model of the received path sequence numbers: the
 * {@code record} verdicts, the SACK base and bits of every ACK, the echoed timestamp and delay, the
 * ECN counters, and the rules for when an ACK is due. Rules: docs/spec.md [SPEC-SACK-1] to
 * [SPEC-SACK-4].
 */
class PathReceiveTrackerPropertyTest {

    private static final int BITS = 256;

    static LongStream seeds() {
        return PropertySeeds.of(60);
    }

    /** The received PSNs as a sorted set, pruned below the tracked window. */
    private static final class Model {
        final TreeSet<Long> received = new TreeSet<>();
        long highest = -1;
        long echo;
        long highestArrivedAt;

        int record(long psn, long ts, long now) {
            if (psn > highest) {
                int r = psn == highest + 1 ? PathReceiveTracker.IN_ORDER : PathReceiveTracker.AFTER_GAP;
                received.add(psn);
                highest = psn;
                echo = ts;
                highestArrivedAt = now;
                received.headSet(highest - BITS, true).clear();
                return r;
            }
            if (psn <= highest - BITS || received.contains(psn)) {
                return PathReceiveTracker.DUPLICATE;
            }
            received.add(psn);
            return PathReceiveTracker.LATE;
        }

        long base() {
            return Math.max(0, highest - (BITS - 1));
        }

        long[] bits() {
            long[] bits = new long[BITS / 64];
            long base = base();
            for (long psn : received.tailSet(base, true)) {
                long k = psn - base;
                if (k < BITS) {
                    bits[(int) (k >>> 6)] |= 1L << (k & 63);
                }
            }
            return bits;
        }
    }

    private static String name(int r) {
        return switch (r) {
            case PathReceiveTracker.DUPLICATE -> "DUPLICATE";
            case PathReceiveTracker.IN_ORDER -> "IN_ORDER";
            case PathReceiveTracker.AFTER_GAP -> "AFTER_GAP";
            case PathReceiveTracker.LATE -> "LATE";
            default -> "?" + r;
        };
    }

    /** The next arrival: in order, after a gap, a jump, a duplicate, late within or beyond the window. */
    private static long nextPsn(SplittableRandom rnd, Model m, long start) {
        long h = m.highest;
        if (h < 0) {
            return start;
        }
        int kind = rnd.nextInt(100);
        long psn;
        if (kind < 35) {
            psn = h + 1;
        } else if (kind < 48) {
            psn = h + 2 + rnd.nextInt(20);
        } else if (kind < 52) {
            psn = h + 100 + rnd.nextInt(156); // a gap that stays inside the window
        } else if (kind < 56) {
            psn = h + 256 + rnd.nextInt(700); // a jump past the whole window
        } else if (kind < 58) {
            psn = h + (rnd.nextBoolean() ? 255 : 256); // the boundary of the two jump paths
        } else if (kind < 70 && !m.received.isEmpty()) {
            // a duplicate of something still tracked
            Long any = m.received.ceiling(h - rnd.nextInt(BITS));
            psn = any == null ? h : any;
        } else if (kind < 84) {
            psn = h - 1 - rnd.nextInt(BITS - 1); // late, within the window
        } else if (kind < 90) {
            psn = h - BITS - rnd.nextInt(400); // late, beyond the window
        } else if (kind < 95) {
            psn = h - BITS + rnd.nextInt(2); // exactly at the edge: h-256 is too old, h-255 is tracked
        } else {
            psn = h - 300 + rnd.nextInt(600);
        }
        return Math.max(0, psn);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void recordAndAckMatchModel(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        long start = switch (rnd.nextInt(5)) {
            case 0, 1 -> 0;
            case 2 -> 1 + rnd.nextInt(300);
            case 3 -> 1_000_000_000_000L + rnd.nextInt(1000);
            default -> (1L << 62) + rnd.nextInt(1000);
        };
        PathReceiveTracker tracker = new PathReceiveTracker();
        Model m = new Model();
        Packet ack = new Packet();
        long now = rnd.nextLong(-1_000_000_000L, 1_000_000_000L); // driver clocks are opaque
        long ect = 0;
        long ce = 0;

        // Before anything arrives: an empty ACK at base 0.
        fillGarbage(ack, rnd);
        tracker.writeAck(ack, now);
        assertThat(ack.sackBase).as("seed %d: empty base", seed).isZero();
        assertThat(ack.sackBits).as("seed %d: empty bits", seed).containsExactly(0, 0, 0, 0);
        assertThat(tracker.highest()).as("seed %d", seed).isEqualTo(-1);

        int steps = 400;
        for (int step = 0; step < steps; step++) {
            long psn = nextPsn(rnd, m, start);
            long ts = rnd.nextLong();
            now += rnd.nextInt(5000);
            int expected = m.record(psn, ts, now);
            int actual = tracker.record(psn, ts, now);
            final int st = step;
            assertThat(name(actual)).as("seed %d step %d: record(%d) with highest %d", seed, st, psn,
                    tracker.highest()).isEqualTo(name(expected));
            assertThat(tracker.highest()).as("seed %d step %d: highest", seed, st).isEqualTo(m.highest);

            int ecn = rnd.nextInt(4);
            tracker.countEcn(ecn);
            if (ecn != 0) {
                ect++;
            }
            if (ecn == 3) {
                ce++;
            }

            // hasReceived over the window and a little either side
            List<String> wrong = new ArrayList<>();
            for (long q = Math.max(0, m.highest - BITS - 2); q <= m.highest + 2; q++) {
                boolean exp = q > m.highest - BITS && q <= m.highest && m.received.contains(q);
                if (tracker.hasReceived(q) != exp) {
                    wrong.add(q + (exp ? " missing" : " unexpected"));
                }
            }
            assertThat(wrong).as("seed %d step %d: hasReceived, highest %d", seed, st, m.highest).isEmpty();

            if (rnd.nextInt(3) == 0 || step == steps - 1) {
                long ackAt = now + rnd.nextInt(3000);
                fillGarbage(ack, rnd);
                tracker.writeAck(ack, ackAt);
                assertThat(ack.sackBase).as("seed %d step %d: sackBase, highest %d", seed, st, m.highest)
                        .isEqualTo(m.base());
                assertThat(ack.sackBits).as("seed %d step %d: sackBits at base %d, highest %d, received %s",
                        seed, st, m.base(), m.highest, m.received).containsExactly(m.bits());
                assertThat(ack.echoTimestampNanos).as("seed %d step %d: echo", seed, st).isEqualTo(m.echo);
                assertThat(ack.ackDelayNanos).as("seed %d step %d: delay", seed, st)
                        .isEqualTo(Math.max(0, ackAt - m.highestArrivedAt));
                assertThat(ack.ectCount).as("seed %d step %d: ect", seed, st).isEqualTo(ect);
                assertThat(ack.ceCount).as("seed %d step %d: ce", seed, st).isEqualTo(ce);
                assertThat(tracker.ectCount()).as("seed %d", seed).isEqualTo(ect);
                assertThat(tracker.ceCount()).as("seed %d", seed).isEqualTo(ce);
            }
        }
    }

    private static void fillGarbage(Packet ack, SplittableRandom rnd) {
        ack.sackBase = rnd.nextLong();
        for (int i = 0; i < ack.sackBits.length; i++) {
            ack.sackBits[i] = rnd.nextLong();
        }
        ack.echoTimestampNanos = rnd.nextLong();
        ack.ackDelayNanos = rnd.nextLong();
    }

    /**
     * [SPEC-SACK-4]: an ACK is due at once after an immediate packet or once {@code ackEveryPackets}
     * are unacknowledged; otherwise {@code maxAckDelay} after the first unacknowledged one. Writing
     * the ACK resets everything.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void ackDueFollowsTheRules(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        int every = 1 + rnd.nextInt(6);
        long delay = rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(100_000);
        PathReceiveTracker tracker = new PathReceiveTracker();
        // The connection's array of its paths' ACK deadlines: kept equal to ackDeadlineNanos()
        // after every change, whichever branch of noteAckEliciting ran.
        long[] sink = new long[3];
        int slot = rnd.nextInt(3);
        tracker.publishAckDeadlineTo(sink, slot);
        Packet ack = new Packet();
        long now = rnd.nextLong(-1_000_000_000L, 1_000_000_000L);
        long psn = 0;

        int unacknowledged = 0;
        boolean immediateDue = false;
        long firstAt = 0;

        for (int step = 0; step < 600; step++) {
            int op = rnd.nextInt(10);
            if (op < 5) {
                boolean immediate = rnd.nextInt(5) == 0;
                tracker.record(psn++, now, now);
                tracker.noteAckEliciting(immediate, every, delay, now);
                if (unacknowledged == 0) {
                    firstAt = now;
                }
                unacknowledged++;
                immediateDue |= immediate || unacknowledged >= every;
            } else if (op < 8) {
                now += rnd.nextInt(5) == 0 ? delay : rnd.nextInt((int) Math.min(delay + 2, 50_000));
            } else if (op < 9 || tracker.ackDue(now)) {
                tracker.writeAck(ack, now);
                unacknowledged = 0;
                immediateDue = false;
            }
            boolean expDue = unacknowledged > 0 && (immediateDue || now >= firstAt + delay);
            final int st = step;
            assertThat(tracker.ackDue(now)).as("seed %d step %d: ackDue, %d unacknowledged (every %d), immediate %s,"
                    + " first at %d, delay %d, now %d", seed, st, unacknowledged, every, immediateDue, firstAt, delay, now)
                    .isEqualTo(expDue);
            long deadline = tracker.ackDeadlineNanos();
            assertThat(sink[slot]).as("seed %d step %d: the published ACK deadline", seed, st).isEqualTo(deadline);
            if (unacknowledged == 0) {
                assertThat(deadline).as("seed %d step %d: no deadline when nothing is pending", seed, st)
                        .isEqualTo(Long.MAX_VALUE);
            } else if (immediateDue) {
                assertThat(deadline).as("seed %d step %d: due at once", seed, st).isLessThanOrEqualTo(now);
            } else {
                assertThat(deadline).as("seed %d step %d: deadline = first arrival + delay", seed, st)
                        .isEqualTo(firstAt + delay);
            }
        }
    }
}
