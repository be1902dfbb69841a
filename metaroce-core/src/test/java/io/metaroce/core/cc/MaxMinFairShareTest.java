package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The receiver's max-min fair division (R-CC-2, [SPEC-CC-10]) against its definition, for random
 * demands and capacities: the shares fit the capacity, nobody gets more than it asked for, every
 * sender left unsatisfied gets the same share and it is at least any satisfied sender's, and no
 * capacity is left over while someone is unsatisfied (beyond integer rounding). A sort-based
 * water-filling model gives the same level.
 */
class MaxMinFairShareTest {

    /** A demand vector and a capacity. */
    record Case(long[] demands, long capacity) {
        @Override
        public String toString() {
            return "capacity " + capacity + ", demands " + Arrays.toString(demands);
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Long> capacity = Arbitraries.longs().between(0, 1L << 38);
        return capacity.flatMap(c -> {
            // Demands within [0, capacity], with many repeats and extremes (0 and the capacity).
            Arbitrary<Long> demand = Arbitraries.frequencyOf(
                    Tuple.of(6, Arbitraries.longs().between(0, c)),
                    Tuple.of(1, Arbitraries.just(0L)),
                    Tuple.of(2, Arbitraries.just(c)),
                    Tuple.of(2, Arbitraries.longs().between(0, c / 64)));
            return Combinators.combine(demand.list().ofMinSize(0).ofMaxSize(300), Arbitraries.just(c))
                    .as((List<Long> d, Long cap) -> new Case(d.stream().mapToLong(Long::longValue).toArray(), cap));
        });
    }

    /** Water filling the obvious way: sort, and meet the smallest demands while they fit. */
    static long modelLevel(long[] demands, long capacity) {
        long[] d = demands.clone();
        Arrays.sort(d);
        long left = capacity;
        for (int i = 0; i < d.length; i++) {
            int rest = d.length - i;
            if (d[i] * rest > left) {
                return left / rest;
            }
            left -= d[i];
        }
        return MaxMinFairShare.UNLIMITED;
    }

    @Property(tries = 2000)
    void sharesAreMaxMinFair(@ForAll("cases") Case c) {
        long[] demands = c.demands();
        int n = demands.length;
        long[] shares = new long[n];
        long level = new MaxMinFairShare().allocate(demands, n, c.capacity(), shares);

        long sum = 0;
        long maxSatisfied = 0;
        long unsatisfiedShare = -1;
        int unsatisfied = 0;
        for (int i = 0; i < n; i++) {
            sum += shares[i];
            assertThat(shares[i]).as("share %d within [0, demand] (%s)", i, c).isBetween(0L, demands[i]);
            if (shares[i] == demands[i]) {
                maxSatisfied = Math.max(maxSatisfied, shares[i]);
            } else {
                unsatisfied++;
                if (unsatisfiedShare < 0) {
                    unsatisfiedShare = shares[i];
                }
                assertThat(shares[i]).as("every unsatisfied sender gets the same share (%s)", c)
                        .isEqualTo(unsatisfiedShare).isEqualTo(level);
            }
        }
        assertThat(sum).as("the shares fit the capacity (%s)", c).isLessThanOrEqualTo(c.capacity());
        if (unsatisfied > 0) {
            assertThat(unsatisfiedShare).as("unsatisfied share >= any satisfied share (%s)", c)
                    .isGreaterThanOrEqualTo(maxSatisfied);
            assertThat(c.capacity() - sum).as("nothing left over but rounding (%s)", c).isLessThan(unsatisfied);
        } else {
            assertThat(level).as(c.toString()).isEqualTo(MaxMinFairShare.UNLIMITED);
        }
        assertThat(level).as("same level as the sort-based model (%s)", c).isEqualTo(modelLevel(demands, c.capacity()));
        assertThat(demands).as("the demands are left as they were").isEqualTo(c.demands().clone());
    }

    @Test
    void equalUnlimitedDemandsSplitTheCapacityEvenly() {
        long[] demands = new long[64];
        Arrays.fill(demands, 1_000_000);
        long[] shares = new long[64];
        long level = new MaxMinFairShare().allocate(demands, 64, 1_000_000, shares);
        assertThat(level).isEqualTo(15_625);
        assertThat(shares).containsOnly(15_625L);
    }

    @Test
    void aSmallDemandIsMetAndTheRestIsSplit() {
        long[] shares = new long[3];
        long level = new MaxMinFairShare().allocate(new long[] {100, 1_000, 1_000}, 3, 900, shares);
        assertThat(level).isEqualTo(400);
        assertThat(shares).containsExactly(100, 400, 400);
    }

    @Test
    void recomputingAllocatesNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        SplittableRandom random = new SplittableRandom(5);
        long[] demands = new long[1000];
        long[] shares = new long[1000];
        MaxMinFairShare maxMin = new MaxMinFairShare();
        long sink = 0;
        for (int round = 0; round < 20_000; round++) {
            for (int i = 0; i < demands.length; i++) {
                demands[i] = random.nextLong(1L << 30);
            }
            sink += maxMin.allocate(demands, demands.length, 1L << 36, shares);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int round = 0; round < 1000; round++) {
            sink += maxMin.allocate(demands, demands.length, 1L << 36, shares);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by 1000 recomputations of 1000 senders (%d)", sink).isLessThan(1024);
    }
}
