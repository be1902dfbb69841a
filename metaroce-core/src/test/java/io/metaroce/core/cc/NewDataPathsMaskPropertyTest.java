package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-42] {@link CongestionController#newDataPathsMask} answers, for the paths of
 * {@link CongestionController#newDataPathsAnswered}, what {@link CongestionController#carriesNewData}
 * answers path by path. Two AIMD controllers are fed one random history (sends, acknowledgements
 * with RTT samples, losses, ECN feedback, announced shares, rate hints, paths failed, restored and
 * told to take no new data, pacing questions, sometimes a path not seen before, among up to 70
 * paths); at random times one is asked for the mask and the other path by path (the mask's call
 * counting as the first question, as a question does), and the answers must agree; the first is
 * then asked path by path too. Between the paths, both are sometimes asked the walks' other
 * questions (allowance, send time, whether settled), which must change no answer of the set. Rule at 0 to 3, with and without a random source and a first-flight
 * spread. {@code -Dmetaroce.property.cases=N} (default 20) runs more; a failure names its seed.
 */
class NewDataPathsMaskPropertyTest {
    /** Paths answered by the mask and found not to take new data, over every case. */
    private static long notCarrying;

    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    @AfterAll
    static void someAnswersWereNo() {
        // Otherwise every mask was all ones and proved little.
        assertThat(notCarrying).as("paths the mask said take no new data").isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theMaskAgreesWithTheQuestionsPathByPath(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 64);
        int paths = rnd.nextInt(4) == 0 ? 60 + rnd.nextInt(11) : 2 + rnd.nextInt(15);
        long period = 2_000 + rnd.nextLong(30_000);
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdPathsForShareMin(rnd.nextInt(4))
                .fairSharePeriodNanos(period).aimdFirstFlightBytes(rnd.nextBoolean() ? 0 : 4_096)
                .aimdFirstFlightSpreadNanos(rnd.nextBoolean() ? 0 : 20_000)
                .aimdAnnouncedFirstRoundTrip(rnd.nextBoolean()).maxPaths(80).build();
        boolean seeded = rnd.nextBoolean();
        AimdController masked = seeded ? new AimdController(config, new SplittableRandom(seed)) : new AimdController(config);
        AimdController asked = seeded ? new AimdController(config, new SplittableRandom(seed)) : new AimdController(config);
        AimdController[] both = {masked, asked};
        long id = rnd.nextLong();
        String where = "seed " + seed + ", " + paths + " paths, " + config.aimdPathsForShareMin() + " for the share, "
                + (seeded ? "a random source" : "no random source");
        long now = 1_000_000;
        double datagramsPerRtt = 0.5 + 4 * rnd.nextDouble();
        long share = (long) (datagramsPerRtt * config.maxDatagramBytes() * 1e9 / config.initialRttNanos());
        int hintStep = rnd.nextInt(300);
        int seen = 1 + rnd.nextInt(paths); // paths the history touches so far
        boolean announced = rnd.nextInt(4) != 0;
        for (AimdController cc : both) {
            cc.onConnectionId(id);
            if (announced) {
                cc.onAnnouncedShare(share, now);
            }
        }
        for (int step = 0; step < 600; step++) {
            if (seen < paths && rnd.nextInt(40) == 0) {
                seen++;
            }
            int p = rnd.nextInt(seen);
            int bytes = 64 + rnd.nextInt(4_200);
            long sample = rnd.nextBoolean() ? 1_000 + rnd.nextLong(50_000) : -1;
            long hint = rnd.nextInt(4) == 0 ? 0 : 100_000_000L + rnd.nextLong(4_000_000_000L);
            long ect = rnd.nextLong(16);
            long ce = rnd.nextLong(ect + 1);
            boolean takes = rnd.nextBoolean();
            int event = rnd.nextInt(12);
            for (AimdController cc : both) {
                switch (event) {
                    case 0, 1, 2 -> cc.onPacketSent(p, bytes, now);
                    case 3 -> cc.onPacketAcked(p, bytes, sample, now);
                    case 4 -> cc.onPacketLost(p, bytes, now);
                    case 5 -> cc.onEcnFeedback(p, ect, ce, now);
                    case 6 -> cc.onAnnouncedShare(share, now);
                    case 7 -> {
                        if (step >= hintStep) {
                            cc.onRateHint(hint, now);
                        }
                    }
                    case 8 -> cc.onPathFailed(p, now);
                    case 9 -> cc.onPathRestored(p, now);
                    case 10 -> cc.onPathNewData(p, takes, now);
                    default -> cc.nextSendTimeNanos(p, now); // may draw the first start and the share's offset
                }
            }
            now += rnd.nextLong(period / 2 + 1);
            if (rnd.nextInt(3) != 0) {
                continue;
            }
            long answered = masked.newDataPathsAnswered();
            assertThat(asked.newDataPathsAnswered()).as("answered paths, step %d (%s)", step, where).isEqualTo(answered);
            if (answered == 0) {
                continue;
            }
            long mask = masked.newDataPathsMask(now);
            for (int q = 0; q < Math.min(seen, Long.SIZE); q++) {
                if ((answered >>> q & 1) == 0) {
                    continue;
                }
                boolean carries = (mask >>> q & 1) != 0;
                notCarrying += carries ? 0 : 1;
                String at = "path " + q + " at " + now + ", step " + step + " (" + where + ")";
                assertThat(asked.carriesNewData(q, now)).as("asked alone, %s, mask %s", at, Long.toBinaryString(mask)).isEqualTo(carries);
                assertThat(masked.carriesNewData(q, now)).as("asked after the mask, %s", at).isEqualTo(carries);
                if (rnd.nextBoolean()) {
                    // The walks ask the other questions between these: they change no answer of the set.
                    for (AimdController cc : both) {
                        cc.sendAllowanceBytes(q, now);
                        cc.nextSendTimeNanos(q, now);
                        cc.allowanceQuestionSettled(q, now);
                    }
                }
            }
            assertThat(masked.newDataPathsAnswered()).as("answered paths after the questions, step %d (%s)", step, where)
                    .isEqualTo(answered);
            assertThat(masked.newDataPathsMask(now)).as("mask asked again, step %d (%s)", step, where).isEqualTo(mask);
        }
    }
}
