package io.metaroce.core.conn;

import java.util.Arrays;

/**
 * An indexed binary min-heap of an endpoint's connection slots keyed by a time: the earliest is
 * read in O(1), and a slot's key set, raised, lowered or removed in O(log n). A slot is in the
 * heap at most once; a key of {@link Long#MAX_VALUE} (never) keeps it out. Grows (by doubling)
 * only when the endpoint gains connections; allocates nothing otherwise.
 */
final class DeadlineHeap {
    private int[] heap = new int[8];
    /** Slot to its index in {@link #heap}, or -1 while it is not in the heap. */
    private int[] position = filled(8);
    private long[] key = new long[8];
    private int size;

    private static int[] filled(int n) {
        int[] a = new int[n];
        Arrays.fill(a, -1);
        return a;
    }

    /** Makes room for the slots below {@code slots}. */
    void ensureCapacity(int slots) {
        if (slots <= position.length) {
            return;
        }
        int grown = Math.max(slots, position.length * 2);
        int old = position.length;
        heap = Arrays.copyOf(heap, grown);
        position = Arrays.copyOf(position, grown);
        Arrays.fill(position, old, grown, -1);
        key = Arrays.copyOf(key, grown);
    }

    /** The earliest key, or {@link Long#MAX_VALUE} if the heap is empty. */
    long minKey() {
        return size == 0 ? Long.MAX_VALUE : key[heap[0]];
    }

    /** Removes and returns the slot with the earliest key; the heap must not be empty. */
    int pollMin() {
        int slot = heap[0];
        removeAt(0);
        return slot;
    }

    /** Whether {@code slot} is in the heap. */
    boolean contains(int slot) {
        return slot < position.length && position[slot] >= 0;
    }

    /** The key of {@code slot}, which must be in the heap. */
    long keyOf(int slot) {
        return key[slot];
    }

    /** Sets {@code slot}'s key: inserts, moves or ({@link Long#MAX_VALUE}) removes it. */
    void set(int slot, long k) {
        int at = position[slot];
        if (k == Long.MAX_VALUE) {
            if (at >= 0) {
                removeAt(at);
            }
            return;
        }
        if (at < 0) {
            key[slot] = k;
            heap[size] = slot;
            position[slot] = size;
            siftUp(size++);
            return;
        }
        long old = key[slot];
        key[slot] = k;
        // A sift that cannot move the slot (the root up, a leaf down) is not called: with a few
        // slots the sifts are never reached, and the compiled callers leave them out.
        if (k < old) {
            if (at > 0) {
                siftUp(at);
            }
        } else if (k > old && 2 * at + 1 < size) {
            siftDown(at);
        }
    }

    /** Empties the heap. */
    void clear() {
        for (int i = 0; i < size; i++) {
            position[heap[i]] = -1;
        }
        size = 0;
    }

    int size() {
        return size;
    }

    private void removeAt(int at) {
        int slot = heap[at];
        position[slot] = -1;
        int last = --size;
        if (at == last) {
            return;
        }
        int moved = heap[last];
        heap[at] = moved;
        position[moved] = at;
        if (at > 0 && key[moved] < key[heap[(at - 1) >>> 1]]) {
            siftUp(at);
        } else {
            siftDown(at);
        }
    }

    private void siftUp(int at) {
        int slot = heap[at];
        long k = key[slot];
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            int p = heap[parent];
            if (key[p] <= k) {
                break;
            }
            heap[at] = p;
            position[p] = at;
            at = parent;
        }
        heap[at] = slot;
        position[slot] = at;
    }

    private void siftDown(int at) {
        int slot = heap[at];
        long k = key[slot];
        int half = size >>> 1;
        while (at < half) {
            int child = 2 * at + 1;
            int c = heap[child];
            int right = child + 1;
            if (right < size && key[heap[right]] < key[c]) {
                child = right;
                c = heap[child];
            }
            if (k <= key[c]) {
                break;
            }
            heap[at] = c;
            position[c] = at;
            at = child;
        }
        heap[at] = slot;
        position[slot] = at;
    }
}
