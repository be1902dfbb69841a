package io.metaroce.core.sack;

import java.util.Arrays;

/**
 * The sender's record of every reliable packet by connection sequence number (CSN): which work
 * request it belongs to, which part of the message it carries, and whether it is still
 * outstanding. A retransmission reuses the CSN, so the receiver can recognise duplicates.
 *
 * <p>The {@linkplain #floor() floor} is the lowest CSN still outstanding; every CSN below it was
 * delivered or abandoned. New CSNs are issued only within {@code window} of the floor, the
 * receiver's promise of how many it can track. The ring starts small and doubles up to the window.
 *
 * <p>Not thread-safe. Allocates nothing except when it grows.
 */
public final class PacketTable {
    /** No packet with this CSN is recorded (below the floor or not yet issued). */
    public static final byte FREE = 0;
    /** Sent (or about to be) and not yet known to have arrived. */
    public static final byte OUTSTANDING = 1;
    /** Known to have arrived. */
    public static final byte DELIVERED = 2;
    /** Given up on: the receiver refused its message or the work request was flushed. */
    public static final byte ABANDONED = 3;

    private static final int INITIAL = 8;

    private final int window;
    private int mask;
    private int[] owner;
    private int[] ownerGeneration;
    private long[] messageOffset;
    private int[] payloadLength;
    private byte[] state;
    private boolean[] queued;
    /** Send time of the CSN's latest transmission. */
    private long[] lastSentNanos;
    /** Transmissions of the CSN still in flight (awaiting their verdict). */
    private byte[] copies;
    /** Send time of the CSN's first transmission ({@link Long#MIN_VALUE} before it). */
    private long[] firstSentNanos;
    /**
     * True while every transmission so far left no earlier than the one before it and first
     * transmissions went out in CSN order: then no transmission of a CSN at or above {@code c}
     * left before {@code c}'s first one ({@link #sentNoEarlierThanFrom}).
     */
    private boolean sendsOrdered = true;
    private long latestSendNanos = Long.MIN_VALUE;
    private long highestFirstSent = -1;
    private long floor;
    private long next;

    /** A table that issues CSNs at most {@code window} (a power of two) beyond the floor. */
    public PacketTable(int window) {
        if (Integer.bitCount(window) != 1) {
            throw new IllegalArgumentException("window must be a power of two, was " + window);
        }
        this.window = window;
        allocate(initialSize());
    }

    private void allocate(int size) {
        mask = size - 1;
        owner = new int[size];
        ownerGeneration = new int[size];
        messageOffset = new long[size];
        payloadLength = new int[size];
        state = new byte[size];
        queued = new boolean[size];
        lastSentNanos = new long[size];
        copies = new byte[size];
        firstSentNanos = new long[size];
    }

    /** Whether a new CSN may be issued within {@code peerWindow} (the smaller of both windows applies). */
    public boolean canIssue(int peerWindow) {
        return next - floor < Math.min(window, peerWindow);
    }

    /** Issues the next CSN for a packet of work request {@code slot}. */
    public long issue(int slot, int generation, long offset, int length) {
        long csn = next++;
        if (next - floor > mask + 1) {
            grow();
        }
        int i = (int) (csn & mask);
        owner[i] = slot;
        ownerGeneration[i] = generation;
        messageOffset[i] = offset;
        payloadLength[i] = length;
        state[i] = OUTSTANDING;
        queued[i] = false;
        lastSentNanos[i] = Long.MIN_VALUE;
        firstSentNanos[i] = Long.MIN_VALUE;
        copies[i] = 0;
        return csn;
    }

    private void grow() {
        int[] o = owner;
        int[] g = ownerGeneration;
        long[] off = messageOffset;
        int[] len = payloadLength;
        byte[] st = state;
        boolean[] q = queued;
        long[] sent = lastSentNanos;
        byte[] cp = copies;
        long[] first = firstSentNanos;
        int oldMask = mask;
        allocate((mask + 1) * 2);
        for (long c = floor; c < next - 1; c++) {
            int a = (int) (c & oldMask);
            int b = (int) (c & mask);
            owner[b] = o[a];
            ownerGeneration[b] = g[a];
            messageOffset[b] = off[a];
            payloadLength[b] = len[a];
            state[b] = st[a];
            queued[b] = q[a];
            lastSentNanos[b] = sent[a];
            copies[b] = cp[a];
            firstSentNanos[b] = first[a];
        }
    }

    /** Entries of the ring (a power of two, at most the window). */
    public int capacity() {
        return mask + 1;
    }

    /** Whether the ring is above its initial size (a burst grew it), so that an idle point may shrink it [SPEC-CONN-18]. */
    public boolean grown() {
        return mask + 1 > initialSize();
    }

    /** The ring's size at first and after an idle shrink. */
    private int initialSize() {
        return Math.min(INITIAL, window);
    }

    /**
     * When no CSN is outstanding ({@code floor == next}) and the ring grew, goes back to its
     * initial size: a burst does not leave its high-water ring allocated. No CSN below the floor is
     * looked up by slot, so nothing is lost. Allocates; for an idle point, not the datapath.
     *
     * @return whether the ring shrank
     */
    public boolean shrinkIfEmpty() {
        if (floor != next || !grown()) {
            return false;
        }
        allocate(initialSize());
        return true;
    }

    /** State of {@code csn}: {@link #FREE} below the floor or not issued. */
    public byte state(long csn) {
        if (csn < floor || csn >= next) {
            return FREE;
        }
        return state[(int) (csn & mask)];
    }

    public int owner(long csn) { return owner[(int) (csn & mask)]; }
    public int ownerGeneration(long csn) { return ownerGeneration[(int) (csn & mask)]; }
    public long messageOffset(long csn) { return messageOffset[(int) (csn & mask)]; }
    public int payloadLength(long csn) { return payloadLength[(int) (csn & mask)]; }
    public boolean queued(long csn) { return queued[(int) (csn & mask)]; }
    public void queued(long csn, boolean v) { queued[(int) (csn & mask)] = v; }

    /** A transmission of outstanding {@code csn} left at {@code nowNanos}. */
    public void sent(long csn, long nowNanos) {
        int i = (int) (csn & mask);
        if (nowNanos < latestSendNanos) {
            sendsOrdered = false;
        }
        latestSendNanos = Math.max(latestSendNanos, nowNanos);
        if (firstSentNanos[i] == Long.MIN_VALUE) {
            if (csn < highestFirstSent) {
                sendsOrdered = false;
            }
            highestFirstSent = Math.max(highestFirstSent, csn);
            firstSentNanos[i] = nowNanos;
        }
        lastSentNanos[i] = nowNanos;
        if (copies[i] < Byte.MAX_VALUE) {
            copies[i]++;
        }
    }

    /** A transmission of {@code csn} got its verdict (acknowledged, lost or refused); ignored unless outstanding. */
    public void transmissionResolved(long csn) {
        if (state(csn) == OUTSTANDING) {
            int i = (int) (csn & mask);
            if (copies[i] > 0) {
                copies[i]--;
            }
        }
    }

    /**
     * {@link #transmissionResolved} and then {@code state(csn) == OUTSTANDING} in one look-up: a
     * verdict leaves the state as it was.
     */
    public boolean transmissionResolvedOutstanding(long csn) {
        if (csn < floor || csn >= next) {
            return false;
        }
        int i = (int) (csn & mask);
        if (state[i] != OUTSTANDING) {
            return false;
        }
        if (copies[i] > 0) {
            copies[i]--;
        }
        return true;
    }

    /** Send time of the latest transmission of {@code csn} ({@link Long#MIN_VALUE} before the first). */
    public long lastSentNanos(long csn) { return lastSentNanos[(int) (csn & mask)]; }

    /**
     * A time no transmission of any CSN from {@code csn} (issued, below {@link #next()}) on left
     * before, so a scan for the earliest send time in CSN order may stop at {@code csn} once it
     * has found one at or before this; {@link Long#MIN_VALUE} when there is no such bound
     * ({@code csn} not sent yet, or sends have not been in time and CSN order).
     *
     * <p>Why it holds: while sends are ordered, a CSN's transmissions all leave at or after its
     * first, and first transmissions leave in CSN order, so every transmission of a CSN at or
     * above {@code csn} left at or after {@code csn}'s first.
     */
    public long sentNoEarlierThanFrom(long csn) {
        return sendsOrdered ? firstSentNanos[(int) (csn & mask)] : Long.MIN_VALUE;
    }

    /** Transmissions of {@code csn} still awaiting their verdict. */
    public int copies(long csn) { return copies[(int) (csn & mask)]; }

    /**
     * Marks {@code csn} delivered or abandoned and moves the floor over finished CSNs. A CSN that
     * is not outstanding (already finished, below the floor, or never issued) is left alone.
     */
    public void finish(long csn, byte finalState) {
        if (state(csn) != OUTSTANDING) {
            return;
        }
        finishOutstanding(csn, finalState);
    }

    /**
     * {@link #finish} of a CSN the caller has just seen {@link #OUTSTANDING} (and changed nothing
     * since but its {@link #copies}): the acknowledgement path, which looked it up once already.
     */
    public void finishOutstanding(long csn, byte finalState) {
        state[(int) (csn & mask)] = finalState;
        while (floor < next && state[(int) (floor & mask)] != OUTSTANDING) {
            state[(int) (floor & mask)] = FREE;
            floor++;
        }
    }

    /** Lowest CSN still outstanding (or the next to issue when none is). */
    public long floor() {
        return floor;
    }

    /** Next CSN to issue. */
    public long next() {
        return next;
    }
}
