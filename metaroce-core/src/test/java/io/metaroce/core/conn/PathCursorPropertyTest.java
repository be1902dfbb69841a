package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import java.nio.ByteBuffer;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A transmit poll that sends nothing leaves the connection's round-robin cursor over its paths
 * where it was ({@code DataWriter#write}): otherwise which path the next packet takes would depend
 * on how often the connection is polled, which is up to its endpoint's schedule (a walk of every
 * connection at every call, or only the connections that may have work) and the driver. After
 * every event of random lossy runs ({@link RandomConnectionRun}, at least 2 % loss, so that packets
 * stay outstanding and idle resends are considered), each side's connection is polled again
 * directly, three times: each poll that sends nothing leaves the cursor as it found it (one that
 * sends, work posted since the driver's polls, is a packet lost).
 */
class PathCursorPropertyTest {
    private static final Transmit SCRATCH = new Transmit(ByteBuffer.allocate(65_536));
    private static final Packet PACKET = new Packet();
    private static final PacketCodec CODEC = new PacketCodec();
    private static final int PICKED = 0;
    private static final int POLLS = 1;

    private static final int SEEDS = 12;
    private static long pickedOverSeeds;
    private static int seedsRun;

    static LongStream seeds() {
        return PropertySeeds.of(SEEDS);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aPollThatSendsNothingLeavesThePathCursor(long seed) {
        long[] seen = new long[2];
        RandomConnectionRun.run(seed, 47, 25, "PathCursorPropertyTest", 0.02, (pair, where) -> check(pair, where, seen));
        assertThat(seen[POLLS]).as("seed %d: direct polls that sent nothing", seed).isPositive();
        synchronized (PathCursorPropertyTest.class) {
            pickedOverSeeds += seen[PICKED];
            seedsRun++;
        }
    }

    /**
     * Over all seeds (when every seed ran), polls that sent nothing happened where the poll picks a
     * path first (packets outstanding, idle resends on, several paths): the cases the cursor could
     * have moved in. Counted over the seeds' runs above rather than by running them again.
     */
    @AfterAll
    static void pollsThatPickAPathAndSendNothingHappen() {
        if (seedsRun == SEEDS) {
            assertThat(pickedOverSeeds).as("polls with packets outstanding, idle resends on and several paths").isPositive();
        }
    }

    private static void check(Pair pair, String where, long[] seen) {
        check(pair, pair.clientConnection(), where, seen);
        check(pair, pair.serverConnection(), where, seen);
    }

    private static void check(Pair pair, Connection c, String where, long[] seen) {
        if (c == null || c.state() != ConnectionState.ESTABLISHED) {
            return;
        }
        Paths paths = c.pathsForTest();
        for (int k = 0; k < 3; k++) {
            int before = paths.nextForData();
            if (c.pollTransmit(pair.now(), SCRATCH, PACKET, CODEC)) {
                // Work posted since the driver's polls: that packet is lost, like any other.
                continue;
            }
            assertThat(paths.nextForData()).as("%s: the path cursor after a poll that sent nothing, t=%d", where,
                    pair.now()).isEqualTo(before);
            seen[POLLS]++;
            if (paths.count() > 1 && c.dataWriterForTest().idleResendsConsideredForTest()) {
                seen[PICKED]++;
            }
        }
    }
}
