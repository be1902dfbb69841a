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
 * datagram (1 2 3 4 1 2 3 4 …). So the memory is cut into {@link #LANES} lanes, each taken in
 * order, and the next datagram is encoded in the lane of the socket expected to send it: the
 * socket that followed the last datagram's socket the time before. A wrong guess costs nothing
 * but the contiguity of that run (the socket then gathers it with one iovec a datagram).
 *
 * <p>Confined to the endpoint's event loop.
 */
final class SendSlots {
    /** Bytes of native memory the slots may take together, whatever the datagram size. */
    static final long MAX_TOTAL_BYTES = 8L << 20;
    /**
     * Slots of the largest datagram at most: four sockets' full send batches, so that up to four
     * paths fill their batches ({@link LinuxSocketLayer#SEND_BATCH}) before the slots run out and
     * force a flush.
     */
    static final int MAX_SLOTS = 4 * LinuxSocketLayer.SEND_BATCH;
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
     * Lanes: the memory is cut into this many regions, each with its own run of slots, and a
     * datagram is encoded in the lane of the socket it is expected to leave from, so that each
     * of up to four paths' datagrams lie back to back even when the engine's round robin
     * alternates them datagram by datagram. A power of two.
     */
    static final int LANES = 4;
    /** Sockets whose successor is remembered (ids beyond share entries, which only costs predictions). */
    private static final int SUCCESSORS = 64;

    private final int slotBytes;
    private final MemorySegment memory;
    private final long baseAddress;
    private final long totalBytes;
    private final int minStride;
    private final long laneBytes;
    /** Views of the kept strides, {@link #keptStrides}[k] apart, per lane; null where none was made yet. */
    private final ByteBuffer[][][] keptViews = new ByteBuffer[STRIDES_KEPT][][];
    private final int[] keptStrides = new int[STRIDES_KEPT];
    private int stride;
    /** The current stride's views, per lane. */
    private ByteBuffer[][] views;
    /** The next free slot of each lane. */
    private final int[] next = new int[LANES];
    /** The lane the next datagram is encoded in. */
    private int lane;
    /** The socket of the last datagram taken, -1 before the first. */
    private int lastSocket = -1;
    /** Per socket ({@link #SUCCESSORS} entries), the socket whose datagram followed its last one; -1 unknown. */
    private final int[] successor = new int[SUCCESSORS];
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
        this.laneBytes = (long) Math.max(1, count / LANES) * slotBytes;
        Arrays.fill(successor, -1);
        this.stride = slotBytes;
        this.views = viewsAt(slotBytes);
        keptStrides[0] = slotBytes;
        keptViews[0] = views;
    }

    /** Per lane, views holding the largest datagram every {@code step} bytes, as many as fit in the lane. */
    private ByteBuffer[][] viewsAt(int step) {
        int count = (int) ((laneBytes - slotBytes) / step) + 1;
        ByteBuffer[][] made = new ByteBuffer[LANES][count];
        for (int l = 0; l < LANES; l++) {
            for (int i = 0; i < count; i++) {
                made[l][i] = memory.asSlice(l * laneBytes + (long) i * step, slotBytes).asByteBuffer();
            }
        }
        return made;
    }

    /** Number of slots of each lane at the current stride. */
    int capacity() {
        return views[0].length;
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
        return views[lane][next[lane]];
    }

    /** Native address of the {@linkplain #current() current slot}. */
    long currentAddress() {
        return baseAddress + lane * laneBytes + (long) next[lane] * stride;
    }

    /**
     * Takes the current slot, in which a datagram of {@code length} bytes is now queued on socket
     * {@code socket}, and moves its lane past it: to the next slot, or past every slot the
     * datagram spans. The next datagram goes to the lane of the socket that followed this one
     * last time (the engine's round robin over the paths), or of this one.
     *
     * @return true if the lane of the next datagram has no slot left that holds the largest
     *     datagram: flush every socket, then {@link #reset()}
     */
    boolean take(int length, int socket) {
        next[lane] += length <= stride ? 1 : (length + stride - 1) / stride;
        if (lastSocket >= 0) {
            successor[lastSocket & (SUCCESSORS - 1)] = socket;
        }
        lastSocket = socket;
        int expected = successor[socket & (SUCCESSORS - 1)];
        lane = (expected >= 0 ? expected : socket) & (LANES - 1);
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
        return next[lane] >= views[lane].length;
    }

    /** Slots taken since the last {@link #reset()}, in all lanes (a datagram longer than the stride takes several). */
    int taken() {
        int taken = 0;
        for (int n : next) {
            taken += n;
        }
        return taken;
    }

    /**
     * Frees every slot: call only once every socket holding one has flushed. Packs the slots at
     * the bulk length once it leads by {@link #PACK_AFTER_DATAGRAMS} datagrams.
     */
    void reset() {
        Arrays.fill(next, 0);
        if (runCount >= PACK_AFTER_DATAGRAMS && runLength != stride && runLength <= slotBytes) {
            restride(runLength);
        }
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
