package io.metaroce.core.sim;

import java.util.Arrays;

/**
 * The events of an {@link EventQueue} too far ahead for its timing wheel: a 4-ary heap (half the
 * depth of a binary one, and four children share two cache lines) of (time, order, payload)
 * triples in one primitive array, least (time, order) first. Allocates nothing once grown.
 *
 * <p>Not thread-safe.
 */
final class FarEventHeap {
    /** Entries interleaved as (time, order, payload) triples, so one entry sits in one cache line. */
    private long[] heap = new long[3 * 64];
    private int size;

    int size() {
        return size;
    }

    /** Time of the least entry, or {@link Long#MAX_VALUE} if empty. */
    long peekTime() {
        return size == 0 ? Long.MAX_VALUE : heap[0];
    }

    /** Order of the least entry; only valid when not empty. */
    long peekOrder() {
        return heap[1];
    }

    /** Payload of the least entry; only valid when not empty. */
    long peekPayload() {
        return heap[2];
    }

    void push(long atNanos, long order, long payload) {
        long[] h = heap;
        if (3 * size == h.length) {
            h = Arrays.copyOf(h, h.length * 2);
            heap = h;
        }
        int i = size++;
        // Sift up by moving parents down into the hole, then write once.
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            int pb = 3 * parent;
            long pt = h[pb];
            if (pt < atNanos || (pt == atNanos && h[pb + 1] < order)) {
                break;
            }
            int ib = 3 * i;
            h[ib] = pt;
            h[ib + 1] = h[pb + 1];
            h[ib + 2] = h[pb + 2];
            i = parent;
        }
        int ib = 3 * i;
        h[ib] = atNanos;
        h[ib + 1] = order;
        h[ib + 2] = payload;
    }

    /** Removes the least entry; only valid when not empty. */
    void pop() {
        int n = --size;
        if (n == 0) {
            return;
        }
        long[] h = heap;
        int nb = 3 * n;
        long t = h[nb];
        long o = h[nb + 1];
        long p = h[nb + 2];
        int i = 0;
        while (true) {
            int first = 4 * i + 1;
            if (first >= n) {
                break;
            }
            // The least of up to four children.
            int m = first;
            int mb = 3 * first;
            int last = Math.min(first + 4, n);
            for (int c = first + 1; c < last; c++) {
                int cb = 3 * c;
                if (h[cb] < h[mb] || (h[cb] == h[mb] && h[cb + 1] < h[mb + 1])) {
                    m = c;
                    mb = cb;
                }
            }
            if (t < h[mb] || (t == h[mb] && o < h[mb + 1])) {
                break;
            }
            int ib = 3 * i;
            h[ib] = h[mb];
            h[ib + 1] = h[mb + 1];
            h[ib + 2] = h[mb + 2];
            i = m;
        }
        int ib = 3 * i;
        h[ib] = t;
        h[ib + 1] = o;
        h[ib + 2] = p;
    }
}
