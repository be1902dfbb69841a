package io.metaroce.core.sack;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.WireConstants;

/**
 * The send side of one path: every transmission still in flight, indexed by its path sequence
 * number, and the rules that turn a selective acknowledgement into "arrived" and "lost".
 *
 * <p>A path keeps order, so a transmission that is not acknowledged while a later one on the same
 * path is (by more than the reordering allowance) was lost: it is reported at once, not after a
 * timer (R-SACK-2). Transmissions that fall below an ACK's window without having been acknowledged
 * are lost too. Path sequence numbers are never reused: a retransmission gets a new one.
 *
 * <p>Not thread-safe. Allocates nothing after construction.
 */
public final class SendScoreboard {
    private static final byte FREE = 0;
    private static final byte IN_FLIGHT = 1;
    private static final byte RESOLVED = 2;

    private static final int INITIAL_CAPACITY = 16;

    private final int maxCapacity;
    private int mask;
    private long[] connectionSequence;
    private long[] sentAtNanos;
    private int[] bytes;
    private byte[] state;
    private final int pathId;
    private long lowest;
    private long next;
    private long bytesInFlight;
    private int packetsInFlight;
    private long highestAcked = -1;
    /**
     * Send time of the transmission at {@link #lowest} (which is always in flight unless the
     * scoreboard is empty), or {@link Long#MAX_VALUE}: kept in a field because the engine asks
     * for it on every timer query, and reading it from the arrays costs cache misses per path.
     */
    private long oldestSentAtNanos = Long.MAX_VALUE;
    /**
     * ACKs {@link #onAck} applied by its cumulative fast path ({@link #ackPrefix}), for tests that
     * check it is taken. An int, not a long: it fits the object's alignment padding, so the idle
     * connection's footprint is unchanged (StateFootprintTest); it wraps after 2^31, harmlessly.
     */
    int fastPathAcks;

    /**
     * A scoreboard for path {@code pathId} holding up to {@code capacity} (a power of two)
     * transmissions. It starts small and doubles as the flight grows, so an idle path costs little.
     */
    public SendScoreboard(int pathId, int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two, was " + capacity);
        }
        this.pathId = pathId;
        this.maxCapacity = capacity;
        allocate(initialSize());
    }

    private void allocate(int size) {
        mask = size - 1;
        connectionSequence = new long[size];
        sentAtNanos = new long[size];
        bytes = new int[size];
        state = new byte[size];
    }

    /** Entries of the ring (a power of two, at most the capacity given). */
    public int ringSize() {
        return mask + 1;
    }

    /** Whether the ring is above its initial size (a burst grew it), so that an idle point may shrink it [SPEC-CONN-18]. */
    public boolean grown() {
        return mask + 1 > initialSize();
    }

    /** The ring's size at first and after an idle shrink. */
    private int initialSize() {
        return Math.min(maxCapacity, INITIAL_CAPACITY);
    }

    /**
     * When no transmission is held (every one resolved and freed) and the ring grew, goes back to
     * its initial size: a burst's flight does not stay allocated. Allocates; for an idle point,
     * not the datapath.
     *
     * @return whether the ring shrank
     */
    public boolean shrinkIfEmpty() {
        if (lowest != next || !grown()) {
            return false;
        }
        allocate(initialSize());
        return true;
    }

    /** Whether another transmission fits. */
    public boolean hasRoom() {
        return next - lowest < maxCapacity;
    }

    /**
     * How many more transmissions fit now ({@link #hasRoom} while above 0). Only a transmission
     * ({@link #onSent}) takes room; verdicts only give it back, so it is a lower bound on the room
     * for as long as the caller counts its own sends off it.
     */
    public long room() {
        return maxCapacity - (next - lowest);
    }

    private void growIfFull() {
        if (next - lowest <= mask) {
            return;
        }
        long[] oldCsn = connectionSequence;
        long[] oldSent = sentAtNanos;
        int[] oldBytes = bytes;
        byte[] oldState = state;
        int oldMask = mask;
        allocate((mask + 1) * 2);
        for (long psn = lowest; psn < next; psn++) {
            int o = (int) (psn & oldMask);
            int n = (int) (psn & mask);
            connectionSequence[n] = oldCsn[o];
            sentAtNanos[n] = oldSent[o];
            bytes[n] = oldBytes[o];
            state[n] = oldState[o];
        }
    }

    /** The path sequence number the next transmission gets. */
    public long nextPathSequence() {
        return next;
    }

    /** Records a transmission and returns its path sequence number. */
    public long onSent(long csn, int packetBytes, long nowNanos) {
        if (!hasRoom()) {
            throw new IllegalStateException("path " + pathId + " scoreboard full; check hasRoom() first");
        }
        long psn = next++;
        if (psn == lowest) {
            oldestSentAtNanos = nowNanos;
        }
        growIfFull();
        int i = (int) (psn & mask);
        connectionSequence[i] = csn;
        sentAtNanos[i] = nowNanos;
        bytes[i] = packetBytes;
        state[i] = IN_FLIGHT;
        bytesInFlight += packetBytes;
        packetsInFlight++;
        return psn;
    }

    /**
     * Applies the selective acknowledgement in {@code ack} and reports every newly acknowledged
     * and every newly lost transmission to {@code listener}.
     *
     * @return the number of transmissions newly acknowledged
     */
    public int onAck(Packet ack, int reorderAllowance, ScoreboardListener listener) {
        return onAck(ack, reorderAllowance, listener, true);
    }

    /** {@link #onAck} always by the general walk: for tests that compare the fast path with it. */
    int onAckByWalk(Packet ack, int reorderAllowance, ScoreboardListener listener) {
        return onAck(ack, reorderAllowance, listener, false);
    }

    private int onAck(Packet ack, int reorderAllowance, ScoreboardListener listener, boolean fastPath) {
        long base = ack.sackBase;
        long[] bits = ack.sackBits;
        long largest = -1;
        for (int w = WireConstants.SACK_WORDS - 1; w >= 0; w--) {
            if (bits[w] != 0) {
                largest = base + w * 64L + 63 - Long.numberOfLeadingZeros(bits[w]);
                break;
            }
        }
        if (largest < 0 || largest >= next) {
            // Nothing acknowledged, or an acknowledgement of a packet never sent: ignore it.
            return 0;
        }
        if (largest > highestAcked) {
            highestAcked = largest;
        }
        if (fastPath && largest >= lowest && packetsInFlight == next - lowest && base <= lowest
                && allSet(bits, lowest - base, largest - base)) {
            return ackPrefix(largest, listener);
        }
        return onAckGeneral(base, bits, largest, reorderAllowance, listener);
    }

    /**
     * The common case of {@link #onAck}, in one pass without a per-packet state or bit test: every
     * transmission from {@link #lowest} on is in flight (no verdict has left a hole in the ring:
     * {@code packetsInFlight == next - lowest}) and the ACK acknowledges all of
     * {@code [lowest, largest]}. Then the general walk would find one run of newly acknowledged
     * transmissions {@code [lowest, largest + 1)}, no loss (nothing below an acknowledged one is
     * left), and free the run: this does exactly that. The run's records stay in the ring, marked
     * in flight, while the listener reads them; nothing the listener calls reads the marks.
     */
    private int ackPrefix(long largest, ScoreboardListener listener) {
        fastPathAcks++;
        long from = lowest;
        long to = largest + 1;
        long runBytes = 0;
        for (long psn = from; psn < to; psn++) {
            runBytes += bytes[(int) (psn & mask)];
        }
        int n = endRun(from, to, runBytes, listener);
        freeRange(from, to);
        lowest = to;
        oldestSentAtNanos = to < next ? sentAtNanos[(int) (to & mask)] : Long.MAX_VALUE;
        return n;
    }

    /** Marks the ring slots of {@code [from, to)} (at most the ring's size) free, in at most two fills. */
    private void freeRange(long from, long to) {
        int start = (int) (from & mask);
        int n = (int) (to - from);
        int first = Math.min(n, mask + 1 - start);
        java.util.Arrays.fill(state, start, start + first, FREE);
        if (first < n) {
            java.util.Arrays.fill(state, 0, n - first, FREE);
        }
    }

    /**
     * Whether bits {@code fromBit} to {@code toBit} (both inclusive, {@code 0 <= fromBit <= toBit <
     * SACK_BITS}) of {@code bits} are all set, a 64-bit word at a time.
     */
    static boolean allSet(long[] bits, long fromBit, long toBit) {
        int fw = (int) (fromBit >>> 6);
        int tw = (int) (toBit >>> 6);
        long lowMask = -1L << (fromBit & 63);
        long highMask = -1L >>> (63 - (toBit & 63));
        if (fw == tw) {
            long m = lowMask & highMask;
            return (bits[fw] & m) == m;
        }
        if ((bits[fw] & lowMask) != lowMask || (bits[tw] & highMask) != highMask) {
            return false;
        }
        for (int w = fw + 1; w < tw; w++) {
            if (bits[w] != -1L) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #onAck} by the general walk over {@code [lowest, largest]}: every transmission's state
     * and bit are read, so it handles holes, losses and transmissions already resolved.
     */
    private int onAckGeneral(long base, long[] bits, long largest, int reorderAllowance, ScoreboardListener listener) {
        int acked = 0;
        long lossBelow = largest - reorderAllowance;
        // The newly acknowledged transmissions go to the listener in runs of consecutive path
        // sequence numbers (one call per run rather than per packet); a run ends at the first
        // transmission that is not newly acknowledged, and is reported before that one's loss, so
        // the listener hears of every verdict in path sequence order, as one at a time would.
        // The bytes and count of a run leave the flight totals when the run is reported (before
        // the listener hears of it, as before), not one packet at a time.
        long run = -1;
        long runBytes = 0;
        for (long psn = lowest; psn <= largest; psn++) {
            int i = (int) (psn & mask);
            long rel = psn - base;
            boolean inFlight = state[i] == IN_FLIGHT;
            if (inFlight && rel >= 0 && (bits[(int) (rel >>> 6)] & (1L << (rel & 63))) != 0) {
                state[i] = RESOLVED;
                runBytes += bytes[i];
                if (run < 0) {
                    run = psn;
                }
                continue;
            }
            if (run >= 0) {
                acked += endRun(run, psn, runBytes, listener);
                run = -1;
                runBytes = 0;
            }
            if (inFlight && (psn < lossBelow || rel < 0)) {
                resolve(i);
                listener.onTransmissionLost(pathId, psn, connectionSequence[i], bytes[i], false);
            }
        }
        if (run >= 0) {
            acked += endRun(run, largest + 1, runBytes, listener);
        }
        advanceLowest();
        return acked;
    }

    /** Takes the run {@code [from, to)} of {@code runBytes} out of the flight, reports it, and returns its length. */
    private int endRun(long from, long to, long runBytes, ScoreboardListener listener) {
        int n = (int) (to - from);
        bytesInFlight -= runBytes;
        packetsInFlight -= n;
        listener.onTransmissionsAcked(pathId, this, from, to);
        return n;
    }

    /**
     * The CSN that transmission {@code psn} carried; meant for a
     * {@link ScoreboardListener#onTransmissionsAcked} run, during which every PSN of the run still
     * has its record.
     */
    public long connectionSequenceOf(long psn) {
        return connectionSequence[(int) (psn & mask)];
    }

    /** The datagram bytes of transmission {@code psn} (see {@link #connectionSequenceOf}). */
    public int bytesOf(long psn) {
        return bytes[(int) (psn & mask)];
    }

    /** The send time of transmission {@code psn} (see {@link #connectionSequenceOf}). */
    public long sentAtNanosOf(long psn) {
        return sentAtNanos[(int) (psn & mask)];
    }

    /**
     * Declares lost every transmission sent at or before {@code sentBeforeNanos} (a retransmission
     * timeout), oldest first; at least the oldest one when {@code atLeastOne}.
     *
     * @return the number declared lost
     */
    public int onTimeout(long sentBeforeNanos, boolean atLeastOne, ScoreboardListener listener) {
        int lost = 0;
        for (long psn = lowest; psn < next; psn++) {
            int i = (int) (psn & mask);
            if (state[i] != IN_FLIGHT) {
                continue;
            }
            if (sentAtNanos[i] > sentBeforeNanos && !(atLeastOne && lost == 0)) {
                break;
            }
            resolve(i);
            lost++;
            listener.onTransmissionLost(pathId, psn, connectionSequence[i], bytes[i], true);
        }
        advanceLowest();
        return lost;
    }

    /**
     * Removes a transmission without a verdict (the receiver refused it with a NAK: it arrived, but
     * neither an acknowledgement nor a loss is due).
     *
     * @return the bytes it took, or -1 if it was not in flight or did not carry {@code csn}; after a
     *     cancel, {@link #sentAtNanosOf} still reports its send time (the slot is only reused by a
     *     later transmission)
     */
    public int cancel(long psn, long csn) {
        if (psn < lowest || psn >= next) {
            return -1;
        }
        int i = (int) (psn & mask);
        if (state[i] != IN_FLIGHT || connectionSequence[i] != csn) {
            return -1;
        }
        resolve(i);
        advanceLowest();
        return bytes[i];
    }

    /** Send time of the oldest transmission in flight, or {@link Long#MAX_VALUE} if none. */
    public long oldestSentAtNanos() {
        return oldestSentAtNanos;
    }

    /** Bytes in flight on the path. */
    public long bytesInFlight() {
        return bytesInFlight;
    }

    /** Transmissions in flight on the path. */
    public int packetsInFlight() {
        return packetsInFlight;
    }

    /** Highest path sequence number ever acknowledged, or -1. */
    public long highestAcked() {
        return highestAcked;
    }

    private void resolve(int i) {
        state[i] = RESOLVED;
        bytesInFlight -= bytes[i];
        packetsInFlight--;
    }

    /**
     * Frees the resolved transmissions at the bottom, so that {@link #lowest} is in flight again
     * (or the scoreboard is empty), and notes the send time of the new oldest.
     */
    private void advanceLowest() {
        while (lowest < next && state[(int) (lowest & mask)] != IN_FLIGHT) {
            state[(int) (lowest & mask)] = FREE;
            lowest++;
        }
        oldestSentAtNanos = lowest < next ? sentAtNanos[(int) (lowest & mask)] : Long.MAX_VALUE;
    }
}
