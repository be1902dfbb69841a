package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.SplittableRandom;
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
    private static final long MS = 1_000_000L;

    static LongStream seeds() {
        long first = Long.getLong("metaroce.property.firstSeed", 1);
        int cases = Integer.getInteger("metaroce.property.cases", 12);
        return LongStream.range(first, first + cases);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void cachedDeadlinesEqualRecomputedOnesAfterEveryEvent(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 5);
        int paths = 1 + rnd.nextInt(6);
        boolean aimd = rnd.nextBoolean();
        // Half the runs use the simulator's settings (idle resends, loss cuts scaled by alpha, a
        // receiver capacity and so rate hints, seeded pacing phases): their deadlines are cached too.
        boolean simulatorSettings = rnd.nextBoolean();
        EngineConfig config = simulatorSettings
                ? MetaroceProtocol.simulatorConfig().toBuilder().receiveCapacityBytesPerSecond(50_000_000L).build()
                : EngineConfig.defaults();
        SplittableRandom phases = new SplittableRandom(seed);
        NetworkConditions net = new NetworkConditions(rnd.nextDouble() * 0.05, rnd.nextDouble() * 0.01, 0,
                2_000 + rnd.nextLong(20_000), rnd.nextLong(3_000), rnd.nextLong(30_000), rnd.nextDouble() * 0.2);
        int holePath = rnd.nextInt(paths);
        long holeStart = rnd.nextLong(20 * MS);
        long holeEnd = holeStart + rnd.nextLong(40 * MS);
        String where = "seed " + seed + ", " + paths + " paths, AIMD " + aimd + ", " + net
                + ", simulator settings " + simulatorSettings + ", path " + holePath + " black-holed for [" + holeStart + ", " + holeEnd + ") ns";
        System.out.println("TimeoutCachePropertyTest " + where);

        long[] origin = {0};
        Pair pair = Pair.create(seed, paths, net, config, config,
                        aimd ? c -> new AimdController(c, phases.split()) : null,
                        aimd ? c -> new AimdController(c, phases.split()) : null)
                .lossModel((fromClient, pathId, datagram, length, now) -> paths > 1 && pathId == holePath
                        && now - origin[0] >= holeStart && now - origin[0] < holeEnd)
                .connect();
        origin[0] = pair.now();
        Connection client = pair.clientConnection();
        Connection server = pair.serverConnection();
        int size = 1 << 20;
        MemoryRegion clientMem = TestMemory.region(pair.client(), size, Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(pair.server(), size, Access.ALL, rnd.nextLong());

        int ops = 10 + rnd.nextInt(30);
        for (int i = 0; i < ops; i++) {
            pair.advance(rnd.nextLong(3 * MS));
            check(pair, where);
            int stream = rnd.nextInt(4);
            int length = 1 + rnd.nextInt(rnd.nextBoolean() ? 200_000 : 5_000);
            long offset = rnd.nextLong(size - length + 1);
            int r = switch (rnd.nextInt(3)) {
                case 0 -> {
                    assertThat(server.postRecv(stream, 10_000 + i, serverMem, offset, length)).isEqualTo(PostResult.OK);
                    check(pair, where);
                    yield client.postSend(stream, i, clientMem, offset, length);
                }
                case 1 -> client.postWrite(stream, i, clientMem, offset, length, serverMem.remoteKey(), offset);
                default -> client.postRead(stream, i, clientMem, offset, length, serverMem.remoteKey(), offset);
            };
            assertThat(r).as(where).isEqualTo(PostResult.OK);
            check(pair, where);
            for (int k = rnd.nextInt(200); k > 0 && pair.step(); k--) {
                check(pair, where);
            }
        }
        for (int k = 0; k < 20_000 && pair.step(); k++) {
            check(pair, where);
        }
        if (rnd.nextBoolean()) {
            client.close();
        } else {
            server.abort();
        }
        check(pair, where);
        for (int k = 0; k < 200_000 && pair.step(); k++) {
            check(pair, where);
        }
        assertThat(client.state()).as("the run reached its end (%s)", where).isEqualTo(ConnectionState.CLOSED);
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
