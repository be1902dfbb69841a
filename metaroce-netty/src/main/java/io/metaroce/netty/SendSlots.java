package io.metaroce.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Native buffers the engine encodes outgoing datagrams into, in place: the endpoint points its
 * {@link io.metaroce.core.api.Transmit} at the {@linkplain #current() current slot} before each
 * poll, and a socket that sends in place ({@link UdpSocket#writeInPlace}) points its send batch's
 * iovec at that slot instead of copying the datagram into a slot of its own. The encoding then
 * goes straight to {@code sendmmsg}: one copy of every datagram less on the sender, whichever of
 * the endpoint's sockets (paths) it leaves from.
 *
 * <p>Slots are taken in order and freed all together by {@link #reset()}, which the endpoint calls
 * once every socket written since the last reset has flushed (the kernel has copied the bytes by
 * the time {@code sendmmsg} returns). When no slot is left that holds the largest datagram,
 * {@link #take} says so and the endpoint flushes before encoding the next datagram. The memory is
 * one native segment, made once and released by the garbage collector with the endpoint.
 *
 * <p><b>Packing.</b> Slots start a {@linkplain #stride() stride} apart, at first the largest
 * datagram. Once datagrams of one length lead those of all other lengths by
 * {@link #PACK_AFTER_DATAGRAMS} (a majority vote over the datagrams of at least
 * {@link #minStride()}; smaller ones, ACKs say, do not vote), the next {@link #reset()} moves the
 * stride to that length: each datagram of it then ends
 * where the next slot starts, so a GSO run of them is one contiguous range that the socket hands
 * to the kernel as one iovec instead of one per datagram (the kernel imports, checks and copies
 * one iovec; docs/benchmarks.md, "8 KiB datapath round (session 15)"). A datagram longer than the
 * stride takes as many slots as it spans, so no datagram ever overlaps the next; each slot's view
 * still holds the largest datagram (views overlap, bytes do not). The views of up to
 * {@link #STRIDES_KEPT} strides (the unpacked one included) are made once and kept, so an
 * application that alternates between a few message sizes allocates nothing once each has been
 * seen, and a further length is not packed at all rather than allocating views again (R-JAVA-2).
 *
 * <p><b>Lanes.</b> A socket's GSO run is contiguous only if its datagrams were encoded one after
 * another, but the engine's round robin over a connection's paths alternates them datagram by
 * datagram (1 2 3 4 1 2 3 4 …). So the memory is cut into lanes, each taken in order, and the next
 * datagram is encoded in the lane of the socket expected to send it: the socket that followed the
 * last datagram's socket the time before. A socket is given its lane when it is first seen, in
 * turn over {@link #MAX_LANES} (whatever its id: sockets 0 and 4 get lanes of their own), and the
 * memory is cut into as many lanes as sockets were seen, at most {@link #MAX_LANES}; the cut moves
 * only at a {@link #reset()} (a socket that adds a lane asks for one), so one path has all the
 * memory and four have a quarter each. A wrong
 * guess costs nothing but the contiguity of that run (the socket then gathers it with one iovec a
 * datagram); a ninth socket shares a lane with the first.
 *
 * <p>Confined to the endpoint's event loop.
 */
final class SendSlots {
    /** Bytes of native memory the slots may take together, whatever the datagram size. */
    static final long MAX_TOTAL_BYTES = 8L << 20;
    /**
     * Slots of the largest datagram at most: {@link #MAX_LANES} sockets' full send batches, so that
     * up to eight paths (each in a lane of its own) fill their batches
     * ({@link LinuxSocketLayer#SEND_BATCH}) before their lane runs out and forces a flush, memory
     * ({@link #MAX_TOTAL_BYTES}) allowing.
     */
    static final int MAX_SLOTS = 8 * LinuxSocketLayer.SEND_BATCH;
    /**
     * How far datagrams of one length must lead the others before the slots are packed at that
     * length: a bulk flow's (an 8 KiB message is 3 such datagrams), not a mix of sizes that would
     * move the stride back and forth.
     */
    static final int PACK_AFTER_DATAGRAMS = 256;
    /** Least stride as a fraction of the largest datagram: at most this many times the views of the unpacked slots. */
    static final int MIN_STRIDE_DIVISOR = 4;
    /** Strides whose views are made and kept, the unpacked one included; no others are packed at. */
    static final int STRIDES_KEPT = 4;
    /**
     * Lanes at most: the memory is cut into one region per socket seen, up to this many, each with
     * its own run of slots, and a datagram is encoded in the lane of the socket it is expected to
     * leave from, so that each path's datagrams lie back to back even when the engine's round
     * robin alternates them datagram by datagram.
     */
    static final int MAX_LANES = 8;
    /** Sockets whose successor and lane are remembered (ids beyond share entries, which only costs predictions). */
    private static final int SOCKETS_KEPT = 64;

    private final int slotBytes;
    private final MemorySegment memory;
    private final long baseAddress;
    private final long totalBytes;
    private final int minStride;
    /** Views of the kept strides, {@link #keptStrides}[k] apart over the whole memory; null where none was made yet. */
    private final ByteBuffer[][] keptViews = new ByteBuffer[STRIDES_KEPT][];
    private final int[] keptStrides = new int[STRIDES_KEPT];
    private int stride;
    /** The current stride's views, one every {@link #stride} bytes over the whole memory. */
    private ByteBuffer[] views;
    /** Lanes the memory is cut into now: the sockets seen, at most {@link #MAX_LANES}, as the memory allows. */
    private int lanes = 1;
    /** Per lane, the index in {@link #views} of its next free slot. */
    private final int[] next = new int[MAX_LANES];
    /** Per lane, the index of its first slot. */
    private final int[] first = new int[MAX_LANES];
    /** Per lane, one past the index of its last slot that holds the largest datagram inside the lane. */
    private final int[] end = new int[MAX_LANES];
    /** The lane the next datagram is encoded in. */
    private int lane;
    /** The lane ({@code 0..MAX_LANES-1}) the next datagram's expected socket was given. */
    private int expectedLane;
    /** The socket of the last datagram taken, -1 before the first. */
    private int lastSocket = -1;
    /** Per socket ({@link #SOCKETS_KEPT} entries), the socket whose datagram followed its last one; -1 unknown. */
    private final int[] successor = new int[SOCKETS_KEPT];
    /** Per socket, the lane it was given when first seen; -1 not seen yet. */
    private final int[] laneOf = new int[SOCKETS_KEPT];
    /** Sockets seen so far (the lanes are given in turn). */
    private int socketsSeen;
    /**
     * The bulk length so far and its lead over the other lengths (at least {@link #minStride}),
     * capped at twice {@link #PACK_AFTER_DATAGRAMS}: a new bulk length takes over within a few
     * hundred datagrams, and a few others in between do not drop the lead below the bound.
     */
    private int runLength;
    private int runCount;
    private long restrides;

    /** Slots of {@code slotBytes} bytes each (the largest datagram), as many as the limits allow. */
    SendSlots(int slotBytes) {
        if (slotBytes <= 0) {
            throw new IllegalArgumentException("slotBytes is " + slotBytes + " but must be positive");
        }
        this.slotBytes = slotBytes;
        int count = (int) Math.max(1, Math.min(MAX_SLOTS, MAX_TOTAL_BYTES / slotBytes));
        this.totalBytes = (long) count * slotBytes;
        this.memory = Arena.ofAuto().allocate(totalBytes, 64);
        this.baseAddress = memory.address();
        this.minStride = Math.max(1, slotBytes / MIN_STRIDE_DIVISOR);
        Arrays.fill(successor, -1);
        Arrays.fill(laneOf, -1);
        this.stride = slotBytes;
        this.views = viewsAt(slotBytes);
        keptStrides[0] = slotBytes;
        keptViews[0] = views;
        cutLanes();
    }

    /** Views holding the largest datagram every {@code step} bytes, as many as fit in the memory. */
    private ByteBuffer[] viewsAt(int step) {
        int count = (int) ((totalBytes - slotBytes) / step) + 1;
        ByteBuffer[] made = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            made[i] = memory.asSlice((long) i * step, slotBytes).asByteBuffer();
        }
        return made;
    }

    /**
     * Cuts the memory into one lane per socket seen (at most {@link #MAX_LANES}, and no more than
     * leave every lane a slot) at the current stride, each lane's first slot a whole number of
     * strides from the memory's start; frees every slot.
     */
    private void cutLanes() {
        long positions = totalBytes / stride;
        long slotSpan = (slotBytes + stride - 1) / stride;
        int want = Math.max(1, Math.min(socketsSeen, MAX_LANES));
        while (want > 1 && positions / want < slotSpan) {
            want--;
        }
        lanes = want;
        long perLane = positions / lanes;
        for (int l = 0; l < lanes; l++) {
            long endByte = l == lanes - 1 ? totalBytes : (l + 1) * perLane * stride;
            first[l] = (int) (l * perLane);
            next[l] = first[l];
            end[l] = (int) Math.min(views.length, (endByte - slotBytes) / stride + 1);
        }
        lane = laneFor(expectedLane);
    }

    private int laneFor(int given) {
        return given < lanes ? given : given % lanes;
    }

    /** Number of slots of the largest lane (the last, which takes what the cut leaves) at the current stride. */
    int capacity() {
        return end[lanes - 1] - first[lanes - 1];
    }

    /** Lanes the memory is cut into now (tests). */
    int lanes() {
        return lanes;
    }

    /** Bytes of the largest datagram, which every slot holds. */
    int slotBytes() {
        return slotBytes;
    }

    /** Bytes between the starts of two slots of a lane: the largest datagram, or the length the slots are packed at. */
    int stride() {
        return stride;
    }

    /** The least length the slots are packed at ({@link #MIN_STRIDE_DIVISOR}). */
    int minStride() {
        return minStride;
    }

    /** How many times the stride moved (stats and tests). */
    long restrides() {
        return restrides;
    }

    /** The slot the next datagram is encoded into: position 0, limit at its capacity. */
    ByteBuffer current() {
        return views[next[lane]];
    }

    /** Native address of the {@linkplain #current() current slot}. */
    long currentAddress() {
        return baseAddress + (long) next[lane] * stride;
    }

    /**
     * Takes the current slot, in which a datagram of {@code length} bytes is now queued on socket
     * {@code socket}, and moves its lane past it: to the next slot, or past every slot the
     * datagram spans. The next datagram goes to the lane of the socket that followed this one
     * last time (the engine's round robin over the paths), or of this one.
     *
     * @return true if the lane of the next datagram has no slot left that holds the largest
     *     datagram, or the socket is the first seen of a further lane (up to {@link #MAX_LANES}):
     *     flush every socket, then {@link #reset()}
     */
    boolean take(int length, int socket) {
        next[lane] += length <= stride ? 1 : (length + stride - 1) / stride;
        int key = socket & (SOCKETS_KEPT - 1);
        boolean recut = false;
        if (laneOf[key] < 0) {
            laneOf[key] = socketsSeen++ % MAX_LANES; // its own lane, in turn
            // A lane more: ask for a flush so the reset cuts it now (at most MAX_LANES - 1 times).
            recut = socketsSeen > 1 && socketsSeen <= MAX_LANES;
        }
        if (lastSocket >= 0) {
            successor[lastSocket] = key;
        }
        lastSocket = key;
        int expected = successor[key];
        expectedLane = laneOf[expected >= 0 ? expected : key];
        lane = laneFor(expectedLane);
        if (length >= minStride) {
            // A majority vote (Boyer-Moore) over the bulk lengths: the last packets of messages, a
            // few of another length among many, do not undo the count; an even mix never packs.
            if (length == runLength) {
                runCount = Math.min(runCount + 1, 2 * PACK_AFTER_DATAGRAMS);
            } else if (runCount > 0) {
                runCount--;
            } else {
                runLength = length;
                runCount = 1;
            }
        }
        return recut || next[lane] >= end[lane];
    }

    /** Slots taken since the last {@link #reset()}, in all lanes (a datagram longer than the stride takes several). */
    int taken() {
        int taken = 0;
        for (int l = 0; l < lanes; l++) {
            taken += next[l] - first[l];
        }
        return taken;
    }

    /**
     * Frees every slot: call only once every socket holding one has flushed. Packs the slots at
     * the bulk length once it leads by {@link #PACK_AFTER_DATAGRAMS} datagrams, and cuts the
     * memory into one lane per socket seen.
     */
    void reset() {
        if (runCount >= PACK_AFTER_DATAGRAMS && runLength != stride && runLength <= slotBytes) {
            restride(runLength);
        }
        cutLanes();
    }

    private void restride(int length) {
        int k = 0;
        while (k < STRIDES_KEPT && keptViews[k] != null && keptStrides[k] != length) {
            k++;
        }
        if (k == STRIDES_KEPT) {
            return; // every kept set is another length's: stay, rather than allocate again and again
        }
        if (keptViews[k] == null) {
            keptStrides[k] = length;
            keptViews[k] = viewsAt(length);
        }
        restrides++;
        stride = length;
        views = keptViews[k];
    }
}
