package io.metaroce.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Properties of placement, copy-out, the bounds rule and key generation, over every kind of
 * memory a region can be registered on. Rules are in docs/spec.md ([SPEC-MEM-3], [SPEC-MEM-8],
 * [SPEC-MEM-13]).
 */
class MemoryRegionPropertyTest {

    /** Guard bytes on each side of the region inside the backing memory; they must never change. */
    private static final int GUARD = 16;

    enum Kind { HEAP_SEGMENT, NATIVE_SEGMENT, HEAP_BUFFER, DIRECT_BUFFER }

    /** A region registered over the middle of a larger backing memory (guards on each side). */
    private record Fixture(MemoryRegion region, MemorySegment backing) {
        byte[] snapshot() {
            return backing.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static Fixture fixture(Kind kind, Arena arena, ProtectionDomain pd, int length, long fillSeed) {
        int total = length + 2 * GUARD;
        byte[] fill = new byte[total];
        new SplittableRandom(fillSeed).nextBytes(fill);
        return switch (kind) {
            case HEAP_SEGMENT -> {
                MemorySegment backing = MemorySegment.ofArray(fill);
                yield new Fixture(pd.register(backing.asSlice(GUARD, length), Access.ALL), backing);
            }
            case NATIVE_SEGMENT -> {
                MemorySegment backing = arena.allocate(total);
                backing.copyFrom(MemorySegment.ofArray(fill));
                yield new Fixture(pd.register(backing.asSlice(GUARD, length), Access.ALL), backing);
            }
            case HEAP_BUFFER -> {
                ByteBuffer buffer = ByteBuffer.wrap(fill).position(GUARD).limit(GUARD + length);
                yield new Fixture(pd.register(buffer, Access.ALL), MemorySegment.ofArray(fill));
            }
            case DIRECT_BUFFER -> {
                ByteBuffer buffer = ByteBuffer.allocateDirect(total).put(0, fill).position(GUARD).limit(GUARD + length);
                yield new Fixture(pd.register(buffer, Access.ALL), MemorySegment.ofBuffer(buffer.duplicate().clear()));
            }
        };
    }

    private static ByteBuffer source(boolean direct, int capacity, long seed) {
        byte[] bytes = new byte[capacity];
        new SplittableRandom(seed).nextBytes(bytes);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
        return b.put(0, bytes);
    }

    private static boolean inBoundsModel(long offset, long length, long regionLength) {
        return offset >= 0 && length >= 0
                && BigInteger.valueOf(offset).add(BigInteger.valueOf(length)).compareTo(BigInteger.valueOf(regionLength)) <= 0;
    }

    /**
     * [SPEC-MEM-13] Bytes placed at any in-bounds range, from a buffer or from an array (as the
     * receiver places from the decoder's checked copy), come back from copyOut and land nowhere else.
     */
    @Property(tries = 300)
    void placeThenCopyOutRoundTrips(@ForAll Kind kind,
                                    @ForAll boolean directSource,
                                    @ForAll boolean fromArray,
                                    @ForAll @IntRange(min = 1, max = 4096) int regionLength,
                                    @ForAll @IntRange(min = 0, max = 1 << 20) int offsetSeed,
                                    @ForAll @IntRange(min = 0, max = 1 << 20) int lengthSeed,
                                    @ForAll @IntRange(min = 0, max = 64) int srcIndex,
                                    @ForAll long seed) {
        int offset = offsetSeed % (regionLength + 1);
        int length = lengthSeed % (regionLength - offset + 1);
        try (Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = new ProtectionDomain(new SplittableRandom(seed));
            Fixture f = fixture(kind, arena, pd, regionLength, seed);
            byte[] before = f.snapshot();
            ByteBuffer src = source(directSource, srcIndex + length, ~seed);

            assertThat(pd.checkRemote(f.region().remoteKey(), offset, length, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OK);
            if (fromArray) {
                byte[] array = new byte[src.capacity()];
                src.get(0, array);
                f.region().place(offset, array, srcIndex, length);
            } else {
                f.region().place(offset, src, srcIndex, length);
            }

            byte[] after = f.snapshot();
            for (int i = 0; i < after.length; i++) {
                int regionIndex = i - GUARD;
                if (regionIndex >= offset && regionIndex < offset + length) {
                    assertThat(after[i]).as("placed byte %d", regionIndex).isEqualTo(src.get(srcIndex + regionIndex - offset));
                } else {
                    assertThat(after[i]).as("byte %d of the backing memory is untouched", i).isEqualTo(before[i]);
                }
            }

            int dstIndex = srcIndex / 2;
            ByteBuffer dst = directSource ? ByteBuffer.allocate(dstIndex + length) : ByteBuffer.allocateDirect(dstIndex + length);
            f.region().copyOut(offset, dst, dstIndex, length);
            assertThat(dst.slice(dstIndex, length)).isEqualTo(src.slice(srcIndex, length));
            assertThat(src.position()).isZero();
            assertThat(dst.position()).isZero();
            // The shared buffer view sees the same bytes.
            assertThat(f.region().buffer().slice(offset, length)).isEqualTo(src.slice(srcIndex, length));
        }
    }

    /** [SPEC-MEM-8] [SPEC-MEM-13] A place anywhere out of bounds throws and changes nothing. */
    @Property(tries = 300)
    void outOfBoundsPlaceThrowsAndLeavesMemoryUntouched(@ForAll Kind kind,
                                                        @ForAll @IntRange(min = 0, max = 512) int regionLength,
                                                        @ForAll long offset,
                                                        @ForAll @IntRange(min = -8, max = 1024) int length,
                                                        @ForAll @IntRange(min = -4, max = 4) int nearEnd,
                                                        @ForAll boolean useNearEnd,
                                                        @ForAll long seed) {
        long off = useNearEnd ? regionLength - Math.max(length, 0) + nearEnd : offset;
        if (inBoundsModel(off, length, regionLength)) {
            return; // covered by the round-trip property
        }
        try (Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = new ProtectionDomain(new SplittableRandom(seed));
            Fixture f = fixture(kind, arena, pd, regionLength, seed);
            byte[] before = f.snapshot();
            ByteBuffer src = source(false, 1100, seed);

            assertThat(pd.checkRemote(f.region().remoteKey(), off, length, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
            assertThatThrownBy(() -> f.region().place(off, src, 0, length)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.region().place(off, new byte[1100], 0, length))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.region().copyOut(off, ByteBuffer.allocate(1100), 0, length))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(f.snapshot()).isEqualTo(before);
        }
    }

    /**
     * [SPEC-MEM-13] A place from an array whose range lies outside the array (the region's range
     * fine) throws before it copies anything.
     */
    @Property(tries = 200)
    void placeFromOutsideItsArrayThrowsAndLeavesMemoryUntouched(@ForAll Kind kind,
                                                                @ForAll @IntRange(min = 1, max = 512) int regionLength,
                                                                @ForAll @IntRange(min = 0, max = 64) int arrayLength,
                                                                @ForAll @IntRange(min = -4, max = 80) int srcIndex,
                                                                @ForAll long seed) {
        int length = regionLength;
        if (srcIndex >= 0 && srcIndex <= arrayLength - length) {
            return; // in range: covered by the round-trip property
        }
        try (Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = new ProtectionDomain(new SplittableRandom(seed));
            Fixture f = fixture(kind, arena, pd, regionLength, seed);
            byte[] before = f.snapshot();
            assertThatThrownBy(() -> f.region().place(0, new byte[arrayLength], srcIndex, length))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(f.snapshot()).isEqualTo(before);
        }
    }

    /** [SPEC-MEM-8] checkRemote agrees with exact (big-integer) arithmetic for every offset and length. */
    @Property(tries = 2000)
    void checkRemoteBoundsMatchExactArithmetic(@ForAll @IntRange(min = 0, max = 1 << 16) int regionLength,
                                               @ForAll long offset,
                                               @ForAll long length,
                                               @ForAll @LongRange(min = -3, max = 3) long nearEnd,
                                               @ForAll @IntRange(min = 0, max = 2) int mode) {
        // Mode 0: arbitrary longs; 1: offset near the end for that length; 2: length near the end for that offset.
        long off = mode == 1 ? regionLength - length + nearEnd : offset;
        long len = mode == 2 ? regionLength - offset + nearEnd : length;
        ProtectionDomain pd = new ProtectionDomain(new SplittableRandom(regionLength));
        MemoryRegion region = pd.register(MemorySegment.ofArray(new byte[regionLength]), Access.REMOTE_READ);

        int code = pd.checkRemote(region.remoteKey(), off, len, Access.REMOTE_READ);
        boolean expectedOk = inBoundsModel(off, len, regionLength);
        assertThat(code).isEqualTo(expectedOk ? AccessCheck.OK : AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.refusals()).isEqualTo(expectedOk ? 0 : 1);
        assertThat(pd.checkLocal(region, off, len, Access.NONE)).isEqualTo(code);
        // Rights come first: without the right the answer is ACCESS_DENIED whatever the range.
        assertThat(pd.checkRemote(region.remoteKey(), off, len, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.ACCESS_DENIED);
    }

    /** [SPEC-MEM-3] [SPEC-MEM-4] Keys stay non-zero and unique among live regions through any mix of registrations and closes. */
    @Property(tries = 50)
    void keysStayUniqueAmongLiveRegions(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2000) int operations) {
        SplittableRandom choices = new SplittableRandom(seed);
        ProtectionDomain pd = new ProtectionDomain(new SplittableRandom(~seed), 64);
        MemorySegment segment = MemorySegment.ofArray(new byte[8]);
        List<MemoryRegion> live = new ArrayList<>();
        for (int i = 0; i < operations; i++) {
            if (!live.isEmpty() && choices.nextInt(3) == 0) {
                MemoryRegion victim = live.remove(choices.nextInt(live.size()));
                victim.close();
                assertThat(pd.lookupRemote(victim.remoteKey())).isNull();
            } else {
                MemoryRegion region = pd.register(segment, Access.ALL);
                assertThat(region.remoteKey()).isNotZero().isNotEqualTo(region.localKey());
                assertThat(region.localKey()).isNotZero();
                live.add(region);
            }
        }
        Set<Integer> remote = new HashSet<>();
        Set<Integer> local = new HashSet<>();
        for (MemoryRegion region : live) {
            assertThat(remote.add(region.remoteKey())).isTrue();
            assertThat(local.add(region.localKey())).isTrue();
            assertThat(pd.lookupRemote(region.remoteKey())).isSameAs(region);
            assertThat(pd.lookupLocal(region.localKey())).isSameAs(region);
        }
        assertThat(pd.regionCount()).isEqualTo(live.size());
    }
}
