package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;

/**
 * One randomly generated connection run for the timer property tests, from its seed: a lossy,
 * reordering, CE-marking network, one path black-holed for a while (so that it turns SUSPECT, fails
 * and is probed back), the fixed window or AIMD, the engine defaults or the simulator's settings
 * (idle resends, loss cuts scaled by alpha, rate hints, seeded pacing phases), SENDs, WRITEs and
 * READs posted over time, then a close or an abort. {@code check} runs after every event. Also
 * the fixed run the path-mask tests share: a black-holed path that fills its scoreboard.
 */
final class RandomConnectionRun {
    private static final long MS = 1_000_000;

    private RandomConnectionRun() {
    }

    /**
     * Runs the case of {@code seed} ({@code salt} tells the tests' cases apart) with up to
     * {@code maxOps} posts, calling {@code check} with the pair and the case's description after
     * every event; returns the pair at the end of the run.
     */
    static Pair run(long seed, long salt, int maxOps, String name, BiConsumer<Pair, String> check) {
        return run(seed, salt, maxOps, name, 0, check);
    }

    /**
     * As {@link #run(long, long, int, String, BiConsumer)}, with every packet lost with
     * probability at least {@code minLoss} (drawn loss rates are added to it), for tests that
     * need every case to lose and resend.
     */
    static Pair run(long seed, long salt, int maxOps, String name, double minLoss, BiConsumer<Pair, String> check) {
        SplittableRandom rnd = PropertySeeds.generator(seed, salt);
        int paths = 1 + rnd.nextInt(6);
        boolean aimd = rnd.nextBoolean();
        boolean simulatorSettings = rnd.nextBoolean();
        EngineConfig config = simulatorSettings
                ? MetaroceProtocol.simulatorConfig().toBuilder().receiveCapacityBytesPerSecond(50_000_000L).build()
                : EngineConfig.defaults();
        SplittableRandom phases = new SplittableRandom(seed);
        NetworkConditions net = new NetworkConditions(minLoss + rnd.nextDouble() * 0.05, rnd.nextDouble() * 0.01, 0,
                2_000 + rnd.nextLong(20_000), rnd.nextLong(3_000), rnd.nextLong(30_000), rnd.nextDouble() * 0.2);
        int holePath = rnd.nextInt(paths);
        long holeStart = rnd.nextLong(20 * MS);
        long holeEnd = holeStart + rnd.nextLong(40 * MS);
        String where = "seed " + seed + ", " + paths + " paths, AIMD " + aimd + ", " + net
                + ", simulator settings " + simulatorSettings + ", path " + holePath + " black-holed for ["
                + holeStart + ", " + holeEnd + ") ns";
        System.out.println(name + " " + where);

        long[] origin = {0};
        Pair pair = Pair.create(seed, paths, net, config, config,
                        aimd ? c -> new AimdController(c, phases.split()) : FixedWindowController::new,
                        aimd ? c -> new AimdController(c, phases.split()) : FixedWindowController::new)
                .lossModel((fromClient, pathId, datagram, length, now) -> paths > 1 && pathId == holePath
                        && now - origin[0] >= holeStart && now - origin[0] < holeEnd)
                .connect();
        origin[0] = pair.now();
        Connection client = pair.clientConnection();
        Connection server = pair.serverConnection();
        int size = 1 << 20;
        MemoryRegion clientMem = TestMemory.region(pair.client(), size, Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(pair.server(), size, Access.ALL, rnd.nextLong());

        int ops = 10 + rnd.nextInt(maxOps);
        for (int i = 0; i < ops; i++) {
            pair.advance(rnd.nextLong(3 * MS));
            check.accept(pair, where);
            int stream = rnd.nextInt(4);
            int length = 1 + rnd.nextInt(rnd.nextBoolean() ? 200_000 : 5_000);
            long offset = rnd.nextLong(size - length + 1);
            int r = switch (rnd.nextInt(3)) {
                case 0 -> {
                    assertThat(server.postRecv(stream, 10_000 + i, serverMem, offset, length)).isEqualTo(PostResult.OK);
                    check.accept(pair, where);
                    yield client.postSend(stream, i, clientMem, offset, length);
                }
                case 1 -> client.postWrite(stream, i, clientMem, offset, length, serverMem.remoteKey(), offset);
                default -> client.postRead(stream, i, clientMem, offset, length, serverMem.remoteKey(), offset);
            };
            assertThat(r).as(where).isEqualTo(PostResult.OK);
            check.accept(pair, where);
            for (int k = rnd.nextInt(200); k > 0 && pair.step(); k--) {
                check.accept(pair, where);
            }
        }
        for (int k = 0; k < 20_000 && pair.step(); k++) {
            check.accept(pair, where);
        }
        if (rnd.nextBoolean()) {
            client.close();
        } else {
            server.abort();
        }
        check.accept(pair, where);
        for (int k = 0; k < 200_000 && pair.step(); k++) {
            check.accept(pair, where);
        }
        return pair;
    }

    /**
     * Two paths on a perfect network with 64-packet scoreboards, path 1 black-holed for 4 ms from
     * the start while 2,000 small WRITEs are posted: longer than path 1's scoreboard's room lasts,
     * so it fills and is emptied by the retransmission timeout. {@code check} runs after every
     * event with the pair and the case's description.
     */
    static void blackHoledPathFillsItsScoreboard(long seed, BiConsumer<Pair, String> check) {
        long[] outage = {Long.MAX_VALUE, 0};
        EngineConfig config = EngineConfig.builder().pathWindowPackets(64).build();
        Pair pair = Pair.create(seed, 2, NetworkConditions.perfect(), config)
                .lossModel((fromClient, pathId, d, len, now) -> pathId == 1 && now >= outage[0] && now < outage[1])
                .connect();
        MemoryRegion local = TestMemory.region(pair.client(), 1 << 16, Access.ALL, 1);
        MemoryRegion remote = TestMemory.region(pair.server(), 1 << 16, Access.ALL, 2);
        outage[0] = pair.now();
        outage[1] = pair.now() + 4 * MS;
        int posted = 0;
        for (int k = 0; k < 400_000 && pair.step() | posted < 2_000; k++) {
            while (posted < 2_000 && pair.clientConnection().postWrite(0, posted, local, (posted % 4_000) * 8L, 8,
                    remote.remoteKey(), (posted % 4_000) * 8L) == PostResult.OK) {
                posted++;
            }
            check.accept(pair, "2 paths, path 1 black-holed for 4 ms");
        }
    }
}
