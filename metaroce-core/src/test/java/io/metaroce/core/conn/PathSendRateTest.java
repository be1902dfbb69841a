package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * Each path's send rate ({@link PathStats#sendRateBytesPerSecond}, its utilisation; R-PATH-1,
 * [SPEC-PATH-8]) read through {@link Connection#readPathStats(int, PathStats, long)} against the
 * bytes the path actually sent, taken from its {@code bytesSent} counter after every event of the
 * in-memory pair (virtual time): the rate is the documented sliding-window measure at the time of
 * the read, close to the bytes sent over the window ending then, and 0 once the path stops sending.
 */
class PathSendRateTest {
    /** 2^16 ns (about 66 us): a 3 MB WRITE over three 10 us paths spans several windows. */
    private static final long WINDOW = 1L << 16;
    private static final int PATHS = 3;

    /** The pair plus every path's {@code bytesSent} recorded after each event, in time order. */
    private static final class Recorder {
        final Pair pair;
        final List<long[]> samples = new ArrayList<>();   // {time, bytes of path 0, 1, ...}
        final PathStats stats = new PathStats();

        Recorder(Pair pair) {
            this.pair = pair;
            sample();
        }

        void sample() {
            long[] s = new long[PATHS + 1];
            s[0] = pair.now();
            for (int i = 0; i < PATHS; i++) {
                assertThat(pair.clientConnection().readPathStats(i, stats, pair.now())).isTrue();
                s[i + 1] = stats.bytesSent;
            }
            samples.add(s);
        }

        boolean step() {
            boolean more = pair.step();
            sample();
            return more;
        }

        /** Bytes path {@code path} had sent by time {@code t} (every send at or before t). */
        long sentBy(int path, long t) {
            int lo = 0;
            int hi = samples.size();   // the first sample after t
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (samples.get(mid)[0] <= t) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo == 0 ? 0 : samples.get(lo - 1)[path + 1];
        }

        long rate(int path, long t) {
            assertThat(pair.clientConnection().readPathStats(path, stats, t)).isTrue();
            return stats.sendRateBytesPerSecond;
        }

        /**
         * Checks every path's rate at {@code t} (a time at or after the last sample) against the
         * definition of [SPEC-PATH-8] recomputed from the samples, and against the bytes really sent
         * in (t - W, t]: the two differ by at most the previous interval's bytes.
         */
        void checkAt(long t) {
            long n = Math.floorDiv(t, WINDOW);
            for (int path = 0; path < PATHS; path++) {
                long now = sentBy(path, t);
                long intervalStart = sentBy(path, n * WINDOW - 1);
                long previousStart = sentBy(path, (n - 1) * WINDOW - 1);
                long c = now - intervalStart;
                long p = intervalStart - previousStart;
                double expectedBytes = c + (double) p * ((n + 1) * WINDOW - t) / WINDOW;
                long rate = rate(path, t);
                assertThat((double) rate).as("path %d at t=%d: the sliding-window rate of [SPEC-PATH-8]", path, t)
                        .isCloseTo(expectedBytes * 1e9 / WINDOW, within(2.0));
                long reallySent = now - sentBy(path, t - WINDOW);
                assertThat(rate * (double) WINDOW / 1e9).as("path %d at t=%d: bytes over the window", path, t)
                        .isCloseTo(reallySent, within(p + 1.0));
            }
        }
    }

    /**
     * The harness's fixed-window controller with a window of {@code windowBytes}, so that a
     * transfer lasts many windows instead of leaving in a round trip of the unlimited in-memory
     * network.
     */
    private static EngineConfig config(long windowBytes) {
        return EngineConfig.builder().pathRateWindowNanos(WINDOW).congestionWindowBytes(windowBytes).build();
    }

    @Test
    void duringATransferEachPathsRateIsItsShareOfTheBytesSentOverTheWindowAndFallsTo0After() {
        int[] done = {0};
        Pair pair = Pair.create(12, PATHS, NetworkConditions.perfect().withDelay(10_000, 0, 0), config(96 << 10))
                .onClientCompletion((c, s, w, o, st, b, i, h) -> done[0]++)
                .connect();
        Recorder r = new Recorder(pair);
        MemoryRegion src = TestMemory.region(pair.client(), 3_000_000, Access.ALL, 5);
        MemoryRegion dst = TestMemory.region(pair.server(), 3_000_000, Access.ALL, 0);
        pair.clientConnection().postWrite(0, 1, src, 0, 3_000_000, dst.remoteKey(), 0);
        pair.flush();
        r.sample();
        long start = pair.now();
        int reads = 0;
        int sharesChecked = 0;
        long nextRead = start + WINDOW;
        while (done[0] == 0) {
            assertThat(r.step()).isTrue();
            assertThat(pair.now() - start).as("the write finishes").isLessThan(1_000_000_000L);
            if (pair.now() >= nextRead) {
                long t = pair.now();
                r.checkAt(t);
                reads++;
                // Mid-transfer, each path's utilisation (its share of the rates) is its share of
                // the bytes the connection sent over the window.
                long total = 0;
                long totalRate = 0;
                for (int path = 0; path < PATHS; path++) {
                    total += r.sentBy(path, t) - r.sentBy(path, t - WINDOW);
                    totalRate += r.rate(path, t);
                }
                if (total > 20 * 4096) {
                    for (int path = 0; path < PATHS; path++) {
                        double share = (double) (r.sentBy(path, t) - r.sentBy(path, t - WINDOW)) / total;
                        assertThat((double) r.rate(path, t) / totalRate).as("path %d's utilisation at t=%d", path, t)
                                .isCloseTo(share, within(0.1));
                    }
                    sharesChecked++;
                }
                nextRead = t + WINDOW / 3;
            }
        }
        assertThat(reads).as("reads during the transfer").isGreaterThanOrEqualTo(5);
        assertThat(sharesChecked).as("utilisation checked mid-transfer").isGreaterThanOrEqualTo(3);

        // Just after the transfer every path that carried data reports a rate (the audit's path 0
        // read 0 B/s here), through both forms of the read.
        long end = pair.now();
        r.checkAt(end);
        PathStats stats = new PathStats();
        for (int path = 0; path < PATHS; path++) {
            assertThat(pair.clientConnection().readPathStats(path, stats)).isTrue();
            assertThat(stats.sendRateBytesPerSecond).as("path %d just after the transfer", path).isPositive();
            assertThat(stats.sendRateBytesPerSecond).isEqualTo(r.rate(path, end));
        }
        // Halfway into the next window the rate is falling, two windows later it is 0.
        r.checkAt(end + WINDOW / 2);
        pair.advance(2 * WINDOW);
        r.sample();
        for (int path = 0; path < PATHS; path++) {
            assertThat(r.sentBy(path, pair.now())).as("no data sent after the transfer").isEqualTo(r.sentBy(path, end));
            assertThat(r.rate(path, pair.now())).as("path %d idle for two windows", path).isZero();
        }
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    @Test
    void aFailedPathsRateFallsTo0WhileTheOthersCarryOn() {
        int[] done = {0};
        boolean[] blackHole = {false};
        Pair pair = Pair.create(13, PATHS, NetworkConditions.perfect().withDelay(10_000, 0, 0), config(24 << 10))
                .lossModel((fromClient, pathId, buf, len, now) -> blackHole[0] && pathId == 1)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> done[0]++)
                .connect();
        MemoryRegion src = TestMemory.region(pair.client(), 32_000_000, Access.ALL, 5);
        MemoryRegion dst = TestMemory.region(pair.server(), 32_000_000, Access.ALL, 0);
        pair.clientConnection().postWrite(0, 1, src, 0, 32_000_000, dst.remoteKey(), 0);
        pair.advance(3 * WINDOW);
        PathStats stats = new PathStats();
        assertThat(pair.clientConnection().readPathStats(1, stats, pair.now())).isTrue();
        assertThat(stats.sendRateBytesPerSecond).as("path 1 in use before the black hole").isPositive();
        blackHole[0] = true;
        pair.driveUntil(() -> pair.clientConnection().pathState(1) == PathState.FAILED, 1_000_000_000L, "path 1 fails");
        long failedAt = pair.now();
        pair.driveUntil(() -> done[0] == 1 || pair.now() > failedAt + 2 * WINDOW, 1_000_000_000L, "two windows");
        assertThat(done[0]).as("the write is still going").isZero();
        assertThat(pair.clientConnection().readPathStats(1, stats, pair.now())).isTrue();
        assertThat(stats.state).isEqualTo(PathState.FAILED);
        assertThat(stats.sendRateBytesPerSecond).as("a FAILED path sends no data").isZero();
        long others = 0;
        for (int path : new int[] {0, 2}) {
            assertThat(pair.clientConnection().readPathStats(path, stats, pair.now())).isTrue();
            others += stats.sendRateBytesPerSecond;
        }
        assertThat(others).as("the other paths carry the write").isPositive();
    }

    /**
     * Random send patterns: WRITEs of random sizes, each posted after a random pause (sometimes
     * longer than two windows), read at every event and at random times within the pauses.
     */
    @Property(tries = 12)
    void theRateFollowsItsDefinitionForRandomSendPatterns(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] done = {0};
        Pair pair = Pair.create(seed, PATHS,
                        NetworkConditions.perfect().withDelay(2_000 + random.nextInt(30_000), 0, 0),
                        config((8L << 10) << random.nextInt(5)))
                .onClientCompletion((c, s, w, o, st, b, i, h) -> done[0]++)
                .connect();
        Recorder r = new Recorder(pair);
        MemoryRegion src = TestMemory.region(pair.client(), 400_000, Access.ALL, 5);
        MemoryRegion dst = TestMemory.region(pair.server(), 400_000, Access.ALL, 0);
        int writes = 1 + random.nextInt(6);
        for (int k = 0; k < writes; k++) {
            int length = 1 + random.nextInt(400_000);
            pair.clientConnection().postWrite(0, k, src, 0, length, dst.remoteKey(), 0);
            pair.flush();
            r.sample();
            while (done[0] == k) {
                assertThat(r.step()).isTrue();
                r.checkAt(pair.now());
            }
            // A pause with nothing to send: reads at random times in it follow the definition.
            long pause = random.nextLong(3 * WINDOW);
            long from = pair.now();
            pair.advance(pause);
            r.sample();
            for (int i = 0; i < 4; i++) {
                long t = from + random.nextLong(pause + 1);
                if (t >= r.samples.get(r.samples.size() - 2)[0]) {
                    r.checkAt(t);
                }
            }
            r.checkAt(pair.now());
        }
        pair.advance(2 * WINDOW);
        for (int path = 0; path < PATHS; path++) {
            assertThat(r.rate(path, pair.now())).as("seed %d: path %d idle for two windows", seed, path).isZero();
        }
    }
}
