package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.harness.Pair;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PathDeadlines}, the per-path deadlines a connection keeps between next-timeout queries,
 * against {@code Connection#deadlinesNanos} recomputed from scratch. Unlike
 * {@link TimeoutCachePropertyTest}, which asks after every event (so at most one input's marks
 * are pending), this asks only after a random few events: the marks of several inputs on several
 * paths (DATA, ACKs, sends, timer passes, posts) pile up before an answer is computed from them.
 * The runs are those of {@link RandomConnectionRun}: lossy, reordering, CE-marking, one path
 * black-holed for a while so that it fails and is probed back, then a close or an abort.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 12) runs
 * more and a failure names its seed.
 */
class PathDeadlinesPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void deadlinesAfterSeveralInputsEqualRecomputedOnes(long seed) {
        SplittableRandom when = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int[] asked = {0};
        Pair pair = RandomConnectionRun.run(seed, 11, 30, "PathDeadlinesPropertyTest", (p, where) -> {
            // About one event in eight: whatever the events between two questions marked must be
            // recomputed, and nothing else may have changed.
            if (when.nextInt(8) != 0) {
                return;
            }
            asked[0]++;
            for (Connection c : new Connection[] {p.clientConnection(), p.serverConnection()}) {
                long now = p.now();
                long expected = c.nextTimeoutNanosUncached(now);
                assertThat(c.nextTimeoutNanos(now)).as("%s side at t=%d (%s)", c.isClient() ? "client" : "server",
                        now, where).isEqualTo(expected);
            }
        });
        assertThat(asked[0]).as("seed %d: questions asked", seed).isPositive();
        assertThat(pair.clientConnection().state()).as("the run reached its end, seed %d", seed)
                .isEqualTo(ConnectionState.CLOSED);
    }
}
