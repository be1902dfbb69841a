package io.metaroce.core.cc;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The built-in controllers say {@link CongestionController#pacingAnswersReusable}, and a
 * connection then reuses their pacing answers while none of their {@code on...} methods is
 * called. This checks the promise on random histories (sends, acknowledgements with RTT samples,
 * losses, discards, ECN feedback, rate hints, paths failed and restored, with and without a seeded
 * first-flight spread): between two events, the allowance asked at a later time is the same, and
 * the next send time asked at a later time {@code t2} is {@code max(T, t2)} where {@code T} is the
 * answer at the earlier time if it was later than that time.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 20) runs
 * more and a failure names its seed.
 */
class PacingAnswersReusablePropertyTest {
    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void laterAnswersFollowFromEarlierOnes(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 3);
        int paths = 1 + rnd.nextInt(8);
        int kind = rnd.nextInt(3);
        CongestionController cc = switch (kind) {
            case 0 -> new AimdController(EngineConfig.defaults());
            case 1 -> new AimdController(EngineConfig.defaults(), new SplittableRandom(seed));
            default -> new FixedWindowController(64 * 1024, 1 + rnd.nextInt(16_384));
        };
        String where = "seed " + seed + ", " + paths + " paths, " + cc.getClass().getSimpleName()
                + (kind == 1 ? " with a random source" : "");
        assertThat(cc.pacingAnswersReusable()).as(where).isTrue();
        long now = 1_000_000;
        boolean[] failed = new boolean[paths];
        for (int step = 0; step < 3_000; step++) {
            int p = rnd.nextInt(paths);
            int bytes = 64 + rnd.nextInt(4_200);
            switch (rnd.nextInt(10)) {
                case 0, 1, 2 -> cc.onPacketSent(p, bytes, now);
                case 3, 4 -> cc.onPacketAcked(p, bytes, rnd.nextBoolean() ? 1_000 + rnd.nextLong(50_000) : -1, now);
                case 5 -> cc.onPacketLost(p, bytes, now);
                case 6 -> cc.onPacketDiscarded(p, bytes, now);
                case 7 -> {
                    long ect = rnd.nextLong(16);
                    cc.onEcnFeedback(p, ect, rnd.nextLong(ect + 1), now);
                }
                case 8 -> cc.onRateHint(rnd.nextInt(4) == 0 ? 0 : 100_000_000L + rnd.nextLong(12_000_000_000L), now);
                default -> {
                    if (failed[p]) {
                        cc.onPathRestored(p, now);
                    } else {
                        cc.onPathFailed(p, now);
                    }
                    failed[p] = !failed[p];
                }
            }
            now += rnd.nextLong(3_000);
            for (int q = 0; q < paths; q++) {
                long allowance = cc.sendAllowanceBytes(q, now);
                long next = cc.nextSendTimeNanos(q, now);
                long later = now + rnd.nextLong(1 + rnd.nextLong(20_000));
                assertThat(cc.sendAllowanceBytes(q, later)).as("allowance of path %d at %d then %d, step %d (%s)",
                        q, now, later, step, where).isEqualTo(allowance);
                long expected = next > now ? Math.max(next, later) : later;
                assertThat(cc.nextSendTimeNanos(q, later)).as("next send time of path %d at %d then %d, step %d (%s)",
                        q, now, later, step, where).isEqualTo(expected);
            }
        }
    }
}
