package io.metaroce.core.sim.fabric;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Packets in the simulated network: pooled datagram buffers (real bytes, copied from the sending
 * transport) plus their header fields in primitive arrays, indexed by a slot number that events
 * carry. Slots are reused, so a warm run allocates nothing per packet.
 *
 * <p>Not thread-safe.
 */
final class PacketPool {
    private final int bufferBytes;
    ByteBuffer[] buffer = new ByteBuffer[256];
    int[] length = new int[256];
    int[] srcHost = new int[256];
    int[] dstHost = new int[256];
    int[] srcSocket = new int[256];
    int[] dstSocket = new int[256];
    int[] ecn = new int[256];
    /** Hash of the 5-tuple, salted per switch at each hop. */
    long[] tupleHash = new long[256];
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
        if (slots == buffer.length) {
            int n = slots * 2;
            buffer = Arrays.copyOf(buffer, n);
            length = Arrays.copyOf(length, n);
            srcHost = Arrays.copyOf(srcHost, n);
            dstHost = Arrays.copyOf(dstHost, n);
            srcSocket = Arrays.copyOf(srcSocket, n);
            dstSocket = Arrays.copyOf(dstSocket, n);
            ecn = Arrays.copyOf(ecn, n);
            tupleHash = Arrays.copyOf(tupleHash, n);
            free = Arrays.copyOf(free, n);
        }
        buffer[slots] = ByteBuffer.allocate(bufferBytes);
        return slots++;
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
