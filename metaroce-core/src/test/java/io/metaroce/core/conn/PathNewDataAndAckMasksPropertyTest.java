package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import io.metaroce.core.api.PathState;
import io.metaroce.core.harness.Pair;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two things {@link Paths} keeps so that the per-packet walks of the paths need not read path
 * objects: which paths may take new data and have room ({@link Paths#usableForNewDataWithRoom},
 * the choice of a path for new data) and each path's ACK deadline ({@link Paths#ackDeadlineNanos},
 * the transmit poll's look for a due ACK), which every open path's receive tracker keeps up to
 * date. After every event of random lossy runs ({@link RandomConnectionRun}: paths black-holed,
 * SUSPECT, failed and probed back, one path alone among them), on both sides and for every path,
 * each must say what the simple model, the path objects, says: {@code p != null &&
 * usableForNewData(p) && p.scoreboard.hasRoom()}, and the tracker's {@code ackDeadlineNanos()}
 * ({@link Long#MAX_VALUE} without a path) with {@code ackDue(now)} exactly when it has come.
 */
class PathNewDataAndAckMasksPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theKeptAnswersEqualWhatThePathObjectsSay(long seed) {
        long[] seen = new long[SEEN];
        RandomConnectionRun.run(seed, 31, 25, "PathNewDataAndAckMasksPropertyTest", (pair, where) -> check(pair, where, seen));
        assertThat(seen[USABLE]).as("seed %d: paths found usable for new data with room", seed).isPositive();
        assertThat(seen[ACK_PENDING]).as("seed %d: paths found with an ACK held back", seed).isPositive();
    }

    /** Over all seeds, a SUSPECT path alone in service (no path ACTIVE) was found usable for new data. */
    @Test
    void aSuspectPathAloneInServiceIsUsableForNewData() {
        long[] seen = new long[SEEN];
        PropertySeeds.of(12).forEach(seed -> RandomConnectionRun.run(seed, 31, 25, "PathNewDataAndAckMasksPropertyTest",
                (pair, where) -> check(pair, where, seen)));
        assertThat(seen[SUSPECT_USABLE]).as("SUSPECT paths usable for new data while none is ACTIVE").isPositive();
        assertThat(seen[ACK_DUE]).as("held-back ACKs asked about at their deadline").isPositive();
    }

    /**
     * A path black-holed for longer than its scoreboard's room lasts fills it (64 transmissions)
     * while the other path stays ACTIVE: the path without room is told as the scoreboard tells it,
     * and the kept ACK deadlines follow both paths' trackers throughout (checked, not counted: the
     * default settings acknowledge these small WRITEs before the next event).
     */
    @Test
    void aFullScoreboardAndHeldBackAcksAreToldAsThePathObjectsTellThem() {
        long[] seen = new long[SEEN];
        RandomConnectionRun.blackHoledPathFillsItsScoreboard(29, (pair, where) -> check(pair, where, seen));
        assertThat(seen[FULL]).as("ACTIVE paths found with a full scoreboard").isPositive();
    }

    private static final int USABLE = 0;
    private static final int FULL = 1;
    private static final int SUSPECT_USABLE = 2;
    private static final int ACK_PENDING = 3;
    private static final int ACK_DUE = 4;
    private static final int SEEN = 5;

    private static void check(Pair pair, String where, long[] seen) {
        if (pair.clientConnection() == null) {
            return;
        }
        long now = pair.now();
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            Paths paths = c.pathsForTest();
            String side = c.isClient() ? "client" : "server";
            for (int i = 0; i < paths.count(); i++) {
                Path p = paths.get(i);
                boolean usable = p != null && paths.usableForNewData(p);
                boolean expected = usable && p.scoreboard.hasRoom();
                assertThat(paths.usableForNewDataWithRoom(i)).as("%s side at t=%d, path %d (%s): usable for new data"
                        + " with room", side, now, i, where).isEqualTo(expected);
                long deadline = p == null ? Long.MAX_VALUE : p.receiveTracker.ackDeadlineNanos();
                assertThat(paths.ackDeadlineNanos(i)).as("%s side at t=%d, path %d (%s): ACK deadline", side, now, i,
                        where).isEqualTo(deadline);
                // The transmit poll's test: an ACK is due at t exactly when the kept deadline has come.
                // The driver sends a due ACK before the next event, so it is also asked at the
                // instants around a held-back ACK's deadline.
                for (long t : new long[] {now, deadline - 1, deadline}) {
                    if (t < now || deadline == Long.MAX_VALUE && t != now) {
                        continue;
                    }
                    boolean due = p != null && p.receiveTracker.ackDue(t);
                    assertThat(paths.ackDeadlineNanos(i) <= t).as("%s side at t=%d, path %d (%s): ACK due at %d", side,
                            now, i, where, t).isEqualTo(due);
                    seen[ACK_DUE] += due ? 1 : 0;
                }
                seen[USABLE] += expected ? 1 : 0;
                seen[FULL] += p != null && p.state == PathState.ACTIVE && !p.scoreboard.hasRoom() ? 1 : 0;
                seen[SUSPECT_USABLE] += usable && p.state == PathState.SUSPECT ? 1 : 0;
                seen[ACK_PENDING] += deadline != Long.MAX_VALUE && deadline > now ? 1 : 0;
            }
        }
    }
}
