package io.metaroce.core.stream;

import io.metaroce.core.memory.MemoryRegion;
import java.util.Arrays;

/**
 * Send-side work requests of one connection (SEND, WRITE, WRITE_WITH_IMM, READ, and the READ
 * responses this side serves), as columns indexed by slot with a free list. Grows by doubling up
 * to the configured maximum, so an idle connection holds only a few slots.
 *
 * <p>Fields are package-visible arrays for the connection engine's hot path; the engine is the
 * only writer. Not thread-safe.
 */
public final class WorkRequests {
    /** Kind of slot: the application's SEND. */
    public static final byte SEND = 1;
    /** The application's WRITE. */
    public static final byte WRITE = 2;
    /** The application's WRITE_WITH_IMM. */
    public static final byte WRITE_WITH_IMM = 3;
    /** The application's READ. */
    public static final byte READ = 4;
    /** A READ response this side serves for the peer; completes silently. */
    public static final byte READ_RESPONSE = 5;

    private static final int INITIAL = 4;

    private final int max;
    private int capacity;
    private int freeHead = StreamTable.NONE;
    private int used;
    /**
     * Generation of slots made by a growth: above every generation a slot had before the last
     * {@link #shrinkIfIdle}, so that (slot, generation) never names two uses of a slot.
     */
    private int generationFloor;

    public byte[] kind;
    public int[] stream;
    public long[] messageSequence;
    public long[] receiveSequence;
    public long[] workRequestId;
    public MemoryRegion[] region;
    public long[] localOffset;
    public long[] length;
    public int[] remoteKey;
    public long[] remoteOffset;
    public int[] immediate;
    public boolean[] hasImmediate;
    /** Next message offset to put into a first transmission. */
    public long[] sendOffset;
    /** Packets created and not yet delivered. */
    public int[] undelivered;
    /** Bytes of a READ's response received so far. */
    public long[] readReceived;
    /** Every packet of the message has had its first transmission. */
    public boolean[] allSent;
    public boolean[] done;
    public int[] status;
    /** Next slot in the stream's list (or in the free list). */
    public int[] next;
    /** Bumped each time the slot is freed, so stale references can be recognised. */
    public int[] generation;

    /** A table that grows up to {@code max} slots. */
    public WorkRequests(int max) {
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
        kind = Columns.resize(kind, n, old);
        stream = Columns.resize(stream, n, old);
        messageSequence = Columns.resize(messageSequence, n, old);
        receiveSequence = Columns.resize(receiveSequence, n, old);
        workRequestId = Columns.resize(workRequestId, n, old);
        region = Columns.resize(region, n, old);
        localOffset = Columns.resize(localOffset, n, old);
        length = Columns.resize(length, n, old);
        remoteKey = Columns.resize(remoteKey, n, old);
        remoteOffset = Columns.resize(remoteOffset, n, old);
        immediate = Columns.resize(immediate, n, old);
        hasImmediate = Columns.resize(hasImmediate, n, old);
        sendOffset = Columns.resize(sendOffset, n, old);
        undelivered = Columns.resize(undelivered, n, old);
        readReceived = Columns.resize(readReceived, n, old);
        done = Columns.resize(done, n, old);
        allSent = Columns.resize(allSent, n, old);
        status = Columns.resize(status, n, old);
        next = Columns.resize(next, n, old);
        generation = Columns.resize(generation, n, old);
        if (generationFloor != 0) {
            Arrays.fill(generation, old, n, generationFloor);
        }
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
     * When no slot is in use and the table grew, goes back to its initial size, so that a burst
     * does not leave its high-water mark allocated for the connection's life. The caller makes sure
     * nothing still names a slot (no packet outstanding). Generations go on from above every one
     * used so far: a (slot, generation) pair a codec template was keyed by never comes back.
     * Allocates; for an idle point, not the datapath.
     *
     * @return whether the table shrank
     */
    public boolean shrinkIfIdle() {
        if (used != 0 || !grown()) {
            return false;
        }
        int floor = generationFloor;
        for (int g : generation) {
            floor = Math.max(floor, g + 1);
        }
        generationFloor = floor;
        freeHead = StreamTable.NONE;
        capacity = 0;
        allocate(initialCapacity());
        return true;
    }

    /** Whether a slot can be taken. */
    public boolean hasRoom() {
        return used < max;
    }

    /** Slots in use. */
    public int used() {
        return used;
    }

    /** Takes a cleared slot; the caller checked {@link #hasRoom()}. */
    public int take() {
        if (freeHead == StreamTable.NONE) {
            allocate((int) Math.min((long) capacity * 2, max));
        }
        int i = freeHead;
        freeHead = next[i];
        next[i] = StreamTable.NONE;
        used++;
        sendOffset[i] = 0;
        undelivered[i] = 0;
        readReceived[i] = 0;
        done[i] = false;
        allSent[i] = false;
        status[i] = 0;
        hasImmediate[i] = false;
        immediate[i] = 0;
        remoteKey[i] = 0;
        remoteOffset[i] = 0;
        receiveSequence[i] = 0;
        return i;
    }

    /** Returns a slot to the free list. */
    public void free(int i) {
        region[i] = null;
        generation[i]++;
        kind[i] = 0;
        next[i] = freeHead;
        freeHead = i;
        used--;
    }
}
