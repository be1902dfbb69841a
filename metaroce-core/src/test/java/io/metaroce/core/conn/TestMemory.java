package io.metaroce.core.conn;

import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Registered memory for tests: zeroed, or filled with bytes that a seed determines. */
final class TestMemory {
    private TestMemory() {
    }

    /** A region of {@code size} bytes with {@code access}, filled from {@code fillSeed} (0: zeroed). */
    static MemoryRegion region(Endpoint endpoint, long size, int access, long fillSeed) {
        MemorySegment seg = Arena.ofAuto().allocate(Math.max(1, size));
        if (fillSeed != 0) {
            byte[] bytes = new byte[(int) Math.max(1, size)];
            new SplittableRandom(fillSeed).nextBytes(bytes);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        }
        return endpoint.protectionDomain().register(seg, access);
    }

    /** A copy of the region's bytes, to compare with later. */
    static MemorySegment snapshot(MemoryRegion region) {
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, region.length()));
        copy.copyFrom(region.segment());
        return copy;
    }
}
