package io.metaroce.core.sim;

import java.util.Arrays;

/**
 * The simulator's pending events, ordered by virtual time and, at equal times, by insertion
 * order, so a run is a pure function of its inputs. A 4-ary heap (half the depth of a binary one,
and four children share two cache lines) over one primitive array: an event
 * is a time and a 64-bit payload the caller encodes; pushing and popping allocate nothing once the
 * arrays have grown to the run's largest backlog.
 *
 * <p>Not thread-safe.
 */
public final class EventQueue {
    /** Entries interleaved as (time, order, payload) triples, so one entry sits in one cache line. */
    private long[] heap = new long[3 * 1024];
    private int size;
    private long sequence;
    private long popped;

    /** Schedules {@code eventPayload} at virtual time {@code atNanos}. */
    public void push(long atNanos, long eventPayload) {
        long[] h = heap;
        if (3 * size == h.length) {
            h = Arrays.copyOf(h, h.length * 2);
            heap = h;
        }
        long seq = sequence++;
        int i = size++;
        // Sift up by moving parents down into the hole, then write once.
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            int pb = 3 * parent;
            long pt = h[pb];
            if (pt < atNanos || (pt == atNanos && h[pb + 1] < seq)) {
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
        h[ib + 1] = seq;
        h[ib + 2] = eventPayload;
    }

    /** Whether no event is pending. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** Pending events. */
    public int size() {
        return size;
    }

    /** Time of the earliest event, or {@link Long#MAX_VALUE} if none. */
    public long peekTime() {
        return size == 0 ? Long.MAX_VALUE : heap[0];
    }

    /** Payload of the earliest event; only valid when not empty. */
    public long peekPayload() {
        return heap[2];
    }

    /** Events popped since this queue was made. */
    public long popped() {
        return popped;
    }

    /** Removes the earliest event (read it first with {@link #peekTime} and {@link #peekPayload}). */
    public void pop() {
        if (size == 0) {
            throw new IllegalStateException("pop on an empty event queue: check isEmpty() first");
        }
        popped++;
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
