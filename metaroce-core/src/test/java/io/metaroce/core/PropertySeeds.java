package io.metaroce.core;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

/**
 * The seeds of a seeded property test: {@code -Dmetaroce.property.firstSeed=S} (default 1) and
 * {@code -Dmetaroce.property.cases=N} (default: the test's own) pick them, so a failure's seed can
 * be run alone and a longer search run on demand.
 *
 * <p>Stateless; thread-safe.
 */
public final class PropertySeeds {
    private PropertySeeds() {
    }

    /** {@code N} consecutive seeds from the first, {@code defaultCases} unless the property says otherwise. */
    public static LongStream of(int defaultCases) {
        long first = Long.getLong("metaroce.property.firstSeed", 1);
        int cases = Integer.getInteger("metaroce.property.cases", defaultCases);
        return LongStream.range(first, first + cases);
    }

    /**
     * The random generator of the case {@code seed}, told apart by {@code salt} where one test runs
     * several kinds of case. Neighbouring seeds give unrelated sequences: a {@code SplittableRandom}
     * seeded with {@code seed} times its own step constant would replay its neighbour's draws shifted
     * by one, so forty such cases are little more than one long case.
     */
    public static SplittableRandom generator(long seed, long salt) {
        return new SplittableRandom(new SplittableRandom(seed).nextLong() ^ salt);
    }
}
