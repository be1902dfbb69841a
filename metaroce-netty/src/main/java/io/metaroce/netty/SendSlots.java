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
 * the time {@code sendmmsg} returns). When the last slot is taken, {@link #take()} says so and the
 * endpoint flushes before encoding the next datagram. The memory is one native segment, made once
 * and released by the garbage collector with the endpoint: nothing is allocated per datagram.
 *
 * <p>Confined to the endpoint's event loop.
 */
final class SendSlots {
    /** Bytes of native memory the slots may take together, whatever the datagram size. */
    static final long MAX_TOTAL_BYTES = 8L << 20;
    /**
     * Slots at most: four sockets' full send batches, so that up to four paths fill their batches
     * ({@link LinuxSocketLayer#SEND_BATCH}) before the slots run out and force a flush.
     */
    static final int MAX_SLOTS = 4 * LinuxSocketLayer.SEND_BATCH;

    private final int slotBytes;
    private final ByteBuffer[] views;
    private final long baseAddress;
    private int next;

    /** Slots of {@code slotBytes} bytes each (the largest datagram), as many as the limits allow. */
    SendSlots(int slotBytes) {
        if (slotBytes <= 0) {
            throw new IllegalArgumentException("slotBytes is " + slotBytes + " but must be positive");
        }
        this.slotBytes = slotBytes;
        int count = (int) Math.max(1, Math.min(MAX_SLOTS, MAX_TOTAL_BYTES / slotBytes));
        MemorySegment memory = Arena.ofAuto().allocate((long) count * slotBytes, 64);
        this.baseAddress = memory.address();
        this.views = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            views[i] = memory.asSlice((long) i * slotBytes, slotBytes).asByteBuffer();
        }
    }

    /** Number of slots. */
    int capacity() {
        return views.length;
    }

    /** Bytes of each slot. */
    int slotBytes() {
        return slotBytes;
    }

    /** The slot the next datagram is encoded into: position 0, limit at its capacity. */
    ByteBuffer current() {
        return views[next];
    }

    /** Native address of the {@linkplain #current() current slot}. */
    long currentAddress() {
        return baseAddress + (long) next * slotBytes;
    }

    /**
     * Takes the current slot (its datagram is now queued on a socket) and moves to the next one.
     *
     * @return true if that was the last free slot: flush every socket, then {@link #reset()}
     */
    boolean take() {
        next++;
        return next == views.length;
    }

    /** Slots taken since the last {@link #reset()}. */
    int taken() {
        return next;
    }

    /** Frees every slot: call only once every socket holding one has flushed. */
    void reset() {
        next = 0;
    }
}
