package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.harness.Pair;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PathPacingInputs}, the per-path inputs of the pacing term a sender keeps between
 * next-timeout queries, against the pacing term computed from the paths themselves
 * ({@code Sender#nextPacedSendNanosUncached}). The term is recomputed from the kept inputs (never an
 * answer reused by the connection) after a random one event in four, so that the marks of several
 * inputs on several paths (DATA, ACKs, sends, timer passes, posts, paths failing and probed back)
 * pile up before it is read; both the time and the paths found without allowance (which the
 * connection asks again while it reuses the answer) must be equal. The runs are those of
 * {@link RandomConnectionRun}.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 16) runs
 * more and a failure names its seed.
 */
class PathPacingInputsPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(16);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void pacingTermFromKeptInputsEqualsTheOneFromThePaths(long seed) {
        SplittableRandom when = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        int[] asked = {0};
        Pair pair = RandomConnectionRun.run(seed, 23, 30, "PathPacingInputsPropertyTest", (p, where) -> {
            if (when.nextInt(4) != 0) {
                return;
            }
            for (Connection c : new Connection[] {p.clientConnection(), p.serverConnection()}) {
                if (c.state() != ConnectionState.ESTABLISHED && c.state() != ConnectionState.CLOSE_PENDING) {
                    continue;
                }
                asked[0]++;
                long now = p.now();
                String side = c.isClient() ? "client" : "server";
                long kept = c.pacedSendNanosRecomputedForTest(now);
                long keptExhausted = c.senderForTest().exhaustedPathsForTest();
                long fromPaths = c.senderForTest().nextPacedSendNanosUncached(now, true);
                assertThat(kept).as("%s side's pacing term at t=%d (%s)", side, now, where).isEqualTo(fromPaths);
                assertThat(keptExhausted).as("%s side's paths without allowance at t=%d (%s)", side, now, where)
                        .isEqualTo(c.senderForTest().exhaustedPathsForTest());
            }
        });
        assertThat(asked[0]).as("seed %d: questions asked", seed).isPositive();
        assertThat(pair.clientConnection().state()).as("the run reached its end, seed %d", seed)
                .isEqualTo(ConnectionState.CLOSED);
    }
}
