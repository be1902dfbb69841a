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
 * <p>Thread-safe: immutable (each thread fills and checks through a chunk buffer of its own).
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

    /**
     * Words generated per chunk. Why a pattern is made in an array and moved by one bulk copy (or
     * compared by one bulk mismatch) per chunk rather than written a word at a time with
     * {@code MemorySegment.set/get}: where the JIT inlines {@link #fill} deep into the event loop's
     * call chain (perf's sink runs inside the transport's drive), the segment access's own callees
     * are past the inlining depth limit ({@code NativeMemorySegmentImpl::maxAlignMask: inlining too
     * deep} in {@code -XX:+PrintInlining}) and every word cost a call: 44% of the sending loop's CPU
     * in some runs (docs/benchmarks.md, "Receive datapath round (session 9)"). A bulk call per chunk
     * costs the same whatever the JIT decides, and the array loop has no callees.
     */
    private static final int CHUNK_WORDS = 512;
    /** {@code k * STEP} for each word {@code k} of a chunk: word {@code k} is {@code (w + STEPS[k]) | 1}, no serial dependency. */
    private static final long[] STEPS = new long[CHUNK_WORDS];
    /** What a chunk adds to its first word. */
    private static final long CHUNK_STEP = CHUNK_WORDS * STEP;
    /** Each thread's chunk (a perf server and client in one process share no thread). */
    private static final ThreadLocal<Chunk> CHUNK = ThreadLocal.withInitial(Chunk::new);

    static {
        for (int k = 0; k < CHUNK_WORDS; k++) {
            STEPS[k] = k * STEP;
        }
    }

    /** One thread's chunk of pattern words, and a segment view of them for bulk comparison. */
    private static final class Chunk {
        final long[] words = new long[CHUNK_WORDS];
        final MemorySegment view = MemorySegment.ofArray(words);

        /** Words {@code 0..n-1} of the chunk whose first word (before its low bit is set) is {@code w}. */
        void generate(long w, int n) {
            long[] out = words;
            for (int k = 0; k < n; k++) {
                out[k] = (w + STEPS[k]) | 1;
            }
        }
    }

    /** Shortest message {@link #fillEnds} and {@link #endsMatch} treat by its ends only (two whole words). */
    public static final int ENDS_MIN_LENGTH = 16;

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
        Chunk chunk = CHUNK.get();
        long w = start(key);
        int wordCount = length >>> 3;
        for (int done = 0; done < wordCount; done += CHUNK_WORDS) {
            int n = Math.min(CHUNK_WORDS, wordCount - done);
            chunk.generate(w, n);
            MemorySegment.copy(chunk.words, 0, segment, ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * done, n);
            w += CHUNK_STEP;
        }
        long x = start(key) + wordCount * STEP;
        for (int i = wordCount << 3; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, tailByte(x));
            x >>>= 8;
        }
    }

    /** Whether the {@code length} bytes at {@code offset} hold exactly the pattern of {@code key}. */
    public boolean matches(MemorySegment segment, long offset, int length, long key) {
        Chunk chunk = CHUNK.get();
        long w = start(key);
        int wordCount = length >>> 3;
        for (int done = 0; done < wordCount; done += CHUNK_WORDS) {
            int n = Math.min(CHUNK_WORDS, wordCount - done);
            chunk.generate(w, n);
            long from = offset + 8L * done;
            if (MemorySegment.mismatch(segment, from, from + 8L * n, chunk.view, 0, 8L * n) != -1) {
                return false;
            }
            w += CHUNK_STEP;
        }
        long x = start(key) + wordCount * STEP;
        for (int i = wordCount << 3; i < length; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != tailByte(x)) {
                return false;
            }
            x >>>= 8;
        }
        return true;
    }

    /**
     * Writes only the ends of the pattern of {@code key} into {@code length} bytes at {@code offset}:
     * its first and last 8-byte words and the bytes after the last whole word, each the same bytes
     * {@link #fill} writes there; the bytes between keep whatever they held. Messages shorter than
     * {@link #ENDS_MIN_LENGTH} bytes are filled in full. Cost: a few stores whatever the length,
     * where {@link #fill} writes every byte. For a sampled check ({@link RunParams#fullCheckEvery}).
     */
    public void fillEnds(MemorySegment segment, long offset, int length, long key) {
        if (length < ENDS_MIN_LENGTH) {
            fill(segment, offset, length, key);
            return;
        }
        long start = start(key);
        int wordCount = length >>> 3;
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, start | 1);
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * (wordCount - 1),
                (start + (wordCount - 1) * STEP) | 1);
        long x = start + wordCount * STEP;
        for (int i = wordCount << 3; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, tailByte(x));
            x >>>= 8;
        }
    }

    /**
     * Whether the ends of the {@code length} bytes at {@code offset} (as {@link #fillEnds} writes
     * them) hold the pattern of {@code key}; the whole message if it is shorter than
     * {@link #ENDS_MIN_LENGTH}. A message placed at the wrong offset, of the wrong key, or cut
     * short fails; a wrong byte in the middle of a longer message passes (only {@link #matches}
     * sees it).
     */
    public boolean endsMatch(MemorySegment segment, long offset, int length, long key) {
        if (length < ENDS_MIN_LENGTH) {
            return matches(segment, offset, length, key);
        }
        long start = start(key);
        int wordCount = length >>> 3;
        if (segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != (start | 1)
                || segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * (wordCount - 1))
                        != ((start + (wordCount - 1) * STEP) | 1)) {
            return false;
        }
        long x = start + wordCount * STEP;
        for (int i = wordCount << 3; i < length; i++) {
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
