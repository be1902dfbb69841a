package io.metaroce.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

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
 * still holds the largest datagram (views overlap, bytes do not). The views of the last
 * {@link #STRIDES_KEPT} strides are kept, so an application that alternates between a few message
 * sizes allocates nothing once each has been seen (R-JAVA-2).
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
    /** Strides whose views are kept (the current one included). */
    static final int STRIDES_KEPT = 4;

    private final int slotBytes;
    private final MemorySegment memory;
    private final long baseAddress;
    private final long totalBytes;
    private final int minStride;
    /** Views of the kept strides, {@link #keptStrides}[k] apart; slot 0 the most recently used. */
    private final ByteBuffer[][] keptViews = new ByteBuffer[STRIDES_KEPT][];
    private final int[] keptStrides = new int[STRIDES_KEPT];
    private int stride;
    private ByteBuffer[] views;
    private int next;
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
        this.stride = slotBytes;
        this.views = viewsAt(slotBytes);
        keptStrides[0] = slotBytes;
        keptViews[0] = views;
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

    /** Number of slots at the current stride. */
    int capacity() {
        return views.length;
    }

    /** Bytes of the largest datagram, which every slot holds. */
    int slotBytes() {
        return slotBytes;
    }

    /** Bytes between the starts of two slots: the largest datagram, or the length the slots are packed at. */
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
        return views[next];
    }

    /** Native address of the {@linkplain #current() current slot}. */
    long currentAddress() {
        return baseAddress + (long) next * stride;
    }

    /**
     * Takes the current slot, in which a datagram of {@code length} bytes is now queued on a
     * socket, and moves past it: to the next slot, or past every slot the datagram spans.
     *
     * @return true if no slot is left that holds the largest datagram: flush every socket, then
     *     {@link #reset()}
     */
    boolean take(int length) {
        next += length <= stride ? 1 : (length + stride - 1) / stride;
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
        return next >= views.length;
    }

    /** Slots taken since the last {@link #reset()} (a datagram longer than the stride takes several). */
    int taken() {
        return next;
    }

    /**
     * Frees every slot: call only once every socket holding one has flushed. Packs the slots at
     * the bulk length once it leads by {@link #PACK_AFTER_DATAGRAMS} datagrams.
     */
    void reset() {
        next = 0;
        if (runCount >= PACK_AFTER_DATAGRAMS && runLength != stride && runLength <= slotBytes) {
            restride(runLength);
        }
    }

    private void restride(int length) {
        restrides++;
        int k = 0;
        while (k < STRIDES_KEPT && keptStrides[k] != length) {
            k++;
        }
        ByteBuffer[] found;
        if (k < STRIDES_KEPT && keptViews[k] != null) {
            found = keptViews[k];
        } else {
            k = STRIDES_KEPT - 1; // the least recently used gives way
            found = viewsAt(length);
        }
        // Move the stride to the front, the others one down.
        System.arraycopy(keptStrides, 0, keptStrides, 1, k);
        System.arraycopy(keptViews, 0, keptViews, 1, k);
        keptStrides[0] = length;
        keptViews[0] = found;
        stride = length;
        views = found;
    }
}
