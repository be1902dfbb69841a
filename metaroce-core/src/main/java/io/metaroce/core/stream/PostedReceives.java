package io.metaroce.core.stream;

import io.metaroce.core.memory.MemoryRegion;

/**
 * Receives posted on one connection's streams, as columns with a free list; each stream keeps
 * its receives in posting order. The n-th SEND or WRITE_WITH_IMM of a stream consumes the n-th
 * receive posted on it, so a packet alone names its receive (R-OOO-2). Grows by doubling.
 *
 * <p>Not thread-safe.
 */
public final class PostedReceives {
    private static final int INITIAL = 4;

    private final int max;
    private int capacity;
    private int freeHead = StreamTable.NONE;
    private int used;

    public long[] workRequestId;
    public MemoryRegion[] region;
    public long[] offset;
    public long[] length;
    public long[] receiveSequence;
    public int[] next;

    /** A table that grows up to {@code max} receives. */
    public PostedReceives(int max) {
        this.max = max;
        allocate(initialCapacity());
    }

    /**
     * Resizes every column to {@code n} slots, keeping the first {@code capacity} (none when
     * {@code capacity} is 0: construction and {@link #shrinkIfIdle} start from fresh columns), and
     * puts the new slots on the free list.
     */
    private void allocate(int n) {
        int old = capacity;
        capacity = n;
        workRequestId = Columns.resize(workRequestId, n, old);
        region = Columns.resize(region, n, old);
        offset = Columns.resize(offset, n, old);
        length = Columns.resize(length, n, old);
        receiveSequence = Columns.resize(receiveSequence, n, old);
        next = Columns.resize(next, n, old);
        for (int i = n - 1; i >= old; i--) {
            next[i] = freeHead;
            freeHead = i;
        }
    }

    /** Slots allocated (used or free). */
    public int capacity() {
        return capacity;
    }

    /** Whether the table is above its initial size (a burst grew it), so that an idle point may shrink it [SPEC-CONN-18]. */
    public boolean grown() {
        return capacity > initialCapacity();
    }

    /** The size the table starts at and an idle shrink goes back to. */
    private int initialCapacity() {
        return Math.min(INITIAL, max);
    }

    /**
     * When no receive is posted and the table grew, goes back to its initial size (a burst of
     * receives does not stay allocated). The caller makes sure nothing still names a slot (no
     * inbound message). Allocates; for an idle point, not the datapath.
     *
     * @return whether the table shrank
     */
    public boolean shrinkIfIdle() {
        if (used != 0 || !grown()) {
            return false;
        }
        freeHead = StreamTable.NONE;
        capacity = 0;
        allocate(initialCapacity());
        return true;
    }

    /** Whether a receive can be posted. */
    public boolean hasRoom() {
        return used < max;
    }

    /** Receives posted and not yet completed. */
    public int used() {
        return used;
    }

    /** Takes a slot; the caller checked {@link #hasRoom()}. */
    public int take() {
        if (freeHead == StreamTable.NONE) {
            allocate((int) Math.min((long) capacity * 2, max));
        }
        int i = freeHead;
        freeHead = next[i];
        next[i] = StreamTable.NONE;
        used++;
        return i;
    }

    /** Returns a slot to the free list. */
    public void free(int i) {
        region[i] = null;
        next[i] = freeHead;
        freeHead = i;
        used--;
    }
}
