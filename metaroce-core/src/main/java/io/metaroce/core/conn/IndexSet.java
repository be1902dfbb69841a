package io.metaroce.core.conn;

import java.util.Arrays;

/**
 * A set of small non-negative ints (an endpoint's connection slots) as a bitset with a summary
 * word per 64 words: adding, removing and finding the next member at or after an index cost a
 * few word operations, not a walk of every index, so an endpoint with thousands of connections
 * finds the few that have something to do at the cost of one with a handful. Grows (by
 * doubling) only when the endpoint gains connections; allocates nothing otherwise.
 */
final class IndexSet {
    private long[] words = new long[1];
    /** Bit {@code w} of {@code summary[w >>> 6]}: {@code words[w]} is not 0. */
    private long[] summary = new long[1];

    /** Makes room for the indices below {@code size}. */
    void ensureCapacity(int size) {
        int needed = (size + 63) >>> 6;
        if (needed <= words.length) {
            return;
        }
        int grown = Math.max(needed, words.length * 2);
        words = Arrays.copyOf(words, grown);
        summary = Arrays.copyOf(summary, (grown + 63) >>> 6);
    }

    void add(int i) {
        int w = i >>> 6;
        long before = words[w];
        words[w] = before | (1L << i);
        if (before == 0) {
            summary[w >>> 6] |= 1L << w;
        }
    }

    void remove(int i) {
        int w = i >>> 6;
        long after = words[w] & ~(1L << i);
        words[w] = after;
        if (after == 0) {
            summary[w >>> 6] &= ~(1L << w);
        }
    }

    boolean contains(int i) {
        int w = i >>> 6;
        return w < words.length && (words[w] & (1L << i)) != 0;
    }

    /** The smallest member at or after {@code from} ({@code from >= 0}), or -1. */
    int next(int from) {
        // The word of from first, inline (an endpoint with a few connections finds its answer
        // there); the summary search out of line, so that callers on the per-packet path stay small.
        int w = from >>> 6;
        if (w >= words.length) {
            return -1;
        }
        long bits = words[w] & (-1L << from);
        if (bits != 0) {
            return (w << 6) + Long.numberOfTrailingZeros(bits);
        }
        return firstInWordsFrom(w + 1);
    }

    /** The smallest member in the words from {@code next} on, found through the summary, or -1. */
    private int firstInWordsFrom(int next) {
        int s = next >>> 6;
        if (s >= summary.length) {
            return -1;
        }
        long nonEmpty = summary[s] & (-1L << next);
        while (nonEmpty == 0) {
            if (++s >= summary.length) {
                return -1;
            }
            nonEmpty = summary[s];
        }
        int word = (s << 6) + Long.numberOfTrailingZeros(nonEmpty);
        return (word << 6) + Long.numberOfTrailingZeros(words[word]);
    }

    /** Whether the set is empty. */
    boolean isEmpty() {
        for (long s : summary) {
            if (s != 0) {
                return false;
            }
        }
        return true;
    }

    /** Makes the set exactly {@code [0, size)}. */
    void fill(int size) {
        ensureCapacity(size);
        Arrays.fill(words, 0);
        Arrays.fill(summary, 0);
        for (int i = 0; i < size; i++) {
            add(i);
        }
    }
}
