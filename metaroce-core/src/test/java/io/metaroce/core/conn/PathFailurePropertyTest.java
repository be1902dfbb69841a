package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exactly-once delivery survives paths failing and coming back ([SPEC-PATH-11], [SPEC-ADM-8],
 * R-PATH-4): over 2 to 6 paths with random loss, each path but one suffers random black holes (both
 * directions) while SENDs, WRITEs and READs are posted over time; CSNs of a failed path are resent
 * on other paths. Every work request still completes exactly once, successfully, in posting order
 * per stream, with exactly the bytes sent, and the connection never fails. Both controllers.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 12) runs
 * more and a failure names its seed.
 */
class PathFailurePropertyTest {
    private static final long MS = 1_000_000L;

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    private record Op(int kind, int stream, long wrId, long offset, int length, long postAtNanos) { }

    private record Done(int stream, long wrId, int status) { }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyMessageCompletesOnceWhilePathsFailAndComeBack(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 17);
        int paths = 2 + rnd.nextInt(5);
        boolean aimd = rnd.nextBoolean();
        double loss = rnd.nextDouble() * 0.03;
        NetworkConditions net = new NetworkConditions(loss, 0, 0, 2_000 + rnd.nextLong(20_000), rnd.nextLong(3_000),
                rnd.nextLong(30_000), 0);
        // Black holes: every path but a random survivor gets up to two outages in the first 60 ms.
        int survivor = rnd.nextInt(paths);
        long[][] holes = new long[paths][];
        StringBuilder outages = new StringBuilder();
        for (int p = 0; p < paths; p++) {
            int n = p == survivor ? 0 : rnd.nextInt(3);
            holes[p] = new long[2 * n];
            for (int k = 0; k < n; k++) {
                long start = rnd.nextLong(60 * MS);
                long end = start + 1 * MS + rnd.nextLong(30 * MS);
                holes[p][2 * k] = start;
                holes[p][2 * k + 1] = end;
                outages.append(String.format(" path %d [%.1f, %.1f) ms;", p, start / 1e6, end / 1e6));
            }
        }
        String where = "seed " + seed + ", " + paths + " paths, AIMD " + aimd + ", loss " + loss + ", outages:"
                + outages;
        System.out.println("PathFailurePropertyTest " + where);

        List<Done> clientDone = new ArrayList<>();
        List<Done> serverDone = new ArrayList<>();
        long[] origin = {0};
        Pair pair = Pair.create(seed, paths, net, EngineConfig.defaults(), EngineConfig.defaults(),
                        aimd ? AimdController::new : FixedWindowController::new,
                        aimd ? AimdController::new : FixedWindowController::new)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(s, w, st)))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new Done(s, w, st)))
                .lossModel((fromClient, pathId, datagram, length, now) -> {
                    long t = now - origin[0];
                    long[] h = holes[pathId];
                    for (int k = 0; k < h.length; k += 2) {
                        if (t >= h[k] && t < h[k + 1]) {
                            return true;
                        }
                    }
                    return false;
                })
                .connect();
        origin[0] = pair.now();

        int streams = 1 + rnd.nextInt(8);
        int count = 10 + rnd.nextInt(30);
        List<Op> ops = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < count && bytes < (4L << 20); i++) {
            int length = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(1 << 19) : 1 + rnd.nextInt(20_000);
            ops.add(new Op(1 + rnd.nextInt(3), rnd.nextInt(streams), 100 + i, bytes, length, rnd.nextLong(70 * MS)));
            bytes += length;
        }
        MemoryRegion clientMem = TestMemory.region(pair.client(), bytes, Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(pair.server(), bytes, Access.ALL, rnd.nextLong());
        MemorySegment clientBefore = Arena.ofAuto().allocate(bytes);
        clientBefore.copyFrom(clientMem.segment());
        MemorySegment serverBefore = Arena.ofAuto().allocate(bytes);
        serverBefore.copyFrom(serverMem.segment());
        Connection client = pair.clientConnection();
        Connection server = pair.serverConnection();
        // Posting order per stream is the order of the posting times; receives match SENDs in that order.
        List<Op> byTime = ops.stream().sorted(Comparator.comparingLong(Op::postAtNanos)).toList();
        int receives = 0;
        for (Op op : byTime) {
            if (op.kind == 1) {
                assertThat(server.postRecv(op.stream, 50_000 + op.wrId, serverMem, op.offset, op.length))
                        .as(where).isEqualTo(PostResult.OK);
                receives++;
            }
        }
        for (Op op : byTime) {
            long due = origin[0] + op.postAtNanos;
            if (due > pair.now()) {
                pair.advance(due - pair.now());
            }
            int rkey = serverMem.remoteKey();
            int r = switch (op.kind) {
                case 1 -> client.postSend(op.stream, op.wrId, clientMem, op.offset, op.length);
                case 2 -> client.postWrite(op.stream, op.wrId, clientMem, op.offset, op.length, rkey, op.offset);
                default -> client.postRead(op.stream, op.wrId, clientMem, op.offset, op.length, rkey, op.offset);
            };
            assertThat(r).as(where).isEqualTo(PostResult.OK);
        }
        int expectedServer = receives;
        pair.driveUntil(() -> clientDone.size() >= ops.size() && serverDone.size() >= expectedServer, 10_000 * MS,
                "all work (" + where + ")");
        pair.advance(20 * MS);

        assertThat(client.state()).as("the connection never failed (%s)", where).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(clientDone).as(where).hasSize(ops.size()).allMatch(d -> d.status == CompletionStatus.SUCCESS);
        assertThat(serverDone).as(where).hasSize(expectedServer).allMatch(d -> d.status == CompletionStatus.SUCCESS);
        for (int s = 0; s < streams; s++) {
            int stream = s;
            List<Long> posted = byTime.stream().filter(o -> o.stream == stream).map(Op::wrId).toList();
            List<Long> completed = clientDone.stream().filter(d -> d.stream == stream).map(Done::wrId).toList();
            assertThat(completed).as("client order on stream %d (%s)", s, where).containsExactlyElementsOf(posted);
        }
        for (Op op : ops) {
            MemorySegment got = op.kind == 3 ? clientMem.segment() : serverMem.segment();
            MemorySegment sent = op.kind == 3 ? serverBefore : clientBefore;
            assertThat(got.asSlice(op.offset, op.length).mismatch(sent.asSlice(op.offset, op.length)))
                    .as("op %d (kind %d, %d bytes): exactly the bytes sent (%s)", op.wrId, op.kind, op.length, where)
                    .isEqualTo(-1L);
        }
    }
}
