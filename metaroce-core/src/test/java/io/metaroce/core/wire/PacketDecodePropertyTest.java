package io.metaroce.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.wire.PacketCodecTest.BufferKind;
import io.metaroce.core.wire.PacketCodecTest.Encoded;
import java.nio.ByteBuffer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of {@link PacketCodec#decode}: no input makes it throw, and damaged or truncated
 * packets are never accepted.
 */
class PacketDecodePropertyTest {

    private final PacketCodec codec = new PacketCodec();
    private final Packet out = new Packet();

    private static int decodeChecked(PacketCodec codec, ByteBuffer src, int offset, int length, Packet out) {
        int r = codec.decode(src, offset, length, out);
        assertThat(r).isBetween(0, DecodeError.COUNT - 1);
        return r;
    }

    // =====================================================================================
    // Exhaustive: every truncation, every bit flip, of every type, in every kind of buffer.
    // =====================================================================================

    @Property(generation = GenerationMode.EXHAUSTIVE)
    void everyTruncationIsRejected(@ForAll @IntRange(min = 1, max = 10) int type, @ForAll BufferKind kind) {
        Encoded e = PacketCodecTest.encode(codec, PacketCodecTest.sample(type), kind, 11);
        ByteBuffer src = kind.forDecode(e.buf());
        assertThat(decodeChecked(codec, src, e.offset(), e.length(), out)).isEqualTo(DecodeError.OK);
        for (int len = 0; len < e.length(); len++) {
            int r = decodeChecked(codec, src, e.offset(), len, out);
            assertThat(r).as("%s truncated to %d bytes", PacketType.name(type), len).isNotEqualTo(DecodeError.OK);
            if (len < PacketCodec.MIN_PACKET_BYTES) {
                assertThat(r).isEqualTo(DecodeError.TOO_SHORT);
            }
        }
    }

    @Property(generation = GenerationMode.EXHAUSTIVE)
    void everySingleBitFlipIsBadChecksum(@ForAll @IntRange(min = 1, max = 10) int type, @ForAll BufferKind kind) {
        Encoded e = PacketCodecTest.encode(codec, PacketCodecTest.sample(type), kind, 3);
        ByteBuffer buf = e.buf();
        ByteBuffer src = kind.forDecode(buf);
        for (int bit = 0; bit < 8 * e.length(); bit++) {
            int index = e.offset() + bit / 8;
            byte original = buf.get(index);
            buf.put(index, (byte) (original ^ (1 << (bit % 8))));
            int r = decodeChecked(codec, src, e.offset(), e.length(), out);
            assertThat(r).as("%s bit %d", PacketType.name(type), bit).isEqualTo(DecodeError.BAD_CHECKSUM);
            buf.put(index, original);
        }
        assertThat(decodeChecked(codec, src, e.offset(), e.length(), out)).isEqualTo(DecodeError.OK);
    }

    /**
     * The decoder copies a short datagram whole out of a buffer without an accessible array and
     * checksums the copy, a longer one (or one in a heap buffer) in place ({@code
     * PacketCodec.WHOLE_COPY_BYTES}): DATA packets of lengths either side of that bound, in every
     * kind of buffer, decode to what was encoded, and every single bit flip and every truncation
     * of them is refused.
     */
    @Property(generation = GenerationMode.EXHAUSTIVE)
    void dataEitherSideOfTheWholeCopyLengthIsCheckedAlike(@ForAll @IntRange(min = -2, max = 2) int fromBound,
            @ForAll BufferKind kind) {
        Packet p = PacketCodecTest.sample(PacketType.DATA);
        p.payloadLength = PacketCodec.WHOLE_COPY_BYTES - WireConstants.DATA_OVERHEAD_BYTES + fromBound;
        p.messageLength = p.payloadLength;
        p.payloadMessageOffset = 0;
        Encoded e = PacketCodecTest.encode(codec, p, kind, 7);
        assertThat(e.length()).isEqualTo(PacketCodec.WHOLE_COPY_BYTES + fromBound);
        ByteBuffer buf = e.buf();
        ByteBuffer src = kind.forDecode(buf);
        assertThat(decodeChecked(codec, src, e.offset(), e.length(), out)).isEqualTo(DecodeError.OK);
        PacketCodecTest.assertSamePacket(out, p);
        for (int bit = 0; bit < 8 * e.length(); bit++) {
            int index = e.offset() + bit / 8;
            byte original = buf.get(index);
            buf.put(index, (byte) (original ^ (1 << (bit % 8))));
            assertThat(decodeChecked(codec, src, e.offset(), e.length(), out)).as("%s, bit %d", kind, bit)
                    .isEqualTo(DecodeError.BAD_CHECKSUM);
            buf.put(index, original);
        }
        for (int len = 0; len < e.length(); len++) {
            assertThat(decodeChecked(codec, src, e.offset(), len, out)).as("%s, truncated to %d bytes", kind, len)
                    .isNotEqualTo(DecodeError.OK);
        }
        assertThat(decodeChecked(codec, src, e.offset(), e.length(), out)).isEqualTo(DecodeError.OK);
        PacketCodecTest.assertSamePacket(out, p);
    }

    /**
     * Decode zeroes only what the decoded type does not write (not the whole packet), so this
     * checks, for every type and whatever the packet held before (every field, array element and
     * flag set), that nothing of it survives: the result equals a decode into a fresh packet.
     */
    @Property(generation = GenerationMode.EXHAUSTIVE)
    void decodeLeavesNothingOfWhatThePacketHeldBefore(@ForAll @IntRange(min = 1, max = 10) int type,
            @ForAll boolean connectWithoutCookie) throws IllegalAccessException {
        Packet sample = PacketCodecTest.sample(type);
        if (connectWithoutCookie) {
            if (type != PacketType.CONNECT) {
                return;
            }
            sample.hasCookie = false;
            java.util.Arrays.fill(sample.cookie, (byte) 0);
        }
        Encoded e = PacketCodecTest.encode(codec, sample, BufferKind.HEAP, 5);
        Packet fresh = new Packet();
        assertThat(codec.decode(e.buf(), e.offset(), e.length(), fresh)).isEqualTo(DecodeError.OK);

        Packet stale = new Packet();
        for (java.lang.reflect.Field f : Packet.class.getFields()) {
            Class<?> t = f.getType();
            if (t == int.class) {
                f.setInt(stale, -1);
            } else if (t == long.class) {
                f.setLong(stale, -1L);
            } else if (t == boolean.class) {
                f.setBoolean(stale, true);
            }
        }
        java.util.Arrays.fill(stale.sackBits, -1L);
        java.util.Arrays.fill(stale.cookie, (byte) -1);
        stale.payloadCopy = new byte[1];
        assertThat(codec.decode(e.buf(), e.offset(), e.length(), stale)).isEqualTo(DecodeError.OK);
        assertThat(stale).usingRecursiveComparison().isEqualTo(fresh);
    }

    // =====================================================================================
    // Random input
    // =====================================================================================

    private static ByteBuffer place(BufferKind kind, byte[] bytes, int offset) {
        ByteBuffer b = kind.allocate(offset + bytes.length + 5);
        b.put(offset, bytes);
        return kind.forDecode(b);
    }

    @Property(tries = 2000)
    void randomBytesAreRejected(@ForAll @Size(max = 300) byte[] bytes, @ForAll @IntRange(max = 17) int offset,
            @ForAll BufferKind kind) {
        ByteBuffer src = place(kind, bytes, offset);
        assertThat(decodeChecked(codec, src, offset, bytes.length, out)).isNotEqualTo(DecodeError.OK);
    }

    @Provide
    Arbitrary<Integer> anyType() {
        return Arbitraries.integers().between(1, 10);
    }

    /**
     * Random bytes behind a plausible header with the right length and a valid checksum get past
     * the checksum, so they exercise every field rule: the decoder must still never throw.
     */
    @Property(tries = 3000)
    void randomBodiesWithAValidChecksumNeverThrow(@ForAll("anyType") int type, @ForAll @Size(min = 200, max = 200) byte[] noise,
            @ForAll @IntRange(max = 90) int payloadLength, @ForAll @IntRange(max = 9) int offset, @ForAll BufferKind kind) {
        // An ACK's length follows its flags (the short form, [SPEC-WIRE-31]), which the noise sets.
        int length = type == PacketType.DATA ? WireConstants.DATA_OVERHEAD_BYTES + payloadLength
                : type == PacketType.ACK ? PacketCodec.ackLength(((noise[4] & 0xff) << 8) | (noise[5] & 0xff))
                : PacketCodec.fixedLength(type);
        ByteBuffer b = kind.allocate(offset + length);
        b.put(offset, noise, 0, length);
        b.put(offset, (byte) WireConstants.VERSION);
        b.put(offset + 1, (byte) type);
        codec.reseal(b, offset, length);
        int r = decodeChecked(codec, kind.forDecode(b), offset, length, out);
        assertThat(r).isIn(DecodeError.OK, DecodeError.BAD_FIELD);
        if (r == DecodeError.OK) {
            assertThat(out.type).isEqualTo(type);
            assertThat(out.connectionSequence).isNotNegative();
            assertThat(out.pathSequence).isNotNegative();
        }
    }

    // =====================================================================================
    // Round trips of random valid values and DATA payload bounds
    // =====================================================================================

    @Property(tries = 400)
    void validDataRoundTrips(@ForAll @IntRange(max = 600) int payloadLength,
            @ForAll @LongRange(min = 0, max = WireConstants.MAX_MESSAGE_LENGTH) long messageLength,
            @ForAll long slack, @ForAll int streamId, @ForAll int remoteKey, @ForAll int immediate,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long sequence, @ForAll long timestamp,
            @ForAll @IntRange(min = 1, max = 4) int opcode, @ForAll @IntRange(max = 255) int dataFlags,
            @ForAll @IntRange(max = 40) int offset, @ForAll BufferKind kind) {
        Packet p = PacketCodecTest.sample(PacketType.DATA);
        long length = Math.max(messageLength, payloadLength);
        p.payloadLength = payloadLength;
        p.messageLength = length;
        p.payloadMessageOffset = Math.floorMod(slack, length - payloadLength + 1);
        p.streamId = streamId;
        p.remoteKey = remoteKey;
        p.immediate = immediate;
        p.messageSequence = sequence;
        p.receiveSequence = sequence;
        p.remoteOffset = sequence;
        p.sequenceFloor = sequence;
        p.connectionSequence = sequence;
        p.pathSequence = sequence;
        p.timestampNanos = timestamp;
        p.destinationConnectionId = timestamp;
        p.opcode = opcode;
        p.dataFlags = opcode == DataOpcode.WRITE_WITH_IMM ? dataFlags | WireConstants.DATA_FLAG_HAS_IMMEDIATE : dataFlags;
        Encoded e = PacketCodecTest.encode(codec, p, kind, offset);
        ByteBuffer src = kind.forDecode(e.buf());
        assertThat(decodeChecked(codec, src, e.offset(), e.length(), out)).isEqualTo(DecodeError.OK);
        PacketCodecTest.assertSamePacket(out, p);
        assertThat(out.payloadOffset).isEqualTo(offset + WireConstants.DATA_HEADER_BYTES);
        for (int i = 0; i < payloadLength; i++) {
            assertThat(src.get(out.payloadOffset + i)).isEqualTo((byte) (3 * i + 1));
        }
        // A short datagram in a buffer without an accessible array is checksummed in the decoder's
        // whole copy, which then holds the payload too (the receiver places from it).
        boolean copiedWhole = e.length() <= 512 && !src.hasArray();
        assertThat(out.payloadCopy != null).isEqualTo(copiedWhole);
        if (copiedWhole) {
            for (int i = 0; i < payloadLength; i++) {
                assertThat(out.payloadCopy[WireConstants.DATA_HEADER_BYTES + i]).isEqualTo((byte) (3 * i + 1));
            }
        }
    }

    @Property(tries = 400)
    void validAckRoundTrips(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long base, @ForAll long w0, @ForAll long w1,
            @ForAll long w2, @ForAll long w3, @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long ect, @ForAll long ceSeed,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long other, @ForAll long echo, @ForAll BufferKind kind) {
        Packet p = PacketCodecTest.sample(PacketType.ACK);
        p.sackBase = base;
        p.sackBits[0] = w0;
        p.sackBits[1] = w1;
        p.sackBits[2] = w2;
        p.sackBits[3] = w3;
        p.ectCount = ect;
        p.ceCount = ect == Long.MAX_VALUE ? ect : Math.floorMod(ceSeed, ect + 1);
        p.ackDelayNanos = other;
        p.rateHintBytesPerSecond = other;
        p.cumulativeSequence = other;
        p.echoTimestampNanos = echo;
        Encoded e = PacketCodecTest.encode(codec, p, kind, 7);
        assertThat(decodeChecked(codec, kind.forDecode(e.buf()), e.offset(), e.length(), out)).isEqualTo(DecodeError.OK);
        PacketCodecTest.assertSamePacket(out, p);
    }

    /**
     * {@link PacketCodec#decodeOwned} skips zeroing the fields DATA does not carry when the packet
     * it decodes into held a DATA packet it decoded itself: over any sequence of datagrams of every
     * type decoded into one packet (some truncated, some DATA with a field out of range, some
     * through {@link PacketCodec#decode}), every successful decode leaves the packet equal to a
     * decode into a fresh packet, and the results are {@link PacketCodec#decode}'s.
     */
    @Property(tries = 300)
    void decodeOwnedIntoOnePacketEqualsAFreshDecode(
            @ForAll @Size(max = 40) java.util.List<@IntRange(min = 0, max = 39) Integer> steps,
            @ForAll BufferKind kind) {
        PacketCodec owned = new PacketCodec();
        PacketCodec reference = new PacketCodec();
        Packet reused = new Packet();
        for (int step : steps) {
            int type = 1 + step % 10;
            int mode = step / 10;
            Packet sample = PacketCodecTest.sample(type);
            sample.connectionSequence += step; // packets of one type differ from step to step
            Encoded e = PacketCodecTest.encode(reference, sample, kind, 3);
            ByteBuffer buf = e.buf();
            int length = e.length();
            if (mode == 1) {
                length--; // truncated: refused before a field is written
            } else if (mode == 2 && type == PacketType.DATA) {
                putLongBigEndian(buf, e.offset() + 56, 1); // messageLength below the payload: BAD_FIELD
                reference.reseal(buf, e.offset(), e.length());
            }
            ByteBuffer src = kind.forDecode(buf);
            Packet fresh = new Packet();
            int expected = reference.decode(src, e.offset(), length, fresh);
            int actual = mode == 3 ? owned.decode(src, e.offset(), length, reused)
                    : owned.decodeOwned(src, e.offset(), length, reused);
            assertThat(actual).as("step %d", step).isEqualTo(expected);
            if (actual == DecodeError.OK) {
                assertThat(reused).as("step %d", step).usingRecursiveComparison().isEqualTo(fresh);
            }
        }
    }

    /**
     * A DATA packet whose payload does not fit inside its message is BAD_FIELD even though its
     * checksum is valid. The offending lengths are written into an otherwise valid packet, which is
     * then re-sealed.
     */
    @Property(tries = 1000)
    void dataPayloadOutsideItsMessageIsBadField(@ForAll @IntRange(min = 1, max = 300) int payloadLength,
            @ForAll @LongRange(min = 0, max = WireConstants.MAX_MESSAGE_LENGTH) long messageLength,
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long excess, @ForAll BufferKind kind) {
        Packet p = PacketCodecTest.sample(PacketType.DATA);
        p.payloadLength = payloadLength;
        p.messageLength = payloadLength;
        p.payloadMessageOffset = 0;
        Encoded e = PacketCodecTest.encode(codec, p, kind, 5);
        // payloadMessageOffset + payloadLength = messageLength + excess, saturating below 2^63.
        long badOffset = messageLength - payloadLength + Math.min(excess, Long.MAX_VALUE - messageLength);
        if (badOffset < 0) {
            // The payload is longer than the whole message even at offset 0.
            badOffset = 0;
            messageLength = Math.min(messageLength, payloadLength - 1);
        }
        ByteBuffer buf = e.buf();
        putLongBigEndian(buf, e.offset() + 56, messageLength);
        putLongBigEndian(buf, e.offset() + 64, badOffset);
        codec.reseal(buf, e.offset(), e.length());
        int r = decodeChecked(codec, kind.forDecode(buf), e.offset(), e.length(), out);
        assertThat(DecodeError.name(r)).isEqualTo("BAD_FIELD");
    }

    private static void putLongBigEndian(ByteBuffer b, int index, long v) {
        for (int i = 0; i < 8; i++) {
            b.put(index + i, (byte) (v >>> (56 - 8 * i)));
        }
    }
}
