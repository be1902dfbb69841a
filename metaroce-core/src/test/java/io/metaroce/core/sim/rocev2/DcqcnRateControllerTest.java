package io.metaroce.core.sim.rocev2;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DCQCN's reaction point against the formulas documented in {@link DcqcnRateController} and
 * docs/baseline-rocev2.md, on the default parameters (100 Gb/s, g = 1/256, K = T = 55 us, F = 5,
 * Rai = 40 Mb/s, Rhai = 400 Mb/s, Rmin = 100 Mb/s). Expected rates are exact integers.
 */
class DcqcnRateControllerTest {
    private static final long US = 1_000;
    private static final long LINE = 100_000_000_000L;

    /** Ten CNPs 50 us apart (closer than T, so no increase runs between them), from t = 0. */
    private static DcqcnRateController afterTenCnps(RoceV2Config config, List<Long> rates) {
        DcqcnRateController c = new DcqcnRateController(config);
        for (int i = 0; i < 10; i++) {
            long t = i * 50 * US;
            c.onTimeout(t);
            c.onCnp(t);
            rates.add(c.currentRateBitsPerSecond());
        }
        return c;
    }

    @Test
    void aStreamOfCnpsHalvesTheRateDownToTheMinimumWhileAlphaStaysOne() {
        List<Long> rates = new ArrayList<>();
        DcqcnRateController c = afterTenCnps(RoceV2Config.defaults(), rates);
        assertThat(rates).containsExactly(50_000_000_000L, 25_000_000_000L, 12_500_000_000L, 6_250_000_000L,
                3_125_000_000L, 1_562_500_000L, 781_250_000L, 390_625_000L, 195_312_500L,
                100_000_000L /* 97.65625 Mb/s, held at Rmin */);
        assertThat(c.targetRateBitsPerSecond()).as("Rt = Rc before the last cut").isEqualTo(195_312_500L);
        assertThat(c.alpha(450 * US)).as("(1 - g) * 1 + g with no period without a CNP").isEqualTo(1.0);
        assertThat(c.increaseEvents()).isZero();
        c.onCnp(500 * US);
        assertThat(c.currentRateBitsPerSecond()).as("never below Rmin").isEqualTo(100_000_000L);
    }

    @Test
    void withoutCnpsTheTimerRunsFastRecoveryThenAdditiveIncreaseBackToLineRate() {
        RoceV2Config config = RoceV2Config.defaults();
        DcqcnRateController c = afterTenCnps(config, new ArrayList<>());
        long last = 450 * US;
        assertThat(c.nextTimerNanos()).isEqualTo(last + 55 * US);
        List<long[]> steps = new ArrayList<>();
        int periods = 0;
        while (c.nextTimerNanos() != Long.MAX_VALUE) {
            periods++;
            c.onTimeout(last + periods * 55 * US);
            if (periods <= 8) {
                steps.add(new long[] {c.targetRateBitsPerSecond(), c.currentRateBitsPerSecond()});
            }
        }
        assertThat(steps).containsExactly(
                // fast recovery, F = 5 steps: Rc = (Rt + Rc) / 2 towards Rt = 195.3125 Mb/s
                new long[] {195_312_500L, 147_656_250L},
                new long[] {195_312_500L, 171_484_375L},
                new long[] {195_312_500L, 183_398_438L},
                new long[] {195_312_500L, 189_355_469L},
                new long[] {195_312_500L, 192_333_985L},
                // additive increase: Rt += 40 Mb/s, then the mean
                new long[] {235_312_500L, 213_823_243L},
                new long[] {275_312_500L, 244_567_872L},
                new long[] {315_312_500L, 279_940_186L});
        assertThat(c.currentRateBitsPerSecond()).isEqualTo(LINE);
        assertThat(c.timerStage()).isEqualTo(periods);
        // With the byte counter idle, hyper increase never starts: about (100G - 195M) / 40M
        // periods of additive increase, then the last halvings to the line rate.
        assertThat(periods).isEqualTo(2526);
    }

    @Test
    void whenTheByteCounterKeepsPaceHyperIncreaseFollowsAdditiveIncrease() {
        RoceV2Config config = RoceV2Config.defaults().toBuilder().byteCounterBytes(1_000_000).build();
        DcqcnRateController c = afterTenCnps(config, new ArrayList<>());
        long last = 450 * US;
        List<Long> targets = new ArrayList<>();
        List<Long> currents = new ArrayList<>();
        for (int period = 1; period <= 8; period++) {
            c.onBytesSent(1_000_000); // byte-counter event first
            targets.add(c.targetRateBitsPerSecond());
            currents.add(c.currentRateBitsPerSecond());
            c.onTimeout(last + period * 55 * US); // then the timer event
            targets.add(c.targetRateBitsPerSecond());
            currents.add(c.currentRateBitsPerSecond());
        }
        assertThat(targets).containsExactly(
                195_312_500L, 195_312_500L, 195_312_500L, 195_312_500L, 195_312_500L, // fast recovery: max(t, bc) <= 5
                195_312_500L, 195_312_500L, 195_312_500L, 195_312_500L, 195_312_500L,
                235_312_500L, // bc = 6, t = 5: additive, +40 Mb/s
                635_312_500L, // t = bc = 6: hyper, i = 1: +400 Mb/s
                1_035_312_500L, // bc = 7, t = 6: hyper, i = 1
                1_835_312_500L, // t = bc = 7: hyper, i = 2: +800 Mb/s
                2_635_312_500L, // bc = 8, t = 7: i = 2
                3_835_312_500L); // t = bc = 8: i = 3
        assertThat(currents).containsExactly(147_656_250L, 171_484_375L, 183_398_438L, 189_355_469L, 192_333_985L,
                193_823_243L, 194_567_872L, 194_940_186L, 195_126_343L, 195_219_422L, 215_265_961L, 425_289_231L,
                730_300_866L, 1_282_806_683L, 1_959_059_592L, 2_897_186_046L);
        assertThat(c.byteStage()).isEqualTo(8);
        assertThat(c.timerStage()).isEqualTo(8);
    }

    @Test
    void alphaDecaysByOneMinusGEveryPeriodWithoutACnpAndSetsTheNextCut() {
        DcqcnRateController c = new DcqcnRateController(RoceV2Config.defaults());
        double g = 1.0 / 256;
        c.onCnp(0);
        assertThat(c.alpha(54 * US)).isEqualTo(1.0);
        assertThat(c.alpha(55 * US)).isEqualTo(1 - g);
        assertThat(c.alpha(110 * US)).isEqualTo((1 - g) * (1 - g));
        long before = c.currentRateBitsPerSecond(); // 50 Gb/s, no increase run yet
        assertThat(before).isEqualTo(50_000_000_000L);
        c.onCnp(54 * US); // within the first period: alpha is still 1
        assertThat(c.currentRateBitsPerSecond()).isEqualTo(25_000_000_000L);
        // 120 us after that CNP: two periods of decay, then the cut by alpha / 2.
        double alpha = (1 - g) * (1 - g);
        c.onCnp(174 * US);
        assertThat(c.currentRateBitsPerSecond()).isEqualTo((long) (25_000_000_000L * (1 - alpha / 2)));
        assertThat(c.alpha(174 * US)).isEqualTo((1 - g) * alpha + g);
    }

    @Test
    void aCnpRestartsTheStagesAndTheTimer() {
        RoceV2Config config = RoceV2Config.defaults().toBuilder().byteCounterBytes(1000).build();
        DcqcnRateController c = new DcqcnRateController(config);
        c.onBytesSent(5_000);
        assertThat(c.byteStage()).as("no byte counter before the first CNP: already at line rate").isZero();
        c.onCnp(0);
        c.onBytesSent(2_500);
        c.onTimeout(110 * US);
        assertThat(c.byteStage()).isEqualTo(2);
        assertThat(c.timerStage()).isEqualTo(2);
        c.onCnp(120 * US);
        assertThat(c.byteStage()).isZero();
        assertThat(c.timerStage()).isZero();
        assertThat(c.nextTimerNanos()).isEqualTo(175 * US);
        c.onBytesSent(500);
        assertThat(c.byteStage()).as("the byte count restarted too").isZero();
    }

    @Test
    void theDecayPowerAgreesWithPow() {
        for (long n = 0; n < 5_000; n += 7) {
            double expected = Math.pow(1 - 1.0 / 256, n);
            assertThat(DcqcnRateController.power(1 - 1.0 / 256, n)).as("n = %d", n)
                    .isCloseTo(expected, org.assertj.core.data.Offset.offset(expected * 1e-12));
        }
        assertThat(DcqcnRateController.power(0.5, Long.MAX_VALUE)).isZero();
    }
}
