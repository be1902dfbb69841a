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
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Per-path telemetry (R-PATH-1, R-JAVA-3) read at run time: packets, bytes, losses charged to the
 * path that lost them, RTT, and the ECN fraction the peer reports from the CE marks it saw.
 */
class PathStatsTest {

    @Test
    void eachPathReportsItsOwnTrafficLossesRttAndEcnFraction() {
        SplittableRandom r = new SplittableRandom(3);
        int[] done = {0};
        Pair pair = Pair.create(3, 3, NetworkConditions.perfect().withCeMarking(0.25).withDelay(10_000, 0, 0),
                        EngineConfig.defaults())
                // Path 2 alone loses 3% of the client's datagrams.
                .lossModel((fromClient, pathId, buf, len, now) -> fromClient && pathId == 2 && r.nextDouble() < 0.03)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> done[0]++)
                .connect();
        MemoryRegion src = TestMemory.region(pair.client(), 3_000_000, Access.ALL, 5);
        MemoryRegion dst = TestMemory.region(pair.server(), 3_000_000, Access.ALL, 0);
        pair.clientConnection().postWrite(0, 1, src, 0, 3_000_000, dst.remoteKey(), 0);
        pair.driveUntil(() -> done[0] == 1, 1_000_000_000L, "write");

        Connection c = pair.clientConnection();
        PathStats stats = new PathStats();
        long total = 0;
        for (int path = 0; path < 3; path++) {
            assertThat(c.readPathStats(path, stats)).isTrue();
            assertThat(stats.pathId).isEqualTo(path);
            assertThat(stats.localSocket).as("the path's own source socket").isEqualTo(path);
            assertThat(stats.packetsSent).as("path %d carried data", path).isGreaterThan(100);
            assertThat(stats.bytesSent).isGreaterThan(stats.packetsSent * 1000);
            assertThat(stats.smoothedRttNanos).as("RTT about two 10 us hops").isBetween(15_000L, 200_000L);
            assertThat(stats.minRttNanos).isLessThanOrEqualTo(stats.smoothedRttNanos);
            assertThat(stats.ecnFraction()).as("path %d: the peer saw a quarter of the packets CE-marked", path)
                    .isCloseTo(0.25, within(0.08));
            assertThat(stats.losses).as("losses stay on path 2").isEqualTo(path == 2 ? stats.retransmissions : 0);
            assertThat(stats.state).as("path %d in service", path).isEqualTo(PathState.ACTIVE);
            total += stats.packetsSent;
        }
        assertThat(c.readPathStats(2, stats)).isTrue();
        assertThat(stats.losses).as("path 2 lost some").isPositive();
        assertThat(c.readPathStats(3, stats)).as("no path 3").isFalse();
        assertThat(total).isEqualTo(c.stats().dataPacketsSent());
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }
}
