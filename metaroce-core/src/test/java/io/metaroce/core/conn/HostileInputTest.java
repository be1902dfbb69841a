package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Garbage, truncations, bit flips and misdirected packets thrown at the server endpoint of a live
 * connection: nothing throws, every datagram is counted, and the connection keeps working.
 */
class HostileInputTest {
    private static final long SEED = 0x5eed_4057L;
    private static final int FROM = Pair.clientAddress(0);

    record Done(long wrId, int opcode, int status, long bytes) { }

    private final List<Done> clientDone = new ArrayList<>();
    private final List<Done> serverDone = new ArrayList<>();
    /** Datagrams the client sent, by type, copied as they left. */
    private final List<byte[]> clientData = new ArrayList<>();
    private final List<byte[]> clientAcks = new ArrayList<>();
    private Pair p;
    private Connection server;
    private byte[] data;

    @BeforeEach
    void establishAndExchange() {
        p = Pair.create(SEED, 2, NetworkConditions.perfect(), EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(w, o, st, b)))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new Done(w, o, st, b)))
                .lossModel((fromClient, pathId, datagram, length, now) -> {
                    if (fromClient) {
                        byte[] copy = new byte[length];
                        datagram.get(0, copy);
                        int type = copy[1];
                        if (type == PacketType.DATA) {
                            clientData.add(copy);
                        } else if (type == PacketType.ACK) {
                            clientAcks.add(copy);
                        }
                    }
                    return false;
                })
                .connect();
        server = p.serverConnection();
        // Both directions, so the client also acknowledges data the server sent.
        MemoryRegion src = TestMemory.region(p.client(), 300, Access.NONE, SEED);
        MemoryRegion dst = TestMemory.region(p.server(), 300, Access.LOCAL_WRITE, 0);
        MemoryRegion back = TestMemory.region(p.server(), 20_000, Access.NONE, SEED + 1);
        MemoryRegion backDst = TestMemory.region(p.client(), 20_000, Access.LOCAL_WRITE, 0);
        assertThat(server.postRecv(0, 100, dst, 0, 300)).isEqualTo(PostResult.OK);
        assertThat(p.clientConnection().postRecv(0, 200, backDst, 0, 20_000)).isEqualTo(PostResult.OK);
        assertThat(p.clientConnection().postSend(0, 1, src, 0, 300)).isEqualTo(PostResult.OK);
        assertThat(server.postSend(0, 2, back, 0, 20_000)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> clientDone.size() == 2 && serverDone.size() == 2, 1_000_000_000L, "warm-up exchange");
        assertThat(clientData).as("captured DATA (seed %d)", SEED).isNotEmpty();
        assertThat(clientAcks).as("captured ACKs (seed %d)", SEED).isNotEmpty();
        data = clientData.get(0);
        assertThat(data.length).isEqualTo(WireConstants.DATA_OVERHEAD_BYTES + 300);
        clientDone.clear();
        serverDone.clear();
    }


    private void inject(byte[] bytes, int length) {
        inject(ByteBuffer.wrap(bytes), 0, length);
    }

    private void inject(ByteBuffer buffer, int offset, int length) {
        p.server().handleDatagram(p.now(), buffer, offset, length, 0, FROM, 0);
        p.flush();
    }

    private static void reseal(byte[] bytes) {
        new PacketCodec().reseal(ByteBuffer.wrap(bytes), 0, bytes.length);
    }

    /**
     * Runs {@code body} on a daemon thread and fails if it does not return within {@code seconds}:
     * an engine that loops forever on hostile input fails the test instead of hanging the build.
     * (A thread stuck in a busy loop cannot be stopped; it spins until the test JVM exits.)
     */
    static void assertReturnsWithin(int seconds, String what, Runnable body) {
        Throwable[] thrown = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        }, "hostile-input");
        t.setDaemon(true);
        t.start();
        try {
            t.join(seconds * 1_000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (t.isAlive()) {
            StringBuilder where = new StringBuilder();
            for (StackTraceElement e : t.getStackTrace()) {
                where.append("\n\tat ").append(e);
            }
            throw new AssertionError(what + " did not return within " + seconds + " s; engine thread is at:" + where);
        }
        if (thrown[0] instanceof AssertionError a) {
            throw a;
        }
        assertThat(thrown[0]).as(what + " threw").isNull();
    }

    /** Snapshot of the server endpoint's drop counters. */
    private record Counters(long received, long malformed, long[] byCode, long unknownConnection, long unknownPath,
            long duplicates) {
        static Counters of(Endpoint e, Connection c) {
            long[] byCode = new long[DecodeError.COUNT];
            for (int i = 0; i < byCode.length; i++) {
                byCode[i] = e.stats().decodeErrors(i);
            }
            return new Counters(e.stats().datagramsReceived(), e.stats().malformedDatagrams(), byCode,
                    e.stats().unknownConnection(), c.stats().unknownPathPackets(), c.stats().duplicatePackets());
        }

        long code(Counters before, int code) {
            return byCode[code] - before.byCode[code];
        }
    }

    private Counters counters() {
        return Counters.of(p.server(), server);
    }

    /** Posts a SEND of fresh random bytes and checks they land intact. */
    private void assertConnectionStillCarriesAVerifiedSend(String after) {
        int size = 100_000;
        MemoryRegion src = TestMemory.region(p.client(), size, Access.NONE, SEED ^ 0xabc);
        MemoryRegion dst = TestMemory.region(p.server(), size, Access.LOCAL_WRITE, 0);
        assertThat(server.postRecv(1, 300, dst, 0, size)).as(after).isEqualTo(PostResult.OK);
        assertThat(p.clientConnection().postSend(1, 3, src, 0, size)).as(after).isEqualTo(PostResult.OK);
        p.driveUntil(() -> clientDone.size() == 1 && serverDone.size() == 1, 1_000_000_000L,
                "verified send after " + after + " (seed " + SEED + ")");
        assertThat(clientDone).as(after).containsExactly(new Done(3, WorkOpcode.SEND, CompletionStatus.SUCCESS, size));
        assertThat(serverDone).as(after).containsExactly(new Done(300, WorkOpcode.RECV, CompletionStatus.SUCCESS, size));
        assertThat(dst.segment().mismatch(src.segment())).as(after).isEqualTo(-1);
        assertThat(server.state()).as(after).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(p.server().connectionCount()).as(after).isEqualTo(1);
    }

    // =====================================================================================

    @Test
    void randomDatagramsAreCountedAsMalformedAndTheConnectionSurvives() {
        SplittableRandom r = new SplittableRandom(SEED);
        Counters before = counters();
        int n = 5_000;
        int tooShort = 0;
        for (int i = 0; i < n; i++) {
            int length = r.nextInt(5_001);
            byte[] bytes = new byte[length];
            r.nextBytes(bytes);
            if (length < PacketCodec.MIN_PACKET_BYTES) {
                tooShort++;
            }
            assertThatCode(() -> inject(bytes, length)).as("datagram %d of %d bytes (seed %d)", i, length, SEED)
                    .doesNotThrowAnyException();
        }
        Counters after = counters();
        String why = "seed " + SEED;
        assertThat(after.received - before.received).as(why).isEqualTo(n);
        assertThat(after.malformed - before.malformed).as(why).isEqualTo(n);
        assertThat(after.code(before, DecodeError.TOO_SHORT)).as(why).isEqualTo(tooShort);
        assertThat(after.code(before, DecodeError.BAD_CHECKSUM)).as(why).isEqualTo(n - tooShort);
        assertThat(after.unknownConnection - before.unknownConnection).as(why).isZero();
        assertConnectionStillCarriesAVerifiedSend("random datagrams");
    }

    @Test
    void randomDatagramsWithAValidChecksumAreCountedAndTheConnectionSurvives() {
        SplittableRandom r = new SplittableRandom(SEED + 1);
        Counters before = counters();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            int type = r.nextInt(12);
            int length = r.nextBoolean() && PacketCodec.fixedLength(type) > 0 ? PacketCodec.fixedLength(type)
                    : r.nextInt(5_001);
            byte[] bytes = new byte[length];
            r.nextBytes(bytes);
            if (length >= PacketCodec.MIN_PACKET_BYTES) {
                if (r.nextInt(10) > 0) {
                    bytes[0] = WireConstants.VERSION;
                }
                bytes[1] = (byte) type;
                reseal(bytes);
            }
            assertThatCode(() -> inject(bytes, length)).as("datagram %d, type %d, %d bytes (seed %d)", i, type, length,
                    SEED + 1).doesNotThrowAnyException();
        }
        Counters after = counters();
        String why = "seed " + (SEED + 1);
        assertThat(after.received - before.received).as(why).isEqualTo(n);
        // A random destination id never names the live connection: each one is dropped by the
        // decoder or as an unknown connection.
        assertThat((after.malformed - before.malformed) + (after.unknownConnection - before.unknownConnection))
                .as(why).isEqualTo(n);
        assertThat(after.code(before, DecodeError.BAD_FIELD)).as(why).isPositive();
        assertThat(after.code(before, DecodeError.BAD_LENGTH)).as(why).isPositive();
        assertThat(after.code(before, DecodeError.UNKNOWN_TYPE)).as(why).isPositive();
        assertThat(after.code(before, DecodeError.BAD_VERSION)).as(why).isPositive();
        assertThat(p.server().stats().connectionsAccepted()).as(why).isEqualTo(1);
        assertConnectionStillCarriesAVerifiedSend("random datagrams with valid checksums");
    }

    @Test
    void everyTruncationOfAValidDataPacketIsCountedAsMalformed() {
        Counters before = counters();
        for (int length = 0; length < data.length; length++) {
            int len = length;
            // The whole packet stays in the buffer: only the length says where it ends.
            assertThatCode(() -> inject(data.clone(), len)).as("truncated to %d (seed %d)", len, SEED)
                    .doesNotThrowAnyException();
        }
        Counters after = counters();
        String why = "seed " + SEED;
        assertThat(after.received - before.received).as(why).isEqualTo(data.length);
        assertThat(after.malformed - before.malformed).as(why).isEqualTo(data.length);
        assertThat(after.code(before, DecodeError.TOO_SHORT)).as(why).isEqualTo(PacketCodec.MIN_PACKET_BYTES);
        assertThat(after.code(before, DecodeError.BAD_CHECKSUM)).as(why)
                .isEqualTo(data.length - PacketCodec.MIN_PACKET_BYTES);
        assertThat(after.duplicates - before.duplicates).as(why).isZero();
        assertConnectionStillCarriesAVerifiedSend("truncations");
    }

    @Test
    void everySingleBitFlipOfAValidDataPacketIsCountedAsABadChecksum() {
        Counters before = counters();
        int flips = data.length * 8;
        for (int bit = 0; bit < flips; bit++) {
            byte[] bytes = data.clone();
            bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
            int b = bit;
            assertThatCode(() -> inject(bytes, bytes.length)).as("bit %d flipped (seed %d)", b, SEED)
                    .doesNotThrowAnyException();
        }
        Counters after = counters();
        String why = "seed " + SEED;
        assertThat(after.received - before.received).as(why).isEqualTo(flips);
        assertThat(after.code(before, DecodeError.BAD_CHECKSUM)).as(why).isEqualTo(flips);
        assertThat(after.malformed - before.malformed).as(why).isEqualTo(flips);
        assertConnectionStillCarriesAVerifiedSend("bit flips");
    }

    @Test
    void validPacketsWithAWrongDestinationConnectionIdAreCountedAsUnknownConnection() {
        SplittableRandom r = new SplittableRandom(SEED + 2);
        Counters before = counters();
        int n = 0;
        List<byte[]> templates = List.of(data, clientAcks.get(0));
        for (byte[] template : templates) {
            for (int i = 0; i < 100; i++) {
                byte[] bytes = template.clone();
                long id = i == 0 ? 0 : i == 1 ? p.clientConnection().localId() : r.nextLong();
                if (id == server.localId()) {
                    continue;
                }
                ByteBuffer.wrap(bytes).putLong(8, id);
                reseal(bytes);
                inject(bytes, bytes.length);
                n++;
            }
        }
        Counters after = counters();
        String why = "seed " + (SEED + 2);
        assertThat(after.received - before.received).as(why).isEqualTo(n);
        assertThat(after.unknownConnection - before.unknownConnection).as(why).isEqualTo(n);
        assertThat(after.malformed - before.malformed).as(why).isZero();
        assertThat(after.duplicates - before.duplicates).as(why).isZero();
        assertConnectionStillCarriesAVerifiedSend("wrong connection ids");
    }

    @Test
    void validDataWithAPathIdBeyondTheNegotiatedCountIsCountedAsUnknownPath() {
        assertThat(server.pathCount()).isEqualTo(2);
        Counters before = counters();
        int[] pathIds = {2, 3, 63, 64, 1000, 65_535};
        for (int pathId : pathIds) {
            byte[] bytes = data.clone();
            ByteBuffer.wrap(bytes).putShort(2, (short) pathId);
            // A fresh CSN and message, so only the path can be the reason for the drop.
            ByteBuffer.wrap(bytes).putLong(16, 1_000 + pathId);
            reseal(bytes);
            assertThatCode(() -> inject(bytes, bytes.length)).as("path %d (seed %d)", pathId, SEED)
                    .doesNotThrowAnyException();
        }
        Counters after = counters();
        String why = "seed " + SEED;
        assertThat(after.unknownPath - before.unknownPath).as(why).isEqualTo(pathIds.length);
        assertThat(after.malformed - before.malformed).as(why).isZero();
        assertThat(after.unknownConnection - before.unknownConnection).as(why).isZero();
        assertThat(server.smoothedRttNanos(2)).as(why).isEqualTo(-1);
        assertThat(server.pathPacketsSent(2)).as(why).isEqualTo(-1);
        assertConnectionStillCarriesAVerifiedSend("unknown path ids");
    }

    /**
     * [SPEC-SACK-7]: a PROBE_ACK gives an RTT sample only as the first answer on its path to a probe
     * newer than every probe already answered there: a repeated copy, or a late answer to an older
     * probe (whose timestamp is older still), gives none; a newer probe's answer does.
     */
    @Test
    void onlyTheFirstAnswerToTheNewestProbeGivesAnRttSample() {
        long before = smoothedRtt(0);
        injectProbeAck(0, 1_000_000, p.now() - 20_000);
        long afterFirst = smoothedRtt(0);
        assertThat(afterFirst).as("the first answer to probe 1000000 is a sample").isNotEqualTo(before);
        injectProbeAck(0, 1_000_000, p.now() - 3_000_000);
        assertThat(smoothedRtt(0)).as("a copy of the same answer is none").isEqualTo(afterFirst);
        injectProbeAck(0, 999_999, p.now() - 5_000_000);
        assertThat(smoothedRtt(0)).as("a late answer to an older probe is none").isEqualTo(afterFirst);
        injectProbeAck(0, 1_000_001, p.now() - 4_000_000);
        assertThat(smoothedRtt(0)).as("the answer to a newer probe is a sample").isGreaterThan(afterFirst);
    }

    private long smoothedRtt(int pathId) {
        io.metaroce.core.api.PathStats stats = new io.metaroce.core.api.PathStats();
        assertThat(server.readPathStats(pathId, stats)).isTrue();
        return stats.smoothedRttNanos;
    }

    /**
     * [SPEC-WIRE-31] Short ACKs aimed at the live connection: a well-formed one is taken (no
     * decode error), one without its highest bit, with bits below PSN 0 or at the full ACK's length
     * is dropped and counted by its decode error, and the connection carries on.
     */
    @Test
    void malformedShortAcksAreCountedAndTheConnectionSurvives() {
        Counters before = counters();
        for (int fault = 0; fault < 4; fault++) {
            Packet pk = new Packet();
            pk.type = PacketType.ACK;
            pk.pathId = 0;
            pk.flags = WireConstants.FLAG_SHORT_SACK;
            pk.destinationConnectionId = server.localId();
            pk.sackBase = 0;
            pk.sackBits[0] = 1; // PSN 0 acknowledged: H = 0
            ByteBuffer b = ByteBuffer.allocate(WireConstants.ACK_BYTES);
            int n = new PacketCodec().encode(pk, b, 0, null, 0);
            assertThat(n).isEqualTo(WireConstants.ACK_SHORT_BYTES);
            switch (fault) {
                case 1 -> b.putLong(32, 1L << 62); // H itself not acknowledged
                case 2 -> b.putLong(32, -1L); // bits for PSNs below 0
                case 3 -> n = WireConstants.ACK_BYTES; // the flag with the full length
                default -> { } // well-formed
            }
            new PacketCodec().reseal(b, 0, n);
            inject(b, 0, n);
        }
        Counters after = counters();
        assertThat(after.received - before.received).isEqualTo(4);
        assertThat(after.code(before, DecodeError.BAD_FIELD)).isEqualTo(2);
        assertThat(after.code(before, DecodeError.BAD_LENGTH)).isEqualTo(1);
        assertThat(after.malformed - before.malformed).isEqualTo(3);
        assertConnectionStillCarriesAVerifiedSend("malformed short ACKs");
    }

    private void injectProbeAck(int pathId, long probeId, long timestampNanos) {
        Packet pk = new Packet();
        pk.type = PacketType.PROBE_ACK;
        pk.pathId = pathId;
        pk.destinationConnectionId = server.localId();
        pk.probeId = probeId;
        pk.timestampNanos = timestampNanos;
        ByteBuffer b = ByteBuffer.allocate(PacketCodec.fixedLength(PacketType.PROBE_ACK));
        int n = new PacketCodec().encode(pk, b, 0, null, 0);
        inject(b, 0, n);
    }

    @Test
    void otherPacketsNamingAPathBeyondTheNegotiatedCountAreCountedAsUnknownPath() {
        PacketCodec codec = new PacketCodec();
        int[] types = {PacketType.ACK, PacketType.NAK, PacketType.PATH_PROBE, PacketType.PROBE_ACK,
            PacketType.READ_REQUEST};
        Counters before = counters();
        for (int type : types) {
            Packet pk = new Packet();
            pk.type = type;
            pk.pathId = 9;
            pk.destinationConnectionId = server.localId();
            pk.probeId = 1;
            pk.timestampNanos = p.now();
            pk.nakCode = io.metaroce.core.wire.NakCode.RECEIVER_NOT_READY;
            pk.connectionSequence = 5_000;
            pk.messageLength = 10;
            ByteBuffer b = ByteBuffer.allocate(PacketCodec.fixedLength(type));
            int n = codec.encode(pk, b, 0, null, 0);
            assertThatCode(() -> inject(b, 0, n)).as("%s on path 9", PacketType.name(type)).doesNotThrowAnyException();
        }
        Counters after = counters();
        assertThat(after.malformed - before.malformed).isZero();
        assertThat(after.unknownPath - before.unknownPath)
                .as("ACK, NAK, PATH_PROBE, PROBE_ACK and READ_REQUEST naming path 9 of a 2-path connection")
                .isEqualTo(types.length);
        assertConnectionStillCarriesAVerifiedSend("control packets on unknown paths");
    }

    @Test
    void handshakePacketsSentToAnEstablishedConnectionAreCountedAndIgnored() {
        PacketCodec codec = new PacketCodec();
        Counters before = counters();
        long unexpectedBefore = p.server().stats().unexpectedHandshake() + server.stats().unexpectedPackets();
        int[] types = {PacketType.CHALLENGE, PacketType.ACCEPT};
        for (int type : types) {
            Packet pk = new Packet();
            pk.type = type;
            pk.destinationConnectionId = server.localId();
            pk.sourceConnectionId = 0x1234L;
            pk.maxDatagramBytes = 4096;
            pk.sequenceWindow = 1 << 16;
            pk.pathCount = 1;
            pk.hasCookie = true;
            ByteBuffer b = ByteBuffer.allocate(PacketCodec.fixedLength(type));
            int n = codec.encode(pk, b, 0, null, 0);
            assertThatCode(() -> inject(b, 0, n)).as(PacketType.name(type)).doesNotThrowAnyException();
        }
        Counters after = counters();
        assertThat(after.malformed - before.malformed).isZero();
        assertThat(after.unknownConnection - before.unknownConnection).isZero();
        assertThat(server.peerId()).as("an ACCEPT must not rebind the peer").isEqualTo(p.clientConnection().localId());
        long unexpectedAfter = p.server().stats().unexpectedHandshake() + server.stats().unexpectedPackets();
        assertThat(unexpectedAfter - unexpectedBefore)
                .as("a CHALLENGE and an ACCEPT sent to an established server connection: counted in "
                        + "EndpointStats.unexpectedHandshake or ConnectionStats.unexpectedPackets")
                .isEqualTo(types.length);
        assertConnectionStillCarriesAVerifiedSend("handshake packets to an established connection");
    }

    @Test
    void aConnectFloodGetsBoundedChallengesAndCreatesNoConnection() {
        Counters before = counters();
        long challengesBefore = p.server().stats().challengesSent();
        long droppedBefore = p.server().stats().challengesDropped();
        int n = 1_000;
        SplittableRandom r = new SplittableRandom(SEED + 3);
        for (int i = 0; i < n; i++) {
            ByteBuffer connect = HandshakeTest.connect(r.nextLong() | 1, null);
            // No polling in between: the flood arrives faster than the endpoint sends.
            p.server().handleDatagram(p.now(), connect, 0, connect.limit(), 0, Pair.clientAddress(100 + i % 50), 0);
        }
        p.flush();
        long sent = p.server().stats().challengesSent() - challengesBefore;
        long dropped = p.server().stats().challengesDropped() - droppedBefore;
        String why = "seed " + (SEED + 3);
        assertThat(counters().received - before.received).as(why).isEqualTo(n);
        assertThat(sent + dropped).as(why).isEqualTo(n);
        assertThat(sent).as(why).isBetween(1L, 64L);
        assertThat(p.server().connectionCount()).as(why).isEqualTo(1);
        assertThat(p.server().stats().connectionsAccepted()).as(why).isEqualTo(1);
        assertConnectionStillCarriesAVerifiedSend("a CONNECT flood");
    }

    @Test
    void aReplayedDataPacketAtAnOffsetOrInAForeignBufferIsAHarmlessDuplicate() {
        Counters before = counters();
        // Inside a bigger heap buffer, at an odd offset.
        ByteBuffer heap = ByteBuffer.allocate(data.length + 100);
        heap.put(37, data);
        inject(heap, 37, data.length);
        // In a little-endian direct buffer: multi-byte fields are big-endian on the wire regardless.
        ByteBuffer direct = ByteBuffer.allocateDirect(data.length + 10).order(ByteOrder.LITTLE_ENDIAN);
        direct.put(5, data);
        inject(direct, 5, data.length);
        Counters after = counters();
        assertThat(after.malformed - before.malformed).as("seed %d", SEED).isZero();
        assertThat(after.duplicates - before.duplicates).as("seed %d", SEED).isEqualTo(2);
        assertThat(serverDone).as("a duplicate completes nothing (seed %d)", SEED).isEmpty();
        assertConnectionStillCarriesAVerifiedSend("replays");
    }

    @Test
    void aDataPacketAtTheTopOfTheSequenceSpaceDoesNotWedgeTheEndpoint() {
        // A well-formed DATA packet (u63 fields in range) with CSN = sequenceFloor = 2^63 - 1, sent
        // as a READ_RESPONSE nobody asked for (which, if admitted, is accepted as stale). Whether the
        // engine drops it as implausible or admits it, the receive window's base must not overflow,
        // and the endpoint must go on handling datagrams afterwards.
        byte[] top = data.clone();
        ByteBuffer b = ByteBuffer.wrap(top);
        b.putShort(4, (short) WireConstants.FLAG_ACK_NOW);
        b.putLong(16, Long.MAX_VALUE);
        b.put(32, (byte) io.metaroce.core.wire.DataOpcode.READ_RESPONSE);
        b.putLong(96, Long.MAX_VALUE);
        reseal(top);
        Packet check = new Packet();
        assertThat(new PacketCodec().decode(ByteBuffer.wrap(top), 0, top.length, check)).isEqualTo(DecodeError.OK);
        long clientBadFieldsBefore = p.client().stats().decodeErrors(DecodeError.BAD_FIELD);

        assertReturnsWithin(10, "the packet at CSN 2^63-1, then an ordinary replayed DATA packet (seed " + SEED + ")",
                () -> {
                    inject(top, top.length);
                    p.advance(1_000_000L);
                    inject(data.clone(), data.length);
                    p.advance(1_000_000L);
                });

        assertThat(p.client().stats().decodeErrors(DecodeError.BAD_FIELD) - clientBadFieldsBefore)
                .as("ACKs from the server must stay well-formed (cumulativeSequence < 2^63)")
                .isZero();
    }

    @Test
    void theFirstPacketOnAPathCarryingTheHighestPathSequenceDoesNotWedgeTheEndpoint() {
        // A fresh pair: nothing has arrived on the server's path 1 yet. A well-formed DATA packet
        // (a stale READ_RESPONSE, accepted and dropped) arrives on it with PSN = 2^63 - 1.
        Pair fresh = Pair.create(SEED, 2, NetworkConditions.perfect(), EngineConfig.defaults()).connect();
        Connection target = fresh.serverConnection();
        Packet pk = new Packet();
        pk.type = PacketType.DATA;
        pk.pathId = 1;
        pk.destinationConnectionId = target.localId();
        pk.connectionSequence = 0;
        pk.pathSequence = Long.MAX_VALUE;
        pk.opcode = io.metaroce.core.wire.DataOpcode.READ_RESPONSE;
        pk.messageLength = 0;
        ByteBuffer b = ByteBuffer.allocate(WireConstants.DATA_OVERHEAD_BYTES);
        int n = new PacketCodec().encode(pk, b, 0, null, 0);
        Packet check = new Packet();
        assertThat(new PacketCodec().decode(b, 0, n, check)).isEqualTo(DecodeError.OK);

        assertReturnsWithin(10, "a first DATA packet on path 1 with PSN 2^63-1 (seed " + SEED + ")", () -> {
            fresh.server().handleDatagram(fresh.now(), b, 0, n, 1, Pair.clientAddress(1), 0);
            fresh.advance(1_000_000L);
        });
        assertThat(fresh.server().stats().malformedDatagrams()).isZero();
    }

    @ParameterizedTest(name = "fuzz seed {0}")
    @MethodSource("fuzzSeeds")
    void structuredGarbageAimedAtTheLiveConnectionWhileItIsBusyNeverThrows(long seed) {
        // Well-formed packets of every type a connection handles (CLOSE aside, which would simply
        // end it), addressed to the live server connection, with field values drawn from the edges
        // of their ranges, while the server is sending and the client receiving. The connection may
        // legitimately be disturbed; the engine must never throw, neither on input nor on its timers.
        SplittableRandom r = new SplittableRandom(seed);
        int size = 2_000_000;
        MemoryRegion src = TestMemory.region(p.server(), size, Access.REMOTE_READ, seed);
        MemoryRegion dst = TestMemory.region(p.client(), size, Access.LOCAL_WRITE, 0);
        assertThat(p.clientConnection().postRecv(2, 7, dst, 0, size)).isEqualTo(PostResult.OK);
        assertThat(server.postSend(2, 8, src, 0, size)).isEqualTo(PostResult.OK);
        p.step();
        p.step();
        Counters before = counters();
        int n = 20_000;
        assertReturnsWithin(60, "structured garbage (seed " + seed + ")", () -> {
            fuzz(r, n, seed, src.remoteKey());
            assertThatCode(() -> p.advance(5_000_000_000L)).as("running afterwards (seed %d)", seed)
                    .doesNotThrowAnyException();
        });
        assertThat(counters().received - before.received).isGreaterThanOrEqualTo(n);
    }

    private void fuzz(SplittableRandom r, int n, long seed, int knownRemoteKey) {
        int[] types = {PacketType.DATA, PacketType.READ_REQUEST, PacketType.ACK, PacketType.NAK, PacketType.PATH_PROBE,
            PacketType.PROBE_ACK, PacketType.CHALLENGE, PacketType.ACCEPT};
        PacketCodec codec = new PacketCodec();
        ByteBuffer payload = ByteBuffer.allocate(1_000);
        ByteBuffer buf = ByteBuffer.allocate(4_096);
        for (int i = 0; i < n; i++) {
            Packet pk = new Packet();
            pk.type = types[r.nextInt(types.length)];
            pk.pathId = r.nextInt(3);
            pk.flags = r.nextInt(4);
            pk.destinationConnectionId = server.localId();
            // Sequence numbers stay below 2^62: the top of the CSN and PSN spaces has its own tests.
            pk.connectionSequence = belowTop(r);
            pk.pathSequence = belowTop(r);
            pk.opcode = 1 + r.nextInt(4);
            pk.dataFlags = r.nextInt(2);
            pk.streamId = r.nextBoolean() ? r.nextInt(4) : r.nextInt();
            pk.messageSequence = edgy(r);
            pk.receiveSequence = edgy(r);
            pk.payloadLength = r.nextInt(300);
            pk.messageLength = r.nextBoolean() ? pk.payloadLength + r.nextInt(3) * 1_000L : edgy(r);
            pk.payloadMessageOffset = r.nextBoolean() ? 0 : edgy(r);
            pk.remoteOffset = edgy(r);
            pk.remoteKey = r.nextBoolean() ? knownRemoteKey : r.nextInt();
            pk.immediate = r.nextInt();
            pk.timestampNanos = r.nextBoolean() ? p.now() - r.nextInt(1_000_000) : edgy(r);
            pk.sequenceFloor = r.nextInt(4) == 0 ? belowTop(r) : 0;
            pk.sackBase = edgy(r);
            for (int w = 0; w < WireConstants.SACK_WORDS; w++) {
                pk.sackBits[w] = r.nextLong();
            }
            pk.echoTimestampNanos = r.nextBoolean() ? p.now() - r.nextInt(1_000_000) : edgy(r);
            pk.ackDelayNanos = edgy(r);
            pk.ectCount = edgy(r);
            pk.ceCount = r.nextBoolean() ? 0 : edgy(r);
            pk.rateHintBytesPerSecond = r.nextBoolean() ? 0 : edgy(r);
            pk.cumulativeSequence = edgy(r);
            pk.nakCode = 1 + r.nextInt(3);
            pk.refusedPathSequence = edgy(r);
            pk.refusedConnectionSequence = edgy(r);
            pk.retryAfterNanos = edgy(r);
            pk.sourceConnectionId = r.nextLong();
            pk.maxDatagramBytes = r.nextBoolean() ? 256 + r.nextInt(70_000) : r.nextInt();
            pk.sequenceWindow = r.nextBoolean() ? 64 << r.nextInt(20) : r.nextInt();
            pk.pathCount = r.nextInt(4);
            pk.hasCookie = true;
            pk.probeId = r.nextLong();
            int len = codec.encode(pk, buf, 0, payload, 0);
            int type = pk.type;
            int k = i;
            assertThatCode(() -> inject(buf, 0, len))
                    .as("packet %d, %s (seed %d)", k, PacketType.name(type), seed).doesNotThrowAnyException();
            if (i % 50 == 0) {
                assertThatCode(p::step).as("step after packet %d (seed %d)", k, seed).doesNotThrowAnyException();
            }
        }
    }

    static java.util.stream.LongStream fuzzSeeds() {
        return java.util.stream.LongStream.rangeClosed(1, Long.getLong("hostile.fuzzSeeds", 8));
    }

    /** Like {@link #edgy} but below 2^62. */
    private static long belowTop(SplittableRandom r) {
        long v = edgy(r);
        return v > (1L << 62) ? v >>> 2 : v;
    }

    /** A u63 value from the edges of its range, or a small one. */
    private static long edgy(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> 0;
            case 1 -> r.nextInt(64);
            case 2 -> r.nextInt(100_000);
            case 3 -> Long.MAX_VALUE - r.nextInt(3);
            case 4 -> (1L << 62) + r.nextInt(3) - 1;
            default -> r.nextLong() & Long.MAX_VALUE;
        };
    }

    @Test
    void resealedBitFlipsAimedAtTheLiveConnectionNeverThrow() {
        // Every bit of the headers of a DATA and an ACK, except the destination id, flipped and the
        // checksum fixed: valid-looking packets with one wrong field, delivered to the connection.
        // They may legitimately disturb it; they must never throw out of the engine.
        List<byte[]> templates = List.of(data, clientAcks.get(clientAcks.size() - 1));
        Counters before = counters();
        int[] count = {0};
        assertReturnsWithin(60, "resealed bit flips (seed " + SEED + ")", () -> {
            for (byte[] template : templates) {
                count[0] += flipEveryHeaderBitResealed(template);
            }
            assertThatCode(() -> p.advance(2_000_000_000L)).as("running timers afterwards (seed %d)", SEED)
                    .doesNotThrowAnyException();
        });
        assertThat(counters().received - before.received).isEqualTo(count[0]);
    }

    private int flipEveryHeaderBitResealed(byte[] template) {
        int headerBytes = template[1] == PacketType.DATA ? WireConstants.DATA_HEADER_BYTES
                : template.length - WireConstants.CHECKSUM_BYTES;
        int n = 0;
        for (int bit = 0; bit < headerBytes * 8; bit++) {
            if (bit >= 8 * 8 && bit < 16 * 8) {
                continue; // the destination connection id
            }
            byte[] bytes = template.clone();
            bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
            reseal(bytes);
            int b = bit;
            assertThatCode(() -> inject(bytes, bytes.length))
                    .as("%s with bit %d flipped (seed %d)", PacketType.name(template[1]), b, SEED)
                    .doesNotThrowAnyException();
            n++;
        }
        return n;
    }
}
