package io.metaroce.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.sack.PathReceiveTracker;
import io.metaroce.core.wire.PacketCodecTest.BufferKind;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * The short ACK ([SPEC-WIRE-31], [SPEC-SACK-16]): whenever a receive window's SACK has the short
 * form, the 84-byte ACK decodes to exactly what the 124-byte one decodes to; when it has none the
 * encoder refuses the flag; and malformed short ACKs are rejected with a decode error.
 */
class ShortAckPropertyTest {
    private final PacketCodec codec = new PacketCodec();

    /**
     * A receive window as a path leaves it: {@code count} sequence numbers from 0, each lost with
     * probability {@code lossPercent}, and now and then one arriving late (a hole filled).
     */
    private static Packet ackAfter(long seed, int count, int lossPercent, long start) {
        SplittableRandom r = new SplittableRandom(seed);
        PathReceiveTracker t = new PathReceiveTracker();
        long late = -1;
        for (long psn = start; psn < start + count; psn++) {
            if (r.nextInt(100) < lossPercent) {
                if (late < 0 && r.nextBoolean()) {
                    late = psn; // arrives later, out of order
                }
                continue;
            }
            t.record(psn, psn * 7, psn);
            if (late >= 0 && r.nextInt(8) == 0) {
                t.record(late, late * 7, psn);
                late = -1;
            }
        }
        if (t.highest() < 0) {
            t.record(start, 1, 1);
        }
        Packet p = new Packet();
        p.type = PacketType.ACK;
        p.pathId = r.nextInt(1 << 16);
        p.flags = WireConstants.FLAG_ACK_NOW;
        p.destinationConnectionId = r.nextLong();
        t.writeAck(p, start + count + 100);
        p.cumulativeSequence = r.nextLong() >>> 1;
        p.rateHintBytesPerSecond = r.nextLong() >>> 1;
        return p;
    }

    private Packet decode(ByteBuffer buf, int offset, int length) {
        Packet out = new Packet();
        assertThat(codec.decode(buf, offset, length, out)).as(codec.lastFieldError()).isEqualTo(DecodeError.OK);
        return out;
    }

    @Property(tries = 400)
    void theShortFormSaysWhatTheFullFormSays(@ForAll long seed, @ForAll @IntRange(min = 1, max = 700) int count,
            @ForAll @IntRange(max = 30) int lossPercent, @ForAll @LongRange(max = 1L << 40) long start,
            @ForAll BufferKind kind) {
        Packet p = ackAfter(seed, count, lossPercent, start);
        Packet full = decode(kind.forDecode(PacketCodecTest.encode(codec, p, kind, 3).buf()), 3, WireConstants.ACK_BYTES);

        boolean fits = ShortSack.fits(p.sackBase, p.sackBits);
        // The short form exists exactly when every number more than 63 below the highest is received.
        long highest = p.sackBase + ShortSack.highestSetBit(p.sackBits);
        boolean olderAllReceived = true;
        for (long psn = p.sackBase; psn <= highest - 64; psn++) {
            int k = (int) (psn - p.sackBase);
            olderAllReceived &= (p.sackBits[k >>> 6] & (1L << (k & 63))) != 0;
        }
        assertThat(fits).isEqualTo(olderAllReceived);

        p.flags |= WireConstants.FLAG_SHORT_SACK;
        ByteBuffer buf = kind.allocate(WireConstants.ACK_BYTES + 16);
        if (!fits) {
            assertThatThrownBy(() -> codec.encode(p, buf, 5, null, 0)).isInstanceOf(IllegalArgumentException.class);
            return;
        }
        assertThat(codec.encode(p, buf, 5, null, 0)).isEqualTo(WireConstants.ACK_SHORT_BYTES);
        ByteBuffer src = kind.forDecode(buf);
        Packet shortOne = decode(src, 5, WireConstants.ACK_SHORT_BYTES);
        assertThat(shortOne.flags).isEqualTo(full.flags | WireConstants.FLAG_SHORT_SACK);
        shortOne.flags = full.flags;
        assertThat(shortOne).usingRecursiveComparison().isEqualTo(full);
        // A short ACK is 84 bytes exactly: one byte more or less is BAD_LENGTH or worse, never OK.
        assertThat(codec.decode(src, 5, WireConstants.ACK_SHORT_BYTES - 1, new Packet())).isNotEqualTo(DecodeError.OK);
    }

    @Property(tries = 200)
    void expandInvertsTheShortWord(@ForAll @LongRange(max = 1L << 50) long highest, @ForAll long word) {
        long[] bits = new long[WireConstants.SACK_WORDS];
        long base = ShortSack.expand(highest, word, bits);
        long belowZero = highest >= 63 ? 0 : word & ((1L << (63 - highest)) - 1);
        if (word >= 0 || belowZero != 0) {
            assertThat(base).isEqualTo(-1);
            return;
        }
        assertThat(base).isEqualTo(Math.max(0, highest - 255));
        assertThat(ShortSack.fits(base, bits)).isTrue();
        assertThat(ShortSack.highest(base, bits)).isEqualTo(highest);
        assertThat(ShortSack.word(bits)).isEqualTo(word);
    }

    /** Bad short ACKs (behind a valid checksum) are BAD_FIELD or BAD_LENGTH, never accepted. */
    @Property(tries = 300)
    void malformedShortAcksAreRejected(@ForAll long seed, @ForAll @IntRange(max = 4) int fault,
            @ForAll @Size(min = 8, max = 8) byte[] noise) {
        Packet p = ackAfter(seed, 300, 0, 0);
        p.flags |= WireConstants.FLAG_SHORT_SACK;
        ByteBuffer buf = ByteBuffer.allocate(WireConstants.ACK_BYTES);
        int n = codec.encode(p, buf, 0, null, 0);
        int expected = DecodeError.BAD_FIELD;
        switch (fault) {
            case 0 -> buf.putLong(32, buf.getLong(32) & Long.MAX_VALUE); // H itself not acknowledged
            case 1 -> { // bits for numbers below 0: H is 10, so only the top 11 bits may be set
                buf.putLong(24, 10);
                buf.putLong(32, -1L);
            }
            case 2 -> buf.putLong(64, buf.getLong(56) + 1 + (ByteBuffer.wrap(noise).getLong() & 0xFFFF)); // ce > ect
            case 3 -> { // the full length with the short flag
                n = WireConstants.ACK_BYTES;
                expected = DecodeError.BAD_LENGTH;
            }
            default -> { // the short length without the flag
                buf.putShort(4, (short) (buf.getShort(4) & ~WireConstants.FLAG_SHORT_SACK));
                expected = DecodeError.BAD_LENGTH;
            }
        }
        codec.reseal(buf, 0, n);
        assertThat(codec.decode(buf, 0, n, new Packet())).isEqualTo(expected);
    }

    @Property(tries = 100)
    void aShortAckLeadsABundle(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3000) int payload) {
        Packet ack = ackAfter(seed, 500, 0, 0);
        ack.flags = WireConstants.FLAG_BUNDLED | WireConstants.FLAG_SHORT_SACK;
        ByteBuffer buf = ByteBuffer.allocate(WireConstants.ACK_SHORT_BYTES + payload);
        codec.encode(ack, buf, 0, null, 0);
        assertThat(PacketCodec.bundledHeadLength(buf, 0, WireConstants.ACK_SHORT_BYTES + payload))
                .isEqualTo(WireConstants.ACK_SHORT_BYTES);
        assertThat(PacketCodec.bundledHeadLength(buf, 0, WireConstants.ACK_SHORT_BYTES)).isZero();
        ack.flags = WireConstants.FLAG_BUNDLED;
        ByteBuffer full = ByteBuffer.allocate(WireConstants.ACK_BYTES + payload);
        codec.encode(ack, full, 0, null, 0);
        assertThat(PacketCodec.bundledHeadLength(full, 0, WireConstants.ACK_BYTES + payload))
                .isEqualTo(WireConstants.ACK_BYTES);
    }
}
