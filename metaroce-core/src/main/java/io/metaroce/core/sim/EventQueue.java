package io.metaroce.core.sim;

import java.util.Arrays;

/**
 * The simulator's pending events, ordered by virtual time and, at equal times, by insertion
 * order, so a run is a pure function of its inputs. An event is a time and a 64-bit payload the
 * caller encodes; pushing and popping allocate nothing once the arrays have grown to the run's
 * largest backlog.
 *
 * <p>Most events of a fabric are a packet's arrival at the next hop, due within a few
 * microseconds. Those go into a timing wheel with one bucket per nanosecond over the next
 * {@code 2^wheelBits} nanoseconds: a bucket is a FIFO list, and since insertion order only grows,
 * FIFO is exactly the tie order, so a push or a pop is a few array writes (a heap costs a sift
 * over several cache lines and many unpredictable branches). A bitmap of non-empty buckets finds
 * the next one. Events further ahead (retransmission timers, scheduled actions) wait in a
 * {@link FarEventHeap}; a pop takes the least of the wheel's and the heap's first events, so the
 * order is the same as one heap's.
 *
 * <p>Not thread-safe.
 */
public final class EventQueue {
    private static final int DEFAULT_WHEEL_BITS = 14;
    private static final int NONE = -1;
    private static final int NODE_WORDS = 3;
    private static final int ORDER = 0;
    private static final int PAYLOAD = 1;
    private static final int NEXT = 2;

    private final int wheelSize;
    private final int wheelMask;
    /**
     * Per bucket {@code b}, the first ({@code [2b]}) and last ({@code [2b+1]}) node of its FIFO, or
     * {@link #NONE}: side by side, so a push or pop reads one cache line for both.
     */
    private final int[] bucket;
    /** Bit {@code i} set when bucket {@code i} holds a node. */
    private final long[] occupied;
    /**
     * Nodes (a node's time is its bucket's), {@link #NODE_WORDS} longs each, side by side in one
     * array so that a push or pop touches one cache line per node: insertion order, payload, next
     * node in the bucket or the free list.
     */
    private long[] node = new long[1024 * NODE_WORDS];
    private int freeNode = NONE;
    private int nodesMade;
    /**
     * The wheel holds events in {@code [base, base + wheelSize)}: base is the time of the last
     * event popped, and nothing earlier is pending (pushes into the past go to the heap).
     */
    private long base;
    private int wheelCount;
    /** Time of the wheel's earliest event, or {@link Long#MAX_VALUE} if the wheel is empty. */
    private long wheelNext = Long.MAX_VALUE;

    private final FarEventHeap far = new FarEventHeap();
    private long sequence;
    private long popped;

    /** An empty queue whose wheel spans 16,384 ns. */
    public EventQueue() {
        this(DEFAULT_WHEEL_BITS);
    }

    /** An empty queue whose wheel spans {@code 2^wheelBits} ns (6 to 24). */
    EventQueue(int wheelBits) {
        if (wheelBits < 6 || wheelBits > 24) {
            throw new IllegalArgumentException("wheelBits " + wheelBits + " not in [6, 24]");
        }
        wheelSize = 1 << wheelBits;
        wheelMask = wheelSize - 1;
        bucket = new int[2 * wheelSize];
        Arrays.fill(bucket, NONE);
        occupied = new long[wheelSize >>> 6];
    }

    /** Schedules {@code eventPayload} at virtual time {@code atNanos}. */
    public void push(long atNanos, long eventPayload) {
        long order = sequence++;
        long ahead = atNanos - base;
        if (ahead < 0 || ahead >= wheelSize) {
            far.push(atNanos, order, eventPayload);
            return;
        }
        int n = newNode();
        long[] nd = node;
        nd[n * NODE_WORDS + ORDER] = order;
        nd[n * NODE_WORDS + PAYLOAD] = eventPayload;
        nd[n * NODE_WORDS + NEXT] = NONE;
        int b = (int) atNanos & wheelMask;
        if (bucket[2 * b] == NONE) {
            bucket[2 * b] = n;
            occupied[b >>> 6] |= 1L << b;
        } else {
            nd[bucket[2 * b + 1] * NODE_WORDS + NEXT] = n;
        }
        bucket[2 * b + 1] = n;
        wheelCount++;
        if (atNanos < wheelNext) {
            wheelNext = atNanos;
        }
    }

    private int newNode() {
        int n = freeNode;
        if (n != NONE) {
            freeNode = (int) node[n * NODE_WORDS + NEXT];
            return n;
        }
        if (nodesMade * NODE_WORDS == node.length) {
            growNodes();
        }
        return nodesMade++;
    }

    /** Out of line: it runs only while the backlog reaches a new high, and push is inlined per hop. */
    private void growNodes() {
        node = Arrays.copyOf(node, node.length * 2);
    }

    /** Whether no event is pending. */
    public boolean isEmpty() {
        return wheelCount == 0 && far.size() == 0;
    }

    /** Pending events. */
    public int size() {
        return wheelCount + far.size();
    }

    /** Whether the earliest event is the wheel's (at equal times, the one pushed first wins). */
    private boolean wheelFirst() {
        long w = wheelNext;
        long f = far.peekTime();
        if (w != f) {
            return w < f;
        }
        return w != Long.MAX_VALUE && node[bucket[2 * ((int) w & wheelMask)] * NODE_WORDS + ORDER] < far.peekOrder();
    }

    /** Time of the earliest event, or {@link Long#MAX_VALUE} if none. */
    public long peekTime() {
        return Math.min(wheelNext, far.peekTime());
    }

    /** Payload of the earliest event; only valid when not empty. */
    public long peekPayload() {
        return wheelFirst() ? node[bucket[2 * ((int) wheelNext & wheelMask)] * NODE_WORDS + PAYLOAD] : far.peekPayload();
    }

    /** Events popped since this queue was made. */
    public long popped() {
        return popped;
    }

    /** Removes the earliest event (read it first with {@link #peekTime} and {@link #peekPayload}). */
    public void pop() {
        poll();
    }

    /**
     * Removes the earliest event and returns its payload ({@link #peekTime} before the call is its
     * time): a peek and a pop in one, deciding once which of the wheel and the heap holds it.
     */
    public long poll() {
        if (isEmpty()) {
            throw new IllegalStateException("pop on an empty event queue: check isEmpty() first");
        }
        popped++;
        if (!wheelFirst()) {
            return pollFar();
        }
        long t = wheelNext;
        int b = (int) t & wheelMask;
        int n = bucket[2 * b];
        long[] nd = node;
        long payload = nd[n * NODE_WORDS + PAYLOAD];
        int next = (int) nd[n * NODE_WORDS + NEXT];
        nd[n * NODE_WORDS + NEXT] = freeNode;
        freeNode = n;
        wheelCount--;
        base = t;
        if (next != NONE) {
            bucket[2 * b] = next;
            return payload;
        }
        bucket[2 * b] = NONE;
        occupied[b >>> 6] &= ~(1L << b);
        wheelNext = wheelCount == 0 ? Long.MAX_VALUE : t + distanceToNextBucket(b);
        return payload;
    }

    /** {@link #poll} of the heap's first event, out of line: most events are the wheel's. */
    private long pollFar() {
        long t = far.peekTime();
        long payload = far.peekPayload();
        far.pop();
        if (t > base) {
            base = t; // every pending event is at or after t, so the wheel's window may move up
        }
        return payload;
    }

    /** Buckets from {@code from} (empty now) to the next occupied one, going round the wheel. */
    private int distanceToNextBucket(int from) {
        int word = from >>> 6;
        long bits = occupied[word] & (-1L << from); // this word, at or after 'from'
        int words = occupied.length;
        for (int scanned = 0; scanned <= words; scanned++) {
            if (bits != 0) {
                int bucket = (word << 6) + Long.numberOfTrailingZeros(bits);
                return (bucket - from) & wheelMask;
            }
            word = (word + 1) & (words - 1);
            bits = occupied[word];
        }
        throw new IllegalStateException("event wheel holds " + wheelCount + " events but no bucket is marked");
    }
}
