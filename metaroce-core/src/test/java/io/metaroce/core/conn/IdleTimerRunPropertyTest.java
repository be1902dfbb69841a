package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Connection#handleTimeout} returns at once, without looking at its paths, when its cached
 * deadlines are fresh and none has come (an endpoint runs the timers of every connection whenever
 * one is due). That shortcut is only right if a full timer pass with nothing due changes nothing.
 * This checks that property directly: at every event of a randomly generated run (lossy,
 * reordering, CE-marking network, a path black-holed for a while so that it turns SUSPECT, fails
 * and is probed back, SENDs, WRITEs and READs, then a close or an abort), whenever a connection
 * has nothing due, a full timer pass (cache forgotten first) leaves its counters, every path's
 * statistics and its next timeout exactly as they were.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 8) runs
 * more and a failure names its seed.
 */
class IdleTimerRunPropertyTest {
    private static final long MS = 1_000_000L;

    static LongStream seeds() {
        long first = Long.getLong("metaroce.property.firstSeed", 1);
        int cases = Integer.getInteger("metaroce.property.cases", 8);
        return LongStream.range(first, first + cases);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aTimerPassWithNothingDueChangesNothing(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 11);
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

        int checked = 0;
        int ops = 10 + rnd.nextInt(20);
        for (int i = 0; i < ops; i++) {
            pair.advance(rnd.nextLong(3 * MS));
            checked += check(pair, where);
            int stream = rnd.nextInt(4);
            int length = 1 + rnd.nextInt(rnd.nextBoolean() ? 200_000 : 5_000);
            long offset = rnd.nextLong(size - length + 1);
            int r = switch (rnd.nextInt(3)) {
                case 0 -> {
                    assertThat(server.postRecv(stream, 10_000 + i, serverMem, offset, length)).isEqualTo(PostResult.OK);
                    yield client.postSend(stream, i, clientMem, offset, length);
                }
                case 1 -> client.postWrite(stream, i, clientMem, offset, length, serverMem.remoteKey(), offset);
                default -> client.postRead(stream, i, clientMem, offset, length, serverMem.remoteKey(), offset);
            };
            assertThat(r).as(where).isEqualTo(PostResult.OK);
            for (int k = rnd.nextInt(200); k > 0 && pair.step(); k--) {
                checked += check(pair, where);
            }
        }
        for (int k = 0; k < 20_000 && pair.step(); k++) {
            checked += check(pair, where);
        }
        if (rnd.nextBoolean()) {
            client.close();
        } else {
            server.abort();
        }
        for (int k = 0; k < 200_000 && pair.step(); k++) {
            checked += check(pair, where);
        }
        assertThat(checked).as("timer passes with nothing due were checked (%s)", where).isPositive();
    }

    /** Runs a full timer pass on every side with nothing due; returns how many it checked. */
    private static int check(Pair pair, String where) {
        int checked = 0;
        long now = pair.now();
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            long next = c.nextTimeoutNanosUncached(now);
            if (next <= now || c.state() != ConnectionState.ESTABLISHED) {
                continue;
            }
            String before = snapshot(c, now);
            c.forgetCachedTimeouts();
            c.handleTimeout(now);
            assertThat(snapshot(c, now)).as("%s side at t=%d, nothing due before %d (%s)",
                    c.isClient() ? "client" : "server", now, next, where).isEqualTo(before);
            checked++;
        }
        return checked;
    }

    /** The connection's state, counters, every path's statistics and its next timeout, as text. */
    private static String snapshot(Connection c, long now) {
        StringBuilder s = new StringBuilder().append(c.state()).append(" next=").append(c.nextTimeoutNanosUncached(now));
        try {
            for (Field f : ConnectionStats.class.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    Object v = f.get(c.stats());
                    s.append(' ').append(f.getName()).append('=')
                            .append(v instanceof long[] a ? java.util.Arrays.toString(a) : String.valueOf(v));
                }
            }
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
        PathStats p = new PathStats();
        for (int i = 0; c.readPathStats(i, p); i++) {
            s.append("\n  path ").append(i).append(": ").append(p);
        }
        return s.toString();
    }
}
