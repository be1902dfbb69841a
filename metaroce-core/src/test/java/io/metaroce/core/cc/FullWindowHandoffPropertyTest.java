package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-46]: with {@code aimdFullWindowHandoff}, under a hint below the paths' own rates and
 * without any loss, the paths whose windows have room are paced at the whole hint between them, in
 * proportion to their own rates; without it each path keeps its share of the hint, so the shares
 * of the full windows go unsent. Driven through the controller's public calls: random paths, round
 * trips and windows, a random nonempty set of paths filled to their windows.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 20) runs
 * more and a failure names its seed.
 */
class FullWindowHandoffPropertyTest {
    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theHintOfTheFullWindowsGoesToThePathsWithRoomWhateverTheLoss(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 46);
        int paths = 2 + rnd.nextInt(15);
        long[] rtts = new long[paths];
        boolean[] full = new boolean[paths];
        int fullCount = 0;
        for (int p = 0; p < paths; p++) {
            rtts[p] = 5_000 + rnd.nextInt(45_000);
            full[p] = p > 0 && rnd.nextBoolean(); // path 0 keeps room: at least one path with room
            fullCount += full[p] ? 1 : 0;
        }
        if (fullCount == 0) {
            full[paths - 1] = true;
        }
        for (boolean handoff : new boolean[] {true, false}) {
            EngineConfig config = EngineConfig.defaults().toBuilder().aimdSlowStart(false)
                    .aimdFullWindowHandoff(handoff).build();
            AimdController cc = new AimdController(config);
            int d = config.maxDatagramBytes();
            for (int p = 0; p < paths; p++) {
                cc.onPacketSent(p, d, 0);
                cc.onPacketAcked(p, d, rtts[p], rtts[p]);
            }
            // A hint far below the paths' rates, then one that limits them: the first hint sizes the
            // windows ([SPEC-CC-17]), the second leaves them.
            cc.onRateHint(1_000_000L, 100_000);
            double[] own = ownRates(cc, config, paths);
            double ownTotal = 0;
            double ownWithRoom = 0;
            for (int p = 0; p < paths; p++) {
                ownTotal += own[p];
                ownWithRoom += full[p] ? 0 : own[p];
            }
            long hint = (long) (ownWithRoom * (0.2 + 0.7 * rnd.nextDouble())); // limits: below the room's own
            cc.onRateHint(hint, 100_000);
            assertThat(ownRates(cc, config, paths)).as("seed %d: the windows as they were", seed).containsExactly(own);
            for (int p = 0; p < paths; p++) {
                while (full[p] && cc.sendAllowanceBytes(p, 100_000) > 0) {
                    cc.onPacketSent(p, d, 100_000);
                }
            }
            double paced = 0;
            for (int p = 0; p < paths; p++) {
                if (!full[p]) {
                    double expected = own[p] * hint / (handoff ? ownWithRoom : ownTotal);
                    assertThat(cc.pacingRateBytesPerSecond(p)).as("seed %d, handoff %s, path %d of %d", seed, handoff, p, paths)
                            .isCloseTo(expected, within(expected * 1e-9 + 1));
                    paced += cc.pacingRateBytesPerSecond(p);
                }
            }
            if (handoff) {
                assertThat(paced).as("seed %d: the paths with room carry the whole hint", seed)
                        .isCloseTo(hint, within(hint * 1e-9 + paths));
            } else {
                assertThat(paced).as("seed %d: without the rule the full windows' shares go unsent", seed)
                        .isLessThan(hint * ownWithRoom / ownTotal + paths);
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aHintThePathsDoNotReachLeavesEveryPathAtItsOwnRate(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 460);
        int paths = 2 + rnd.nextInt(15);
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdSlowStart(false).aimdFullWindowHandoff(true).build();
        AimdController cc = new AimdController(config);
        int d = config.maxDatagramBytes();
        for (int p = 0; p < paths; p++) {
            long rtt = 5_000 + rnd.nextInt(45_000);
            cc.onPacketSent(p, d, 0);
            cc.onPacketAcked(p, d, rtt, rtt);
        }
        cc.onRateHint(1_000_000L, 100_000); // sizes the windows ([SPEC-CC-17])
        double[] own = ownRates(cc, config, paths);
        double ownTotal = 0;
        for (double r : own) {
            ownTotal += r;
        }
        cc.onRateHint((long) (ownTotal * (1.01 + rnd.nextDouble())), 100_000);
        for (int p = 1; p < paths; p++) {
            while (cc.sendAllowanceBytes(p, 100_000) > 0) {
                cc.onPacketSent(p, d, 100_000);
            }
        }
        assertThat(cc.pacingRateBytesPerSecond(0)).as("seed %d: the windows limit, not the hint", seed)
                .isCloseTo(own[0], within(own[0] * 1e-9));
    }

    /** Each path's own rate, {@code gain * window / srtt}, from the controller's public state. */
    private static double[] ownRates(AimdController cc, EngineConfig config, int paths) {
        double[] own = new double[paths];
        for (int p = 0; p < paths; p++) {
            own[p] = config.aimdPacingGainPercent() / 100.0 * cc.windowBytes(p) * 1e9 / cc.smoothedRttNanos(p);
        }
        return own;
    }
}
