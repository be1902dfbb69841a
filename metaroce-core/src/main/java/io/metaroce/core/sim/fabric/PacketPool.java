package io.metaroce.core.sim.fabric;

import io.metaroce.core.api.Transmit;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Packets in the simulated network: pooled datagram buffers (real bytes) plus their header fields
 * in primitive arrays, indexed by a slot number that events carry. Slots are reused, so a warm run
 * allocates nothing per packet.
 *
 * <p>Each slot owns a {@link Transmit} around its buffer, and a sending host hands that
 * {@code Transmit} to its transport to fill: the datagram is written once, in place, and crosses
 * every hop and reaches its receiver without a copy. Copying it (about 4 KiB into a buffer not in
 * the cache, since thousands of packets are in flight) was the simulator's largest single cost.
 * A reused slot's buffer still holds an earlier packet's bytes; transports write every byte their
 * receivers read ({@link io.metaroce.core.sim.SimTransport#pollTransmit}).
 *
 * <p>Not thread-safe.
 */
final class PacketPool {
    /** Header words per packet: the fields a hop reads sit together, in one 32-byte block. */
    private static final int WORDS = 4;
    private final int bufferBytes;
    /** Per slot, the {@code Transmit} a sender fills; its buffer is the packet's bytes. */
    Transmit[] transmit = new Transmit[256];
    /**
     * Per packet: [0] 5-tuple hash, [1] destination host (high) and source host (low),
     * [2] destination socket (high) and source socket (low), [3] length (high) and ECN (low).
     */
    private long[] header = new long[256 * WORDS];
    private int[] free = new int[256];
    private int freeCount;
    private int slots;
    private int inUse;

    PacketPool(int bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    int bufferBytes() {
        return bufferBytes;
    }

    int allocate() {
        inUse++;
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (slots == transmit.length) {
            int n = slots * 2;
            transmit = Arrays.copyOf(transmit, n);
            header = Arrays.copyOf(header, n * WORDS);
            free = Arrays.copyOf(free, n);
        }
        transmit[slots] = new Transmit(ByteBuffer.allocate(bufferBytes));
        return slots++;
    }

    void set(int slot, int length, int srcHost, int dstHost, int srcSocket, int dstSocket, int ecn, long tupleHash) {
        int b = slot * WORDS;
        header[b] = tupleHash;
        header[b + 1] = ((long) dstHost << 32) | (srcHost & 0xFFFF_FFFFL);
        header[b + 2] = ((long) dstSocket << 32) | (srcSocket & 0xFFFF_FFFFL);
        header[b + 3] = ((long) length << 32) | (ecn & 0xFFFF_FFFFL);
    }

    /** The bytes of the packet in {@code slot}. */
    ByteBuffer buffer(int slot) {
        return transmit[slot].buffer;
    }

    long tupleHash(int slot) {
        return header[slot * WORDS];
    }

    int dstHost(int slot) {
        return (int) (header[slot * WORDS + 1] >>> 32);
    }

    int srcHost(int slot) {
        return (int) header[slot * WORDS + 1];
    }

    int dstSocket(int slot) {
        return (int) (header[slot * WORDS + 2] >>> 32);
    }

    int srcSocket(int slot) {
        return (int) header[slot * WORDS + 2];
    }

    int length(int slot) {
        return (int) (header[slot * WORDS + 3] >>> 32);
    }

    int ecn(int slot) {
        return (int) header[slot * WORDS + 3];
    }

    void ecn(int slot, int codepoint) {
        int i = slot * WORDS + 3;
        header[i] = (header[i] & 0xFFFF_FFFF_0000_0000L) | (codepoint & 0xFFFF_FFFFL);
    }

    void release(int slot) {
        inUse--;
        free[freeCount++] = slot;
    }

    /** Packets currently in the network. */
    int inUse() {
        return inUse;
    }

    /** Buffers made so far (the pool's high-water mark). */
    int slots() {
        return slots;
    }
}
