package io.metaroce.core.api;

/**
 * A bounded ring of completions, stored as primitive columns so that adding and polling allocate
 * nothing. Completions of one stream appear in the order their work requests were posted.
 *
 * <p>Not thread-safe: filled and polled on the endpoint's thread. The datapath module offers a
 * thread-safe hand-off on top.
 */
public final class CompletionQueue {
    private final long[] connectionId;
    private final int[] streamId;
    private final long[] workRequestId;
    private final int[] opcode;
    private final int[] status;
    private final long[] byteLength;
    private final int[] immediate;
    private final boolean[] hasImmediate;
    private final int mask;
    private long head;
    private long tail;
    private long overflowed;

    /** A queue of at least {@code capacity} entries (rounded up to a power of two). */
    public CompletionQueue(int capacity) {
        int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        mask = size - 1;
        connectionId = new long[size];
        streamId = new int[size];
        workRequestId = new long[size];
        opcode = new int[size];
        status = new int[size];
        byteLength = new long[size];
        immediate = new int[size];
        hasImmediate = new boolean[size];
    }

    /**
     * Appends a completion. The engine never posts more work than the queue can report (posting
     * is refused while it is full), so overflow signals a bug and is counted, never silent.
     *
     * @return false if the queue was full and the completion was counted in {@link #overflowed()}
     */
    public boolean add(long connection, int stream, long wrId, int op, int st, long bytes, int imm, boolean hasImm) {
        if (tail - head > mask) {
            overflowed++;
            return false;
        }
        int i = (int) (tail++ & mask);
        connectionId[i] = connection;
        streamId[i] = stream;
        workRequestId[i] = wrId;
        opcode[i] = op;
        status[i] = st;
        byteLength[i] = bytes;
        immediate[i] = imm;
        hasImmediate[i] = hasImm;
        return true;
    }

    /** Delivers up to {@code limit} completions to {@code handler}, oldest first; returns how many. */
    public int poll(CompletionHandler handler, int limit) {
        int n = 0;
        while (n < limit && head < tail) {
            int i = (int) (head++ & mask);
            n++;
            handler.onCompletion(connectionId[i], streamId[i], workRequestId[i], opcode[i], status[i],
                    byteLength[i], immediate[i], hasImmediate[i]);
        }
        return n;
    }

    /** Completions waiting. */
    public int size() {
        return (int) (tail - head);
    }

    /** Entries the queue holds at most. */
    public int capacity() {
        return mask + 1;
    }

    /** Free entries. */
    public int remaining() {
        return mask + 1 - size();
    }

    /** Completions dropped because the queue was full (always 0 unless there is a bug). */
    public long overflowed() {
        return overflowed;
    }
}
