package io.metaroce.core.harness;

import java.nio.ByteBuffer;

/**
 * Datagrams in flight in the in-memory network, ordered by arrival time (ties by send order), in
 * a binary heap over primitive arrays with pooled buffers, so the harness itself allocates
 * nothing per datagram once warm.
 *
 * <p>Not thread-safe.
 */
final class DatagramQueue {
    private final int bufferBytes;
    private long[] time = new long[64];
    private long[] order = new long[64];
    private int[] slot = new int[64];
    private int size;
    private long sequence;

    private ByteBuffer[] buffers = new ByteBuffer[64];
    private int[] length = new int[64];
    private int[] destination = new int[64];
    private int[] source = new int[64];
    private int[] ecn = new int[64];
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int slotCount;

    DatagramQueue(int bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    /**
     * Fills the pool up to {@code datagrams} buffers now, so that a flight that reaches a new peak
     * later takes pooled buffers instead of allocating (for tests that measure allocation).
     */
    void reserve(int datagrams) {
        int taken = 0;
        int[] held = new int[Math.max(0, datagrams)];
        while (slotCount < datagrams) {
            held[taken++] = allocate();
        }
        for (int i = 0; i < taken; i++) {
            release(held[i]);
        }
    }

    /** Takes a pooled buffer slot to fill. */
    int allocate() {
        if (freeCount > 0) {
            return freeSlots[--freeCount];
        }
        if (slotCount == buffers.length) {
            int n = buffers.length * 2;
            buffers = java.util.Arrays.copyOf(buffers, n);
            length = java.util.Arrays.copyOf(length, n);
            destination = java.util.Arrays.copyOf(destination, n);
            source = java.util.Arrays.copyOf(source, n);
            ecn = java.util.Arrays.copyOf(ecn, n);
            freeSlots = java.util.Arrays.copyOf(freeSlots, n);
        }
        buffers[slotCount] = ByteBuffer.allocate(bufferBytes);
        return slotCount++;
    }

    ByteBuffer buffer(int s) { return buffers[s]; }
    int length(int s) { return length[s]; }
    int destination(int s) { return destination[s]; }
    int source(int s) { return source[s]; }
    int ecn(int s) { return ecn[s]; }

    void release(int s) {
        freeSlots[freeCount++] = s;
    }

    /** Schedules filled slot {@code s} for arrival at {@code arrivalNanos}. */
    void push(int s, int len, int dst, int src, int ecnCodepoint, long arrivalNanos) {
        length[s] = len;
        destination[s] = dst;
        source[s] = src;
        ecn[s] = ecnCodepoint;
        if (size == time.length) {
            time = java.util.Arrays.copyOf(time, size * 2);
            order = java.util.Arrays.copyOf(order, size * 2);
            slot = java.util.Arrays.copyOf(slot, size * 2);
        }
        int i = size++;
        time[i] = arrivalNanos;
        order[i] = sequence++;
        slot[i] = s;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(i, parent)) {
                break;
            }
            swap(i, parent);
            i = parent;
        }
    }

    boolean isEmpty() {
        return size == 0;
    }

    long peekTime() {
        return size == 0 ? Long.MAX_VALUE : time[0];
    }

    /** Removes the earliest datagram and returns its slot. */
    int pop() {
        int s = slot[0];
        size--;
        if (size > 0) {
            time[0] = time[size];
            order[0] = order[size];
            slot[0] = slot[size];
            int i = 0;
            while (true) {
                int l = 2 * i + 1;
                int r = l + 1;
                int m = i;
                if (l < size && less(l, m)) {
                    m = l;
                }
                if (r < size && less(r, m)) {
                    m = r;
                }
                if (m == i) {
                    break;
                }
                swap(i, m);
                i = m;
            }
        }
        return s;
    }

    int size() {
        return size;
    }

    private boolean less(int a, int b) {
        return time[a] < time[b] || (time[a] == time[b] && order[a] < order[b]);
    }

    private void swap(int a, int b) {
        long t = time[a];
        time[a] = time[b];
        time[b] = t;
        long o = order[a];
        order[a] = order[b];
        order[b] = o;
        int s = slot[a];
        slot[a] = slot[b];
        slot[b] = s;
    }
}
