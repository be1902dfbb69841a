package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.ForwardingController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-42] With paths for the share on, an AIMD controller asked every connection to be asked
 * again at every call of its endpoint until the connection's first hint
 * ({@code allowanceQuestionChangesNanos} {@link Long#MIN_VALUE}, no allowance question settled),
 * because the first question judges the announced share's freshness. It now does so only while
 * that judgement is still to come after an announcement: a server's connections (told no
 * announcement) and a client's once judged are asked as with the rule off. The endpoint must serve
 * them exactly as before. Each case runs one random history twice, from its seed: many client
 * connections over 2 to 8 paths to one server, AIMD with the simulator's settings, the rule at 1 to
 * 3, a lossy, reordering, CE-marking network, sometimes a busy NIC, WRITEs and READs (the server
 * sends the READ responses) posted over time, pauses. The second run's controllers give the former
 * answers (until the controller hears its first hint). Every packet each controller is told of
 * (sent, acknowledged, lost; path, bytes, time), every hint and every completion (with its time)
 * must be the same in both runs.
 *
 * <p>{@code -Dmetaroce.property.cases=N} (default 12) runs more; a failure names its seed.
 */
class FirstQuestionRecheckPropertyTest {
    private static final long US = 1_000;
    private static final int SIZE = 1 << 20;
    /** Questions the former answers asked again at every call where the new ones did not, over every case. */
    private static long answersThatDiffered;
    /** Masks of the paths taking new data read by the walks, over every case of the mask's test. */
    private static long masksRead;

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @AfterAll
    static void theAnswersDifferedSomewhere() {
        // Otherwise the two runs compared the same schedule and proved nothing.
        assertThat(answersThatDiffered).as("questions answered 'at every call' only by the former rule").isPositive();
        assertThat(masksRead).as("masks of the paths taking new data read").isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theServersAndJudgedClientsAskedLessOftenSendTheSame(long seed) {
        Run now = run(seed, false, false);
        Run before = run(seed, true, false);
        System.out.println("FirstQuestionRecheckPropertyTest " + now.where + ": " + now.trace.size() / 4 + " controller calls, "
                + now.completions.size() / 3 + " completions, " + before.differed + " answers differed");
        answersThatDiffered += before.differed;
        assertSame(now, before);
    }

    /**
     * The same histories with the walks over a connection's paths (the pacing walk, the writer's
     * path choice) reading which paths take new data from the controller's mask
     * ({@code newDataPathsMask}) and with them asking {@code carriesNewData} path by path: the
     * same packets, verdicts, hints and completions at the same times.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theWalksReadingTheNewDataMaskSendAsWhenAskingPathByPath(long seed) {
        Run masked = run(seed, false, false);
        Run perPath = run(seed, false, true);
        masksRead += masked.differed;
        assertSame(masked, perPath);
    }

    private static void assertSame(Run now, Run before) {
        String where = now.where;
        assertThat(now.completions.size()).as("completions, %s", where).isEqualTo(before.completions.size());
        assertThat(now.trace.size()).as("controller calls, %s", where).isEqualTo(before.trace.size());
        for (int i = 0; i < now.trace.size(); i += 4) {
            int at = i;
            assertThat(now.trace.subList(i, i + 4)).as(() -> "controller call " + at / 4 + " (controller, kind, path/bytes, time), "
                    + where).isEqualTo(before.trace.subList(i, i + 4));
        }
        assertThat(now.completions).as("completions (work request, status, time), %s", where).isEqualTo(before.completions);
    }

    /** What one run did, in order. */
    private record Run(String where, LongArrayList trace, LongArrayList completions, long differed) {
    }

    /**
     * The case of {@code seed}; with {@code formerAnswers}, the controllers answer as before the
     * change; with {@code perPath}, they answer no path by the new-data mask. {@code differed}: the
     * former answers that differed, or without them the masks read.
     */
    private static Run run(long seed, boolean formerAnswers, boolean perPath) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0xF125);
        int paths = 2 + rnd.nextInt(7);
        int min = 1 + rnd.nextInt(3);
        long nicNanos = rnd.nextBoolean() ? 0 : 500 + rnd.nextLong(3_500);
        EngineConfig config = MetaroceProtocol.simulatorConfig().toBuilder().aimdPathsForShareMin(min)
                .receiveCapacityBytesPerSecond(200_000_000L).build();
        NetworkConditions net = new NetworkConditions(rnd.nextDouble() * 0.03, rnd.nextDouble() * 0.01, 0,
                2_000 + rnd.nextLong(20_000), rnd.nextLong(3_000), rnd.nextLong(10_000), rnd.nextDouble() * 0.2);
        String where = "seed " + seed + ", " + paths + " paths, m " + min + ", " + net + ", NIC " + nicNanos + " ns a datagram";
        LongArrayList trace = new LongArrayList();
        LongArrayList completions = new LongArrayList();
        long[] differed = {0};
        int[] made = {0};
        SplittableRandom phases = new SplittableRandom(seed ^ 0x5DEECE66DL);
        Function<EngineConfig, CongestionController> controllers = c -> new Recorder(
                new AimdController(c, phases.split()), made[0]++, trace, formerAnswers, differed, perPath);
        Pair[] pair = new Pair[1];
        pair[0] = Pair.create(seed, paths, net, config, controllers, controllers)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> completions.addAll(List.of(w, (long) st, pair[0].now())))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> completions.addAll(List.of(w, (long) st, pair[0].now())))
                .nicNanosPerDatagram(nicNanos)
                .connect();
        Pair p = pair[0];
        Endpoint client = p.client();
        MemoryRegion clientMem = TestMemory.region(client, SIZE, Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(p.server(), SIZE, Access.ALL, rnd.nextLong());
        List<Connection> opened = new ArrayList<>();
        opened.add(p.clientConnection());
        int[] sockets = new int[paths];
        for (int i = 0; i < paths; i++) {
            sockets[i] = i;
        }
        int target = 8 + rnd.nextInt(40);
        int ops = 100 + rnd.nextInt(200);
        long posted = 0;
        for (int op = 0; op < ops; op++) {
            int what = rnd.nextInt(100);
            if (what < 12 && opened.size() < target) {
                opened.add(client.connect(p.now(), Pair.SERVER_ADDRESS, sockets));
            } else if (what < 85) {
                Connection c = opened.get(rnd.nextInt(opened.size()));
                if (RandomPosts.readOrWrite(rnd, c, op, clientMem, serverMem, SIZE)) {
                    posted++;
                }
            } else {
                p.advance(rnd.nextLong(200 * US));
                continue;
            }
            int steps = 1 + rnd.nextInt(20);
            for (int i = 0; i < steps && p.step(); i++) {
                // events only
            }
        }
        long deadline = p.now() + 20_000_000_000L;
        while (completions.size() / 3 < posted && p.now() < deadline && p.step()) {
            // until every work request completed
        }
        assertThat(completions.size() / 3).as("work requests completed, %s", where).isGreaterThanOrEqualTo((int) posted);
        return new Run(where, trace, completions, differed[0]);
    }

    /**
     * Forwards every call and records, in order, what the engine tells the controller that moves
     * its state (sent, acknowledged, lost, hints). With {@code formerAnswers} it also answers the
     * schedule's two questions as the controller did before the change: at every call, and never
     * settled, until its first hint.
     */
    private static final class Recorder extends ForwardingController {
        private final long id;
        private final LongArrayList trace;
        private final boolean formerAnswers;
        private final long[] differed;
        private final boolean perPath;
        private boolean hintSeen;

        Recorder(CongestionController inner, long id, LongArrayList trace, boolean formerAnswers, long[] differed,
                boolean perPath) {
            super(inner);
            this.perPath = perPath;
            this.id = id;
            this.trace = trace;
            this.formerAnswers = formerAnswers;
            this.differed = differed;
        }

        private void record(long kind, long what, long nowNanos) {
            trace.addAll(List.of(id, kind, what, nowNanos));
        }

        @Override
        public long allowanceQuestionChangesNanos(int pathId) {
            long answer = inner.allowanceQuestionChangesNanos(pathId);
            if (formerAnswers && !hintSeen) {
                if (answer != Long.MIN_VALUE) {
                    differed[0]++;
                }
                return Long.MIN_VALUE;
            }
            return answer;
        }

        @Override
        public long newDataPathsAnswered() {
            return perPath ? 0 : inner.newDataPathsAnswered();
        }

        @Override
        public long newDataPathsMask(long nowNanos) {
            if (!formerAnswers) {
                differed[0]++;
            }
            return inner.newDataPathsMask(nowNanos);
        }

        @Override
        public boolean allowanceQuestionSettled(int pathId, long nowNanos) {
            boolean answer = inner.allowanceQuestionSettled(pathId, nowNanos);
            return answer && !(formerAnswers && !hintSeen);
        }

        @Override
        public void onPacketSent(int pathId, int bytes, long nowNanos) {
            record(1, (long) pathId << 32 | bytes, nowNanos);
            super.onPacketSent(pathId, bytes, nowNanos);
        }

        @Override
        public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
            record(2, (long) pathId << 32 | bytes, nowNanos);
            super.onPacketAcked(pathId, bytes, rttNanos, nowNanos);
        }

        @Override
        public void onPacketLost(int pathId, int bytes, long nowNanos) {
            record(3, (long) pathId << 32 | bytes, nowNanos);
            super.onPacketLost(pathId, bytes, nowNanos);
        }

        @Override
        public void onRateHint(long bytesPerSecond, long nowNanos) {
            hintSeen = true;
            record(4, bytesPerSecond, nowNanos);
            super.onRateHint(bytesPerSecond, nowNanos);
        }
    }
}
