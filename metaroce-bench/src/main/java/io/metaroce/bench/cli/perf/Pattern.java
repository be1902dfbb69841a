package io.metaroce.bench.cli.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The bytes of every message: a pseudo-random pattern derived from the run's seed and a message
 * key, so that the side that checks a message can regenerate what the other side wrote without
 * any of it crossing the network. Keys are built by the {@code *Key} methods, one kind each, so
 * messages of different kinds never share a pattern.
 *
 * <p>Every 8-byte word of a pattern is odd (never zero) and no tail byte is zero, so a buffer cleared with
 * {@link #poison} before a READ or receive can never pass as any pattern: a byte the transport did
 * not place is always caught.
 *
 * <p>Thread-safe: immutable.
 */
final class Pattern {
    private static final long TAG_RECEIVED = 1;
    private static final long TAG_READ_AREA = 2;
    private static final long TAG_WRITE_AREA = 3;
    private static final long TAG_PING = 4;

    /**
     * Difference between consecutive words (odd): word {@code i} of a pattern is
     * {@code (start + i * STEP) | 1}. Two words of one pattern agree only if {@code (i - j) * STEP}
     * is 0 or ±1 modulo 2^64, which takes |i - j| above 10^18: within a message every
     * word differs from every other, so a packet placed at the wrong offset never passes, and
     * patterns of two keys start at unrelated points of the sequence. Unlike a generator with a
     * serial dependency per word, filling and checking cost an add per word.
     */
    private static final long STEP = 0x9E37_79B9_7F4A_7C15L;

    private final long seed;

    /** A pattern family for one run; both sides must use the same seed. */
    public Pattern(long seed) {
        this.seed = seed;
    }

    /** The run's seed. */
    public long seed() {
        return seed;
    }

    /** Key of the {@code sequence}-th receive-consuming message (SEND or WRITE_WITH_IMM) of {@code stream}. */
    public static long receivedKey(int stream, long sequence) {
        return key(TAG_RECEIVED, stream, sequence);
    }

    /** Key of slot {@code slot} of the server's read area (what READs fetch). */
    public static long readAreaKey(int slot) {
        return key(TAG_READ_AREA, slot, 0);
    }

    /** Key of the {@code count}-th WRITE a client slot makes into its slot of the server's write area. */
    public static long writeAreaKey(int slot, long count) {
        return key(TAG_WRITE_AREA, slot, count);
    }

    /** Key of the {@code sequence}-th ping of a latency run. */
    public static long pingKey(long sequence) {
        return key(TAG_PING, 0, sequence);
    }

    private static long key(long tag, long a, long b) {
        // Distinct for every (tag, a < 2^24, b < 2^36): far more messages than a run can make.
        return (tag << 60) ^ ((a & 0xFF_FFFFL) << 36) ^ b;
    }

    /** Writes the pattern of {@code key} into {@code length} bytes at {@code offset}. */
    public void fill(MemorySegment segment, long offset, int length, long key) {
        long w = start(key);
        int words = length >>> 3;
        for (int i = 0; i < words; i++) {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * i, w | 1);
            w += STEP;
        }
        long x = w;
        for (int i = words << 3; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, tailByte(x));
            x >>>= 8;
        }
    }

    /** Whether the {@code length} bytes at {@code offset} hold exactly the pattern of {@code key}. */
    public boolean matches(MemorySegment segment, long offset, int length, long key) {
        long w = start(key);
        int words = length >>> 3;
        for (int i = 0; i < words; i++) {
            if (segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * i) != (w | 1)) {
                return false;
            }
            w += STEP;
        }
        long x = w;
        for (int i = words << 3; i < length; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != tailByte(x)) {
                return false;
            }
            x >>>= 8;
        }
        return true;
    }

    /** Clears {@code length} bytes at {@code offset}: afterwards no pattern matches them. */
    public static void poison(MemorySegment segment, long offset, int length) {
        segment.asSlice(offset, length).fill((byte) 0);
    }

    /** First word of the pattern of {@code key} (before its low bit is set): a SplitMix64 finaliser of seed and key. */
    private long start(long key) {
        long z = seed ^ (key * 0x9E37_79B9_7F4A_7C15L);
        z = (z ^ (z >>> 33)) * 0xFF51_AFD7_ED55_8CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CE_B9FE_1A85_EC53L;
        return z ^ (z >>> 33);
    }

    private static byte tailByte(long x) {
        return (byte) (x | 1);
    }
}
