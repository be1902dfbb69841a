package io.metaroce.core.sack;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.WireConstants;

/**
 * The receive side of one path: which path sequence numbers arrived, as the 256-bit window that
 * ends at the highest one, plus what an ACK for the path must echo (timestamp, ECN counts).
 *
 * <p>Because a path keeps order, a packet whose sequence number is above {@code highest + 1}
 * reveals a hole; {@link #record} reports it so the ACK goes out at once and the sender can
 * retransmit before any timer (R-SACK-2). Bits are kept in a ring indexed by {@code psn & 255}.
 *
 * <p>Not thread-safe; owned by the connection's thread. Allocates nothing after construction.
 */
public final class PathReceiveTracker {
    /** {@link #record} result: the sequence number was already seen (a duplicate). */
    public static final int DUPLICATE = 0;
    /** {@link #record} result: new, in order. */
    public static final int IN_ORDER = 1;
    /** {@link #record} result: new, and it skipped over at least one sequence number (a hole). */
    public static final int AFTER_GAP = 2;
    /** {@link #record} result: new, but below the highest seen (fills a hole, or a reordered path). */
    public static final int LATE = 3;

    private static final int BITS = WireConstants.SACK_BITS;
    private static final int MASK = BITS - 1;

    private final long[] ring = new long[WireConstants.SACK_WORDS];
    private long highest = -1;
    private long echoTimestampNanos;
    private long highestReceivedAtNanos;
    private long ectCount;
    private long ceCount;
    private int unacknowledged;
    private long ackDeadlineNanos = Long.MAX_VALUE;
    private boolean ackNow;
    /** Gain of the loss estimate's moving average. */
    private static final double LOSS_GAIN = 1.0 / 16;
    /** Longest run of skipped sequence numbers one arrival moves the loss estimate by (a reset path's jump is not loss). */
    private static final int MAX_SKIPPED_COUNTED = 16;
    /** Above this estimated loss each ACK is sent twice, above twice it three times [SPEC-SACK-14]; above 1: never. */
    private final double repeatAboveLoss;
    /** Moving average (gain 1/16) of the fraction of sequence numbers skipped: the path's loss as seen here [SPEC-SACK-14]. */
    private double lossEstimate;
    /** How many more times the ACK just written is to be sent [SPEC-SACK-14]. */
    private int repeatAcks;
    /** Whether a skipped sequence number makes every later packet of the path acknowledged at once [SPEC-SACK-15]. */
    private final boolean ackEachAfterGap;
    /** Whether this path's sequence numbers have skipped since it was first recorded [SPEC-SACK-15]. */
    private boolean gapSeen;
    /**
     * Where {@link #ackDeadlineNanos} is kept up to date, at {@link #deadlineSlot} (null: nowhere):
     * the connection's array of its paths' ACK deadlines, which its transmit poll reads instead of
     * every path's tracker (see {@link #publishAckDeadlineTo}).
     */
    private long[] deadlineSink;
    private int deadlineSlot;

    /** A tracker that never repeats an ACK. */
    public PathReceiveTracker() {
        this(100);
    }

    /**
     * A tracker that sends each ACK twice while it sees more than {@code repeatAboveLossPercent}
     * percent of the path's sequence numbers skipped, three times above twice that (100: never)
     * [SPEC-SACK-14].
     */
    public PathReceiveTracker(int repeatAboveLossPercent) {
        this(repeatAboveLossPercent, false);
    }

    /**
     * A tracker as {@link #PathReceiveTracker(int)} that, with {@code ackEachPacketAfterGap}, once
     * the path's sequence numbers have skipped, asks for an ACK on every later packet
     * ([SPEC-SACK-15]).
     */
    public PathReceiveTracker(int repeatAboveLossPercent, boolean ackEachPacketAfterGap) {
        this.repeatAboveLoss = repeatAboveLossPercent >= 100 ? 2.0 : repeatAboveLossPercent / 100.0;
        this.ackEachAfterGap = ackEachPacketAfterGap;
    }

    /**
     * Records the arrival of {@code psn}.
     *
     * @return {@link #DUPLICATE}, {@link #IN_ORDER}, {@link #AFTER_GAP} or {@link #LATE}; a
     *     sequence number too old to be in the window counts as a duplicate
     */
    public int record(long psn, long timestampNanos, long nowNanos) {
        if (psn > highest) {
            // highest + BITS cannot overflow while psn is plausible; compare that way round.
            if (psn >= highest + BITS || highest < 0) {
                java.util.Arrays.fill(ring, 0L);
            } else {
                for (long s = highest + 1; s < psn; s++) {
                    clear(s);
                }
            }
            set(psn);
            boolean gap = psn != highest + 1;
            // A path's sequence numbers start at 0 and never restart (a repath keeps them), so a
            // first arrival above 0 skipped the path's first packets: a gap too [SPEC-SACK-15].
            gapSeen |= gap;
            if (highest >= 0) {
                // Each sequence number skipped moves the estimate toward 1, this arrival toward 0.
                long skipped = Math.min(psn - highest - 1, MAX_SKIPPED_COUNTED);
                for (long i = 0; i < skipped; i++) {
                    lossEstimate += (1 - lossEstimate) * LOSS_GAIN;
                }
                lossEstimate -= lossEstimate * LOSS_GAIN;
            }
            highest = psn;
            echoTimestampNanos = timestampNanos;
            highestReceivedAtNanos = nowNanos;
            return gap ? AFTER_GAP : IN_ORDER;
        }
        if (psn <= highest - BITS || isSet(psn)) {
            return DUPLICATE;
        }
        set(psn);
        return LATE;
    }

    /** Counts the ECN codepoint of an arriving data packet (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
    public void countEcn(int ecn) {
        if (ecn != 0) {
            ectCount++;
            if (ecn == 3) {
                ceCount++;
            }
        }
    }

    /** Whether {@code psn} is recorded as received (only meaningful within the window). */
    public boolean hasReceived(long psn) {
        return psn >= 0 && psn <= highest && psn > highest - BITS && isSet(psn);
    }

    /** Highest path sequence number received, or -1. */
    public long highest() {
        return highest;
    }

    /**
     * Notes one more packet that the next ACK must cover; asks for an immediate ACK per the rules
     * ([SPEC-SACK-4]; [SPEC-SACK-15]: every packet once the path has skipped a sequence number).
     */
    public void noteAckEliciting(boolean immediate, int ackEveryPackets, long maxAckDelayNanos, long nowNanos) {
        unacknowledged++;
        // Published only when ackDeadlineNanos() changes: with nothing pending (0 unacknowledged)
        // ackNow is false and the deadline unset (only writeAck empties the count, and it resets
        // both), so the first packet after an ACK always takes one of the two publishing
        // branches; a packet that changes neither (most of a run between two ACKs) leaves the
        // published value as it is. It runs for every DATA packet received.
        if (immediate || unacknowledged >= ackEveryPackets || ackEachAfterGap && gapSeen) {
            if (!ackNow) {
                ackNow = true;
                publishAckDeadline();
            }
        } else if (ackDeadlineNanos == Long.MAX_VALUE) {
            ackDeadlineNanos = nowNanos + maxAckDelayNanos;
            publishAckDeadline();
        }
    }

    /** Whether an ACK for this path should be sent at {@code nowNanos}. */
    public boolean ackDue(long nowNanos) {
        return repeatAcks > 0 || unacknowledged > 0 && (ackNow || nowNanos >= ackDeadlineNanos);
    }

    /**
     * The time an ACK becomes due: {@link Long#MIN_VALUE} when one is due at once, the delayed-ACK
     * deadline when one is held back, {@link Long#MAX_VALUE} when nothing awaits acknowledgement.
     */
    public long ackDeadlineNanos() {
        if (repeatAcks > 0) {
            return Long.MIN_VALUE;
        }
        return unacknowledged > 0 ? (ackNow ? Long.MIN_VALUE : ackDeadlineNanos) : Long.MAX_VALUE;
    }

    /**
     * Fills the ACK fields of {@code out} (SACK base and bits, echo, delay, ECN counts) and resets
     * the pending-ACK state. The caller fills the common header, rate hint and cumulative sequence.
     */
    public void writeAck(Packet out, long nowNanos) {
        long base = Math.max(0, highest - (BITS - 1));
        out.sackBase = base;
        int rotation = (int) (base & MASK);
        long[] bits = out.sackBits;
        if (rotation == 0) {
            System.arraycopy(ring, 0, bits, 0, ring.length);
        } else {
            rotateInto(rotation, bits);
        }
        if (highest < BITS - 1) {
            // The window starts at 0 and is not full yet: bits above highest are not received.
            clearAbove((int) highest, bits);
        }
        out.echoTimestampNanos = echoTimestampNanos;
        out.ackDelayNanos = Math.max(0, nowNanos - highestReceivedAtNanos);
        out.ectCount = ectCount;
        out.ceCount = ceCount;
        // [SPEC-SACK-14]: on a path that loses much, an ACK that nothing follows soon may be the
        // only word of what it covers (the last packets of messages, which hold the sender's
        // message slots): copies of it, sent right after, make its loss that much less likely.
        // A copy written with nothing new to cover counts one repeat down.
        if (unacknowledged > 0) {
            repeatAcks = answerCopies() - 1;
        } else if (repeatAcks > 0) {
            repeatAcks--;
        }
        unacknowledged = 0;
        ackNow = false;
        ackDeadlineNanos = Long.MAX_VALUE;
        publishAckDeadline();
    }

    /**
     * From now on, keeps {@code sink[slot]} equal to {@link #ackDeadlineNanos} (written at once and
     * after every change of it); {@code sink} null stops that. Only {@link #noteAckEliciting} and
     * {@link #writeAck} change the deadline. For an owner that asks many trackers whether an ACK is
     * due: {@code ackDue(now)} is {@code ackDeadlineNanos() <= now}, so one array answers for all of
     * them without reading each tracker (a cache miss each).
     */
    public void publishAckDeadlineTo(long[] sink, int slot) {
        this.deadlineSink = sink;
        this.deadlineSlot = slot;
        publishAckDeadline();
    }

    private void publishAckDeadline() {
        if (deadlineSink != null) {
            deadlineSink[deadlineSlot] = ackDeadlineNanos();
        }
    }

    /**
     * How many times an answer that nothing else on this path repeats (a PROBE_ACK) is to be
     * sent: 1, or 2 or 3 where ACKs of the path are repeated [SPEC-SACK-14].
     */
    public int answerCopies() {
        return 1 + (lossEstimate > 2 * repeatAboveLoss ? 2 : lossEstimate > repeatAboveLoss ? 1 : 0);
    }

    /** Cumulative ECN-capable packets received. */
    public long ectCount() {
        return ectCount;
    }

    /** Cumulative CE-marked packets received. */
    public long ceCount() {
        return ceCount;
    }

    private void rotateInto(int rotation, long[] out) {
        // out bit k = ring bit (rotation + k) & 255
        int wordShift = rotation >>> 6;
        int bitShift = rotation & 63;
        int n = ring.length;
        for (int i = 0; i < n; i++) {
            long lo = ring[(i + wordShift) % n];
            long hi = ring[(i + wordShift + 1) % n];
            out[i] = bitShift == 0 ? lo : (lo >>> bitShift) | (hi << (64 - bitShift));
        }
    }

    private static void clearAbove(int highestBit, long[] bits) {
        for (int i = 0; i < bits.length; i++) {
            int lowBit = i * 64;
            if (lowBit > highestBit) {
                bits[i] = 0;
            } else if (highestBit - lowBit < 63) {
                bits[i] &= (1L << (highestBit - lowBit + 1)) - 1;
            }
        }
    }

    private boolean isSet(long psn) {
        int i = (int) (psn & MASK);
        return (ring[i >>> 6] & (1L << (i & 63))) != 0;
    }

    private void set(long psn) {
        int i = (int) (psn & MASK);
        ring[i >>> 6] |= 1L << (i & 63);
    }

    private void clear(long psn) {
        int i = (int) (psn & MASK);
        ring[i >>> 6] &= ~(1L << (i & 63));
    }
}
