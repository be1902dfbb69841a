package io.metaroce.core.stream;

import java.util.Arrays;

/**
 * Per-stream state of one connection, stored as columns indexed by stream id so that a stream
 * costs a few dozen bytes and no object (R-CONN-2): adding streams adds no queue pairs, no
 * buffers and no per-stream objects. Columns grow by doubling up to the highest stream id used.
 *
 * <p>Send side: the next message and receive sequence numbers, the list of work requests not yet
 * completed (in posting order) and the cursor of the first one not yet fully sent. Receive side:
 * the next message sequence number to complete, the count of receives posted and their list, and
 * a receiver-not-ready pause.
 *
 * <p>Not thread-safe.
 */
public final class StreamTable {
    /** Marks an empty list. */
    public static final int NONE = -1;
    private static final int INITIAL = 4;

    private final int maxStreams;
    private int capacity;
    private long[] sendNextMessage;
    private long[] sendNextReceive;
    private int[] workHead;
    private int[] workTail;
    private int[] sendCursor;
    private long[] recvNextMessage;
    private long[] recvPosted;
    private int[] recvHead;
    private int[] recvTail;
    private long[] pausedUntilNanos;
    private boolean[] scheduled;

    /** A table for stream ids 0 to {@code maxStreams - 1}. */
    public StreamTable(int maxStreams) {
        this.maxStreams = maxStreams;
        allocate(Math.min(INITIAL, maxStreams));
    }

    private void allocate(int n) {
        int old = capacity;
        capacity = n;
        sendNextMessage = grow(sendNextMessage, n);
        sendNextReceive = grow(sendNextReceive, n);
        workHead = grow(workHead, n, old);
        workTail = grow(workTail, n, old);
        sendCursor = grow(sendCursor, n, old);
        recvNextMessage = grow(recvNextMessage, n);
        recvPosted = grow(recvPosted, n);
        recvHead = grow(recvHead, n, old);
        recvTail = grow(recvTail, n, old);
        pausedUntilNanos = grow(pausedUntilNanos, n);
        scheduled = scheduled == null ? new boolean[n] : Arrays.copyOf(scheduled, n);
    }

    private static long[] grow(long[] a, int n) {
        return a == null ? new long[n] : Arrays.copyOf(a, n);
    }

    private static int[] grow(int[] a, int n, int old) {
        int[] r = a == null ? new int[n] : Arrays.copyOf(a, n);
        Arrays.fill(r, old, n, NONE);
        return r;
    }

    /** Whether {@code streamId} is a valid id. */
    public boolean isValidId(int streamId) {
        return streamId >= 0 && streamId < maxStreams;
    }

    /** Makes room for {@code streamId}; the caller checked {@link #isValidId}. */
    public void ensure(int streamId) {
        if (streamId >= capacity) {
            int n = capacity;
            while (n <= streamId) {
                n = (int) Math.min((long) n * 2, maxStreams);
            }
            allocate(n);
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

    // ---- send side ----
    public long takeSendMessageSequence(int s) { return sendNextMessage[s]++; }
    public long takeSendReceiveSequence(int s) { return sendNextReceive[s]++; }
    public int workHead(int s) { return workHead[s]; }
    public void workHead(int s, int v) { workHead[s] = v; }
    public int workTail(int s) { return workTail[s]; }
    public void workTail(int s, int v) { workTail[s] = v; }
    public int sendCursor(int s) { return sendCursor[s]; }
    public void sendCursor(int s, int v) { sendCursor[s] = v; }
    public long pausedUntilNanos(int s) { return pausedUntilNanos[s]; }
    public void pausedUntilNanos(int s, long v) { pausedUntilNanos[s] = v; }
    public boolean scheduled(int s) { return scheduled[s]; }
    public void scheduled(int s, boolean v) { scheduled[s] = v; }

    // ---- receive side ----
    public long recvNextMessage(int s) { return recvNextMessage[s]; }
    public void recvNextMessage(int s, long v) { recvNextMessage[s] = v; }
    public long takeRecvPosted(int s) { return recvPosted[s]++; }
    public long recvPosted(int s) { return recvPosted[s]; }
    public int recvHead(int s) { return recvHead[s]; }
    public void recvHead(int s, int v) { recvHead[s] = v; }
    public int recvTail(int s) { return recvTail[s]; }
    public void recvTail(int s, int v) { recvTail[s] = v; }
}
