package io.metaroce.core.cc;

import java.util.Arrays;

/**
 * Max-min fair division of a capacity among demands (R-CC-2, [SPEC-CC-10]): every demand at or
 * below the <em>water level</em> {@code L} is met in full, every larger one gets {@code L}, and
 * {@code L} is the largest level at which the shares still fit the capacity. So the shares sum to
 * at most the capacity, nobody gets more than it asked for, and everyone left unsatisfied gets the
 * same share, at least as large as any satisfied one.
 *
 * <p>The level is found in expected O(n) time without sorting: a quickselect-style search
 * partitions a scratch copy of the demands around a pivot (median of three), decides from the sum
 * of the lower part on which side of the pivot the level lies, and continues in that part only.
 * Nothing is allocated once the scratch array has grown to the largest {@code n} seen.
 *
 * <p>Not thread-safe: one instance per caller (the endpoint's allocator).
 */
public final class MaxMinFairShare {
    /** {@link #waterLevel} when the capacity covers every demand: nobody is limited. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private long[] scratch = new long[16];

    /**
     * The water level for {@code demands[0..n)} sharing {@code capacity}: share {@code i} is
     * {@code min(demands[i], level)}. Demands must be in {@code [0, capacity]} (a larger demand is
     * the same as {@code capacity}: nobody can get more) and {@code n * capacity} must fit a long.
     *
     * @return the level, or {@link #UNLIMITED} when the demands sum to at most {@code capacity}
     */
    public long waterLevel(long[] demands, int n, long capacity) {
        if (n > scratch.length) {
            scratch = Arrays.copyOf(scratch, Math.max(n, scratch.length * 2));
        }
        long[] a = scratch;
        System.arraycopy(demands, 0, a, 0, n);
        long satisfiedSum = 0; // demands known to lie below the level
        int capped = 0; // demands known to lie at or above the level
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            long pivot = medianOfThree(a[lo], a[(lo + hi) >>> 1], a[hi - 1]);
            // Three-way partition of [lo, hi): below pivot | equal | above.
            int lt = lo;
            int i = lo;
            int gt = hi;
            long belowSum = 0;
            while (i < gt) {
                long v = a[i];
                if (v < pivot) {
                    belowSum += v;
                    a[i++] = a[lt];
                    a[lt++] = v;
                } else if (v > pivot) {
                    a[i] = a[--gt];
                    a[gt] = v;
                } else {
                    i++;
                }
            }
            // Total of the shares if the level were the pivot.
            long atPivot = satisfiedSum + belowSum + pivot * (long) (hi - lt + capped);
            if (atPivot > capacity) {
                capped += hi - lt; // the level is below the pivot: these are all capped
                hi = lt;
            } else {
                satisfiedSum += belowSum + pivot * (long) (gt - lt); // the level is at or above: met in full
                lo = gt;
            }
        }
        return capped == 0 ? UNLIMITED : (capacity - satisfiedSum) / capped;
    }

    /**
     * Writes each demand's share, {@code min(demands[i], level)}, into {@code shares} and returns
     * the level ({@link #waterLevel}).
     */
    public long allocate(long[] demands, int n, long capacity, long[] shares) {
        long level = waterLevel(demands, n, capacity);
        for (int i = 0; i < n; i++) {
            shares[i] = Math.min(demands[i], level);
        }
        return level;
    }

    private static long medianOfThree(long x, long y, long z) {
        return Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
    }
}
