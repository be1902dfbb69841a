package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link CongestionController#allowanceQuestionSettled}: once a controller says the allowance
 * question of a path is settled, asking it again (at the same time or later, before any
 * {@code on...} call) changes nothing. Two controllers built alike live the same random history
 * (sends, acknowledgements with RTT samples, losses, discards, ECN feedback, rate hints, paths
 * failed and restored, ECN and delay marking, with and without a seeded first-flight spread); the
 * second is also asked again, at later times, every question the first calls settled. Their
 * answers (allowances, send times, windows, pacing rates) and every field they hold must stay
 * the same throughout: an answer of "settled" where a repeated question still marks a window as
 * holding its path back shows at once (that mark decides window growth under a rate hint).
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 40) runs
 * more and a failure names its seed.
 */
class AllowanceQuestionSettledPropertyTest {
    /** Settled questions over every case run, by controller class: each must have asked one again. */
    private static final java.util.Map<String, Long> SETTLED_BY_KIND = new java.util.TreeMap<>();
    /** Questions not settled (allowance used up) over every case run, by controller class. */
    private static final java.util.Map<String, Long> UNSETTLED_BY_KIND = new java.util.TreeMap<>();

    static LongStream seeds() {
        return PropertySeeds.of(40);
    }

    @AfterAll
    static void someQuestionsWereSettled() {
        // Both kinds must be exercised: a history whose acks and losses drive the bytes in
        // flight below zero leaves a fixed window always open and tests nothing.
        for (String kind : java.util.List.of("AimdController", "FixedWindowController")) {
            assertThat(SETTLED_BY_KIND.getOrDefault(kind, 0L)).as("settled questions asked again of %s", kind).isPositive();
        }
        // A fixed window's question is always settled (nothing but an on... call changes its
        // answer); the AIMD controller's is not while pacing or a held-back mark may still move.
        assertThat(UNSETTLED_BY_KIND.getOrDefault("AimdController", 0L)).as("unsettled questions asked of AimdController")
                .isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSettledQuestionAskedAgainChangesNothing(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 5);
        int paths = 1 + rnd.nextInt(8);
        int kind = rnd.nextInt(4);
        EngineConfig config = kind == 3 ? MetaroceProtocol.simulatorConfig() : EngineConfig.defaults();
        // A fixed window small enough that the random sends use it up.
        long fixedWindow = 4_096 + rnd.nextInt(16_384);
        long burst = 1 + rnd.nextInt(16_384);
        CongestionController a = controller(kind, config, seed, fixedWindow, burst);
        CongestionController b = controller(kind, config, seed, fixedWindow, burst);
        String where = "seed " + seed + ", " + paths + " paths, " + a.getClass().getSimpleName() + ", kind " + kind;
        long now = 1_000_000;
        boolean[] failed = new boolean[paths];
        // Only bytes in flight are acknowledged, lost or discarded, as a sender reports them.
        long[] inFlight = new long[paths];
        int settled = 0;
        int repeatsThatMattered = 0;
        for (int step = 0; step < 3_000; step++) {
            int p = rnd.nextInt(paths);
            int event = rnd.nextInt(10);
            int bytes = 64 + rnd.nextInt(4_200);
            if (event >= 3 && event <= 6) {
                bytes = (int) Math.min(bytes, inFlight[p]);
                if (bytes == 0) {
                    event = 0; // nothing in flight on the path to answer for: send instead
                    bytes = 64 + rnd.nextInt(4_200);
                }
            }
            if (event <= 2) {
                inFlight[p] += bytes;
            } else if (event <= 6) {
                inFlight[p] -= bytes;
            }
            long rtt = rnd.nextBoolean() ? 1_000 + rnd.nextLong(50_000) : -1;
            long ect = rnd.nextLong(16);
            long ce = rnd.nextLong(ect + 1);
            long hint = rnd.nextInt(4) == 0 ? 0 : 100_000_000L + rnd.nextLong(12_000_000_000L);
            for (CongestionController cc : new CongestionController[] {a, b}) {
                switch (event) {
                    case 0, 1, 2 -> cc.onPacketSent(p, bytes, now);
                    case 3, 4 -> cc.onPacketAcked(p, bytes, rtt, now);
                    case 5 -> cc.onPacketLost(p, bytes, now);
                    case 6 -> cc.onPacketDiscarded(p, bytes, now);
                    case 7 -> cc.onEcnFeedback(p, ect, ce, now);
                    case 8 -> cc.onRateHint(hint, now);
                    default -> {
                        if (failed[p]) {
                            cc.onPathRestored(p, now);
                        } else {
                            cc.onPathFailed(p, now);
                        }
                    }
                }
            }
            if (event == 9) {
                failed[p] = !failed[p];
            }
            now += rnd.nextLong(3_000);
            for (int q = 0; q < paths; q++) {
                String at = "path " + q + " at " + now + ", step " + step + " (" + where + ")";
                long allowance = a.sendAllowanceBytes(q, now);
                assertThat(b.sendAllowanceBytes(q, now)).as("allowance of %s", at).isEqualTo(allowance);
                assertThat(b.nextSendTimeNanos(q, now)).as("next send time of %s", at).isEqualTo(a.nextSendTimeNanos(q, now));
                if (allowance <= 0 && a.allowanceQuestionSettled(q, now)) {
                    settled++;
                    assertThat(b.allowanceQuestionSettled(q, now)).as("settled for both, %s", at).isTrue();
                    for (int k = 0; k < 3; k++) {
                        b.sendAllowanceBytes(q, now + rnd.nextLong(1 + rnd.nextLong(50_000)));
                    }
                } else if (allowance <= 0) {
                    repeatsThatMattered++;
                }
                if (a instanceof AimdController aa && b instanceof AimdController bb) {
                    assertThat(bb.windowBytes(q)).as("window of %s", at).isEqualTo(aa.windowBytes(q));
                    assertThat(bb.pacingRateBytesPerSecond(q)).as("pacing rate of %s", at)
                            .isEqualTo(aa.pacingRateBytesPerSecond(q));
                }
            }
            // Everything the controllers hold, not only what they answer: a flag a repeated
            // question set shows here at once, before it changes any answer.
            assertThat(state(b)).as("state after step %d (%s)", step, where).isEqualTo(state(a));
        }
        SETTLED_BY_KIND.merge(a.getClass().getSimpleName(), (long) settled, Long::sum);
        UNSETTLED_BY_KIND.merge(a.getClass().getSimpleName(), (long) repeatsThatMattered, Long::sum);
        System.out.println("AllowanceQuestionSettledPropertyTest " + where + ": " + settled + " settled, "
                + repeatsThatMattered + " not");
    }

    /** Every primitive field and primitive array of {@code cc}, by name, as text. */
    private static java.util.Map<String, String> state(CongestionController cc) {
        java.util.Map<String, String> fields = new java.util.TreeMap<>();
        for (java.lang.reflect.Field f : cc.getClass().getDeclaredFields()) {
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            f.setAccessible(true);
            try {
                Object v = f.get(cc);
                if (f.getType().isPrimitive()) {
                    fields.put(f.getName(), String.valueOf(v));
                } else if (v instanceof long[] l) {
                    fields.put(f.getName(), java.util.Arrays.toString(l));
                } else if (v instanceof boolean[] z) {
                    fields.put(f.getName(), java.util.Arrays.toString(z));
                } else if (v instanceof int[] i) {
                    fields.put(f.getName(), java.util.Arrays.toString(i));
                } else if (v instanceof double[] d) {
                    fields.put(f.getName(), java.util.Arrays.toString(d));
                }
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return fields;
    }

    private static CongestionController controller(int kind, EngineConfig config, long seed, long fixedWindowBytes,
            long burstBytes) {
        return switch (kind) {
            case 0 -> new AimdController(config);
            case 1, 3 -> new AimdController(config, new SplittableRandom(seed));
            default -> new FixedWindowController(fixedWindowBytes, burstBytes);
        };
    }
}
