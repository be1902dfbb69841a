package io.metaroce.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Example-based tests of {@link PacketCodec}: round trips of every packet type, exact byte layouts,
 * every validation rule and the codec's treatment of the caller's buffers. The static helpers are
 * shared with {@link PacketDecodePropertyTest}.
 */
class PacketCodecTest {

    /** Every packet type, in code order. */
    static final int[] ALL_TYPES = {
        PacketType.DATA, PacketType.READ_REQUEST, PacketType.ACK, PacketType.NAK, PacketType.CONNECT,
        PacketType.CHALLENGE, PacketType.ACCEPT, PacketType.CLOSE, PacketType.PATH_PROBE, PacketType.PROBE_ACK,
    };

    /** Payload length of the sample DATA packet. */
    static final int SAMPLE_PAYLOAD = 50;
    /** Index of the sample payload inside {@link #payloadSource()}. */
    static final int PAYLOAD_SOURCE_INDEX = 7;
    /** Byte the test buffers are pre-filled with, so that unwritten bytes show up. */
    static final byte GARBAGE = (byte) 0xA5;

    /** The kinds of buffer the codec must handle. */
    enum BufferKind {
        HEAP,
        /** A heap buffer whose backing array starts at a non-zero array offset. */
        HEAP_SLICE,
        HEAP_LITTLE_ENDIAN,
        DIRECT,
        DIRECT_LITTLE_ENDIAN,
        /** Encoded into a direct buffer, decoded from a read-only view of it (no accessible array). */
        DIRECT_READ_ONLY;

        ByteBuffer allocate(int capacity) {
            ByteBuffer b = switch (this) {
                case HEAP -> ByteBuffer.allocate(capacity);
                case HEAP_SLICE -> ByteBuffer.allocate(capacity + 11).position(11).slice();
                case HEAP_LITTLE_ENDIAN -> ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
                case DIRECT, DIRECT_READ_ONLY -> ByteBuffer.allocateDirect(capacity);
                case DIRECT_LITTLE_ENDIAN -> ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
            };
            for (int i = 0; i < capacity; i++) {
                b.put(i, GARBAGE);
            }
            return b;
        }

        ByteBuffer forDecode(ByteBuffer encoded) {
            return this == DIRECT_READ_ONLY ? encoded.asReadOnlyBuffer() : encoded;
        }
    }

    /** An encoded datagram at {@code buf[offset, offset + length)}. */
    record Encoded(ByteBuffer buf, int offset, int length) {
        byte[] bytes() {
            byte[] b = new byte[length];
            buf.get(offset, b);
            return b;
        }
    }

    /** A heap buffer holding the sample payload (byte i = 3i + 1) at {@link #PAYLOAD_SOURCE_INDEX}. */
    static ByteBuffer payloadSource() {
        return payloadSource(SAMPLE_PAYLOAD);
    }

    static ByteBuffer payloadSource(int payloadLength) {
        ByteBuffer b = ByteBuffer.allocate(PAYLOAD_SOURCE_INDEX + payloadLength + 3);
        for (int i = 0; i < payloadLength; i++) {
            b.put(PAYLOAD_SOURCE_INDEX + i, (byte) (3 * i + 1));
        }
        return b;
    }

    /** A valid packet of {@code type} with non-trivial values, u32 fields with their top bit set. */
    static Packet sample(int type) {
        Packet p = new Packet();
        p.type = type;
        p.pathId = 0xBEEF;
        p.flags = WireConstants.FLAG_ACK_NOW | 0x8000;
        p.destinationConnectionId = 0xF123_4567_89AB_CDEFL;
        p.connectionSequence = 0x0123_4567_89AB_CDEFL;
        p.pathSequence = 0x7EDC_BA98_7654_3210L;
        switch (type) {
            case PacketType.DATA -> {
                p.opcode = DataOpcode.WRITE_WITH_IMM;
                p.dataFlags = WireConstants.DATA_FLAG_HAS_IMMEDIATE;
                p.streamId = 0x89AB_CDEF;
                p.messageSequence = 0x1122_3344_5566_7788L;
                p.receiveSequence = 0x2233_4455_6677_8899L;
                p.messageLength = 1_000_000_007L;
                p.payloadMessageOffset = 1_000_000_007L - SAMPLE_PAYLOAD;
                p.remoteOffset = 0x7FFF_FFFF_FFFF_FFF0L;
                p.remoteKey = 0xDEAD_BEEF;
                p.immediate = 0xCAFE_BABE;
                p.timestampNanos = -5L; // opaque: System.nanoTime() may be negative
                p.sequenceFloor = 0x0102_0304_0506_0708L;
                p.payloadLength = SAMPLE_PAYLOAD;
            }
            case PacketType.READ_REQUEST -> {
                p.streamId = 0x8000_0001;
                p.remoteKey = 0xFEDC_BA98;
                p.messageSequence = 77L;
                p.remoteOffset = 0x4000_0000_0000_0000L;
                p.messageLength = WireConstants.MAX_MESSAGE_LENGTH;
                p.timestampNanos = 0x8765_4321_0FED_CBA9L;
                p.sequenceFloor = 1234567L;
            }
            case PacketType.ACK -> {
                p.sackBase = 0x0000_1234_5678_9ABCL;
                p.sackBits[0] = 0x8000_0000_0000_0001L;
                p.sackBits[1] = -1L;
                p.sackBits[2] = 0x0F0F_0F0F_F0F0_F0F0L;
                p.sackBits[3] = 0x1L;
                p.echoTimestampNanos = 0xFFFF_0000_1111_2222L;
                p.ackDelayNanos = 25_000L;
                p.ectCount = 900_000_000_000L;
                p.ceCount = 31L;
                p.rateHintBytesPerSecond = 12_500_000_000L;
                p.cumulativeSequence = 0x0123_4567_89AB_CD00L;
            }
            case PacketType.NAK -> {
                p.nakCode = NakCode.REMOTE_INVALID_REQUEST;
                p.streamId = 0xFFFF_FFFE;
                p.refusedPathSequence = 0x7EDC_BA98_7654_3200L;
                p.refusedConnectionSequence = 0x0123_4567_89AB_CD01L;
                p.messageSequence = 99L;
                p.retryAfterNanos = 3_000_000L;
            }
            case PacketType.CONNECT -> {
                p.destinationConnectionId = 0;
                p.sourceConnectionId = 0x9999_8888_7777_6666L;
                p.maxDatagramBytes = 0x8000_0100;
                p.pathCount = 0xFFFF;
                p.sequenceWindow = 0xF000_0000;
                p.hasCookie = true;
                fillCookie(p, 40);
            }
            case PacketType.CHALLENGE -> {
                p.hasCookie = true;
                fillCookie(p, 200);
            }
            case PacketType.ACCEPT -> {
                p.sourceConnectionId = 0x1111_2222_3333_4444L;
                p.maxDatagramBytes = 9000;
                p.sequenceWindow = 0x8000_0000;
                p.pathCount = 0xFFFF;
                p.announcementSequence = 0xBEEF;
                p.rateHintBytesPerSecond = 0x0123_4567_89AB_CDEFL;
            }
            case PacketType.CLOSE -> {
                p.closeCode = CloseCode.APPLICATION_ABORT;
                p.closeReply = true;
            }
            case PacketType.PATH_PROBE, PacketType.PROBE_ACK -> {
                p.probeId = 0xABCD_EF01_2345_6789L;
                p.timestampNanos = 0x7000_0000_0000_0001L;
            }
            default -> throw new IllegalArgumentException("type " + type);
        }
        return p;
    }

    private static void fillCookie(Packet p, int seed) {
        for (int i = 0; i < WireConstants.COOKIE_BYTES; i++) {
            p.cookie[i] = (byte) (seed + 7 * i);
        }
    }

    /** Encodes {@code p} into a fresh buffer of {@code kind} at {@code offset}, with slack after it. */
    static Encoded encode(PacketCodec codec, Packet p, BufferKind kind, int offset) {
        int length = PacketCodec.encodedLength(p.type, p.payloadLength);
        ByteBuffer buf = kind.allocate(offset + length + 9);
        int n = codec.encode(p, buf, offset, payloadSource(p.type == PacketType.DATA ? p.payloadLength : 0),
                PAYLOAD_SOURCE_INDEX);
        assertThat(n).isEqualTo(length);
        return new Encoded(buf, offset, n);
    }

    static void assertSamePacket(Packet actual, Packet expected) {
        // Where the payload lies is checked by the callers that know the buffer decoded.
        assertThat(actual).usingRecursiveComparison().ignoringFields("payloadOffset", "payloadCopy").isEqualTo(expected);
    }

    /** Big-endian store of the low {@code size} bytes of {@code v}, written with shifts only. */
    private static void be(byte[] b, int off, long v, int size) {
        for (int i = 0; i < size; i++) {
            b[off + i] = (byte) (v >>> (8 * (size - 1 - i)));
        }
    }

    private static int crc32c(byte[] b, int from, int to) {
        CRC32C c = new CRC32C();
        c.update(b, from, to - from);
        return (int) c.getValue();
    }

    private final PacketCodec codec = new PacketCodec();
    private final Packet out = new Packet();

    // =====================================================================================
    // Round trips
    // =====================================================================================

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void everyTypeRoundTrips(BufferKind kind) {
        for (int type : ALL_TYPES) {
            Packet p = sample(type);
            Encoded e = encode(codec, p, kind, 13);
            ByteBuffer src = kind.forDecode(e.buf());
            int r = codec.decode(src, e.offset(), e.length(), out);
            assertThat(DecodeError.name(r)).as(PacketType.name(type)).isEqualTo("OK");
            assertSamePacket(out, p);
            if (type == PacketType.DATA) {
                assertThat(out.payloadOffset).isEqualTo(13 + WireConstants.DATA_HEADER_BYTES);
                for (int i = 0; i < SAMPLE_PAYLOAD; i++) {
                    assertThat(src.get(out.payloadOffset + i)).isEqualTo((byte) (3 * i + 1));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void encodedBytesDoNotDependOnBufferKindOrOrder(BufferKind kind) {
        for (int type : ALL_TYPES) {
            byte[] reference = encode(codec, sample(type), BufferKind.HEAP, 0).bytes();
            assertThat(encode(codec, sample(type), kind, 5).bytes()).as(PacketType.name(type)).isEqualTo(reference);
        }
    }

    @Test
    void encodedLengthsMatchTheConstants() {
        assertThat(PacketCodec.encodedLength(PacketType.DATA, 0)).isEqualTo(108);
        assertThat(PacketCodec.encodedLength(PacketType.DATA, 4000)).isEqualTo(4108);
        assertThat(PacketCodec.encodedLength(PacketType.READ_REQUEST, 0)).isEqualTo(84);
        assertThat(PacketCodec.encodedLength(PacketType.ACK, 0)).isEqualTo(124);
        assertThat(PacketCodec.encodedLength(PacketType.NAK, 0)).isEqualTo(76);
        assertThat(PacketCodec.encodedLength(PacketType.CONNECT, 0)).isEqualTo(84);
        assertThat(PacketCodec.encodedLength(PacketType.CHALLENGE, 0)).isEqualTo(60);
        assertThat(PacketCodec.encodedLength(PacketType.ACCEPT, 0)).isEqualTo(64);
        assertThat(PacketCodec.encodedLength(PacketType.CLOSE, 0)).isEqualTo(44);
        assertThat(PacketCodec.encodedLength(PacketType.PATH_PROBE, 0)).isEqualTo(52);
        assertThat(PacketCodec.encodedLength(PacketType.PROBE_ACK, 0)).isEqualTo(52);
        assertThat(PacketCodec.fixedLength(PacketType.DATA)).isEqualTo(-1);
        assertThat(PacketCodec.fixedLength(0)).isEqualTo(-1);
        assertThat(PacketCodec.fixedLength(11)).isEqualTo(-1);
    }

    @Test
    void dataWithEmptyPayloadAndNoPayloadSourceRoundTrips() {
        Packet p = sample(PacketType.DATA);
        p.opcode = DataOpcode.SEND;
        p.dataFlags = 0;
        p.payloadLength = 0;
        p.messageLength = 0;
        p.payloadMessageOffset = 0;
        ByteBuffer buf = ByteBuffer.allocateDirect(200);
        int n = codec.encode(p, buf, 3, null, 0);
        assertThat(n).isEqualTo(WireConstants.DATA_OVERHEAD_BYTES);
        assertThat(codec.decode(buf, 3, n, out)).isEqualTo(DecodeError.OK);
        assertSamePacket(out, p);
        assertThat(out.payloadOffset).isEqualTo(3 + WireConstants.DATA_HEADER_BYTES);
    }

    @Test
    void connectWithoutCookieRoundTripsAndWritesZeroCookie() {
        Packet p = sample(PacketType.CONNECT);
        Arrays.fill(p.cookie, (byte) 0x55); // ignored because hasCookie is false
        p.hasCookie = false;
        Encoded e = encode(codec, p, BufferKind.HEAP, 0);
        byte[] b = e.bytes();
        assertThat(b[46]).isZero();
        assertThat(b[47]).isZero();
        assertThat(Arrays.copyOfRange(b, 56, 80)).containsOnly(0);
        assertThat(codec.decode(e.buf(), 0, e.length(), out)).isEqualTo(DecodeError.OK);
        assertThat(out.hasCookie).isFalse();
        assertThat(out.cookie).containsOnly(0);
    }

    @Test
    void decodeResetsFieldsOfAnEarlierPacket() {
        Encoded data = encode(codec, sample(PacketType.DATA), BufferKind.HEAP, 0);
        Encoded ack = encode(codec, sample(PacketType.ACK), BufferKind.HEAP, 0);
        assertThat(codec.decode(data.buf(), 0, data.length(), out)).isEqualTo(DecodeError.OK);
        assertThat(codec.decode(ack.buf(), 0, ack.length(), out)).isEqualTo(DecodeError.OK);
        assertSamePacket(out, sample(PacketType.ACK));
        assertThat(out.payloadOffset).isZero();
    }

    // =====================================================================================
    // Exact layouts
    // =====================================================================================

    private static byte[] expectedCommonHeader(Packet p, int length) {
        byte[] b = new byte[length];
        b[0] = 1;
        b[1] = (byte) p.type;
        be(b, 2, p.pathId, 2);
        be(b, 4, p.flags, 2);
        // 6..7 reserved zero
        be(b, 8, p.destinationConnectionId, 8);
        be(b, 16, p.connectionSequence, 8);
        be(b, 24, p.pathSequence, 8);
        return b;
    }

    @Test
    void dataLayoutIsExact() {
        Packet p = sample(PacketType.DATA);
        Encoded e = encode(codec, p, BufferKind.HEAP, 0);
        int length = 104 + SAMPLE_PAYLOAD + 4;
        byte[] x = expectedCommonHeader(p, length);
        x[32] = 3; // WRITE_WITH_IMM
        x[33] = 1; // HAS_IMMEDIATE
        be(x, 36, 0x89AB_CDEFL, 4);
        be(x, 40, 0x1122_3344_5566_7788L, 8);
        be(x, 48, 0x2233_4455_6677_8899L, 8);
        be(x, 56, 1_000_000_007L, 8);
        be(x, 64, 1_000_000_007L - SAMPLE_PAYLOAD, 8);
        be(x, 72, 0x7FFF_FFFF_FFFF_FFF0L, 8);
        be(x, 80, 0xDEAD_BEEFL, 4);
        be(x, 84, 0xCAFE_BABEL, 4);
        be(x, 88, -5L, 8);
        be(x, 96, 0x0102_0304_0506_0708L, 8);
        for (int i = 0; i < SAMPLE_PAYLOAD; i++) {
            x[104 + i] = (byte) (3 * i + 1);
        }
        be(x, length - 4, crc32c(x, 0, length - 4) & 0xFFFF_FFFFL, 4);
        assertThat(e.bytes()).isEqualTo(x);
        // spot checks of the hand-written expectation itself
        assertThat(x[0]).isEqualTo((byte) 0x01);
        assertThat(x[2]).isEqualTo((byte) 0xBE);
        assertThat(x[3]).isEqualTo((byte) 0xEF);
        assertThat(x[36]).isEqualTo((byte) 0x89);
        assertThat(x[80]).isEqualTo((byte) 0xDE);
        assertThat(x[87]).isEqualTo((byte) 0xBE);
    }

    @Test
    void ackLayoutIsExact() {
        Packet p = sample(PacketType.ACK);
        Encoded e = encode(codec, p, BufferKind.DIRECT_LITTLE_ENDIAN, 21);
        byte[] x = expectedCommonHeader(p, 124);
        be(x, 32, 0x0000_1234_5678_9ABCL, 8);
        be(x, 40, 0x8000_0000_0000_0001L, 8);
        be(x, 48, -1L, 8);
        be(x, 56, 0x0F0F_0F0F_F0F0_F0F0L, 8);
        be(x, 64, 0x1L, 8);
        be(x, 72, 0xFFFF_0000_1111_2222L, 8);
        be(x, 80, 25_000L, 8);
        be(x, 88, 900_000_000_000L, 8);
        be(x, 96, 31L, 8);
        be(x, 104, 12_500_000_000L, 8);
        be(x, 112, 0x0123_4567_89AB_CD00L, 8);
        be(x, 120, crc32c(x, 0, 120) & 0xFFFF_FFFFL, 4);
        assertThat(e.bytes()).isEqualTo(x);
        assertThat(x[40]).isEqualTo((byte) 0x80);
        assertThat(x[47]).isEqualTo((byte) 0x01);
    }

    @Test
    void otherLayoutsPutKeyFieldsAtTheirOffsets() {
        byte[] rr = encode(codec, sample(PacketType.READ_REQUEST), BufferKind.HEAP, 0).bytes();
        assertThat(Arrays.copyOfRange(rr, 32, 40)).containsExactly(0x80, 0x00, 0x00, 0x01, 0xFE, 0xDC, 0xBA, 0x98);
        assertThat(rr[56]).isEqualTo((byte) 0x40); // 2^62 read length
        byte[] nak = encode(codec, sample(PacketType.NAK), BufferKind.HEAP, 0).bytes();
        assertThat(Arrays.copyOfRange(nak, 32, 40)).containsExactly(3, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFE);
        byte[] con = encode(codec, sample(PacketType.CONNECT), BufferKind.HEAP, 0).bytes();
        assertThat(Arrays.copyOfRange(con, 40, 56))
                .containsExactly(0x80, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0x00, 24, 0xF0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(con[56]).isEqualTo((byte) 40);
        byte[] ch = encode(codec, sample(PacketType.CHALLENGE), BufferKind.HEAP, 0).bytes();
        assertThat(ch[32]).isEqualTo((byte) 200);
        assertThat(ch[55]).isEqualTo((byte) (200 + 7 * 23));
        byte[] acc = encode(codec, sample(PacketType.ACCEPT), BufferKind.HEAP, 0).bytes();
        // pathCount, then the announcement sequence at offset 50 (reserved, sent as 0, until
        // session 6) [SPEC-WIRE-24], [SPEC-CONN-17].
        assertThat(Arrays.copyOfRange(acc, 40, 52)).containsExactly(0, 0, 0x23, 0x28, 0x80, 0, 0, 0, 0xFF, 0xFF, 0xBE, 0xEF);
        // The share announced before any data [SPEC-WIRE-24], [SPEC-CC-28], then the checksum.
        assertThat(Arrays.copyOfRange(acc, 52, 60)).containsExactly(0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF);
        assertThat(acc).hasSize(64);
        byte[] close = encode(codec, sample(PacketType.CLOSE), BufferKind.HEAP, 0).bytes();
        assertThat(Arrays.copyOfRange(close, 32, 40)).containsExactly(0, 2, 0, 1, 0, 0, 0, 0);
        byte[] probe = encode(codec, sample(PacketType.PROBE_ACK), BufferKind.HEAP, 0).bytes();
        assertThat(probe[1]).isEqualTo((byte) 10);
        assertThat(Arrays.copyOfRange(probe, 32, 34)).containsExactly(0xAB, 0xCD);
    }

    @Test
    void checksumIsCastagnoli() {
        // The CRC-32C check value from RFC 3720 / the CRC catalogue.
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(crc32c(check, 0, check.length)).isEqualTo(0xE306_9283);
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void encodedTrailerIsTheBigEndianCrcOfThePrecedingBytes(BufferKind kind) {
        for (int type : ALL_TYPES) {
            byte[] b = encode(codec, sample(type), kind, 1).bytes();
            int n = b.length;
            int trailer = ((b[n - 4] & 0xFF) << 24) | ((b[n - 3] & 0xFF) << 16) | ((b[n - 2] & 0xFF) << 8) | (b[n - 1] & 0xFF);
            assertThat(trailer).as(PacketType.name(type)).isEqualTo(crc32c(b, 0, n - 4));
        }
    }

    // =====================================================================================
    // Header-level errors
    // =====================================================================================

    /** Encodes {@code p} into a heap buffer, lets {@code edit} change its bytes, then reseals the CRC. */
    private Encoded encodeEditReseal(Packet p, Consumer<ByteBuffer> edit) {
        Encoded e = encode(codec, p, BufferKind.HEAP, 0);
        edit.accept(e.buf());
        codec.reseal(e.buf(), 0, e.length());
        return e;
    }

    private int decode(Encoded e) {
        return codec.decode(e.buf(), e.offset(), e.length(), out);
    }

    @Test
    void tooShortBeatsEverything() {
        ByteBuffer b = ByteBuffer.allocate(64);
        for (int n = 0; n < 36; n++) {
            assertThat(codec.decode(b, 0, n, out)).isEqualTo(DecodeError.TOO_SHORT);
        }
        assertThat(codec.decode(b, 0, 36, out)).isEqualTo(DecodeError.BAD_CHECKSUM);
    }

    @Test
    void badVersion() {
        for (int v : new int[] {0, 2, 255}) {
            Encoded e = encodeEditReseal(sample(PacketType.ACK), b -> b.put(0, (byte) v));
            assertThat(decode(e)).isEqualTo(DecodeError.BAD_VERSION);
        }
    }

    @Test
    void unknownType() {
        for (int t : new int[] {0, 11, 128, 255}) {
            Encoded e = encodeEditReseal(sample(PacketType.ACK), b -> b.put(1, (byte) t));
            assertThat(decode(e)).isEqualTo(DecodeError.UNKNOWN_TYPE);
        }
    }

    @Test
    void badLengthForEveryFixedSizeType() {
        for (int type : ALL_TYPES) {
            if (type == PacketType.DATA) {
                continue;
            }
            int n = PacketCodec.fixedLength(type);
            for (int len : new int[] {36, n - 1, n + 1, n + 8}) {
                ByteBuffer b = ByteBuffer.allocate(n + 8);
                codec.encode(sample(type), b, 0, null, 0);
                codec.reseal(b, 0, len);
                assertThat(codec.decode(b, 0, len, out)).as(PacketType.name(type) + " len " + len)
                        .isEqualTo(DecodeError.BAD_LENGTH);
            }
        }
        // A DATA packet shorter than its fixed overhead.
        ByteBuffer b = ByteBuffer.allocate(200);
        codec.encode(sample(PacketType.ACK), b, 0, null, 0);
        b.put(1, (byte) PacketType.DATA);
        codec.reseal(b, 0, 107);
        assertThat(codec.decode(b, 0, 107, out)).isEqualTo(DecodeError.BAD_LENGTH);
    }

    @Test
    void reservedFieldsAndUnknownFlagBitsAreIgnored() {
        Packet d = sample(PacketType.DATA);
        Encoded e = encodeEditReseal(d, b -> {
            b.putShort(6, (short) 0x1234);
            b.putShort(34, (short) 0x5678);
            b.put(33, (byte) 0xFF); // unknown DATA flag bits
        });
        assertThat(decode(e)).isEqualTo(DecodeError.OK);
        assertThat(out.dataFlags).isEqualTo(0xFF);
        assertThat(decode(encodeEditReseal(sample(PacketType.NAK), b -> b.put(33, (byte) 1).putShort(34, (short) -1))))
                .isEqualTo(DecodeError.OK);
        assertThat(decode(encodeEditReseal(sample(PacketType.CONNECT), b -> b.putInt(52, -1)))).isEqualTo(DecodeError.OK);
        Encoded close = encodeEditReseal(sample(PacketType.CLOSE), b -> b.putShort(34, (short) 0xFFFE).putInt(36, 7));
        assertThat(decode(close)).isEqualTo(DecodeError.OK);
        assertThat(out.closeReply).isFalse();
    }

    // =====================================================================================
    // Field rules
    // =====================================================================================

    private void assertBadField(Packet p) {
        Encoded e = encode(codec, p, BufferKind.DIRECT, 2);
        assertThat(DecodeError.name(decode(e))).as(PacketType.name(p.type)).isEqualTo("BAD_FIELD");
        assertThat(codec.lastFieldError()).isNotEmpty();
    }

    private void assertOk(Packet p) {
        Encoded e = encode(codec, p, BufferKind.DIRECT, 2);
        assertThat(DecodeError.name(decode(e))).as(PacketType.name(p.type)).isEqualTo("OK");
        assertSamePacket(out, p);
    }

    private static Packet with(int type, Consumer<Packet> edit) {
        Packet p = sample(type);
        edit.accept(p);
        return p;
    }

    @Test
    void headerSequenceNumbersMustBeBelow2To63ForEveryType() {
        for (int type : ALL_TYPES) {
            assertBadField(with(type, p -> p.connectionSequence = Long.MIN_VALUE));
            assertBadField(with(type, p -> p.pathSequence = -1L));
            assertOk(with(type, p -> {
                p.connectionSequence = Long.MAX_VALUE;
                p.pathSequence = Long.MAX_VALUE;
            }));
        }
    }

    @Test
    void dataFieldRules() {
        int t = PacketType.DATA;
        assertBadField(with(t, p -> p.opcode = 0));
        assertBadField(with(t, p -> p.opcode = 5));
        assertBadField(with(t, p -> p.dataFlags = 0)); // WRITE_WITH_IMM without immediate
        assertOk(with(t, p -> {
            p.opcode = DataOpcode.SEND;
            p.dataFlags = 0;
        }));
        assertOk(with(t, p -> p.opcode = DataOpcode.READ_RESPONSE));
        assertBadField(with(t, p -> p.messageLength = WireConstants.MAX_MESSAGE_LENGTH + 1));
        assertBadField(with(t, p -> p.messageLength = -1));
        assertOk(with(t, p -> {
            p.messageLength = WireConstants.MAX_MESSAGE_LENGTH;
            p.payloadMessageOffset = WireConstants.MAX_MESSAGE_LENGTH - SAMPLE_PAYLOAD;
        }));
        assertBadField(with(t, p -> p.payloadMessageOffset = p.messageLength - SAMPLE_PAYLOAD + 1));
        assertBadField(with(t, p -> p.messageLength = SAMPLE_PAYLOAD - 1));
        assertBadField(with(t, p -> p.payloadMessageOffset = -1));
        assertBadField(with(t, p -> p.payloadMessageOffset = Long.MAX_VALUE));
        assertOk(with(t, p -> p.payloadMessageOffset = 0));
        assertBadField(with(t, p -> p.messageSequence = -1));
        assertBadField(with(t, p -> p.receiveSequence = -1));
        assertBadField(with(t, p -> p.remoteOffset = -1));
        assertBadField(with(t, p -> p.sequenceFloor = -1));
        assertOk(with(t, p -> {
            p.timestampNanos = Long.MIN_VALUE; // opaque
            p.destinationConnectionId = -1L; // opaque
        }));
    }

    @Test
    void readRequestFieldRules() {
        int t = PacketType.READ_REQUEST;
        assertBadField(with(t, p -> p.messageSequence = -1));
        assertBadField(with(t, p -> p.remoteOffset = -1));
        assertBadField(with(t, p -> p.messageLength = -1));
        assertBadField(with(t, p -> p.messageLength = WireConstants.MAX_MESSAGE_LENGTH + 1));
        assertBadField(with(t, p -> p.sequenceFloor = -1));
        assertOk(with(t, p -> p.messageLength = 0));
        assertOk(with(t, p -> p.timestampNanos = -1));
    }

    @Test
    void ackFieldRules() {
        int t = PacketType.ACK;
        assertBadField(with(t, p -> p.sackBase = -1));
        assertBadField(with(t, p -> p.ackDelayNanos = -1));
        assertBadField(with(t, p -> p.ectCount = -1));
        assertBadField(with(t, p -> p.ceCount = -1));
        assertBadField(with(t, p -> p.ceCount = p.ectCount + 1));
        assertBadField(with(t, p -> p.rateHintBytesPerSecond = -1));
        assertBadField(with(t, p -> p.cumulativeSequence = -1));
        assertOk(with(t, p -> p.ceCount = p.ectCount));
        assertOk(with(t, p -> {
            p.ectCount = 0;
            p.ceCount = 0;
            p.rateHintBytesPerSecond = 0;
            p.echoTimestampNanos = Long.MIN_VALUE;
        }));
    }

    @Test
    void nakFieldRules() {
        int t = PacketType.NAK;
        assertBadField(with(t, p -> p.nakCode = 0));
        assertBadField(with(t, p -> p.nakCode = 4));
        assertBadField(with(t, p -> p.refusedPathSequence = -1));
        assertBadField(with(t, p -> p.refusedConnectionSequence = -1));
        assertBadField(with(t, p -> p.messageSequence = -1));
        assertBadField(with(t, p -> p.retryAfterNanos = -1));
        assertOk(with(t, p -> p.nakCode = NakCode.RECEIVER_NOT_READY));
        assertOk(with(t, p -> p.nakCode = NakCode.REMOTE_ACCESS_ERROR));
    }

    @Test
    void connectAndAcceptFieldRules() {
        for (int t : new int[] {PacketType.CONNECT, PacketType.ACCEPT}) {
            assertBadField(with(t, p -> p.sourceConnectionId = 0));
            assertBadField(with(t, p -> p.maxDatagramBytes = 255));
            assertBadField(with(t, p -> p.maxDatagramBytes = 0));
            assertBadField(with(t, p -> p.sequenceWindow = 63));
            assertOk(with(t, p -> {
                p.maxDatagramBytes = 256;
                p.sequenceWindow = 64;
            }));
            assertOk(with(t, p -> {
                p.maxDatagramBytes = -1; // 2^32 - 1 unsigned
                p.sequenceWindow = -1;
                p.sourceConnectionId = -1L;
            }));
        }
        int a = PacketType.ACCEPT;
        assertBadField(with(a, p -> p.rateHintBytesPerSecond = -1));
        assertBadField(with(a, p -> p.rateHintBytesPerSecond = Long.MIN_VALUE));
        assertOk(with(a, p -> p.rateHintBytesPerSecond = 0));
        assertOk(with(a, p -> p.rateHintBytesPerSecond = Long.MAX_VALUE));
        int c = PacketType.CONNECT;
        assertBadField(with(c, p -> p.destinationConnectionId = 1));
        assertBadField(with(c, p -> p.pathCount = 0));
        assertOk(with(c, p -> p.pathCount = 1));
        for (int cookieLength : new int[] {1, 23, 25, 0xFFFF}) {
            Encoded e = encodeEditReseal(sample(c), b -> b.putShort(46, (short) cookieLength));
            assertThat(decode(e)).as("cookie length " + cookieLength).isEqualTo(DecodeError.BAD_FIELD);
        }
        // Cookie bytes sent without a cookie length are ignored.
        Encoded e = encodeEditReseal(with(c, p -> p.hasCookie = false), b -> b.put(60, (byte) 9));
        assertThat(decode(e)).isEqualTo(DecodeError.OK);
        assertThat(out.cookie).containsOnly(0);
    }

    @Test
    void closeFieldRules() {
        int t = PacketType.CLOSE;
        assertBadField(with(t, p -> p.closeCode = 3));
        assertBadField(with(t, p -> p.closeCode = 0xFFFF));
        assertOk(with(t, p -> {
            p.closeCode = CloseCode.NO_ERROR;
            p.closeReply = false;
        }));
        assertOk(with(t, p -> p.closeCode = CloseCode.PROTOCOL_VIOLATION));
    }

    @Test
    void decodeErrorNamesAreDistinct() {
        assertThat(DecodeError.OK).isZero();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < DecodeError.COUNT; i++) {
            assertThat(DecodeError.name(i)).doesNotStartWith("UNKNOWN(");
            names.add(DecodeError.name(i));
        }
        assertThat(names).hasSize(DecodeError.COUNT);
        assertThat(DecodeError.name(DecodeError.COUNT)).startsWith("UNKNOWN(");
    }

    // =====================================================================================
    // Buffers and caller errors
    // =====================================================================================

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void codecLeavesPositionLimitAndOrderAlone(BufferKind kind) {
        Packet p = sample(PacketType.DATA);
        ByteBuffer buf = kind.allocate(400);
        ByteOrder order = buf.order();
        buf.position(17).limit(390);
        int n = codec.encode(p, buf, 40, payloadSource(), PAYLOAD_SOURCE_INDEX);
        assertThat(buf.position()).isEqualTo(17);
        assertThat(buf.limit()).isEqualTo(390);
        assertThat(buf.order()).isEqualTo(order);
        ByteBuffer src = kind.forDecode(buf);
        src.position(300).limit(380);
        assertThat(codec.decode(src, 40, n, out)).isEqualTo(DecodeError.OK);
        assertThat(src.position()).isEqualTo(300);
        assertThat(src.limit()).isEqualTo(380);
        // also when the caller's position lies inside the datagram
        src.position(60);
        assertThat(codec.decode(src, 40, n, out)).isEqualTo(DecodeError.OK);
        assertThat(src.position()).isEqualTo(60);
        assertThat(src.limit()).isEqualTo(380);
    }

    @Test
    void encodeRejectsProgrammingErrors() {
        Packet data = sample(PacketType.DATA);
        assertThatThrownBy(() -> codec.encode(data, ByteBuffer.allocate(100), 0, payloadSource(), PAYLOAD_SOURCE_INDEX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too small");
        ByteBuffer limited = ByteBuffer.allocate(500).limit(150);
        assertThatThrownBy(() -> codec.encode(data, limited, 10, payloadSource(), PAYLOAD_SOURCE_INDEX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too small");
        assertThatThrownBy(() -> codec.encode(data, ByteBuffer.allocate(500), -1, payloadSource(), PAYLOAD_SOURCE_INDEX))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.encode(data, ByteBuffer.allocate(500), 0, null, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload source");
        assertThatThrownBy(() -> codec.encode(data, ByteBuffer.allocate(500), 0, ByteBuffer.allocate(10), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload source");
        assertThatThrownBy(() -> codec.encode(data, ByteBuffer.allocate(500).asReadOnlyBuffer(), 0, payloadSource(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
        Packet unknown = new Packet();
        unknown.type = 11;
        assertThatThrownBy(() -> codec.encode(unknown, ByteBuffer.allocate(500), 0, null, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown");
        Packet negative = sample(PacketType.DATA);
        negative.payloadLength = -1;
        assertThatThrownBy(() -> codec.encode(negative, ByteBuffer.allocate(500), 0, null, 0))
                .isInstanceOf(IllegalArgumentException.class);
        // Exactly enough room is fine.
        Packet ack = sample(PacketType.ACK);
        assertThat(codec.encode(ack, ByteBuffer.allocate(124 + 5), 5, null, 0)).isEqualTo(124);
    }

    @Test
    void decodeRejectsBoundsOutsideTheBuffer() {
        ByteBuffer b = ByteBuffer.allocate(100).limit(80);
        assertThatThrownBy(() -> codec.decode(b, 50, 40, out)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> codec.decode(b, -1, 40, out)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> codec.decode(b, 0, -1, out)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void payloadMayComeFromADirectBufferOrTheDestinationItself() {
        Packet p = sample(PacketType.DATA);
        ByteBuffer direct = ByteBuffer.allocateDirect(100).order(ByteOrder.LITTLE_ENDIAN);
        direct.put(PAYLOAD_SOURCE_INDEX, payloadSource(), PAYLOAD_SOURCE_INDEX, SAMPLE_PAYLOAD);
        ByteBuffer dst = ByteBuffer.allocateDirect(400);
        int n = codec.encode(p, dst, 0, direct, PAYLOAD_SOURCE_INDEX);
        assertThat(codec.decode(dst, 0, n, out)).isEqualTo(DecodeError.OK);
        // Re-encode in place from the decoded payload (same buffer, non-overlapping region).
        int m = codec.encode(p, dst, 200, dst, out.payloadOffset);
        assertThat(codec.decode(dst, 200, m, out)).isEqualTo(DecodeError.OK);
        assertThat(out.payloadOffset).isEqualTo(200 + 104);
        assertThat(dst.get(out.payloadOffset + 49)).isEqualTo((byte) (3 * 49 + 1));
    }
}
