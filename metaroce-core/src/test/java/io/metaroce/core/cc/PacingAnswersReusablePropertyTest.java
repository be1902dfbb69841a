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

    /**
     * [SPEC-CC-42] before the first ACK: with the rule on ({@code aimdPathsForShareMin} 1 to 3) and
     * a small share announced in ACCEPT ([SPEC-CC-28]) that goes stale (two fair-share periods)
     * before the receiver's first ACK, and sometimes renewed ([SPEC-CONN-17]), the answers asked at
     * a later time follow from the earlier ones as above, up to well past the announcement's
     * lifetime, and so does {@link CongestionController#carriesNewData}: the announcement's
     * freshness is judged once, at the connection's first question, not at every question. With and
     * without a random source, a first-flight cap and its spread, and the announced first round
     * trip ([SPEC-CC-43]).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void withTheShareRuleAnAnnouncementGoingStaleBeforeTheFirstAckChangesNoAnswer(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 42);
        int paths = 4 + rnd.nextInt(5); // more than the share's paths, at most 3
        long period = 2_000 + rnd.nextLong(30_000);
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdPathsForShareMin(1 + rnd.nextInt(3))
                .fairSharePeriodNanos(period).aimdFirstFlightBytes(rnd.nextBoolean() ? 0 : 4_096)
                .aimdFirstFlightSpreadNanos(rnd.nextBoolean() ? 0 : 20_000)
                .aimdAnnouncedFirstRoundTrip(rnd.nextBoolean()).build();
        boolean seeded = rnd.nextBoolean();
        AimdController cc = seeded ? new AimdController(config, new SplittableRandom(seed)) : new AimdController(config);
        cc.onConnectionId(rnd.nextLong());
        long lifetime = 2 * period;
        int hintStep = 20 + rnd.nextInt(200);
        String where = "seed " + seed + ", " + paths + " paths, " + config.aimdPathsForShareMin() + " for the share, "
                + (seeded ? "a random source" : "no random source") + ", announcement lifetime " + lifetime
                + " ns, first ACK at step " + hintStep;
        long now = 1_000_000;
        // A share of 0.5 to 3 datagrams per initial RTT: fewer paths than the connection has.
        double datagramsPerRtt = 0.5 + 2.5 * rnd.nextDouble();
        cc.onAnnouncedShare((long) (datagramsPerRtt * config.maxDatagramBytes() * 1e9 / config.initialRttNanos()), now);
        // The connection's first question for a send time draws its first packet's start, the
        // share's offset with it, and may size its first round trip ([SPEC-CC-43]): "once asked".
        cc.nextSendTimeNanos(0, now);
        int fewer = 0;
        for (int step = 0; step < 400; step++) {
            int p = rnd.nextInt(paths);
            int bytes = 64 + rnd.nextInt(4_200);
            if (step > 0) {
                switch (rnd.nextInt(8)) {
                    case 0, 1, 2 -> cc.onPacketSent(p, bytes, now);
                    case 3 -> cc.onPacketAcked(p, bytes, rnd.nextBoolean() ? 1_000 + rnd.nextLong(50_000) : -1, now);
                    case 4 -> cc.onPacketLost(p, bytes, now);
                    case 5 -> cc.onEcnFeedback(p, 4, rnd.nextLong(5), now);
                    case 6 -> {
                        if (rnd.nextInt(8) == 0) {
                            cc.onAnnouncedShare((long) (datagramsPerRtt * config.maxDatagramBytes() * 1e9
                                    / config.initialRttNanos()), now);
                        }
                    }
                    default -> {
                        if (step >= hintStep) {
                            cc.onRateHint(rnd.nextInt(4) == 0 ? 0 : 100_000_000L + rnd.nextLong(2_000_000_000L), now);
                        }
                    }
                }
                now += rnd.nextLong(lifetime / 4 + 1);
            }
            int carrying = 0;
            for (int q = 0; q < paths; q++) {
                long allowance = cc.sendAllowanceBytes(q, now);
                long next = cc.nextSendTimeNanos(q, now);
                boolean carries = cc.carriesNewData(q, now);
                carrying += carries ? 1 : 0;
                long later = now + rnd.nextLong(1 + rnd.nextLong(3 * lifetime));
                String at = "path " + q + " at " + now + " then " + later + ", step " + step + " (" + where + ")";
                assertThat(cc.sendAllowanceBytes(q, later)).as("allowance of %s", at).isEqualTo(allowance);
                long expected = next > now ? Math.max(next, later) : later;
                assertThat(cc.nextSendTimeNanos(q, later)).as("next send time of %s", at).isEqualTo(expected);
                assertThat(cc.carriesNewData(q, later)).as("new data on %s", at).isEqualTo(carries);
            }
            if (carrying < paths) {
                fewer++;
            }
        }
        assertThat(fewer).as("steps with fewer paths taking new data than in service (%s)", where).isPositive();
    }
}
