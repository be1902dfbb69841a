package io.metaroce.core.stream;

import java.util.Arrays;

/**
 * Per-stream state of one connection, stored as columns indexed by stream id so that a stream
 * costs a few dozen bytes and no object (R-CONN-2): adding streams adds no queue pairs, no
 * buffers and no per-stream objects.
 *
 * <p>Send side: the next message and receive sequence numbers, the list of work requests not yet
 * completed (in posting order) and the cursor of the first one not yet fully sent. Receive side:
 * the next message sequence number to complete, the count of receives posted and their list, and
 * a receiver-not-ready pause.
 *
 * <p>Layout, for a small idle stream (36.1 bytes, where one {@code long} per field would take 61):
 * <ul>
 *   <li>The four sequence counters (u63 on the wire) keep their low 32 bits in an {@code int}
 *   column; their high 32 bits live in a column allocated only once some stream's counter reaches
 *   2^32, so a stream pays 4 bytes per counter until then and the values stay exact after it.
 *   <li>The receiver-not-ready pause ({@code pausedUntilNanos}, 0 when never paused) lives in a
 *   column allocated at the first pause and dropped by {@link #forgetPausesBefore} once every pause
 *   has passed: most connections never see one.
 *   <li>The "in the round robin" flag is one bit of a bit set.
 * </ul>
 * Columns grow by {@value #GROWTH_NUMERATOR}/{@value #GROWTH_DENOMINATOR} (at least to the id
 * asked for), not by doubling, so the slack after a growth is at most half the streams used and a
 * used stream costs at most about 1.5 × 36.1 bytes whatever the count.
 *
 * <p>Not thread-safe.
 */
public final class StreamTable {
    /** Marks an empty list. */
    public static final int NONE = -1;
    private static final int INITIAL = 4;
    /** Growth factor of the columns, 3/2: bounds the slack (see the class comment). */
    static final int GROWTH_NUMERATOR = 3;
    static final int GROWTH_DENOMINATOR = 2;
    private static final long LOW = 0xFFFF_FFFFL;

    private final int maxStreams;
    private int capacity;
    private int[] sendNextMessage;
    private int[] sendNextMessageHigh;
    private int[] sendNextReceive;
    private int[] sendNextReceiveHigh;
    private int[] workHead;
    private int[] workTail;
    private int[] sendCursor;
    private int[] recvNextMessage;
    private int[] recvNextMessageHigh;
    private int[] recvPosted;
    private int[] recvPostedHigh;
    private int[] recvHead;
    private int[] recvTail;
    /** Null until the first pause, and again once every pause has passed. */
    private long[] pausedUntilNanos;
    private long[] scheduled;

    /** A table for stream ids 0 to {@code maxStreams - 1}. */
    public StreamTable(int maxStreams) {
        this.maxStreams = maxStreams;
        allocate(Math.min(INITIAL, maxStreams));
    }

    private void allocate(int n) {
        int old = capacity;
        capacity = n;
        sendNextMessage = grow(sendNextMessage, n, old, 0);
        sendNextMessageHigh = growIfPresent(sendNextMessageHigh, n);
        sendNextReceive = grow(sendNextReceive, n, old, 0);
        sendNextReceiveHigh = growIfPresent(sendNextReceiveHigh, n);
        workHead = grow(workHead, n, old, NONE);
        workTail = grow(workTail, n, old, NONE);
        sendCursor = grow(sendCursor, n, old, NONE);
        recvNextMessage = grow(recvNextMessage, n, old, 0);
        recvNextMessageHigh = growIfPresent(recvNextMessageHigh, n);
        recvPosted = grow(recvPosted, n, old, 0);
        recvPostedHigh = growIfPresent(recvPostedHigh, n);
        recvHead = grow(recvHead, n, old, NONE);
        recvTail = grow(recvTail, n, old, NONE);
        if (pausedUntilNanos != null) {
            pausedUntilNanos = Arrays.copyOf(pausedUntilNanos, n);
        }
        int words = (n + 63) >>> 6;
        scheduled = scheduled == null ? new long[words] : Arrays.copyOf(scheduled, words);
    }

    private static int[] grow(int[] a, int n, int old, int fill) {
        int[] r = a == null ? new int[n] : Arrays.copyOf(a, n);
        if (fill != 0) {
            Arrays.fill(r, old, n, fill);
        }
        return r;
    }

    private static int[] growIfPresent(int[] a, int n) {
        return a == null ? null : Arrays.copyOf(a, n);
    }

    /** Whether {@code streamId} is a valid id. */
    public boolean isValidId(int streamId) {
        return streamId >= 0 && streamId < maxStreams;
    }

    /** Makes room for {@code streamId}; the caller checked {@link #isValidId}. */
    public void ensure(int streamId) {
        if (streamId >= capacity) {
            long grown = (long) capacity * GROWTH_NUMERATOR / GROWTH_DENOMINATOR;
            allocate((int) Math.min(Math.max(grown, streamId + 1L), maxStreams));
        }
    }

    /** Streams that have state (the highest used id plus one, rounded up). */
    public int capacity() {
        return capacity;
    }

    /** Whether state exists for {@code streamId}. */
    public boolean exists(int streamId) {
        return streamId >= 0 && streamId < capacity;
    }

    // ---- the wide counters: low 32 bits in one column, high 32 bits in a column made on demand ----

    private static long value(int[] low, int[] high, int s) {
        long v = low[s] & LOW;
        return high == null ? v : v | ((long) high[s] << 32);
    }

    /** The high column after stream {@code s}'s counter moved to {@code v} (allocated once needed). */
    private int[] storeHigh(int[] high, int s, long v) {
        int h = (int) (v >>> 32);
        if (high == null) {
            if (h == 0) {
                return null;
            }
            high = new int[capacity];
        }
        high[s] = h;
        return high;
    }

    /**
     * Stores {@code v + 1} as stream {@code s}'s counter in {@code low}, and in the high column
     * once the low half wraps; returns the high column (allocated at the first wrap).
     */
    private int[] increment(int[] low, int[] high, int s, long v) {
        low[s] = (int) (v + 1);
        return (int) (v + 1) == 0 ? storeHigh(high, s, v + 1) : high;
    }

    /**
     * Sets stream {@code s}'s four counters to {@code v}, as 2^32 messages would: for tests of the
     * wide counters, which cannot post that many.
     */
    void countersForTest(int s, long v) {
        sendNextMessage[s] = (int) v;
        sendNextMessageHigh = storeHigh(sendNextMessageHigh, s, v);
        sendNextReceive[s] = (int) v;
        sendNextReceiveHigh = storeHigh(sendNextReceiveHigh, s, v);
        recvPosted[s] = (int) v;
        recvPostedHigh = storeHigh(recvPostedHigh, s, v);
        recvNextMessage(s, v);
    }

    // ---- send side ----
    public long takeSendMessageSequence(int s) {
        long v = value(sendNextMessage, sendNextMessageHigh, s);
        sendNextMessageHigh = increment(sendNextMessage, sendNextMessageHigh, s, v);
        return v;
    }

    public long takeSendReceiveSequence(int s) {
        long v = value(sendNextReceive, sendNextReceiveHigh, s);
        sendNextReceiveHigh = increment(sendNextReceive, sendNextReceiveHigh, s, v);
        return v;
    }

    public int workHead(int s) { return workHead[s]; }
    public void workHead(int s, int v) { workHead[s] = v; }
    public int workTail(int s) { return workTail[s]; }
    public void workTail(int s, int v) { workTail[s] = v; }
    public int sendCursor(int s) { return sendCursor[s]; }
    public void sendCursor(int s, int v) { sendCursor[s] = v; }

    /** Until when stream {@code s} is paused by a receiver-not-ready NAK; 0 if it never was. */
    public long pausedUntilNanos(int s) {
        long[] p = pausedUntilNanos;
        return p == null ? 0 : p[s];
    }

    public void pausedUntilNanos(int s, long v) {
        if (pausedUntilNanos == null) {
            if (v == 0) {
                return;
            }
            pausedUntilNanos = new long[capacity];
        }
        pausedUntilNanos[s] = v;
    }

    /**
     * Drops the pause column when every pause ended by {@code nowNanos} (not negative): from then on
     * each stream reads as never paused (0), which compares alike with every later time. The caller
     * makes sure no transmission sent before {@code nowNanos} is still asked about
     * ({@code pausedSince}-style checks compare a pause with a past send time). Walks the column; for
     * an idle point, not the datapath.
     */
    public void forgetPausesBefore(long nowNanos) {
        long[] p = pausedUntilNanos;
        if (p == null || nowNanos < 0) {
            return;
        }
        for (long until : p) {
            if (until > nowNanos) {
                return;
            }
        }
        pausedUntilNanos = null;
    }

    /** Whether the pause column is allocated (some stream was paused since it was last dropped). */
    public boolean holdsPauses() {
        return pausedUntilNanos != null;
    }

    public boolean scheduled(int s) { return (scheduled[s >>> 6] & (1L << s)) != 0; }

    public void scheduled(int s, boolean v) {
        if (v) {
            scheduled[s >>> 6] |= 1L << s;
        } else {
            scheduled[s >>> 6] &= ~(1L << s);
        }
    }

    // ---- receive side ----
    public long recvNextMessage(int s) { return value(recvNextMessage, recvNextMessageHigh, s); }

    public void recvNextMessage(int s, long v) {
        recvNextMessage[s] = (int) v;
        if (recvNextMessageHigh != null || (v >>> 32) != 0) {
            recvNextMessageHigh = storeHigh(recvNextMessageHigh, s, v);
        }
    }

    public long takeRecvPosted(int s) {
        long v = value(recvPosted, recvPostedHigh, s);
        recvPostedHigh = increment(recvPosted, recvPostedHigh, s, v);
        return v;
    }

    public long recvPosted(int s) { return value(recvPosted, recvPostedHigh, s); }
    public int recvHead(int s) { return recvHead[s]; }
    public void recvHead(int s, int v) { recvHead[s] = v; }
    public int recvTail(int s) { return recvTail[s]; }
    public void recvTail(int s, int v) { recvTail[s] = v; }
}
