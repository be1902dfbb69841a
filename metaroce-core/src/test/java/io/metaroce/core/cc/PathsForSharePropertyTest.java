package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-42]: with {@code aimdPathsForShareMin} {@code m} above 0, an AIMD connection
 * sends new data, under a hint {@code H}, on {@code max(m, ceil(H * rtt / datagram))} of its paths
 * in service, and before its first ACK on as many for the share announced in ACCEPT over the
 * initial RTT (all when that is as many or more, all without an announcement or a hint), the
 * others idle; which ones depends on the connection's seeded offset, and a path out of service is
 * replaced by one in service.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 20) runs
 * more and a failure names its seed.
 */
class PathsForSharePropertyTest {
    private static final EngineConfig BASE = EngineConfig.defaults().toBuilder().aimdFirstFlightBytes(0)
            .aimdFirstFlightSpreadNanos(20_000).aimdSlowStart(false).build();
    private static final long INITIAL_RTT = BASE.initialRttNanos();
    private static final int D = BASE.maxDatagramBytes();

    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    /** Paths {@code 0..paths-1} asked once, then path {@code first} sends and is acknowledged after {@code rtt} with hint {@code hint}. */
    private static AimdController hinted(EngineConfig config, long seed, int paths, int first, long rtt, long hint) {
        AimdController cc = asked(config, seed, paths, 0);
        cc.onPacketSent(first, D, 0);
        cc.onPacketAcked(first, D, rtt, rtt);
        cc.onRateHint(hint, rtt);
        return cc;
    }

    /** A controller whose connection asked about paths {@code 0..paths-1} and for its first send time (the offset's draw). */
    private static AimdController asked(EngineConfig config, long seed, int paths, long announced) {
        AimdController cc = new AimdController(config, new SplittableRandom(seed));
        if (announced > 0) {
            cc.onAnnouncedShare(announced, 0);
        }
        for (int p = 0; p < paths; p++) {
            cc.sendAllowanceBytes(p, 0);
        }
        cc.nextSendTimeNanos(0, 0);
        return cc;
    }

    private static int sendingPaths(AimdController cc, int paths, long now) {
        int n = 0;
        for (int p = 0; p < paths; p++) {
            if (cc.carriesNewData(p, now)) {
                n++;
            }
        }
        return n;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void underAHintTheSharesBandwidthDelayProductInDatagramsOfPathsTakeNewData(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 15);
        for (int i = 0; i < 200; i++) {
            int paths = 1 + rnd.nextInt(16);
            int min = 1 + rnd.nextInt(4);
            long rtt = 2_000 + rnd.nextLong(40_000);
            long hint = 1_000_000L + rnd.nextLong(20_000_000_000L);
            EngineConfig config = BASE.toBuilder().aimdPathsForShareMin(min).build();
            long cSeed = rnd.nextLong();

            AimdController blind = asked(config, cSeed, paths, 0);
            assertThat(sendingPaths(blind, paths, 0)).as("before the first ACK, no announcement: every path")
                    .isEqualTo(paths);
            long announced = 1_000_000L + rnd.nextLong(20_000_000_000L);
            AimdController before = asked(config, cSeed, paths, announced);
            long expectedBefore = Math.min(paths, Math.max(min, (long) Math.ceil(announced * (INITIAL_RTT / 1e9) / D)));
            assertThat(sendingPaths(before, paths, 0)).as("before the first ACK, announced %d", announced)
                    .isEqualTo(expectedBefore);

            int first = 0;
            while (!before.carriesNewData(first, 0)) {
                first++;
            }
            AimdController cc = hinted(config, cSeed, paths, first, rtt, hint);
            long expected = Math.min(paths, Math.max(min, (long) Math.ceil(hint * (rtt / 1e9) / D)));
            assertThat(sendingPaths(cc, paths, rtt)).as("paths %d, min %d, rtt %d, hint %d", paths, min, rtt, hint)
                    .isEqualTo(expected);

            // The connection's rate under the hint is at most the hint, however few paths carry it.
            double sum = 0;
            for (int p = 0; p < paths; p++) {
                if (cc.carriesNewData(p, rtt)) {
                    sum += cc.pacingRateBytesPerSecond(p);
                }
            }
            assertThat(sum).as("the paths taking new data share the hint").isLessThanOrEqualTo(hint * (1 + 1e-9));

            // A path that takes new data leaves service: another takes its place, as many as before.
            if (paths > expected) {
                int gone = 0;
                while (!cc.carriesNewData(gone, rtt)) {
                    gone++;
                }
                cc.onPathNewData(gone, false, rtt);
                int n = 0;
                for (int p = 0; p < paths; p++) {
                    if (p != gone && cc.carriesNewData(p, rtt)) {
                        n++;
                    }
                }
                assertThat(n).as("paths %d, %d take new data, path %d out", paths, expected, gone).isEqualTo(expected);
            }

        }
    }

    @Test
    void offWithoutAHintAndByDefaultEveryPathTakesNewData() {
        assertThat(EngineConfig.defaults().aimdPathsForShareMin()).isZero();
        AimdController off = hinted(BASE, 1, 8, 0, 10_000, 100_000_000L);
        assertThat(sendingPaths(off, 8, 10_000)).as("the rule off").isEqualTo(8);
        AimdController noHint = hinted(BASE.toBuilder().aimdPathsForShareMin(1).build(), 1, 8, 0, 10_000, 0);
        assertThat(sendingPaths(noHint, 8, 10_000)).as("an ACK without a hint").isEqualTo(8);
    }

    @Test
    void connectionsStartTheirPathsAtDifferentOffsets() {
        // 64 connections of 8 paths, a share of one datagram per round trip: each sends on one path,
        // and every path id is used by some connection (the simulator maps path i to one plane).
        EngineConfig config = BASE.toBuilder().aimdPathsForShareMin(1).build();
        boolean[] used = new boolean[8];
        for (long seed = 0; seed < 64; seed++) {
            AimdController probe = asked(config, seed, 8, 10_000_000L); // under a datagram per initial RTT: one path
            assertThat(sendingPaths(probe, 8, 0)).isEqualTo(1);
            for (int p = 0; p < 8; p++) {
                if (probe.carriesNewData(p, 0)) {
                    used[p] = true;
                }
            }
        }
        for (int p = 0; p < 8; p++) {
            assertThat(used[p]).as("path %d", p).isTrue();
        }
    }

    /**
     * Without a random source (an endpoint's default {@code AimdController::new}) the offset comes
     * from the connection's id ({@link CongestionController#onConnectionId}): 400 connections with
     * the random ids an endpoint gives, 8 paths, {@code m} 2 and a hint of one datagram per round
     * trip each send on 2 paths, and each path is one of them for about a quarter of the
     * connections (100 expected; before, all 400 used paths 0 and 1).
     */
    @Test
    void withoutARandomSourceTheConnectionIdSpreadsTheOffsets() {
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdPathsForShareMin(2).build();
        SplittableRandom ids = new SplittableRandom(15);
        int[] byPath = new int[8];
        for (int c = 0; c < 400; c++) {
            AimdController cc = new AimdController(config);
            cc.onConnectionId(ids.nextLong());
            for (int p = 0; p < 8; p++) {
                cc.sendAllowanceBytes(p, 0);
                cc.nextSendTimeNanos(p, 0);
            }
            cc.onRateHint((long) (D * 1e9 / INITIAL_RTT), 50_000);
            assertThat(sendingPaths(cc, 8, 50_000)).isEqualTo(2);
            for (int p = 0; p < 8; p++) {
                byPath[p] += cc.carriesNewData(p, 50_000) ? 1 : 0;
            }
        }
        for (int p = 0; p < 8; p++) {
            assertThat(byPath[p]).as("connections sending on path %d of %s", p, java.util.Arrays.toString(byPath))
                    .isBetween(60, 140);
        }
    }
}
