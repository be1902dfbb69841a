package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.harness.Pair;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Connection#nextTimeoutNanos} keeps its timer deadlines cached between calls, so that a
 * driver asking after every input does not walk every path each time. This checks that the
 * cache is never stale: after every event of a randomly generated run (lossy, reordering and
 * CE-marking network, paths black-holed for a while so that they fail and are probed back, SENDs,
 * WRITEs and READs posted over time, then a close or an abort), each side's cached answer
 * equals the one recomputed from scratch.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 12) runs
 * more and a failure names its seed.
 */
class TimeoutCachePropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void cachedDeadlinesEqualRecomputedOnesAfterEveryEvent(long seed) {
        Pair pair = RandomConnectionRun.run(seed, 5, 30, "TimeoutCachePropertyTest", TimeoutCachePropertyTest::check);
        assertThat(pair.clientConnection().state()).as("the run reached its end, seed %d", seed)
                .isEqualTo(ConnectionState.CLOSED);
    }

    /**
     * The pacing term asked for again once it has come with nothing changed (a simulated host's
     * timer wake-up while its NIC is still busy, most timer wake-ups of a permutation): the cached
     * term is due then, so the connection must recompute it rather than reuse it. After every
     * event, each side is asked at the time of its own previous answer, a few times over, and
     * each answer must equal the one recomputed from scratch at that time.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void pacingTermAskedAgainWhenItHasComeEqualsRecomputedOne(long seed) {
        RandomConnectionRun.run(seed, 5, 30, "TimeoutCachePropertyTest", TimeoutCachePropertyTest::checkLater);
    }

    private static void checkLater(Pair pair, String where) {
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            long t = pair.now();
            for (int i = 0; i < 4; i++) {
                long cached = c.nextTimeoutNanos(t);
                assertThat(cached).as("%s side asked at t=%d, step %d (%s)", c.isClient() ? "client" : "server",
                        t, i, where).isEqualTo(c.nextTimeoutNanosUncached(t));
                if (cached == Long.MAX_VALUE || cached <= t) {
                    break;
                }
                t = cached;
            }
        }
    }

    private static void check(Pair pair, String where) {
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            long now = pair.now();
            // Twice: the first call may fill the cache, the second must answer from it.
            for (int i = 0; i < 2; i++) {
                assertThat(c.nextTimeoutNanos(now)).as("%s side at t=%d (%s)", c.isClient() ? "client" : "server",
                        now, where).isEqualTo(c.nextTimeoutNanosUncached(now));
            }
        }
    }
}
