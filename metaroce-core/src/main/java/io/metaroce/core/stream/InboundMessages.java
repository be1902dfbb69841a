package io.metaroce.core.stream;

import io.metaroce.core.memory.MemoryRegion;
import java.util.Arrays;
import org.agrona.collections.Long2LongHashMap;

/**
 * Messages the receiver has seen part of, or has finished but cannot complete yet because an
 * earlier message of the same stream is still arriving (completions are delivered in posting
 * order, R-OOO-4). Keyed by (stream, message sequence number); slots are columns with a free
 * list, grown by doubling. Bytes are not buffered here: every packet is placed directly into its
 * target region on arrival (R-OOO-1); this table holds only counts and targets.
 *
 * <p>Not thread-safe.
 */
public final class InboundMessages {
    private static final int INITIAL = 4;
    private static final long MISSING = -1;

    private final Long2LongHashMap index = new Long2LongHashMap(8, 0.65f, MISSING);
    /**
     * The slot of the last message {@link #find} found or {@link #create} made (NONE: none): every
     * packet of a message looks it up, and a hash lookup per packet showed in the receive path.
     */
    private int lastSlot = StreamTable.NONE;
    /**
     * The slot {@link #create} made last, not yet put into {@link #index} (NONE: none): it goes in
     * when the next one is created. A message of one packet arriving in order (a ping, a small
     * SEND) completes and is removed before any other is created, so it never touches the index;
     * otherwise it cost a put, a remove and two look-ups of the hash map per message.
     */
    private int unindexed = StreamTable.NONE;
    private int freeHead = StreamTable.NONE;
    private int used;

    public byte[] opcode;
    public int[] stream;
    public long[] messageSequence;
    public long[] length;
    public long[] received;
    public MemoryRegion[] region;
    public long[] targetOffset;
    /** The posted receive a SEND or WRITE_WITH_IMM consumes, or {@link StreamTable#NONE}. */
    public int[] receive;
    /** For a READ: the response work request to start when the READ's turn in the stream comes. */
    public int[] responseWork;
    public int[] immediate;
    public boolean[] hasImmediate;
    /** A {@link io.metaroce.core.api.CompletionStatus}; non-zero when the message was refused. */
    public int[] status;
    public boolean[] complete;
    public int[] next;

    /** An empty table. */
    public InboundMessages() {
        allocate(INITIAL, 0);
    }

    /**
     * Resizes every column to {@code n} slots, keeping the first {@code old} (none when {@code old}
     * is 0: construction and {@link #shrinkIfIdle} start from fresh columns), and
     * puts the new slots on the free list.
     */
    private void allocate(int n, int old) {
        opcode = Columns.resize(opcode, n, old);
        stream = Columns.resize(stream, n, old);
        messageSequence = Columns.resize(messageSequence, n, old);
        length = Columns.resize(length, n, old);
        received = Columns.resize(received, n, old);
        region = Columns.resize(region, n, old);
        targetOffset = Columns.resize(targetOffset, n, old);
        receive = Columns.resize(receive, n, old);
        immediate = Columns.resize(immediate, n, old);
        responseWork = Columns.resize(responseWork, n, old);
        hasImmediate = Columns.resize(hasImmediate, n, old);
        status = Columns.resize(status, n, old);
        complete = Columns.resize(complete, n, old);
        next = Columns.resize(next, n, old);
        for (int i = n - 1; i >= old; i--) {
            next[i] = freeHead;
            freeHead = i;
        }
    }

    private static long key(int streamId, long msn) {
        return ((long) streamId << 32) | (msn & 0xffff_ffffL);
    }

    /** The slot of (stream, msn), or {@link StreamTable#NONE}. */
    public int find(int streamId, long msn) {
        int last = lastSlot;
        if (last != StreamTable.NONE && stream[last] == streamId && messageSequence[last] == msn) {
            return last; // its own key, so the index (or unindexed, below) maps that key to it
        }
        int u = unindexed;
        if (u != StreamTable.NONE && stream[u] == streamId && messageSequence[u] == msn) {
            lastSlot = u;
            return u;
        }
        if (used == (u == StreamTable.NONE ? 0 : 1)) {
            return StreamTable.NONE; // the index is empty: no hash and probe for nothing
        }
        long v = index.get(key(streamId, msn));
        if (v == MISSING) {
            return StreamTable.NONE;
        }
        lastSlot = (int) v;
        return lastSlot;
    }

    /** Creates a cleared slot for (stream, msn). */
    public int create(int streamId, long msn, byte op, long messageLength) {
        if (freeHead == StreamTable.NONE) {
            allocate(capacity() * 2, capacity());
        }
        int i = freeHead;
        freeHead = next[i];
        used++;
        opcode[i] = op;
        stream[i] = streamId;
        messageSequence[i] = msn;
        length[i] = messageLength;
        received[i] = 0;
        region[i] = null;
        targetOffset[i] = 0;
        receive[i] = StreamTable.NONE;
        responseWork[i] = StreamTable.NONE;
        immediate[i] = 0;
        hasImmediate[i] = false;
        status[i] = 0;
        complete[i] = false;
        if (unindexed != StreamTable.NONE) {
            index.put(key(stream[unindexed], messageSequence[unindexed]), unindexed);
        }
        unindexed = i;
        lastSlot = i;
        return i;
    }

    /** Removes slot {@code i}. */
    public void remove(int i) {
        if (i == unindexed) {
            unindexed = StreamTable.NONE;
        } else {
            index.remove(key(stream[i], messageSequence[i]));
        }
        if (lastSlot == i) {
            lastSlot = StreamTable.NONE;
        }
        region[i] = null;
        next[i] = freeHead;
        freeHead = i;
        used--;
    }

    /** Forgets every message (the connection is ending); keeps the grown columns. */
    public void clear() {
        index.clear();
        lastSlot = StreamTable.NONE;
        unindexed = StreamTable.NONE;
        Arrays.fill(region, null);
        freeHead = StreamTable.NONE;
        for (int i = capacity() - 1; i >= 0; i--) {
            next[i] = freeHead;
            freeHead = i;
        }
        used = 0;
    }

    /** Slots allocated (used or free). */
    public int capacity() {
        return next.length; // every column has this length (no field of its own: the footprint)
    }

    /** Whether the table is above its initial size (a burst grew it), so that an idle point may shrink it [SPEC-CONN-18]. */
    public boolean grown() {
        return capacity() > INITIAL;
    }

    /**
     * When no message is held and the table grew, goes back to its initial size, index included
     * (a burst of messages does not stay allocated). Allocates; for an idle point, not the
     * datapath.
     *
     * @return whether the table shrank
     */
    public boolean shrinkIfIdle() {
        if (used != 0 || !grown()) {
            return false;
        }
        index.compact();
        lastSlot = StreamTable.NONE;
        unindexed = StreamTable.NONE;
        freeHead = StreamTable.NONE;
        allocate(INITIAL, 0);
        return true;
    }

    /** Messages held. */
    public int size() {
        return used;
    }
}
