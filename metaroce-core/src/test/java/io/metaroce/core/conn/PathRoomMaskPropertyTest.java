package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import io.metaroce.core.api.PathState;
import io.metaroce.core.harness.Pair;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The next-timeout query's walk of the paths tells a path open, in service and with room in its
 * scoreboard from the mask of paths in service and a count of room kept in {@link Paths}
 * ({@link Paths#inServiceWithRoom}), not from the path's objects. This checks, after every event of
 * random lossy runs ({@link RandomConnectionRun}: paths black-holed, failed and probed back, the
 * fixed window and AIMD), on both sides and for every path, that it says what the path objects
 * say.
 */
class PathRoomMaskPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void inServiceWithRoomEqualsWhatThePathObjectsSay(long seed) {
        long[] seen = {0, 0, 0};
        RandomConnectionRun.run(seed, 29, 25, "PathRoomMaskPropertyTest", (pair, where) -> check(pair, where, seen));
        assertThat(seen[0]).as("seed %d: paths found in service with room", seed).isPositive();
    }

    /**
     * A path black-holed for longer than its scoreboard's room lasts fills it (64 transmissions,
     * the least {@code pathWindowPackets} allowed) and is emptied by the retransmission timeout:
     * the count of room kept in {@link Paths} runs out and is read again from the scoreboard, and
     * stays equal to what the scoreboard says throughout.
     */
    @org.junit.jupiter.api.Test
    void aFullScoreboardIsToldAsTheScoreboardTellsIt() {
        long[] seen = {0, 0, 0};
        RandomConnectionRun.blackHoledPathFillsItsScoreboard(23, (pair, where) -> check(pair, where, seen));
        assertThat(seen[2]).as("paths found in service with a full scoreboard").isPositive();
    }

    private static void check(Pair pair, String where, long[] seen) {
        if (pair.clientConnection() == null) {
            return;
        }
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            Paths paths = c.pathsForTest();
            for (int i = 0; i < paths.count(); i++) {
                Path p = paths.get(i);
                boolean expected = p != null && PathState.inService(p.state) && p.scoreboard.hasRoom();
                assertThat(paths.inServiceWithRoom(i)).as("%s side at t=%d, path %d (%s)",
                        c.isClient() ? "client" : "server", pair.now(), i, where).isEqualTo(expected);
                seen[expected ? 0 : 1]++;
                if (p != null && PathState.inService(p.state) && !p.scoreboard.hasRoom()) {
                    seen[2]++;
                }
            }
        }
    }
}
