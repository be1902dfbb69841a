package io.metaroce.core.wire;

/**
 * The short form of an ACK's selective acknowledgement ([SPEC-WIRE-31]): the 64 path sequence
 * numbers ending at the highest one acknowledged, {@code H}, as one word, with every number from
 * {@code max(0, H - 255)} to {@code H - 64} implied received. It says exactly what the 256-bit form
 * says whenever those older numbers were all received, the common case of a path without holes
 * (or with holes among its latest 64 packets only), in 40 fewer bytes.
 *
 * <p>Works on the 256-bit form of {@link Packet#sackBase} and {@link Packet#sackBits}: bit {@code k}
 * of the 4 words acknowledges {@code sackBase + k}. The short word's bit {@code j} acknowledges
 * {@code H - 63 + j} (bit 63 is {@code H} and is always set). Static and allocation-free.
 */
public final class ShortSack {
    private static final int BITS = WireConstants.SACK_BITS;
    private static final int WORDS = WireConstants.SACK_WORDS;

    private ShortSack() {
    }

    /**
     * Whether the 256-bit SACK ({@code sackBase}, {@code bits}) can be sent in the short form: a bit is
     * set, the window ends at the highest one as [SPEC-SACK-3] builds it ({@code sackBase} is
     * {@code max(0, H - 255)}), and every bit more than 63 below the highest is set.
     */
    public static boolean fits(long sackBase, long[] bits) {
        int top = highestSetBit(bits);
        if (top < 0 || (top != BITS - 1 && sackBase != 0)) {
            return false;
        }
        return allOnesBelow(bits, top - 63);
    }

    /**
     * The highest acknowledged path sequence number {@code H} of a SACK that {@link #fits}: the
     * short form's header carries it in place of {@code sackBase}.
     */
    public static long highest(long sackBase, long[] bits) {
        return sackBase + highestSetBit(bits);
    }

    /** The short word of a SACK that {@link #fits}: bit {@code j} acknowledges {@code H - 63 + j}. */
    public static long word(long[] bits) {
        int shift = highestSetBit(bits) - 63;
        return shift >= 0 ? wordAt(bits, shift) : bits[0] << -shift;
    }

    /**
     * Expands the short form ({@code highest} = {@code H}, {@code word}) into the 256-bit form in
     * {@code bits} and returns its {@code sackBase}, or -1 if the word is malformed: bit 63
     * ({@code H} itself) clear, or a bit set for a number below 0.
     */
    public static long expand(long highest, long word, long[] bits) {
        if (word >= 0) { // bit 63 clear: the short form always acknowledges H
            return -1;
        }
        long base = Math.max(0, highest - (BITS - 1));
        int shift = (int) (highest - base) - 63;
        for (int i = 0; i < WORDS; i++) {
            bits[i] = 0;
        }
        if (shift < 0) {
            if ((word & ((1L << -shift) - 1)) != 0) {
                return -1; // bits for numbers below 0
            }
            bits[0] = word >>> -shift;
            return base;
        }
        setOnesBelow(bits, shift);
        putWordAt(bits, shift, word);
        return base;
    }

    /** Index (0 to 255) of the highest set bit of the 4 words, or -1 if none is set. */
    static int highestSetBit(long[] bits) {
        for (int i = WORDS - 1; i >= 0; i--) {
            if (bits[i] != 0) {
                return i * 64 + 63 - Long.numberOfLeadingZeros(bits[i]);
            }
        }
        return -1;
    }

    /** Whether bits {@code 0 .. n - 1} are all set (true for {@code n <= 0}). */
    private static boolean allOnesBelow(long[] bits, int n) {
        int i = 0;
        for (; (i + 1) * 64 <= n; i++) {
            if (bits[i] != -1L) {
                return false;
            }
        }
        int rest = n - i * 64;
        if (rest <= 0) {
            return true;
        }
        long mask = (1L << rest) - 1;
        return (bits[i] & mask) == mask;
    }

    private static void setOnesBelow(long[] bits, int n) {
        int i = 0;
        for (; (i + 1) * 64 <= n; i++) {
            bits[i] = -1L;
        }
        int rest = n - i * 64;
        if (rest > 0) {
            bits[i] |= (1L << rest) - 1;
        }
    }

    /** The 64 bits starting at bit {@code k} ({@code 0 <= k <= 192}). */
    private static long wordAt(long[] bits, int k) {
        int w = k >>> 6;
        int s = k & 63;
        return s == 0 ? bits[w] : (bits[w] >>> s) | (bits[w + 1] << (64 - s));
    }

    /** ORs {@code word} into the 64 bits starting at bit {@code k} ({@code 0 <= k <= 192}). */
    private static void putWordAt(long[] bits, int k, long word) {
        int w = k >>> 6;
        int s = k & 63;
        bits[w] |= word << s;
        if (s != 0) {
            bits[w + 1] |= word >>> (64 - s);
        }
    }
}
