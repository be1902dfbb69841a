package io.metaroce.core.sack;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.wire.Packet;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SendScoreboard} against a model of the transmissions in flight and a model receiver:
 * verdicts from ACKs ([SPEC-SACK-6], [SPEC-LOSS-1], [SPEC-LOSS-2]), timeouts ([SPEC-LOSS-5]),
 * cancellation, growth and capacity.
 */
class SendScoreboardPropertyTest {

    private static final int PATH = 3;

    static LongStream seeds() {
        return PropertySeeds.of(40);
    }

    /** One verdict as the listener saw it. */
    record Verdict(boolean acked, int pathId, long psn, long csn, int bytes, long sentAt, boolean byTimeout) {
        @Override
        public String toString() {
            return (acked ? "ACKED " : byTimeout ? "LOST(timeout) " : "LOST ") + psn + " csn " + csn + " bytes " + bytes
                    + (acked ? " sent " + sentAt : "") + (pathId != PATH ? " path " + pathId : "");
        }
    }

    /**
     * Records every verdict. By default a run of acknowledgements reaches it through
     * {@link ScoreboardListener#onTransmissionsAcked}'s default, one {@link #onTransmissionAcked}
     * per packet; with {@code runs} it takes the run itself (as the connection does), checks that
     * it is a proper run (not empty, not continuing the run reported just before it: runs are as
     * long as they can be), and records its packets from the scoreboard's accessors, so the
     * checks against the model cover both forms.
     */
    static final class Recorder implements ScoreboardListener {
        final List<Verdict> events = new ArrayList<>();
        final boolean runs;
        /** Runs taken so far, and the end of the last one if nothing was recorded after it (else -1). */
        int runCount;
        long lastRunEnd = -1;

        Recorder() {
            this(false);
        }

        Recorder(boolean runs) {
            this.runs = runs;
        }

        @Override
        public void onTransmissionsAcked(int pathId, SendScoreboard scoreboard, long fromPsn, long toPsn) {
            if (!runs) {
                ScoreboardListener.super.onTransmissionsAcked(pathId, scoreboard, fromPsn, toPsn);
                return;
            }
            assertThat(toPsn).as("run [%d, %d) is empty", fromPsn, toPsn).isGreaterThan(fromPsn);
            assertThat(fromPsn).as("run from %d continues the run before it", fromPsn).isNotEqualTo(lastRunEnd);
            for (long psn = fromPsn; psn < toPsn; psn++) {
                events.add(new Verdict(true, pathId, psn, scoreboard.connectionSequenceOf(psn), scoreboard.bytesOf(psn),
                        scoreboard.sentAtNanosOf(psn), false));
            }
            runCount++;
            lastRunEnd = toPsn;
        }

        @Override
        public void onTransmissionAcked(int pathId, long pathSequence, long connectionSequence, int bytes, long sentAtNanos) {
            events.add(new Verdict(true, pathId, pathSequence, connectionSequence, bytes, sentAtNanos, false));
        }

        @Override
        public void onTransmissionLost(int pathId, long pathSequence, long connectionSequence, int bytes, boolean byTimeout) {
            events.add(new Verdict(false, pathId, pathSequence, connectionSequence, bytes, 0, byTimeout));
            lastRunEnd = -1;
        }

        List<Verdict> take() {
            List<Verdict> copy = new ArrayList<>(events);
            events.clear();
            lastRunEnd = -1;
            return copy;
        }
    }

    record Tx(long csn, int bytes, long sentAt) {}

    /** The scoreboard as the spec describes it. */
    static final class Model {
        final int capacity;
        final TreeMap<Long, Tx> inFlight = new TreeMap<>();
        long next;
        long highestAcked = -1;

        Model(int capacity) {
            this.capacity = capacity;
        }

        long lowest() {
            return inFlight.isEmpty() ? next : inFlight.firstKey();
        }

        boolean hasRoom() {
            return next - lowest() < capacity;
        }

        long bytes() {
            long b = 0;
            for (Tx t : inFlight.values()) {
                b += t.bytes;
            }
            return b;
        }

        List<Verdict> onAck(long base, long[] bits, int allowance) {
            List<Verdict> out = new ArrayList<>();
            long largest = -1;
            for (int k = 255; k >= 0; k--) {
                if ((bits[k >>> 6] & (1L << (k & 63))) != 0) {
                    largest = base + k;
                    break;
                }
            }
            if (largest < 0 || largest >= next) {
                return out;
            }
            highestAcked = Math.max(highestAcked, largest);
            Iterator<Map.Entry<Long, Tx>> it = inFlight.headMap(largest, true).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, Tx> e = it.next();
                long psn = e.getKey();
                Tx t = e.getValue();
                long rel = psn - base;
                boolean bit = rel >= 0 && (bits[(int) (rel >>> 6)] & (1L << (rel & 63))) != 0;
                if (bit) {
                    out.add(new Verdict(true, PATH, psn, t.csn, t.bytes, t.sentAt, false));
                    it.remove();
                } else if (psn < largest - allowance || rel < 0) {
                    out.add(new Verdict(false, PATH, psn, t.csn, t.bytes, 0, false));
                    it.remove();
                }
            }
            return out;
        }

        List<Verdict> onTimeout(long sentBefore, boolean atLeastOne) {
            List<Verdict> out = new ArrayList<>();
            Iterator<Map.Entry<Long, Tx>> it = inFlight.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, Tx> e = it.next();
                Tx t = e.getValue();
                if (t.sentAt > sentBefore && !(atLeastOne && out.isEmpty())) {
                    break; // send times never decrease with the PSN, so the rest are newer
                }
                out.add(new Verdict(false, PATH, e.getKey(), t.csn, t.bytes, 0, true));
                it.remove();
            }
            return out;
        }
    }

    /** A receiver that reports exactly what arrived. */
    static void writeAck(BitSet received, long highest, Packet ack) {
        long base = Math.max(0, highest - 255);
        ack.sackBase = base;
        java.util.Arrays.fill(ack.sackBits, 0L);
        if (highest < 0) {
            return;
        }
        for (int k = 0; k < 256 && base + k <= highest; k++) {
            if (received.get((int) (base + k))) {
                ack.sackBits[k >>> 6] |= 1L << (k & 63);
            }
        }
    }

    static long countBits(long[] bits) {
        long n = 0;
        for (long w : bits) {
            n += Long.bitCount(w);
        }
        return n;
    }

    private static void checkState(long seed, String when, SendScoreboard sb, Model m) {
        assertThat(sb.packetsInFlight()).as("seed %d %s: packetsInFlight", seed, when).isEqualTo(m.inFlight.size());
        assertThat(sb.bytesInFlight()).as("seed %d %s: bytesInFlight", seed, when).isEqualTo(m.bytes());
        assertThat(sb.nextPathSequence()).as("seed %d %s: nextPathSequence", seed, when).isEqualTo(m.next);
        assertThat(sb.highestAcked()).as("seed %d %s: highestAcked", seed, when).isEqualTo(m.highestAcked);
        assertThat(sb.hasRoom()).as("seed %d %s: hasRoom (next %d, lowest %d, capacity %d)", seed, when, m.next,
                m.lowest(), m.capacity).isEqualTo(m.hasRoom());
        assertThat(sb.oldestSentAtNanos()).as("seed %d %s: oldestSentAtNanos", seed, when)
                .isEqualTo(m.inFlight.isEmpty() ? Long.MAX_VALUE : m.inFlight.firstEntry().getValue().sentAt);
    }

    /**
     * Sends, deliveries with reordering and loss, truthful ACKs (some lost, some replayed late),
     * forged ACKs, timeouts and cancellations, all checked against the model after every step.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void verdictsMatchModel(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        int[] capacities = {1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096};
        int capacity = capacities[rnd.nextInt(capacities.length)];
        int allowance = rnd.nextBoolean() ? 0 : rnd.nextInt(129);
        double dropRate = rnd.nextInt(4) * 0.1;
        SendScoreboard sb = new SendScoreboard(PATH, capacity);
        Model m = new Model(capacity);
        // Half the seeds take the acknowledgements in runs, half one packet at a time.
        Recorder rec = new Recorder((seed & 1) == 0);
        Packet ack = new Packet();

        BitSet received = new BitSet();
        long highestReceived = -1;
        List<Long> network = new ArrayList<>(); // in transit, in send order
        List<long[]> savedAcks = new ArrayList<>(); // {base, w0..w3}
        Map<Long, Verdict> verdictOf = new HashMap<>();
        Set<Long> cancelled = new HashSet<>();
        long now = rnd.nextLong(-1_000_000_000L, 1_000_000_000L);
        long csn = 0;

        int steps = 1500;
        for (int step = 0; step < steps; step++) {
            now += rnd.nextInt(1000);
            int op = rnd.nextInt(100);
            String what;
            List<Verdict> expected = List.of();
            int expectedReturn = -2;
            int actualReturn = -2;
            if (op < 38) {
                if (!m.hasRoom()) {
                    what = "send when full";
                    long t = now;
                    assertThatThrownBy(() -> sb.onSent(0, 1, t)).as("seed %d step %d: onSent when full", seed, step)
                            .isInstanceOf(IllegalStateException.class);
                } else {
                    long c = rnd.nextInt(5) == 0 && csn > 0 ? rnd.nextLong(csn) : csn++; // retransmissions reuse a CSN
                    int bytes = 1 + rnd.nextInt(9000);
                    long psn = sb.onSent(c, bytes, now);
                    what = "send " + psn;
                    assertThat(psn).as("seed %d step %d: psn", seed, step).isEqualTo(m.next);
                    m.inFlight.put(psn, new Tx(c, bytes, now));
                    m.next++;
                    if (rnd.nextDouble() >= dropRate) {
                        network.add(psn);
                    }
                }
            } else if (op < 65) {
                what = "deliver";
                if (!network.isEmpty()) {
                    // mostly the head of the queue; sometimes a little behind (reordering)
                    int idx = rnd.nextInt(3) == 0 ? Math.min(network.size() - 1, rnd.nextInt(1 + allowance)) : 0;
                    long psn = rnd.nextInt(20) == 0 ? network.get(idx) : network.remove(idx); // sometimes duplicated
                    received.set((int) psn);
                    highestReceived = Math.max(highestReceived, psn);
                    what = "deliver " + psn;
                }
            } else if (op < 68) {
                what = "drop";
                if (!network.isEmpty()) {
                    network.remove(rnd.nextInt(network.size()));
                }
            } else if (op < 88) {
                writeAck(received, highestReceived, ack);
                if (rnd.nextInt(8) == 0) {
                    savedAcks.add(new long[] {ack.sackBase, ack.sackBits[0], ack.sackBits[1], ack.sackBits[2], ack.sackBits[3]});
                }
                what = "ack base " + ack.sackBase + " highest " + highestReceived;
                if (rnd.nextInt(6) == 0) {
                    what += " (lost)";
                } else {
                    expected = m.onAck(ack.sackBase, ack.sackBits, allowance);
                    expectedReturn = (int) expected.stream().filter(Verdict::acked).count();
                    actualReturn = sb.onAck(ack, allowance, rec);
                }
            } else if (op < 91) {
                what = "stale ack";
                if (!savedAcks.isEmpty()) {
                    long[] s = savedAcks.get(rnd.nextInt(savedAcks.size()));
                    ack.sackBase = s[0];
                    System.arraycopy(s, 1, ack.sackBits, 0, 4);
                    what = "stale ack base " + s[0];
                    expected = m.onAck(ack.sackBase, ack.sackBits, allowance);
                    expectedReturn = (int) expected.stream().filter(Verdict::acked).count();
                    actualReturn = sb.onAck(ack, allowance, rec);
                }
            } else if (op < 94) {
                // A forged ACK whose highest bit names a PSN never sent, or an empty ACK: ignored.
                java.util.Arrays.fill(ack.sackBits, 0L);
                if (rnd.nextInt(4) == 0) {
                    ack.sackBase = Math.max(0, m.next - rnd.nextInt(300));
                    what = "empty ack base " + ack.sackBase;
                } else {
                    int top = rnd.nextInt(256);
                    ack.sackBase = Math.max(0, m.next - top + rnd.nextInt(50));
                    ack.sackBits[top >>> 6] |= 1L << (top & 63);
                    for (int k = 0; k < top; k++) {
                        if (rnd.nextBoolean()) {
                            ack.sackBits[k >>> 6] |= 1L << (k & 63);
                        }
                    }
                    what = "forged ack base " + ack.sackBase + " top " + (ack.sackBase + top) + " next " + m.next;
                }
                expected = List.of();
                expectedReturn = 0;
                actualReturn = sb.onAck(ack, allowance, rec);
            } else if (op < 97) {
                long cutoff = now - rnd.nextInt(20_000);
                boolean atLeastOne = rnd.nextBoolean();
                what = "timeout at " + cutoff + (atLeastOne ? " (at least one)" : "");
                expected = m.onTimeout(cutoff, atLeastOne);
                expectedReturn = expected.size();
                actualReturn = sb.onTimeout(cutoff, atLeastOne, rec);
            } else {
                long lo = m.lowest();
                long psn = lo - 2 + rnd.nextLong(m.next - lo + 5);
                Tx t = m.inFlight.get(psn);
                long c = t != null && rnd.nextInt(4) != 0 ? t.csn : rnd.nextLong(csn + 2);
                int exp = t != null && t.csn == c ? t.bytes : -1;
                int got = sb.cancel(psn, c);
                what = "cancel " + psn + " csn " + c;
                assertThat(got).as("seed %d step %d: %s", seed, step, what).isEqualTo(exp);
                if (exp >= 0) {
                    m.inFlight.remove(psn);
                    cancelled.add(psn);
                }
            }
            List<Verdict> actual = rec.take();
            final String w = "step " + step + " " + what;
            assertThat(actual).as("seed %d %s: verdicts (allowance %d, capacity %d)", seed, w, allowance, capacity)
                    .containsExactlyElementsOf(expected);
            assertThat(actualReturn).as("seed %d %s: return value", seed, w).isEqualTo(expectedReturn);
            for (Verdict v : actual) {
                Verdict before = verdictOf.put(v.psn, v);
                assertThat(before).as("seed %d %s: second verdict for %d", seed, w, v.psn).isNull();
                assertThat(cancelled).as("seed %d %s: verdict for a cancelled transmission", seed, w).doesNotContain(v.psn);
                if (v.acked) {
                    assertThat(received.get((int) v.psn)).as("seed %d %s: acked but never delivered: %s", seed, w, v).isTrue();
                }
            }
            checkState(seed, w, sb, m);
        }

        // Drain: a timeout far in the future declares every remaining transmission lost.
        List<Verdict> expected = m.onTimeout(Long.MAX_VALUE, false);
        int n = sb.onTimeout(Long.MAX_VALUE, false, rec);
        assertThat(rec.events).as("seed %d: drain", seed).containsExactlyElementsOf(expected);
        assertThat(n).as("seed %d: drain count", seed).isEqualTo(expected.size());
        for (Verdict v : rec.take()) {
            verdictOf.put(v.psn, v);
        }
        checkState(seed, "after drain", sb, m);
        if (rec.runs) {
            assertThat(rec.runCount).as("seed %d: acknowledgements taken in runs", seed).isPositive();
        }
        for (long psn = 0; psn < m.next; psn++) {
            assertThat(verdictOf.containsKey(psn) ^ cancelled.contains(psn))
                    .as("seed %d: transmission %d has exactly one verdict or was cancelled", seed, psn).isTrue();
        }
    }

    /**
     * A receiver that acknowledges every arrival at once, with arrivals reordered by at most the
     * allowance: every delivered transmission is acknowledged, never lost, and every lost verdict
     * names one that did not arrive ([SPEC-LOSS-1]: with allowance 0 and in-order delivery, no
     * false loss).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void noFalseLossWithinTheReorderAllowance(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        int allowance = switch (rnd.nextInt(4)) {
            case 0 -> 0;
            case 1 -> 128;
            default -> rnd.nextInt(129);
        };
        boolean reorder = allowance > 0 && rnd.nextInt(4) != 0;
        int n = 50 + rnd.nextInt(1500);
        double drop = rnd.nextInt(5) * 0.1;
        SendScoreboard sb = new SendScoreboard(PATH, 2048);
        Recorder rec = new Recorder(true);
        Packet ack = new Packet();
        long now = 0;
        List<long[]> arrivals = new ArrayList<>(); // {sortKey, psn}
        Set<Long> delivered = new HashSet<>();
        long expectedBytes = 0;
        for (int i = 0; i < n; i++) {
            int bytes = 100 + i % 1000;
            long psn = sb.onSent(1000 + i, bytes, now += 10);
            assertThat(psn).as("seed %d", seed).isEqualTo(i);
            expectedBytes += bytes;
            if (rnd.nextDouble() >= drop) {
                delivered.add(psn);
                arrivals.add(new long[] {psn + (reorder ? rnd.nextInt(allowance + 1) : 0), psn});
            }
        }
        assertThat(sb.packetsInFlight()).as("seed %d", seed).isEqualTo(n);
        assertThat(sb.bytesInFlight()).as("seed %d", seed).isEqualTo(expectedBytes);
        // Arrival order: by key, ties in PSN order; a packet overtakes another by at most the allowance.
        arrivals.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));

        BitSet received = new BitSet();
        long highest = -1;
        Map<Long, Verdict> verdictOf = new HashMap<>();
        for (long[] a : arrivals) {
            long psn = a[1];
            received.set((int) psn);
            highest = Math.max(highest, psn);
            writeAck(received, highest, ack);
            int acked = sb.onAck(ack, allowance, rec);
            List<Verdict> got = rec.take();
            assertThat(acked).as("seed %d arrival %d: return", seed, psn).isEqualTo((int) got.stream().filter(Verdict::acked).count());
            for (Verdict v : got) {
                assertThat(verdictOf.put(v.psn, v)).as("seed %d arrival %d: second verdict for %s", seed, psn, v).isNull();
                assertThat(v.acked).as("seed %d arrival %d (allowance %d, reorder %s): %s", seed, psn, allowance, reorder, v)
                        .isEqualTo(delivered.contains(v.psn));
                assertThat(v.csn).as("seed %d: csn of %d", seed, v.psn).isEqualTo(1000 + v.psn);
                assertThat(v.bytes).as("seed %d: bytes of %d", seed, v.psn).isEqualTo(100 + (int) (v.psn % 1000));
                if (v.acked) {
                    assertThat(v.sentAt).as("seed %d: sentAt of %d", seed, v.psn).isEqualTo(10 * (v.psn + 1));
                }
            }
        }
        long inFlight = 0;
        long inFlightBytes = 0;
        for (long psn = 0; psn < n; psn++) {
            Verdict v = verdictOf.get(psn);
            if (delivered.contains(psn)) {
                assertThat(v).as("seed %d: delivered %d is acknowledged", seed, psn).isNotNull();
            } else if (v == null) {
                // still in flight: only the ones the allowance still protects, or above the highest ACKed
                assertThat(psn).as("seed %d: undelivered %d still in flight with highest %d, allowance %d", seed, psn,
                        highest, allowance).isGreaterThanOrEqualTo(highest - allowance);
                inFlight++;
                inFlightBytes += 100 + psn % 1000;
            }
        }
        assertThat(sb.packetsInFlight()).as("seed %d: packets left in flight", seed).isEqualTo(inFlight);
        assertThat(sb.bytesInFlight()).as("seed %d: bytes left in flight", seed).isEqualTo(inFlightBytes);
        assertThat(sb.highestAcked()).as("seed %d", seed).isEqualTo(highest);
    }

    /** The flight grows from 16 to the capacity, keeps every transmission's data, and refuses more. */
    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 2, 8, 16, 32, 64, 1024, 8192})
    void growsUpToCapacityKeepingData(int capacity) {
        SplittableRandom rnd = new SplittableRandom(capacity);
        SendScoreboard sb = new SendScoreboard(PATH, capacity);
        Recorder rec = new Recorder();
        long[] csn = new long[capacity + 1];
        int[] bytes = new int[capacity + 1];
        long[] sent = new long[capacity + 1];
        for (int i = 0; i < capacity; i++) {
            assertThat(sb.hasRoom()).as("capacity %d: room before %d", capacity, i).isTrue();
            csn[i] = rnd.nextLong(1L << 40);
            bytes[i] = 1 + rnd.nextInt(65_000);
            sent[i] = 1000L * i + rnd.nextInt(1000);
            assertThat(sb.onSent(csn[i], bytes[i], sent[i])).as("capacity %d", capacity).isEqualTo(i);
        }
        assertThat(sb.hasRoom()).as("capacity %d: full", capacity).isFalse();
        assertThatThrownBy(() -> sb.onSent(1, 1, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(sb.packetsInFlight()).as("capacity %d", capacity).isEqualTo(capacity);

        // Acknowledge the oldest: room for exactly one more, which wraps round the ring.
        Packet ack = new Packet();
        ack.sackBase = 0;
        ack.sackBits[0] = 1;
        assertThat(sb.onAck(ack, 0, rec)).as("capacity %d", capacity).isEqualTo(1);
        assertThat(rec.take()).as("capacity %d", capacity).containsExactly(new Verdict(true, PATH, 0, csn[0], bytes[0], sent[0], false));
        assertThat(sb.hasRoom()).as("capacity %d: room after the oldest left", capacity).isTrue();
        csn[capacity] = 77;
        bytes[capacity] = 7;
        sent[capacity] = 1000L * capacity + 5000;
        assertThat(sb.onSent(csn[capacity], bytes[capacity], sent[capacity])).as("capacity %d", capacity).isEqualTo(capacity);
        assertThat(sb.hasRoom()).as("capacity %d", capacity).isFalse();

        // Everything else, in order, with its own data.
        assertThat(sb.oldestSentAtNanos()).as("capacity %d", capacity).isEqualTo(capacity > 1 ? sent[1] : sent[capacity]);
        sb.onTimeout(Long.MAX_VALUE, false, rec);
        List<Verdict> expected = new ArrayList<>();
        for (int i = 1; i <= capacity; i++) {
            expected.add(new Verdict(false, PATH, i, csn[i], bytes[i], 0, true));
        }
        assertThat(rec.take()).as("capacity %d", capacity).containsExactlyElementsOf(expected);
        assertThat(sb.packetsInFlight()).as("capacity %d", capacity).isZero();
        assertThat(sb.bytesInFlight()).as("capacity %d", capacity).isZero();
        assertThat(sb.hasRoom()).as("capacity %d", capacity).isTrue();
    }

    /** A hole that stays in flight keeps its place: later resolved ones do not make room past capacity. */
    @Test
    void anOldHoleHoldsTheCapacity() {
        SendScoreboard sb = new SendScoreboard(PATH, 64);
        Recorder rec = new Recorder();
        for (int i = 0; i < 64; i++) {
            sb.onSent(i, 10, i);
        }
        Packet ack = new Packet();
        ack.sackBase = 0;
        ack.sackBits[0] = ~1L; // 1..63 arrived, 0 did not; allowance 128 keeps 0 in flight
        assertThat(sb.onAck(ack, 128, rec)).isEqualTo(63);
        assertThat(sb.packetsInFlight()).isEqualTo(1);
        assertThat(sb.bytesInFlight()).isEqualTo(10);
        assertThat(sb.hasRoom()).isFalse();
        assertThat(sb.cancel(0, 0)).isEqualTo(10);
        assertThat(sb.hasRoom()).isTrue();
        assertThat(rec.events.stream().filter(v -> !v.acked)).isEmpty();
    }

    @Test
    void cancelRemovesWithoutAVerdict() {
        SendScoreboard sb = new SendScoreboard(PATH, 16);
        Recorder rec = new Recorder();
        for (int i = 0; i < 5; i++) {
            sb.onSent(100 + i, 10 + i, i);
        }
        assertThat(sb.cancel(2, 999)).as("wrong csn").isEqualTo(-1);
        assertThat(sb.cancel(5, 105)).as("never sent").isEqualTo(-1);
        assertThat(sb.cancel(-1, 100)).as("negative").isEqualTo(-1);
        assertThat(sb.cancel(2, 102)).isEqualTo(12);
        assertThat(sb.cancel(2, 102)).as("twice").isEqualTo(-1);
        assertThat(sb.packetsInFlight()).isEqualTo(4);
        assertThat(sb.bytesInFlight()).isEqualTo(10 + 11 + 13 + 14);
        assertThat(sb.cancel(0, 100)).isEqualTo(10);
        assertThat(sb.oldestSentAtNanos()).isEqualTo(1);
        // An ACK covering the cancelled one and a hole at 3: no verdict for 2 or 0.
        Packet ack = new Packet();
        ack.sackBase = 0;
        ack.sackBits[0] = 0b10111;
        assertThat(sb.onAck(ack, 0, rec)).isEqualTo(2);
        assertThat(rec.take()).containsExactly(
                new Verdict(true, PATH, 1, 101, 11, 1, false),
                new Verdict(false, PATH, 3, 103, 13, 0, false),
                new Verdict(true, PATH, 4, 104, 14, 4, false));
        assertThat(sb.packetsInFlight()).isZero();
        assertThat(sb.cancel(4, 104)).as("already acked").isEqualTo(-1);
    }

    @Test
    void anAckOfANeverSentPsnIsIgnored() {
        SendScoreboard sb = new SendScoreboard(PATH, 16);
        Recorder rec = new Recorder();
        for (int i = 0; i < 10; i++) {
            sb.onSent(i, 100, i);
        }
        Packet ack = new Packet();
        ack.sackBase = 0;
        ack.sackBits[0] = (1L << 11) - 1; // 0..10, and 10 was never sent
        assertThat(sb.onAck(ack, 0, rec)).isZero();
        assertThat(rec.events).isEmpty();
        assertThat(sb.packetsInFlight()).isEqualTo(10);
        assertThat(sb.highestAcked()).isEqualTo(-1);

        ack.sackBits[0] = 0;
        ack.sackBits[3] = 1L << 63; // base + 255, far beyond
        assertThat(sb.onAck(ack, 0, rec)).isZero();
        java.util.Arrays.fill(ack.sackBits, 0L); // nothing acknowledged at all
        assertThat(sb.onAck(ack, 0, rec)).isZero();
        ack.sackBase = 1L << 40;
        ack.sackBits[0] = 1;
        assertThat(sb.onAck(ack, 0, rec)).isZero();
        assertThat(rec.events).isEmpty();
        assertThat(sb.packetsInFlight()).isEqualTo(10);
        assertThat(sb.bytesInFlight()).isEqualTo(1000);

        // A truthful one still works afterwards.
        ack.sackBase = 0;
        ack.sackBits[0] = 1L << 9;
        assertThat(sb.onAck(ack, 0, rec)).isEqualTo(1);
        assertThat(rec.events).hasSize(10); // 0..8 lost, 9 acked
        assertThat(sb.highestAcked()).isEqualTo(9);
    }

    @Test
    void timeoutDeclaresTheOldestFirst() {
        SendScoreboard sb = new SendScoreboard(PATH, 16);
        Recorder rec = new Recorder();
        for (int i = 0; i < 6; i++) {
            sb.onSent(i, 1, 100L * i);
        }
        assertThat(sb.onTimeout(-1, false, rec)).isZero();
        assertThat(sb.onTimeout(-1, true, rec)).as("at least the oldest").isEqualTo(1);
        assertThat(sb.onTimeout(250, false, rec)).as("sent at or before 250: 100, 200").isEqualTo(2);
        assertThat(sb.onTimeout(300, false, rec)).as("sent at 300 exactly: at or before").isEqualTo(1);
        assertThat(rec.take()).extracting(Verdict::psn).containsExactly(0L, 1L, 2L, 3L);
        assertThat(rec.events).isEmpty();
        assertThat(sb.oldestSentAtNanos()).isEqualTo(400);
        assertThat(sb.onTimeout(Long.MAX_VALUE, true, rec)).isEqualTo(2);
        assertThat(sb.onTimeout(Long.MAX_VALUE, true, rec)).as("nothing left").isZero();
        assertThat(sb.oldestSentAtNanos()).isEqualTo(Long.MAX_VALUE);
    }

    /**
     * [SPEC-LOSS-2]: a transmission below the ACK's SACK base is lost even when the reordering
     * allowance would still protect it, because the receiver no longer reports it.
     */
    @Test
    void belowTheSackBaseIsLostWhateverTheAllowance() {
        SendScoreboard sb = new SendScoreboard(PATH, 64);
        Recorder rec = new Recorder();
        for (int i = 0; i < 40; i++) {
            sb.onSent(i, 1, i);
        }
        Packet ack = new Packet();
        ack.sackBase = 30;
        ack.sackBits[0] = 1L << 5; // 35 arrived; base 30
        assertThat(sb.onAck(ack, 128, rec)).isEqualTo(1);
        List<Verdict> got = rec.take();
        assertThat(got).filteredOn(Verdict::acked).extracting(Verdict::psn).containsExactly(35L);
        assertThat(got).filteredOn(v -> !v.acked()).extracting(Verdict::psn)
                .as("0..29 lie below the base; 30..34 are inside it and within the allowance")
                .containsExactlyElementsOf(LongStream.range(0, 30).boxed().toList());
        assertThat(sb.packetsInFlight()).isEqualTo(40 - 31);
        assertThat(sb.oldestSentAtNanos()).isEqualTo(30);
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new SendScoreboard(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SendScoreboard(0, 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SendScoreboard(0, -16)).isInstanceOf(IllegalArgumentException.class);
    }
}
