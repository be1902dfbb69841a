package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine's central property (R-OOO-1..4, R-SACK-1..4, R-CONN-1): over a network that loses,
 * duplicates, corrupts, delays and reorders across paths, with 1 to 64 streams and every
 * operation, every work request completes exactly once, successfully, in posting order within
 * its stream, with exactly the bytes sent; and when nothing was lost, nothing was retransmitted.
 *
 * <p>Each case is generated from its seed alone. Run more with
 * {@code -Dmetaroce.property.cases=N} (default 24) and start elsewhere with
 * {@code -Dmetaroce.property.firstSeed=S}; a failure names its seed.
 */
class EnginePropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(24);
    }

    private record Op(int kind, int stream, long wrId, long clientOffset, long serverOffset, int length, int imm) { }

    private record Done(int stream, long wrId, int opcode, int status, long bytes, int imm, boolean hasImm) { }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyMessageCompletesOnceInOrderWithTheBytesSent(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        boolean lossless = seed % 4 == 0;
        double loss = lossless ? 0 : rnd.nextDouble() * 0.20;
        double dup = rnd.nextDouble() * 0.05;
        double corrupt = lossless ? 0 : rnd.nextDouble() * 0.02;
        NetworkConditions net = new NetworkConditions(loss, dup, corrupt, 2_000 + rnd.nextLong(20_000),
                rnd.nextLong(5_000), rnd.nextLong(50_000), 0);
        int paths = 1 + rnd.nextInt(8);
        int streams = 1 + rnd.nextInt(64);
        String where = "seed " + seed + ", " + paths + " paths, " + streams + " streams, " + net;

        List<Done> clientDone = new ArrayList<>();
        List<Done> serverDone = new ArrayList<>();
        Pair pair = Pair.create(seed, paths, net, EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(s, w, o, st, b, i, h)))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new Done(s, w, o, st, b, i, h)))
                .connect();

        // Generate the work: sizes from 1 byte to 1 MiB, mostly small, bounded in total.
        int count = 8 + rnd.nextInt(40);
        List<Op> ops = new ArrayList<>();
        long clientBytes = 0;
        long serverBytes = 0;
        long budget = 6L << 20;
        for (int i = 0; i < count && clientBytes + serverBytes < budget; i++) {
            int kind = 1 + rnd.nextInt(4); // SEND, WRITE, WRITE_WITH_IMM, READ
            int length = switch (rnd.nextInt(10)) {
                case 0 -> 1 << 20;
                case 1, 2 -> 1 + rnd.nextInt(1 << 18);
                default -> 1 + rnd.nextInt(9_000);
            };
            ops.add(new Op(kind, rnd.nextInt(streams), 1000 + i, clientBytes, serverBytes, length, rnd.nextInt()));
            clientBytes += length;
            serverBytes += length;
        }

        MemoryRegion clientMem = TestMemory.region(pair.client(), clientBytes, Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(pair.server(), serverBytes, Access.ALL, rnd.nextLong());
        MemorySegment clientBefore = copy(clientMem.segment());
        MemorySegment serverBefore = copy(serverMem.segment());

        // Receives first, in the order each stream's SENDs and WRITE_WITH_IMMs are posted.
        Connection server = pair.serverConnection();
        Map<Long, Op> byRecvId = new HashMap<>();
        for (Op op : ops) {
            if (op.kind == 1 || op.kind == 3) {
                long recvId = 50_000 + op.wrId;
                byRecvId.put(recvId, op);
                assertThat(server.postRecv(op.stream, recvId, serverMem, op.serverOffset, op.length))
                        .as(where).isEqualTo(PostResult.OK);
            }
        }
        Connection client = pair.clientConnection();
        int rkey = serverMem.remoteKey();
        for (Op op : ops) {
            int r = switch (op.kind) {
                case 1 -> client.postSendWithImmediate(op.stream, op.wrId, clientMem, op.clientOffset, op.length, op.imm);
                case 2 -> client.postWrite(op.stream, op.wrId, clientMem, op.clientOffset, op.length, rkey, op.serverOffset);
                case 3 -> client.postWriteWithImmediate(op.stream, op.wrId, clientMem, op.clientOffset, op.length, rkey,
                        op.serverOffset, op.imm);
                default -> client.postRead(op.stream, op.wrId, clientMem, op.clientOffset, op.length, rkey, op.serverOffset);
            };
            assertThat(r).as(where).isEqualTo(PostResult.OK);
        }

        int expectedServer = byRecvId.size();
        pair.driveUntil(() -> clientDone.size() >= ops.size() && serverDone.size() >= expectedServer,
                120_000_000_000L, "all work (" + where + ")");
        pair.advance(5_000_000); // let stragglers (duplicates, late ACKs) arrive: nothing may complete twice

        // Exactly once, successfully, in posting order per stream.
        assertThat(clientDone).as(where).hasSize(ops.size());
        assertThat(serverDone).as(where).hasSize(expectedServer);
        assertThat(clientDone).as(where).allMatch(d -> d.status == CompletionStatus.SUCCESS);
        assertThat(serverDone).as(where).allMatch(d -> d.status == CompletionStatus.SUCCESS);
        for (int s = 0; s < streams; s++) {
            int stream = s;
            List<Long> posted = ops.stream().filter(o -> o.stream == stream).map(Op::wrId).toList();
            List<Long> completed = clientDone.stream().filter(d -> d.stream == stream).map(Done::wrId).toList();
            assertThat(completed).as("client order on stream %d (%s)", s, where).containsExactlyElementsOf(posted);
            List<Long> recvPosted = ops.stream().filter(o -> o.stream == stream && (o.kind == 1 || o.kind == 3))
                    .map(o -> 50_000 + o.wrId).toList();
            List<Long> recvCompleted = serverDone.stream().filter(d -> d.stream == stream).map(Done::wrId).toList();
            assertThat(recvCompleted).as("server order on stream %d (%s)", s, where).containsExactlyElementsOf(recvPosted);
        }
        for (Done d : serverDone) {
            Op op = byRecvId.get(d.wrId);
            assertThat(d.bytes).as(where).isEqualTo(op.length);
            assertThat(d.opcode).as(where).isEqualTo(op.kind == 1 ? WorkOpcode.RECV : WorkOpcode.RECV_WRITE_WITH_IMM);
            assertThat(d.hasImm).as(where).isTrue();
            assertThat(d.imm).as(where).isEqualTo(op.imm);
        }

        // Exactly the bytes: every SEND/WRITE slice arrived at the server; every READ slice at the client.
        for (Op op : ops) {
            if (op.kind == 4) {
                assertThat(slice(clientMem.segment(), op.clientOffset, op.length)
                        .mismatch(slice(serverBefore, op.serverOffset, op.length)))
                        .as("READ %d bytes (%s)", op.length, where).isEqualTo(-1L);
            } else {
                assertThat(slice(serverMem.segment(), op.serverOffset, op.length)
                        .mismatch(slice(clientBefore, op.clientOffset, op.length)))
                        .as("op %d, %d bytes (%s)", op.kind, op.length, where).isEqualTo(-1L);
            }
        }

        // Spurious retransmissions are counted, and are zero when nothing was lost.
        if (pair.dropped() == 0 && pair.corrupted() == 0) {
            assertThat(client.stats().retransmissions()).as("client retransmissions, " + where).isZero();
            assertThat(server.stats().retransmissions()).as("server retransmissions, " + where).isZero();
            assertThat(server.stats().spuriousRetransmissionsReceived()).as(where).isZero();
            assertThat(client.stats().spuriousRetransmissionsReceived()).as(where).isZero();
        }
        // Every retransmission answers a detected loss (no receive was missing, so none answers a
        // receiver-not-ready refusal).
        assertThat(client.stats().retransmissions()).as(where).isLessThanOrEqualTo(client.stats().losses());
        assertThat(server.stats().retransmissions()).as(where).isLessThanOrEqualTo(server.stats().losses());
        assertThat(pair.client().stats().malformedDatagrams() + pair.server().stats().malformedDatagrams())
                .as("corrupted datagrams are caught by the checksum, " + where)
                .isBetween(pair.corrupted() - pair.inFlight(), pair.corrupted());
    }


    private static MemorySegment copy(MemorySegment seg) {
        MemorySegment c = Arena.ofAuto().allocate(seg.byteSize());
        c.copyFrom(seg);
        return c;
    }

    private static MemorySegment slice(MemorySegment seg, long offset, long length) {
        return seg.asSlice(offset, length);
    }
}
