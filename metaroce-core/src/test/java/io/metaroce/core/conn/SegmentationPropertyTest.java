package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.harness.LossModel;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.stream.Segmentation;
import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Segmentation [SPEC-MSG-3] end to end, with and without {@code equalLengthPackets}: messages of every length from 0 to ten packets, sent as
 * SEND, WRITE and READ over a network that loses, duplicates, corrupts and reorders, arrive intact;
 * and every DATA and READ_RESPONSE packet on the wire has the length and offset the rule gives, so
 * that messages of one length leave as datagrams of one length.
 *
 * <p>Each case is generated from its seed; a failure names it.
 */
class SegmentationPropertyTest {

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 10);
    }

    private record Op(int kind, long offset, int length) { }

    /** Records the (length, offset) pairs of every DATA packet per (stream, MSN, opcode), and datagram lengths. */
    private static final class Tap implements LossModel {
        final PacketCodec codec = new PacketCodec();
        final Packet packet = new Packet();
        final Map<Long, TreeSet<Long>> offsets = new HashMap<>();
        final Map<Long, Integer> payload = new HashMap<>();
        final Map<Long, Long> messageLength = new HashMap<>();
        final Map<Long, TreeSet<Integer>> datagramLengthsByMessageLength = new HashMap<>();
        final List<String> wrongLengths = new ArrayList<>();

        @Override
        public boolean drop(boolean fromClient, int pathId, ByteBuffer datagram, int length, long nowNanos) {
            int head = PacketCodec.bundledHeadLength(datagram, 0, length);
            if (codec.decode(datagram, head, length - head, packet) != DecodeError.OK
                    || packet.type != PacketType.DATA) {
                return false;
            }
            long key = ((long) packet.opcode << 56) | ((long) packet.streamId << 32) | packet.messageSequence;
            Integer first = payload.putIfAbsent(key, packet.payloadLength);
            if (first != null && first != packet.payloadLength) {
                wrongLengths.add("message " + Long.toHexString(key) + ": " + first + " then " + packet.payloadLength);
            }
            offsets.computeIfAbsent(key, k -> new TreeSet<>()).add(packet.payloadMessageOffset);
            messageLength.put(key, packet.messageLength);
            if (head == 0) {
                datagramLengthsByMessageLength.computeIfAbsent(packet.messageLength, k -> new TreeSet<>()).add(length);
            }
            return false;
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyLengthArrivesIntactInPacketsOfTheRule(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        boolean lossless = seed % 3 == 0;
        NetworkConditions net = new NetworkConditions(lossless ? 0 : rnd.nextDouble() * 0.1, rnd.nextDouble() * 0.03,
                lossless ? 0 : rnd.nextDouble() * 0.01, 2_000 + rnd.nextLong(20_000), rnd.nextLong(5_000),
                rnd.nextLong(50_000), 0);
        int paths = 1 + rnd.nextInt(4);
        boolean equal = seed % 5 != 0; // seeds 5 and 10: full packets and a shorter last one
        String where = "seed " + seed + ", " + paths + " paths, equalLengthPackets " + equal + ", " + net;
        Tap tap = new Tap();
        List<Integer> clientStatus = new ArrayList<>();
        List<Integer> serverStatus = new ArrayList<>();
        Pair pair = Pair.create(seed, paths, net, EngineConfig.builder().equalLengthPackets(equal).build())
                .lossModel(tap)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientStatus.add(st))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverStatus.add(st))
                .connect();
        Connection client = pair.clientConnection();
        int p = client.payloadBytesPerPacket();

        // Lengths in [0, 10 P], with the edges around multiples of P always included.
        List<Op> ops = new ArrayList<>();
        long total = 0;
        int[] edges = {0, 1, p - 1, p, p + 1, 2 * p, 2 * p + 1, 8192, 10 * p};
        for (int i = 0; i < 30; i++) {
            int length = i < edges.length ? edges[i] : rnd.nextInt(10 * p + 1);
            ops.add(new Op(1 + rnd.nextInt(3), total, length));
            total += length;
        }
        MemoryRegion clientMem = TestMemory.region(pair.client(), Math.max(1, total), Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(pair.server(), Math.max(1, total), Access.ALL, rnd.nextLong());
        runAndCheckIntact(pair, ops, clientMem, serverMem, clientStatus, serverStatus, where);

        // On the wire: per message, one payload length, Q = ceil(L / ceil(L / P)), at the rule's offsets.
        if (equal) {
            assertThat(tap.wrongLengths).as(where).isEmpty();
        }
        assertThat(tap.offsets).as(where).isNotEmpty();
        int readResponses = 0;
        for (Map.Entry<Long, TreeSet<Long>> e : tap.offsets.entrySet()) {
            long length = tap.messageLength.get(e.getKey());
            int q = equal ? Segmentation.packetPayload(length, p) : (int) Math.min(p, length);
            if ((e.getKey() >>> 56) == DataOpcode.READ_RESPONSE) {
                readResponses++;
            }
            TreeSet<Long> want = new TreeSet<>();
            for (long sent = 0; sent < length || want.isEmpty(); sent += Math.max(q, 1)) {
                want.add(equal ? Segmentation.packetOffset(length, q, sent) : sent);
            }
            if (equal) {
                assertThat(tap.payload.get(e.getKey())).as("payload of a %d-byte message (%s)", length, where)
                        .isEqualTo(q);
            }
            assertThat(e.getValue()).as("offsets of a %d-byte message (%s)", length, where).isEqualTo(want);
        }
        assertThat(readResponses).as(where).isEqualTo((int) ops.stream().filter(o -> o.kind == 3).count());
        // Datagrams without a bundled ACK carrying messages of one length have one length (two
        // without equal-length packets, for a message longer than P that is not a multiple of P).
        if (equal) {
            tap.datagramLengthsByMessageLength.forEach((length, lengths) ->
                    assertThat(lengths).as("datagram lengths for %d-byte messages (%s)", length, where).hasSize(1));
        } else {
            assertThat(tap.datagramLengthsByMessageLength.get(8192L)).as(where).hasSize(2);
        }
    }

    /**
     * Ends that cut differently still agree [SPEC-MSG-9]: the receiver credits either cut without
     * knowing its peer's {@code equalLengthPackets}; SENDs, WRITEs and READs (whose responses the
     * other end cuts) of the edge lengths arrive intact and complete exactly once, over loss and
     * reordering, both ways round.
     */
    @ParameterizedTest
    @MethodSource("mixedCuts")
    void endsThatCutDifferentlyStillCompleteEveryMessageIntact(long seed, boolean clientEqual) {
        NetworkConditions net = NetworkConditions.perfect().withDelay(5_000, 2_000, 20_000).withLoss(0.03);
        String where = "seed " + seed + ", client equalLengthPackets " + clientEqual + ", server " + !clientEqual;
        List<Integer> clientStatus = new ArrayList<>();
        List<Integer> serverStatus = new ArrayList<>();
        Pair pair = Pair.create(seed, 2, net, EngineConfig.builder().equalLengthPackets(clientEqual).build(),
                        EngineConfig.builder().equalLengthPackets(!clientEqual).build())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientStatus.add(st))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverStatus.add(st))
                .connect();
        Connection client = pair.clientConnection();
        int p = client.payloadBytesPerPacket();
        int[] lengths = {1, p - 1, p, p + 1, 2 * p + 1, 8192, 3 * p - 2, 10 * p - 7};
        long total = 0;
        for (int l : lengths) {
            total += l;
        }
        MemoryRegion clientMem = TestMemory.region(pair.client(), 3 * total, Access.ALL, seed);
        MemoryRegion serverMem = TestMemory.region(pair.server(), 3 * total, Access.ALL, seed + 1);
        long offset = 0;
        List<Op> ops = new ArrayList<>();
        for (int kind = 1; kind <= 3; kind++) {
            for (int l : lengths) {
                ops.add(new Op(kind, offset, l));
                offset += l;
            }
        }
        runAndCheckIntact(pair, ops, clientMem, serverMem, clientStatus, serverStatus, where);
    }

    /**
     * Snapshots both regions, posts every op (SENDs with their receives, WRITEs, READs) on streams
     * taken in turn, drives the pair until every completion arrived, and checks that each one is
     * SUCCESS and that every message's bytes arrived intact.
     */
    private static void runAndCheckIntact(Pair pair, List<Op> ops, MemoryRegion clientMem, MemoryRegion serverMem,
            List<Integer> clientStatus, List<Integer> serverStatus, String where) {
        Connection client = pair.clientConnection();
        Connection server = pair.serverConnection();
        MemorySegment clientBefore = TestMemory.snapshot(clientMem);
        MemorySegment serverBefore = TestMemory.snapshot(serverMem);
        int receives = 0;
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            int stream = i % 4;
            int r = switch (op.kind) {
                case 1 -> {
                    receives++;
                    assertThat(server.postRecv(stream, 500 + i, serverMem, op.offset, op.length)).isEqualTo(PostResult.OK);
                    yield client.postSend(stream, i, clientMem, op.offset, op.length);
                }
                case 2 -> client.postWrite(stream, i, clientMem, op.offset, op.length, serverMem.remoteKey(), op.offset);
                default -> client.postRead(stream, i, clientMem, op.offset, op.length, serverMem.remoteKey(), op.offset);
            };
            assertThat(r).as(where).isEqualTo(PostResult.OK);
        }
        int expectedServer = receives;
        pair.driveUntil(() -> clientStatus.size() >= ops.size() && serverStatus.size() >= expectedServer,
                60_000_000_000L, "all work (" + where + ")");

        assertThat(clientStatus).as(where).hasSize(ops.size()).allMatch(s -> s == CompletionStatus.SUCCESS);
        assertThat(serverStatus).as(where).hasSize(expectedServer).allMatch(s -> s == CompletionStatus.SUCCESS);
        for (Op op : ops) {
            MemorySegment got = op.kind == 3 ? clientMem.segment() : serverMem.segment();
            MemorySegment want = op.kind == 3 ? serverBefore : clientBefore;
            assertThat(got.asSlice(op.offset, op.length).mismatch(want.asSlice(op.offset, op.length)))
                    .as("kind %d, %d bytes (%s)", op.kind, op.length, where).isEqualTo(-1L);
        }
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> mixedCuts() {
        return LongStream.rangeClosed(1, 4).boxed().flatMap(seed -> java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(seed, true),
                org.junit.jupiter.params.provider.Arguments.of(seed, false)));
    }
}
