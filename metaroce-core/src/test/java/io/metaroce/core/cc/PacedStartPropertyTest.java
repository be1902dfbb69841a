package io.metaroce.core.cc;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link AimdController#pacedStart}, which works out the burst allowance only when it can matter,
 * against the plain computation it replaces ({@code max(next, now - credit)}, {@code now - credit}
 * for a clock not started), on random clocks, times and rates, the edges included: a clock not
 * started, negative and extreme times, rates of zero, below zero, tiny, huge, infinite and NaN.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 20) runs
 * more and a failure names its seed.
 */
class PacedStartPropertyTest {
    private static final long[] TIMES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    private static final double[] RATES = {0.0, -0.0, -1.0, Double.MIN_VALUE, 1e-300, 1.0, 1e9, 1.25e10, 1e300,
        Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN};

    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    /** The computation before the shortcut. */
    private static long plain(long next, double rate, long nowNanos, long burst) {
        long credit = (long) (burst * 1e9 / rate);
        return next == Long.MIN_VALUE ? nowNanos - credit : Math.max(next, nowNanos - credit);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void equalsThePlainComputation(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 11);
        int shortcuts = 0;
        for (int i = 0; i < 20_000; i++) {
            long now = switch (rnd.nextInt(4)) {
                case 0 -> TIMES[rnd.nextInt(TIMES.length)];
                case 1 -> rnd.nextLong();
                default -> rnd.nextLong(0, 1L << 50);
            };
            long next = switch (rnd.nextInt(5)) {
                case 0 -> Long.MIN_VALUE;
                case 1 -> TIMES[rnd.nextInt(TIMES.length)];
                case 2 -> rnd.nextLong();
                default -> now + rnd.nextLong(-1_000_000, 1_000_000); // near now, on either side
            };
            double rate = rnd.nextInt(4) == 0 ? RATES[rnd.nextInt(RATES.length)] : rnd.nextDouble(1, 1e12);
            long burst = rnd.nextInt(4) == 0 ? rnd.nextLong(0, Long.MAX_VALUE) : rnd.nextLong(0, 1L << 24);
            long got = AimdController.pacedStart(next, rate, now, burst);
            assertThat(got).as("seed %d: next %d, rate %s, now %d, burst %d", seed, next, rate, now, burst)
                    .isEqualTo(plain(next, rate, now, burst));
            if (next >= now && now >= 0 && rate > 0) {
                shortcuts++;
            }
        }
        assertThat(shortcuts).as("seed %d: cases that skip the division", seed).isPositive();
    }
}
