package io.metaroce.core.sim;

import java.util.Arrays;

/**
 * The simulator's pending events, ordered by virtual time and, at equal times, by insertion
 * order, so a run is a pure function of its inputs. A binary heap over primitive arrays: an event
 * is a time and a 64-bit payload the caller encodes; pushing and popping allocate nothing once the
 * arrays have grown to the run's largest backlog.
 *
 * <p>Not thread-safe.
 */
public final class EventQueue {
    private long[] time = new long[1024];
    private long[] order = new long[1024];
    private long[] payload = new long[1024];
    private int size;
    private long sequence;
    private long popped;

    /** Schedules {@code eventPayload} at virtual time {@code atNanos}. */
    public void push(long atNanos, long eventPayload) {
        if (size == time.length) {
            int n = size * 2;
            time = Arrays.copyOf(time, n);
            order = Arrays.copyOf(order, n);
            payload = Arrays.copyOf(payload, n);
        }
        long seq = sequence++;
        int i = size++;
        // Sift up by moving parents down into the hole, then write once.
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            long pt = time[parent];
            if (pt < atNanos || (pt == atNanos && order[parent] < seq)) {
                break;
            }
            time[i] = pt;
            order[i] = order[parent];
            payload[i] = payload[parent];
            i = parent;
        }
        time[i] = atNanos;
        order[i] = seq;
        payload[i] = eventPayload;
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
        return size == 0 ? Long.MAX_VALUE : time[0];
    }

    /** Payload of the earliest event; only valid when not empty. */
    public long peekPayload() {
        return payload[0];
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
        long t = time[n];
        long o = order[n];
        long p = payload[n];
        int i = 0;
        while (true) {
            int l = 2 * i + 1;
            if (l >= n) {
                break;
            }
            int r = l + 1;
            int m = l;
            if (r < n && (time[r] < time[l] || (time[r] == time[l] && order[r] < order[l]))) {
                m = r;
            }
            if (t < time[m] || (t == time[m] && o < order[m])) {
                break;
            }
            time[i] = time[m];
            order[i] = order[m];
            payload[i] = payload[m];
            i = m;
        }
        time[i] = t;
        order[i] = o;
        payload[i] = p;
    }
}
