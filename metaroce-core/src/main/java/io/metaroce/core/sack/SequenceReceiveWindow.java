package io.metaroce.core.sack;

/**
 * Exactly-once admission of reliable packets at a receiver, by connection sequence number (CSN).
 *
 * <p>A retransmission keeps its CSN, so a CSN seen before is a duplicate however it arrived
 * (R-SACK-4). Every CSN below {@link #base()} is final. The base moves up over received CSNs and
 * to the sender's advertised floor (every CSN below the floor is acknowledged or abandoned by the
 * sender), so the window stays bounded even when a packet is refused and never admitted.
 *
 * <p>Not thread-safe. Allocates nothing after construction.
 */
public final class SequenceReceiveWindow {
    /** {@link #classify} result: a new CSN inside the window. */
    public static final int NEW = 0;
    /** {@link #classify} result: already admitted, or below the base. */
    public static final int DUPLICATE = 1;
    /** {@link #classify} result: beyond the window; the sender broke the window rule. */
    public static final int BEYOND_WINDOW = 2;

    private static final int INITIAL_BITS = 256;

    private long[] bits;
    private final int size;
    private int mask;
    private long base;

    /**
     * A window of {@code size} CSNs, a power of two and a multiple of 64. The bitmap starts small
     * and doubles when a CSN lands beyond it, so an idle connection costs little.
     */
    public SequenceReceiveWindow(int size) {
        if (Integer.bitCount(size) != 1 || size < 64) {
            throw new IllegalArgumentException("size must be a power of two >= 64, was " + size);
        }
        this.size = size;
        int initial = Math.min(size, INITIAL_BITS);
        this.mask = initial - 1;
        this.bits = new long[initial / 64];
    }

    private void ensureCovers(long csn) {
        while (csn - base > mask) {
            long[] old = bits;
            int oldMask = mask;
            bits = new long[old.length * 2];
            mask = bits.length * 64 - 1;
            for (long s = base; s <= base + oldMask; s++) {
                int o = (int) (s & oldMask);
                if ((old[o >>> 6] & (1L << (o & 63))) != 0) {
                    set(s);
                }
            }
        }
    }

    /** Classifies {@code csn} without changing anything. */
    public int classify(long csn) {
        if (csn < base) {
            return DUPLICATE;
        }
        if (csn - base >= size) {
            return BEYOND_WINDOW;
        }
        return csn - base <= mask && isSet(csn) ? DUPLICATE : NEW;
    }

    /** Admits {@code csn}, which {@link #classify} found {@link #NEW}. */
    public void admit(long csn) {
        if (csn == base) {
            // In order, the common case: the base's own bit is never left set (the base moves
            // over set bits at once), so setting it only to clear it again is skipped.
            base++;
            while (isSet(base)) {
                clear(base);
                base++;
            }
            return;
        }
        ensureCovers(csn);
        set(csn);
        while (isSet(base)) {
            clear(base);
            base++;
        }
    }

    /** Moves the base up to the sender's floor; CSNs below it are final. */
    public void advanceTo(long floor) {
        if (floor <= base) {
            return;
        }
        if (floor - base > mask) {
            java.util.Arrays.fill(bits, 0L);
        } else {
            clearRange(base, floor);
        }
        base = floor;
        while (isSet(base)) {
            clear(base);
            base++;
        }
    }

    /** The lowest CSN that is not final. */
    public long base() {
        return base;
    }

    /** Clears the bits of CSNs {@code [from, to)}, a word at a time: a big jump costs window/64 steps, not window. */
    private void clearRange(long from, long to) {
        long c = from;
        while (c < to && (c & 63) != 0) {
            clear(c++);
        }
        while (to - c >= 64) {
            bits[(int) ((c & mask) >>> 6)] = 0L;
            c += 64;
        }
        while (c < to) {
            clear(c++);
        }
    }

    private boolean isSet(long csn) {
        int i = (int) (csn & mask);
        return (bits[i >>> 6] & (1L << (i & 63))) != 0;
    }

    private void set(long csn) {
        int i = (int) (csn & mask);
        bits[i >>> 6] |= 1L << (i & 63);
    }

    private void clear(long csn) {
        int i = (int) (csn & mask);
        bits[i >>> 6] &= ~(1L << (i & 63));
    }
}
