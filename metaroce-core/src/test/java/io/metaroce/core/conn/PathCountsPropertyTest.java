package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import io.metaroce.core.api.PathState;
import io.metaroce.core.harness.Pair;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The counts {@link Paths} keeps so that the transmit poll and the pacing query can skip their
 * per-path scans: the CSNs queued for retransmission over all open paths
 * ({@link Paths#queuedRetransmissions}) and whether every open path is ACTIVE
 * ({@link Paths#allOpenActive}). Checked two ways: against a reference model (one plain deque per
 * path, recounted at every step) under random opens, replacements, queueing, polling, moves
 * between paths, state changes and grants; and after every event of the lossy runs of
 * {@link RandomConnectionRun}, where losses queue retransmissions, a black-holed path fails and
 * hands its queue to another path, and the writer takes them.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} runs more and a
 * failure names its seed.
 */
class PathCountsPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(200);
    }

    static LongStream runSeeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void countsMatchAReferenceModel(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        EngineConfig config = EngineConfig.defaults();
        int count = 1 + rnd.nextInt(70); // beyond 64 too: nothing here is a bit mask
        Paths paths = new Paths(count);
        int granted = count;
        List<ArrayDeque<Long>> model = new ArrayList<>();
        Path[] open = new Path[count];
        for (int i = 0; i < count; i++) {
            model.add(new ArrayDeque<>());
        }
        long csn = 0;
        int maxQueued = 0;
        for (int step = 0; step < 400; step++) {
            int id = rnd.nextInt(granted);
            String at = "seed " + seed + ", step " + step;
            switch (rnd.nextInt(8)) {
                case 0 -> { // open, or reopen (replace) a path
                    Path p = new Path(id, 1, "peer", config);
                    paths.open(p);
                    open[id] = p;
                    model.get(id).clear();
                }
                case 1, 2 -> {
                    if (open[id] != null) {
                        paths.queueRetransmission(open[id], csn);
                        model.get(id).addLast(csn++);
                    }
                }
                case 3 -> {
                    if (open[id] != null && !model.get(id).isEmpty()) {
                        assertThat(paths.pollRetransmission(open[id])).as(at).isEqualTo(model.get(id).pollFirst());
                    }
                }
                case 4 -> { // a failed path's queue moves to another, as PathHealth does
                    int to = rnd.nextInt(granted);
                    if (to != id && open[id] != null && open[to] != null) {
                        while (!open[id].retransmitQueue.isEmpty()) {
                            paths.queueRetransmission(open[to], paths.pollRetransmission(open[id]));
                            model.get(to).addLast(model.get(id).pollFirst());
                        }
                    }
                }
                case 5, 6 -> {
                    if (open[id] != null) {
                        paths.state(open[id], rnd.nextInt(4)); // ACTIVE, SUSPECT, FAILED, PROBING
                    }
                }
                default -> {
                    if (rnd.nextInt(20) == 0) { // the server grants fewer paths
                        int g = 1 + rnd.nextInt(granted);
                        paths.limitTo(g);
                        for (int i = g; i < granted; i++) {
                            open[i] = null;
                            model.get(i).clear();
                        }
                        granted = g;
                    }
                }
            }
            int queued = 0;
            boolean allActive = true;
            for (int i = 0; i < granted; i++) {
                if (open[i] != null) {
                    queued += model.get(i).size();
                    assertThat(open[i].retransmitQueue.size()).as(at).isEqualTo(model.get(i).size());
                    allActive &= open[i].state == PathState.ACTIVE;
                }
            }
            maxQueued = Math.max(maxQueued, queued);
            assertThat(paths.queuedRetransmissions()).as(at).isEqualTo(queued);
            assertThat(paths.allOpenActive()).as(at).isEqualTo(allActive);
        }
        assertThat(maxQueued).as("seed %d queued something", seed).isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("runSeeds")
    void countsMatchThePathsAfterEveryEventOfARun(long seed) {
        int[] seen = {0, 0};
        boolean[] aimd = {false};
        Pair pair = RandomConnectionRun.run(seed, 23, 30, "PathCountsPropertyTest", 0.06, (p, where) -> {
            for (Connection c : new Connection[] {p.clientConnection(), p.serverConnection()}) {
                Paths paths = c.pathsForTest();
                int queued = 0;
                boolean allActive = true;
                for (int i = 0; i < paths.count(); i++) {
                    Path path = paths.get(i);
                    if (path != null) {
                        queued += path.retransmitQueue.size();
                        allActive &= path.state == PathState.ACTIVE;
                    }
                }
                assertThat(paths.queuedRetransmissions()).as("%s side (%s)", c.isClient() ? "client" : "server", where)
                        .isEqualTo(queued);
                assertThat(paths.allOpenActive()).as("%s side (%s)", c.isClient() ? "client" : "server", where)
                        .isEqualTo(allActive);
                seen[0] += queued > 0 ? 1 : 0;
                seen[1] += allActive ? 0 : 1;
                aimd[0] = where.contains("AIMD true");
            }
        });
        assertThat(pair.clientConnection().state()).as("the run reached its end, seed %d", seed)
                .isEqualTo(ConnectionState.CLOSED);
        System.out.println("PathCountsPropertyTest seed " + seed + ": checks with retransmissions queued " + seen[0]
                + ", with a path not ACTIVE " + seen[1]);
        // Every case loses at least 6% of its packets, so each AIMD case must have queued
        // retransmissions while checked: a case that queues none checks the count only at zero.
        // (Behind an always-open fixed window a queued CSN is resent within the event that
        // queued it, so those cases may never be seen with one queued.)
        if (aimd[0]) {
            assertThat(seen[0]).as("checks with retransmissions queued, seed %d", seed).isPositive();
        }
    }
}
