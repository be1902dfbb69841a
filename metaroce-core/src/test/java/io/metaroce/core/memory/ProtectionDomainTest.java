package io.metaroce.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;

/** Tests of {@link ProtectionDomain}, {@link MemoryRegion}, {@link Access} and {@link AccessCheck}; rules are in docs/spec.md. */
class ProtectionDomainTest {

    private static ProtectionDomain newDomain() {
        return new ProtectionDomain(new SplittableRandom(42));
    }

    /** A generator that returns the given ints in turn, then repeats the last one. */
    private static RandomGenerator scripted(int... values) {
        return new RandomGenerator() {
            private int next;

            @Override
            public long nextLong() {
                return nextInt();
            }

            @Override
            public int nextInt() {
                int v = values[Math.min(next, values.length - 1)];
                next++;
                return v;
            }
        };
    }

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    // ---- registration ---------------------------------------------------------------------

    @Test
    void registersAHeapSegment() {
        ProtectionDomain pd = newDomain();
        byte[] memory = new byte[100];
        MemoryRegion region = pd.register(MemorySegment.ofArray(memory), Access.ALL);

        assertThat(region.length()).isEqualTo(100);
        assertThat(region.access()).isEqualTo(Access.ALL);
        assertThat(region.isOpen()).isTrue();
        assertThat(region.protectionDomain()).isSameAs(pd);
        assertThat(region.segment().byteSize()).isEqualTo(100);
        assertThat(pd.regionCount()).isEqualTo(1);
        assertThat(pd.lookupRemote(region.remoteKey())).isSameAs(region);
        assertThat(pd.lookupLocal(region.localKey())).isSameAs(region);

        region.place(10, ByteBuffer.wrap(new byte[] {1, 2, 3}), 0, 3);
        assertThat(memory[10]).isEqualTo((byte) 1);
        assertThat(memory[12]).isEqualTo((byte) 3);
    }

    @Test
    void registersANativeSegment() {
        try (Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = newDomain();
            MemorySegment segment = arena.allocate(4096);
            MemoryRegion region = pd.register(segment, Access.LOCAL_WRITE | Access.REMOTE_READ);

            assertThat(region.length()).isEqualTo(4096);
            assertThat(region.segment().isNative()).isTrue();
            region.place(4000, ByteBuffer.wrap(pattern(96)), 0, 96);
            assertThat(segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4000)).isEqualTo(pattern(96)[0]);
            assertThat(segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4095)).isEqualTo(pattern(96)[95]);
        }
    }

    @Test
    void registersADirectBuffer() {
        ProtectionDomain pd = newDomain();
        ByteBuffer buffer = ByteBuffer.allocateDirect(256);
        MemoryRegion region = pd.register(buffer, Access.REMOTE_WRITE);

        assertThat(region.length()).isEqualTo(256);
        region.place(0, ByteBuffer.wrap(pattern(256)), 0, 256);
        byte[] back = new byte[256];
        buffer.get(0, back);
        assertThat(back).isEqualTo(pattern(256));
    }

    @Test
    void registersAHeapBuffer() {
        ProtectionDomain pd = newDomain();
        byte[] memory = new byte[64];
        MemoryRegion region = pd.register(ByteBuffer.wrap(memory), Access.REMOTE_WRITE);

        region.place(60, ByteBuffer.wrap(new byte[] {9, 8, 7, 6}), 0, 4);
        assertThat(memory).endsWith((byte) 9, (byte) 8, (byte) 7, (byte) 6);
    }

    @Test
    void aBufferRegionCoversPositionToLimit() {
        ProtectionDomain pd = newDomain();
        byte[] memory = new byte[100];
        ByteBuffer buffer = ByteBuffer.wrap(memory).position(20).limit(50);
        MemoryRegion region = pd.register(buffer, Access.ALL);

        assertThat(region.length()).isEqualTo(30);
        region.place(0, ByteBuffer.wrap(new byte[] {5}), 0, 1);
        region.place(29, ByteBuffer.wrap(new byte[] {6}), 0, 1);
        assertThat(memory[20]).isEqualTo((byte) 5);
        assertThat(memory[49]).isEqualTo((byte) 6);
        assertThatThrownBy(() -> region.place(30, ByteBuffer.wrap(new byte[] {7}), 0, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(memory[50]).isZero();
        assertThat(memory[19]).isZero();
        // Registration does not move the caller's buffer.
        assertThat(buffer.position()).isEqualTo(20);
        assertThat(buffer.limit()).isEqualTo(50);
        // Moving the buffer afterwards does not move the region.
        buffer.position(0).limit(100);
        region.place(0, ByteBuffer.wrap(new byte[] {8}), 0, 1);
        assertThat(memory[0]).isZero();
        assertThat(memory[20]).isEqualTo((byte) 8);
    }

    @Test
    void aDirectBufferRegionWithNonZeroPositionCoversPositionToLimit() {
        ProtectionDomain pd = newDomain();
        ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        buffer.position(16).limit(48);
        MemoryRegion region = pd.register(buffer, Access.ALL);

        assertThat(region.length()).isEqualTo(32);
        region.place(0, ByteBuffer.wrap(pattern(32)), 0, 32);
        ByteBuffer whole = buffer.duplicate().clear();
        for (int i = 0; i < 64; i++) {
            byte expected = i >= 16 && i < 48 ? pattern(32)[i - 16] : 0;
            assertThat(whole.get(i)).as("byte %d", i).isEqualTo(expected);
        }
    }

    @Test
    void aZeroLengthRegionCanBeRegistered() {
        ProtectionDomain pd = newDomain();
        MemoryRegion region = pd.register(MemorySegment.ofArray(new byte[0]), Access.ALL);
        assertThat(region.length()).isZero();
        assertThat(pd.checkRemote(region.remoteKey(), 0, 0, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(region.remoteKey(), 0, 1, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
    }

    /** [SPEC-MEM-2] */
    @Test
    @SuppressWarnings("restricted") // reinterpret: the memory is never accessed
    void refusesARegionLongerThanTheMaximum() {
        ProtectionDomain pd = newDomain();
        // Never accessed: the length is refused before anything touches the memory.
        for (long length : new long[] {ProtectionDomain.MAX_REGION_LENGTH + 1, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, 1L << 40}) {
            MemorySegment huge = MemorySegment.NULL.reinterpret(length);
            assertThatThrownBy(() -> pd.register(huge, Access.REMOTE_READ))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2147483639")
                    .hasMessageContaining("several regions");
        }
        assertThat(pd.regionCount()).isZero();
    }

    @Test
    @SuppressWarnings("restricted") // reinterpret: the memory is never accessed
    void aRegionOfTheMaximumLengthIsAccepted() {
        ProtectionDomain pd = newDomain();
        long max = ProtectionDomain.MAX_REGION_LENGTH;
        MemoryRegion region = pd.register(MemorySegment.NULL.reinterpret(max), Access.REMOTE_READ);
        assertThat(region.length()).isEqualTo(max);
        assertThat(region.buffer().capacity()).isEqualTo(max);
        assertThat(pd.checkRemote(region.remoteKey(), max - 1, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(region.remoteKey(), 0, max, Access.REMOTE_READ)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(region.remoteKey(), max, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(region.remoteKey(), 1, max, Access.REMOTE_READ)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        region.close();
    }

    /** [SPEC-MEM-2] */
    @Test
    void refusesWriteRightsOnReadOnlyMemory() {
        ProtectionDomain pd = newDomain();
        MemorySegment readOnlySegment = MemorySegment.ofArray(new byte[8]).asReadOnly();
        ByteBuffer readOnlyBuffer = ByteBuffer.allocateDirect(8).asReadOnlyBuffer();

        for (int flags : new int[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.ALL}) {
            assertThatThrownBy(() -> pd.register(readOnlySegment, flags))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("read-only");
            assertThatThrownBy(() -> pd.register(readOnlyBuffer, flags))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("read-only");
        }
        assertThat(pd.regionCount()).isZero();

        MemoryRegion readable = pd.register(readOnlyBuffer, Access.REMOTE_READ);
        assertThat(pd.checkRemote(readable.remoteKey(), 0, 8, Access.REMOTE_READ)).isEqualTo(AccessCheck.OK);
        MemoryRegion none = pd.register(readOnlySegment, Access.NONE);
        assertThat(pd.checkLocal(none, 0, 8, Access.NONE)).isEqualTo(AccessCheck.OK);
    }

    /** [SPEC-MEM-5] */
    @Test
    void refusesUnknownAccessBits() {
        ProtectionDomain pd = newDomain();
        MemorySegment segment = MemorySegment.ofArray(new byte[8]);
        for (int flags : new int[] {8, 16, Integer.MIN_VALUE, -1, Access.ALL | 8}) {
            assertThatThrownBy(() -> pd.register(segment, flags))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unknown access bits");
            assertThatThrownBy(() -> pd.register(ByteBuffer.allocate(8), flags))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(pd.regionCount()).isZero();
    }

    @Test
    void refusesAHeapSegmentNotBackedByBytes() {
        ProtectionDomain pd = newDomain();
        assertThatThrownBy(() -> pd.register(MemorySegment.ofArray(new long[4]), Access.ALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("byte[]");
        assertThat(pd.regionCount()).isZero();
    }

    @Test
    void refusesASegmentWhoseArenaIsClosed() {
        ProtectionDomain pd = newDomain();
        Arena arena = Arena.ofConfined();
        MemorySegment segment = arena.allocate(16);
        arena.close();
        assertThatThrownBy(() -> pd.register(segment, Access.ALL)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- keys -----------------------------------------------------------------------------

    /** [SPEC-MEM-3] [SPEC-MEM-4] */
    @Test
    void keysAreNonZeroDistinctAndUniqueOverManyRegistrations() {
        ProtectionDomain pd = newDomain();
        MemorySegment segment = MemorySegment.ofArray(new byte[4]);
        Set<Integer> remoteKeys = new HashSet<>();
        Set<Integer> localKeys = new HashSet<>();
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            MemoryRegion region = pd.register(segment, Access.ALL);
            assertThat(region.remoteKey()).isNotZero().isNotEqualTo(region.localKey());
            assertThat(region.localKey()).isNotZero();
            assertThat(remoteKeys.add(region.remoteKey())).as("remote key unique").isTrue();
            assertThat(localKeys.add(region.localKey())).as("local key unique").isTrue();
        }
        assertThat(pd.regionCount()).isEqualTo(n);
    }

    /** [SPEC-MEM-4] Keys come from the caller's generator: different seeds give different keys. */
    @Test
    void keysAreDrawnFromTheGenerator() {
        MemorySegment segment = MemorySegment.ofArray(new byte[4]);
        int a = new ProtectionDomain(new SplittableRandom(1)).register(segment, Access.ALL).remoteKey();
        int b = new ProtectionDomain(new SplittableRandom(1)).register(segment, Access.ALL).remoteKey();
        int c = new ProtectionDomain(new SplittableRandom(2)).register(segment, Access.ALL).remoteKey();
        assertThat(a).isEqualTo(b).isNotEqualTo(c);
    }

    /** [SPEC-MEM-3] */
    @Test
    void keyDrawsRetryOnZeroCollisionAndTheLocalKey() {
        // local 0 (retry) -> 11; remote 0 (retry), 11 (= local key, retry) -> 22;
        // second region: local 11 (in use, retry) -> 33; remote 22 (in use), 0 -> 44.
        ProtectionDomain pd = new ProtectionDomain(scripted(0, 11, 0, 11, 22, 11, 33, 22, 0, 44));
        MemorySegment segment = MemorySegment.ofArray(new byte[4]);
        MemoryRegion first = pd.register(segment, Access.ALL);
        MemoryRegion second = pd.register(segment, Access.ALL);
        assertThat(first.localKey()).isEqualTo(11);
        assertThat(first.remoteKey()).isEqualTo(22);
        assertThat(second.localKey()).isEqualTo(33);
        assertThat(second.remoteKey()).isEqualTo(44);
    }

    /** [SPEC-MEM-4] */
    @Test
    void aRetiredRemoteKeyIsNotReissuedWhileRemembered() {
        ProtectionDomain pd = new ProtectionDomain(scripted(1, 2, 3, 2, 4));
        MemorySegment segment = MemorySegment.ofArray(new byte[4]);
        MemoryRegion first = pd.register(segment, Access.ALL); // local 1, remote 2
        first.close();
        MemoryRegion second = pd.register(segment, Access.ALL); // local 3, remote 2 is retired -> 4
        assertThat(second.remoteKey()).isEqualTo(4);
        assertThat(pd.checkRemote(2, 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.REGION_CLOSED);
    }

    @Test
    void aBrokenGeneratorIsReportedInsteadOfLoopingForever() {
        ProtectionDomain pd = new ProtectionDomain(scripted(7));
        MemorySegment segment = MemorySegment.ofArray(new byte[4]);
        assertThatThrownBy(() -> pd.register(segment, Access.ALL))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not random");
        assertThat(pd.regionCount()).isZero();
    }

    // ---- checkRemote ----------------------------------------------------------------------

    /** [SPEC-MEM-9] */
    @Test
    void checkRemoteReportsUnknownKey() {
        ProtectionDomain pd = newDomain();
        MemoryRegion region = pd.register(MemorySegment.ofArray(new byte[16]), Access.ALL);
        assertThat(pd.checkRemote(0, 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        assertThat(pd.checkRemote(region.remoteKey() + 1, 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        // The local key is not a remote key.
        assertThat(pd.checkRemote(region.localKey(), 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        assertThat(pd.lookupRemote(region.localKey())).isNull();
        assertThat(pd.lookupRemote(0)).isNull();
    }

    /** [SPEC-MEM-7] [SPEC-MEM-9] */
    @Test
    void afterCloseLookupsFailAndChecksReportRegionClosed() {
        ProtectionDomain pd = newDomain();
        MemoryRegion region = pd.register(MemorySegment.ofArray(new byte[16]), Access.ALL);
        int remoteKey = region.remoteKey();
        int localKey = region.localKey();
        region.close();

        assertThat(region.isOpen()).isFalse();
        assertThat(pd.regionCount()).isZero();
        assertThat(pd.lookupRemote(remoteKey)).isNull();
        assertThat(pd.lookupLocal(localKey)).isNull();
        assertThat(pd.checkRemote(remoteKey, 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.REGION_CLOSED);
        assertThat(pd.checkLocal(region, 0, 1, Access.NONE)).isEqualTo(AccessCheck.REGION_CLOSED);
        assertThatThrownBy(() -> region.place(0, ByteBuffer.allocate(1), 0, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> region.copyOut(0, ByteBuffer.allocate(1), 0, 1)).isInstanceOf(IllegalStateException.class);
    }

    /** [SPEC-MEM-4] */
    @Test
    void aClosedKeyIsForgottenAfterTheRetiredKeyMemory() {
        ProtectionDomain pd = new ProtectionDomain(new SplittableRandom(3), 2);
        MemorySegment segment = MemorySegment.ofArray(new byte[4]);
        MemoryRegion a = pd.register(segment, Access.ALL);
        MemoryRegion b = pd.register(segment, Access.ALL);
        MemoryRegion c = pd.register(segment, Access.ALL);
        a.close();
        b.close();
        assertThat(pd.checkRemote(a.remoteKey(), 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.REGION_CLOSED);
        c.close(); // evicts a
        assertThat(pd.checkRemote(a.remoteKey(), 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        assertThat(pd.checkRemote(b.remoteKey(), 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.REGION_CLOSED);
        assertThat(pd.checkRemote(c.remoteKey(), 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.REGION_CLOSED);

        ProtectionDomain forgetful = new ProtectionDomain(new SplittableRandom(3), 0);
        MemoryRegion d = forgetful.register(segment, Access.ALL);
        d.close();
        assertThat(forgetful.checkRemote(d.remoteKey(), 0, 1, Access.REMOTE_READ)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        assertThatThrownBy(() -> new ProtectionDomain(new SplittableRandom(3), -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** [SPEC-MEM-7] */
    @Test
    void freeingTheMemoryUnderARegionMakesItClosed() {
        ProtectionDomain pd = newDomain();
        Arena arena = Arena.ofConfined();
        MemoryRegion region = pd.register(arena.allocate(64), Access.ALL);
        assertThat(pd.checkRemote(region.remoteKey(), 0, 64, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OK);
        arena.close();
        assertThat(pd.checkRemote(region.remoteKey(), 0, 64, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.REGION_CLOSED);
        assertThat(pd.checkLocal(region, 0, 64, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.REGION_CLOSED);
        assertThat(pd.lookupRemote(region.remoteKey())).isNull();
        assertThatThrownBy(() -> region.place(0, ByteBuffer.allocate(1), 0, 1)).isInstanceOf(IllegalStateException.class);
        region.close();
        assertThat(pd.regionCount()).isZero();
    }

    /** [SPEC-MEM-8] */
    @Test
    void checkRemoteBoundsAreExactAndOverflowSafe() {
        ProtectionDomain pd = newDomain();
        MemoryRegion region = pd.register(MemorySegment.ofArray(new byte[100]), Access.ALL);
        int key = region.remoteKey();
        int w = Access.REMOTE_WRITE;

        assertThat(pd.checkRemote(key, 0, 100, w)).isEqualTo(AccessCheck.OK);       // the whole region
        assertThat(pd.checkRemote(key, 99, 1, w)).isEqualTo(AccessCheck.OK);        // exact fit at the end
        assertThat(pd.checkRemote(key, 100, 0, w)).isEqualTo(AccessCheck.OK);       // empty, at the end
        assertThat(pd.checkRemote(key, 0, 0, w)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(key, 99, 2, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 100, 1, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 101, 0, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 0, 101, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        // offset + length would overflow a long and wrap to a small or negative value.
        assertThat(pd.checkRemote(key, Long.MAX_VALUE, 1, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 1, Long.MAX_VALUE, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, Long.MAX_VALUE, Long.MAX_VALUE, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 50, Long.MAX_VALUE - 10, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        // Negative offsets and lengths (u64 values of 2^63 and more).
        assertThat(pd.checkRemote(key, -1, 1, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, -1, 0, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 0, -1, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, 10, -5, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, Long.MIN_VALUE, Long.MIN_VALUE, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkRemote(key, Long.MIN_VALUE, 50, w)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
    }

    /** [SPEC-MEM-6] */
    @Test
    void rightsAreEnforced() {
        ProtectionDomain pd = newDomain();
        MemorySegment segment = MemorySegment.ofArray(new byte[16]);
        MemoryRegion writeOnly = pd.register(segment, Access.REMOTE_WRITE);
        MemoryRegion readOnly = pd.register(segment, Access.REMOTE_READ);
        MemoryRegion localOnly = pd.register(segment, Access.LOCAL_WRITE);
        MemoryRegion none = pd.register(segment, Access.NONE);
        MemoryRegion all = pd.register(segment, Access.ALL);

        assertThat(pd.checkRemote(writeOnly.remoteKey(), 0, 16, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(writeOnly.remoteKey(), 0, 16, Access.REMOTE_READ)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkRemote(readOnly.remoteKey(), 0, 16, Access.REMOTE_READ)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(readOnly.remoteKey(), 0, 16, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkRemote(localOnly.remoteKey(), 0, 16, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkRemote(localOnly.remoteKey(), 0, 16, Access.REMOTE_READ)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkRemote(none.remoteKey(), 0, 16, Access.REMOTE_READ)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkRemote(all.remoteKey(), 0, 16, Access.REMOTE_READ | Access.REMOTE_WRITE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkRemote(writeOnly.remoteKey(), 0, 16, Access.REMOTE_READ | Access.REMOTE_WRITE))
                .isEqualTo(AccessCheck.ACCESS_DENIED);

        assertThat(pd.checkLocal(localOnly, 0, 16, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkLocal(writeOnly, 0, 16, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkLocal(readOnly, 0, 16, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.ACCESS_DENIED);
        // Reading local memory needs no right.
        assertThat(pd.checkLocal(none, 0, 16, Access.NONE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkLocal(writeOnly, 0, 16, Access.NONE)).isEqualTo(AccessCheck.OK);

        assertThatThrownBy(() -> pd.checkRemote(all.remoteKey(), 0, 1, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pd.checkLocal(all, 0, 1, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** [SPEC-MEM-9] Rights are checked before bounds, so a peer without the right learns nothing of the length. */
    @Test
    void rightsAreCheckedBeforeBounds() {
        ProtectionDomain pd = newDomain();
        MemoryRegion readOnly = pd.register(MemorySegment.ofArray(new byte[16]), Access.REMOTE_READ);
        assertThat(pd.checkRemote(readOnly.remoteKey(), 0, 1000, Access.REMOTE_WRITE)).isEqualTo(AccessCheck.ACCESS_DENIED);
        assertThat(pd.checkRemote(readOnly.remoteKey(), 0, 1000, Access.REMOTE_READ)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
    }

    @Test
    void checkLocalRefusesForeignAndMissingRegionsAndChecksBounds() {
        ProtectionDomain pd = newDomain();
        ProtectionDomain other = new ProtectionDomain(new SplittableRandom(7));
        MemoryRegion mine = pd.register(MemorySegment.ofArray(new byte[16]), Access.ALL);
        MemoryRegion foreign = other.register(MemorySegment.ofArray(new byte[16]), Access.ALL);

        assertThat(pd.checkLocal(null, 0, 1, Access.NONE)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        assertThat(pd.checkLocal(foreign, 0, 1, Access.NONE)).isEqualTo(AccessCheck.UNKNOWN_KEY);
        assertThat(pd.checkLocal(mine, 0, 16, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkLocal(mine, 16, 0, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.OK);
        assertThat(pd.checkLocal(mine, 1, 16, Access.LOCAL_WRITE)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkLocal(mine, Long.MAX_VALUE, 1, Access.NONE)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkLocal(mine, -1, 1, Access.NONE)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        assertThat(pd.checkLocal(mine, 0, -1, Access.NONE)).isEqualTo(AccessCheck.OUT_OF_BOUNDS);
        // Local checks are not refusals of a peer.
        assertThat(pd.refusals()).isZero();
        assertThatThrownBy(() -> pd.deregister(foreign)).isInstanceOf(IllegalArgumentException.class);
        assertThat(foreign.isOpen()).isTrue();
    }

    /** [SPEC-MEM-11] */
    @Test
    void refusalsCountEveryNonOkRemoteCheck() {
        ProtectionDomain pd = newDomain();
        MemoryRegion region = pd.register(MemorySegment.ofArray(new byte[16]), Access.REMOTE_READ);
        MemoryRegion closed = pd.register(MemorySegment.ofArray(new byte[16]), Access.REMOTE_READ);
        closed.close();
        assertThat(pd.refusals()).isZero();

        pd.checkRemote(region.remoteKey(), 0, 16, Access.REMOTE_READ); // OK, not counted
        pd.checkRemote(0, 0, 1, Access.REMOTE_READ);                   // UNKNOWN_KEY
        pd.checkRemote(closed.remoteKey(), 0, 1, Access.REMOTE_READ);  // REGION_CLOSED
        pd.checkRemote(region.remoteKey(), 8, 9, Access.REMOTE_READ);  // OUT_OF_BOUNDS
        pd.checkRemote(region.remoteKey(), 8, 9, Access.REMOTE_READ);  // OUT_OF_BOUNDS
        pd.checkRemote(region.remoteKey(), 0, 1, Access.REMOTE_WRITE); // ACCESS_DENIED
        pd.checkLocal(null, 0, 1, Access.NONE);                        // local: not counted

        assertThat(pd.refusals()).isEqualTo(5);
        assertThat(pd.refusals(AccessCheck.OK)).isZero();
        assertThat(pd.refusals(AccessCheck.UNKNOWN_KEY)).isEqualTo(1);
        assertThat(pd.refusals(AccessCheck.REGION_CLOSED)).isEqualTo(1);
        assertThat(pd.refusals(AccessCheck.OUT_OF_BOUNDS)).isEqualTo(2);
        assertThat(pd.refusals(AccessCheck.ACCESS_DENIED)).isEqualTo(1);
        assertThat(pd.refusals(99)).isZero();
        assertThat(pd.refusals(-1)).isZero();
    }

    // ---- deregistration -------------------------------------------------------------------

    @Test
    void deregisterIsIdempotent() {
        ProtectionDomain pd = newDomain();
        MemoryRegion a = pd.register(MemorySegment.ofArray(new byte[16]), Access.ALL);
        MemoryRegion b = pd.register(MemorySegment.ofArray(new byte[16]), Access.ALL);
        assertThat(pd.regionCount()).isEqualTo(2);
        pd.deregister(a);
        pd.deregister(a);
        a.close();
        assertThat(pd.regionCount()).isEqualTo(1);
        assertThat(pd.lookupRemote(b.remoteKey())).isSameAs(b);
        try (MemoryRegion c = pd.register(MemorySegment.ofArray(new byte[16]), Access.ALL)) {
            assertThat(pd.regionCount()).isEqualTo(2);
            assertThat(c.isOpen()).isTrue();
        }
        assertThat(pd.regionCount()).isEqualTo(1);
    }

    // ---- placement ------------------------------------------------------------------------

    /** [SPEC-MEM-13] */
    @Test
    void aPlaceOutsideTheRegionThrowsAndLeavesTheRegionUntouched() {
        ProtectionDomain pd = newDomain();
        byte[] memory = pattern(64);
        byte[] snapshot = memory.clone();
        MemoryRegion region = pd.register(MemorySegment.ofArray(memory), Access.ALL);
        ByteBuffer src = ByteBuffer.wrap(new byte[100]);

        assertThatThrownBy(() -> region.place(60, src, 0, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.place(-1, src, 0, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.place(0, src, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.place(Long.MAX_VALUE, src, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.place(1L << 32, src, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        // The source range is checked too, before anything is copied.
        assertThatThrownBy(() -> region.place(0, src, 90, 20)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.place(0, src, -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.copyOut(60, ByteBuffer.allocate(10), 0, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> region.copyOut(0, ByteBuffer.allocate(10), 6, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(memory).isEqualTo(snapshot);
    }

    @Test
    void placeAndCopyOutUseAbsoluteIndicesAndLeavePositionsAlone() {
        ProtectionDomain pd = newDomain();
        MemoryRegion region = pd.register(ByteBuffer.allocateDirect(32), Access.ALL);
        ByteBuffer src = ByteBuffer.wrap(pattern(16)).position(3).limit(12);
        region.place(5, src, 8, 4); // srcIndex is absolute, but within the limit
        assertThat(src.position()).isEqualTo(3);
        assertThat(src.limit()).isEqualTo(12);

        ByteBuffer dst = ByteBuffer.allocate(8).position(1);
        region.copyOut(5, dst, 2, 4);
        assertThat(dst.position()).isEqualTo(1);
        assertThat(dst.array()).containsExactly(0, 0, pattern(16)[8], pattern(16)[9], pattern(16)[10], pattern(16)[11], 0, 0);
        assertThatThrownBy(() -> region.place(0, src, 10, 4)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void placingIntoReadOnlyMemoryThrows() {
        ProtectionDomain pd = newDomain();
        byte[] memory = new byte[8];
        MemoryRegion region = pd.register(MemorySegment.ofArray(memory).asReadOnly(), Access.REMOTE_READ);
        assertThatThrownBy(() -> region.place(0, ByteBuffer.wrap(new byte[] {1}), 0, 1))
                .isInstanceOf(java.nio.ReadOnlyBufferException.class);
        assertThat(memory).containsOnly(0);
        ByteBuffer out = ByteBuffer.allocate(8);
        region.copyOut(0, out, 0, 8);
        assertThat(region.buffer().isReadOnly()).isTrue();
    }

    @Test
    void bufferIsTheSameCachedViewOfTheWholeRegion() {
        ProtectionDomain pd = newDomain();
        byte[] memory = new byte[40];
        MemoryRegion region = pd.register(ByteBuffer.wrap(memory).position(8), Access.ALL);
        ByteBuffer view = region.buffer();
        assertThat(region.buffer()).isSameAs(view);
        assertThat(view.position()).isZero();
        assertThat(view.limit()).isEqualTo(32);
        assertThat(view.capacity()).isEqualTo(32);
        view.put(0, (byte) 42);
        assertThat(memory[8]).isEqualTo((byte) 42);

        // Even if a careless caller moves the shared view, placement is unaffected.
        view.limit(1);
        region.place(31, ByteBuffer.wrap(new byte[] {7}), 0, 1);
        assertThat(memory[39]).isEqualTo((byte) 7);
        view.limit(32);
    }

    // ---- zero allocation ------------------------------------------------------------------

    @Test
    void checksLookupsAndPlacementDoNotAllocate() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported()
                && threads.isThreadAllocatedMemoryEnabled());
        ProtectionDomain pd = newDomain();
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion heap = pd.register(MemorySegment.ofArray(new byte[4096]), Access.ALL);
            MemoryRegion nativeRegion = pd.register(arena.allocate(4096), Access.ALL);
            MemoryRegion closed = pd.register(ByteBuffer.allocateDirect(64), Access.ALL);
            closed.close();
            ByteBuffer heapSrc = ByteBuffer.wrap(pattern(1024));
            ByteBuffer directSrc = ByteBuffer.allocateDirect(1024);
            ByteBuffer dst = ByteBuffer.allocateDirect(1024);

            long sink = 0;
            for (int round = 0; round < 3; round++) { // the first rounds warm up class loading etc.
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    long offset = i & 1023;
                    sink += pd.checkRemote(heap.remoteKey(), offset, 1024, Access.REMOTE_WRITE);
                    sink += pd.checkRemote(nativeRegion.remoteKey(), offset, 4096, Access.REMOTE_READ);
                    sink += pd.checkRemote(closed.remoteKey(), 0, 1, Access.REMOTE_READ);
                    sink += pd.checkRemote(i | 1, Long.MAX_VALUE, 1, Access.REMOTE_READ);
                    sink += pd.checkLocal(nativeRegion, offset, 1024, Access.LOCAL_WRITE);
                    sink += pd.lookupRemote(heap.remoteKey()) == null ? 1 : 0;
                    heap.place(offset, heapSrc, 0, 1024);
                    nativeRegion.place(offset, directSrc, 0, 1024);
                    heap.copyOut(offset, dst, 0, 1024);
                    nativeRegion.copyOut(offset, dst, 0, 1024);
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                if (round == 2) {
                    // Any per-operation allocation would show as hundreds of kilobytes.
                    assertThat(allocated).as("bytes allocated by 100,000 operations").isLessThan(1024);
                }
            }
            assertThat(sink).isNotZero();
        }
    }

    // ---- Access and AccessCheck -----------------------------------------------------------

    @Test
    void accessDescribesFlags() {
        assertThat(Access.describe(Access.NONE)).isEqualTo("NONE");
        assertThat(Access.describe(Access.LOCAL_WRITE | Access.REMOTE_READ)).isEqualTo("LOCAL_WRITE|REMOTE_READ");
        assertThat(Access.describe(Access.ALL)).isEqualTo("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ");
        assertThat(Access.describe(Access.REMOTE_WRITE)).isEqualTo("REMOTE_WRITE");
        assertThat(Access.describe(Access.REMOTE_READ | 8)).isEqualTo("REMOTE_READ|0x8");
        assertThat(Access.describe(16)).isEqualTo("0x10");
        assertThat(Access.isValid(Access.ALL)).isTrue();
        assertThat(Access.isValid(8)).isFalse();
    }

    @Test
    void accessCheckNamesCodes() {
        assertThat(AccessCheck.name(AccessCheck.OK)).isEqualTo("OK");
        assertThat(AccessCheck.name(AccessCheck.UNKNOWN_KEY)).isEqualTo("UNKNOWN_KEY");
        assertThat(AccessCheck.name(AccessCheck.REGION_CLOSED)).isEqualTo("REGION_CLOSED");
        assertThat(AccessCheck.name(AccessCheck.OUT_OF_BOUNDS)).isEqualTo("OUT_OF_BOUNDS");
        assertThat(AccessCheck.name(AccessCheck.ACCESS_DENIED)).isEqualTo("ACCESS_DENIED");
        assertThat(AccessCheck.name(42)).isEqualTo("UNKNOWN(42)");
        assertThat(AccessCheck.OK).isZero();
    }
}
