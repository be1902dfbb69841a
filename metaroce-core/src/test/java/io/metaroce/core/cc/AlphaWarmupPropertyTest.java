package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-45]: with {@code aimdAlphaWarmupSamples} <i>w</i>, a path's {@code alpha} over its first
 * ECN feedbacks is the mean of the reported marked fractions with the start value counted as
 * <i>w</i> of them, until that mean's gain {@code 1 / (w + n + 1)} falls to the gain of
 * [SPEC-CC-7], which moves it from there on; and {@code aimdInitialAlphaPercent} is the start
 * value. Driven through the controller's public calls on random feedback.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 20) runs
 * more and a failure names its seed.
 */
class AlphaWarmupPropertyTest {
    private static final int GAIN_SHIFT = 6;

    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    private static EngineConfig config(int warmup, int initialAlphaPercent) {
        return EngineConfig.defaults().toBuilder().aimdEcnGainShift(GAIN_SHIFT).aimdAlphaWarmupSamples(warmup)
                .aimdInitialAlphaPercent(initialAlphaPercent).build();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void alphaIsThePriorWeightedMeanOfTheFirstFeedbacksThenTheGainsAverage(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 45);
        int warmup = 1 + rnd.nextInt((1 << GAIN_SHIFT) - 1);
        int start = rnd.nextInt(101);
        AimdController cc = new AimdController(config(warmup, start));
        double prior = start / 100.0;
        assertThat(cc.alpha(0)).as("seed %d: the start value", seed).isCloseTo(prior, within(1e-6));
        double sum = warmup * prior;
        int n = 0;
        double expected = prior;
        double markedShare = rnd.nextDouble();
        for (int i = 0; i < 200; i++) {
            long ect = 1 + rnd.nextInt(8);
            long ce = 0;
            for (int k = 0; k < ect; k++) {
                ce += rnd.nextDouble() < markedShare ? 1 : 0;
            }
            double fraction = (double) ce / ect;
            if (warmup + n + 1 < 1 << GAIN_SHIFT) {
                sum += fraction;
                n++;
                expected = sum / (warmup + n);
            } else {
                expected += (fraction - expected) / (1 << GAIN_SHIFT);
            }
            cc.onEcnFeedback(0, ect, ce, i);
            assertThat(cc.alpha(0)).as("seed %d: w %d, start %d%%, feedback %d", seed, warmup, start, i)
                    .isCloseTo(expected, within(1e-3));
        }
    }

    @Test
    void withoutTheWarmupAFreshPathForgetsItsStartOnlyAtTheGain() {
        AimdController off = new AimdController(config(0, 100));
        AimdController on = new AimdController(config(8, 100));
        for (int i = 0; i < 8; i++) {
            off.onEcnFeedback(0, 2, 0, i);
            on.onEcnFeedback(0, 2, 0, i);
        }
        assertThat(on.alpha(0)).as("8 unmarked feedbacks, the start counted as 8: half").isCloseTo(0.5, within(1e-4));
        assertThat(off.alpha(0)).as("8 unmarked feedbacks at 1/64: (63/64)^8")
                .isCloseTo(Math.pow(63.0 / 64, 8), within(1e-3));
    }

    @Test
    void theSettingsAreValidated() {
        assertThatThrownBy(() -> config(-1, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config(0, 101)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config(65_537, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThat(config(65_536, 0).aimdAlphaWarmupSamples()).isEqualTo(65_536);
    }
}
