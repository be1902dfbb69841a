package io.metaroce.core.sim.rocev2;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The baseline's wire layout, byte for byte, and a decoder that rejects damage and never throws. */
class RoceV2CodecTest {
    private static final int MTU = 4096;
    private final RoceV2Codec codec = new RoceV2Codec();
    private final RoceV2Packet p = new RoceV2Packet();

    private static String hex(ByteBuffer b, int from, int to) {
        byte[] bytes = new byte[to - from];
        b.get(from, bytes);
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void sendLayoutIsExact() {
        ByteBuffer b = ByteBuffer.allocate(MTU);
        int length = codec.encodeSend(b, RoceV2Opcode.SEND_LAST, 0xABCDEF, true, 0x123456, 100);
        assertThat(length).isEqualTo(116);
        assertThat(hex(b, 0, 12)).isEqualTo("02" + "00" + "ffff" + "00" + "abcdef" + "80" + "123456");
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.OK);
        assertThat(p.opcode).isEqualTo(RoceV2Opcode.SEND_LAST);
        assertThat(p.destQpn).isEqualTo(0xABCDEF);
        assertThat(p.ackRequest).isTrue();
        assertThat(p.psn).isEqualTo(0x123456);
        assertThat(p.payloadBytes).isEqualTo(100);
    }

    @Test
    void ackNakAndCnpLayoutsAreExact() {
        ByteBuffer b = ByteBuffer.allocate(64);
        assertThat(codec.encodeAck(b, 7, false, 0xFFFFFF, 3)).isEqualTo(20);
        assertThat(hex(b, 0, 16)).isEqualTo("11" + "00" + "ffff" + "00" + "000007" + "00" + "ffffff" + "1f" + "000003");
        assertThat(codec.decode(b, 0, 20, MTU, p)).isEqualTo(RoceV2DecodeError.OK);
        assertThat(p.nak).isFalse();
        assertThat(p.psn).isEqualTo(0xFFFFFF);
        assertThat(p.msn).isEqualTo(3);

        assertThat(codec.encodeAck(b, 7, true, 42, 0)).isEqualTo(20);
        assertThat(b.get(12)).isEqualTo((byte) 0x60);
        assertThat(codec.decode(b, 0, 20, MTU, p)).isEqualTo(RoceV2DecodeError.OK);
        assertThat(p.nak).isTrue();
        assertThat(p.nakCode).isEqualTo(RoceV2Codec.NAK_PSN_SEQUENCE_ERROR);
        assertThat(p.psn).isEqualTo(42);

        assertThat(codec.encodeCnp(b, 0x010203)).isEqualTo(32);
        assertThat(hex(b, 0, 28)).isEqualTo("81" + "00" + "ffff" + "00" + "010203" + "00" + "000000" + "00".repeat(16));
        assertThat(codec.decode(b, 0, 32, MTU, p)).isEqualTo(RoceV2DecodeError.OK);
        assertThat(p.opcode).isEqualTo(RoceV2Opcode.CNP);
        assertThat(p.destQpn).isEqualTo(0x010203);
    }

    @Test
    void eachKindOfDamageIsNamed() {
        ByteBuffer b = ByteBuffer.allocate(MTU + 8);
        int length = codec.encodeSend(b, RoceV2Opcode.SEND_ONLY, 1, false, 0, 10);
        assertThat(codec.decode(b, 0, 15, MTU, p)).isEqualTo(RoceV2DecodeError.TRUNCATED);
        assertThat(codec.decode(b, 0, 16, MTU, p)).as("SEND without payload").isEqualTo(RoceV2DecodeError.TRUNCATED);
        assertThat(codec.decode(b, 0, MTU + 1, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_LENGTH);
        assertThat(codec.decode(b, 0, length, MTU + 8, p)).isEqualTo(RoceV2DecodeError.OK);
        b.put(5, (byte) 1);
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_ICRC);
        b.put(0, (byte) 0x05);
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_OPCODE);
        codec.encodeAck(b, 1, false, 0, 0);
        assertThat(codec.decode(b, 0, 21, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_LENGTH);
        assertThat(codec.decode(b, 0, 19, MTU, p)).isEqualTo(RoceV2DecodeError.TRUNCATED);
        assertThat(codec.decode(b, 60, 20, MTU, p)).as("beyond the limit").isNotEqualTo(RoceV2DecodeError.OK);
        assertThat(codec.decode(b, MTU, 20, MTU, p)).isEqualTo(RoceV2DecodeError.TRUNCATED);
    }

    @Test
    void aHeaderFieldTheBaselineNeverSendsIsABadHeaderEvenWithAValidIcrc() {
        ByteBuffer b = ByteBuffer.allocate(64);
        int length = codec.encodeAck(b, 1, false, 0, 0);
        b.put(12, (byte) 0x40); // an RNR NAK syndrome: never sent by the baseline
        resealIcrc(b, 16, length);
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_HEADER);
        length = codec.encodeCnp(b, 1);
        b.put(8, (byte) 0x80); // AckReq on a CNP
        resealIcrc(b, 28, length);
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_HEADER);
        length = codec.encodeSend(b, RoceV2Opcode.SEND_ONLY, 1, false, 0, 8);
        b.putShort(2, (short) 0x7FFF); // another partition
        resealIcrc(b, 12, length);
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.BAD_HEADER);
    }

    private static void resealIcrc(ByteBuffer b, int headerBytes, int length) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        byte[] h = new byte[headerBytes];
        b.get(0, h);
        crc.update(h);
        b.putInt(length - 4, (int) crc.getValue());
    }

    @Property(tries = 300)
    void sendsRoundTripAtAnyOffset(@ForAll @IntRange(min = 0, max = 3) int kind, @ForAll @IntRange(min = 1, max = 0xFFFFFF) int qpn,
            @ForAll @IntRange(min = 0, max = 0xFFFFFF) int psn, @ForAll boolean ackRequest,
            @ForAll @IntRange(min = 1, max = MTU - 16) int payload, @ForAll @IntRange(min = 0, max = 100) int offset) {
        int opcode = new int[] {RoceV2Opcode.SEND_FIRST, RoceV2Opcode.SEND_MIDDLE, RoceV2Opcode.SEND_LAST,
                RoceV2Opcode.SEND_ONLY}[kind];
        ByteBuffer b = ByteBuffer.allocate(MTU);
        int length = codec.encodeSend(b, opcode, qpn, ackRequest, psn, payload);
        ByteBuffer shifted = ByteBuffer.allocate(offset + length);
        shifted.put(offset, b, 0, length);
        assertThat(codec.decode(shifted, offset, length, MTU, p)).isEqualTo(RoceV2DecodeError.OK);
        assertThat(new int[] {p.opcode, p.destQpn, p.psn, p.payloadBytes}).containsExactly(opcode, qpn, psn, payload);
        assertThat(p.ackRequest).isEqualTo(ackRequest);
        assertThat(shifted.position()).as("decode leaves the position alone").isZero();
    }

    @Property(tries = 40)
    void everySingleBitFlipOfAHeaderOrTheIcrcIsRejected(@ForAll @IntRange(min = 0, max = 2) int type,
            @ForAll @IntRange(min = 0, max = 255) int bitSeed) {
        ByteBuffer b = ByteBuffer.allocate(64);
        int length = switch (type) {
            case 0 -> codec.encodeSend(b, RoceV2Opcode.SEND_ONLY, 5, true, 9, 16);
            case 1 -> codec.encodeAck(b, 5, type == 1 && bitSeed % 2 == 0, 9, 1);
            default -> codec.encodeCnp(b, 5);
        };
        int headerBytes = type == 0 ? 12 : length - 4;
        int[] bits = new int[(headerBytes + 4) * 8];
        for (int i = 0; i < bits.length; i++) {
            int byteIndex = i / 8 < headerBytes ? i / 8 : length - 4 + (i / 8 - headerBytes);
            b.put(byteIndex, (byte) (b.get(byteIndex) ^ (1 << (i % 8))));
            assertThat(codec.decode(b, 0, length, MTU, p)).as("bit %d", i).isNotEqualTo(RoceV2DecodeError.OK);
            b.put(byteIndex, (byte) (b.get(byteIndex) ^ (1 << (i % 8))));
        }
        assertThat(codec.decode(b, 0, length, MTU, p)).isEqualTo(RoceV2DecodeError.OK);
    }

    @Property(tries = 300)
    void randomBytesNeverThrowAndAreRejected(@ForAll @Size(max = 80) byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int r = codec.decode(b, 0, bytes.length, MTU, p);
        assertThat(r).isBetween(1, RoceV2DecodeError.COUNT - 1);
    }
}
