package io.metaroce.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.wire.PacketCodecTest.BufferKind;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The DATA header template ({@link PacketCodec#encodeData}, {@link PacketCodec#encodeDataFromTemplate})
 * writes exactly the bytes of the field-by-field {@link PacketCodec#encode}, and claims to hold a
 * message's header only when the last {@code encodeData} was of that owner, key and destination.
 */
class PacketCodecDataTemplatePropertyTest {
    private static final int STEPS = 300;
    /** Past {@code PacketCodec.WHOLE_COPY_BYTES}: short datagrams are assembled in the template, longer ones not. */
    private static final int MAX_PAYLOAD = 600;
    private static final int OFFSET = 5;

    /** One message's fields, which the template keeps; the caller's promise: one key, one set of them. */
    private record Message(Object owner, long key, long destination, int opcode, int dataFlags, int streamId,
            long messageSequence, long receiveSequence, long messageLength, long remoteOffset, int remoteKey,
            int immediate) {
        static Message random(SplittableRandom r, Object owner, long key) {
            return new Message(owner, key, r.nextInt(4) == 0 ? 0 : r.nextLong(), r.nextInt(256), r.nextInt(256),
                    r.nextInt(), r.nextLong(), r.nextLong(), r.nextLong(), r.nextLong(), r.nextInt(), r.nextInt());
        }

        void setInto(Packet p) {
            p.destinationConnectionId = destination;
            p.opcode = opcode;
            p.dataFlags = dataFlags;
            p.streamId = streamId;
            p.messageSequence = messageSequence;
            p.receiveSequence = receiveSequence;
            p.messageLength = messageLength;
            p.remoteOffset = remoteOffset;
            p.remoteKey = remoteKey;
            p.immediate = immediate;
        }
    }

    /**
     * A random history of DATA packets of a few messages (two owners, keys reused with other
     * destinations, random per-packet fields and payloads, u16 fields given bits above 16), with other
     * packets encoded and decoded by the same codec in between and the template now and then
     * forgotten: every datagram the templated codec writes equals the field-by-field codec's, and
     * {@code holdsDataTemplate} says true exactly when a model of the last {@code encodeData} says so.
     * While templated, the packet's message fields are set to garbage, so a template that read them
     * would write other bytes.
     */
    @Property(tries = 60)
    void templateWritesTheBytesOfFieldByField(@ForAll long seed, @ForAll @IntRange(min = 0, max = 5) int kindIndex) {
        SplittableRandom r = new SplittableRandom(seed);
        BufferKind kind = List.of(BufferKind.HEAP, BufferKind.HEAP_SLICE, BufferKind.HEAP_LITTLE_ENDIAN,
                BufferKind.DIRECT, BufferKind.DIRECT_LITTLE_ENDIAN, BufferKind.DIRECT).get(kindIndex);
        String where = "seed " + seed + ", " + kind;
        Object[] owners = {new Object(), new Object()};
        List<Message> messages = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            messages.add(Message.random(r, owners[i % 2], i / 2)); // keys 0..2 under both owners
        }
        // The same owner and key with another destination: a template of its own.
        Message first = messages.get(0);
        messages.add(new Message(first.owner, first.key, first.destination ^ 1, r.nextInt(256), r.nextInt(256),
                r.nextInt(), r.nextLong(), r.nextLong(), r.nextLong(), r.nextLong(), r.nextInt(), r.nextInt()));
        ByteBuffer payload = ByteBuffer.allocateDirect(MAX_PAYLOAD + 64);
        PacketCodec templated = new PacketCodec();
        PacketCodec fieldByField = new PacketCodec();
        ByteBuffer a = kind.allocate(OFFSET + WireConstants.DATA_OVERHEAD_BYTES + MAX_PAYLOAD + 7);
        ByteBuffer b = kind.allocate(a.capacity());
        Packet p = new Packet();
        Packet reference = new Packet();
        Packet decoded = new Packet();
        Message held = null; // the model: whose header the template holds
        int fromTemplate = 0;
        Message last = null;
        for (int step = 0; step < STEPS; step++) {
            String at = where + ", step " + step;
            int action = r.nextInt(20);
            if (action == 0) {
                templated.forgetDataTemplate();
                held = null;
                continue;
            }
            if (action == 1) {
                // Another type through the same codec, and a decode: both use the codec's own header.
                Packet other = PacketCodecTest.sample(1 + r.nextInt(10));
                int n = templated.encode(other, b, OFFSET, PacketCodecTest.payloadSource(other.payloadLength),
                        PacketCodecTest.PAYLOAD_SOURCE_INDEX);
                assertThat(templated.decode(b, OFFSET, n, decoded)).as(at).isEqualTo(DecodeError.OK);
                continue;
            }
            // Mostly the message before's next packet, as a sender's are; sometimes another's.
            Message m = last != null && r.nextInt(4) != 0 ? last : messages.get(r.nextInt(messages.size()));
            last = m;
            int payloadLength = r.nextInt(MAX_PAYLOAD + 1);
            int payloadIndex = r.nextInt(64);
            for (int i = 0; i < payloadLength; i++) {
                payload.put(payloadIndex + i, (byte) r.nextInt());
            }
            reference.clearScalars();
            reference.type = PacketType.DATA;
            m.setInto(reference);
            reference.pathId = r.nextInt();
            reference.flags = r.nextInt();
            reference.connectionSequence = r.nextLong();
            reference.pathSequence = r.nextLong();
            reference.payloadMessageOffset = r.nextLong();
            reference.timestampNanos = r.nextLong();
            reference.sequenceFloor = r.nextLong();
            reference.payloadLength = payloadLength;
            int expected = fieldByField.encode(reference, b, OFFSET, payload, payloadIndex);

            boolean holds = templated.holdsDataTemplate(m.owner, m.key, m.destination);
            assertThat(holds).as(at).isEqualTo(held == m);
            p.clearScalars();
            p.type = PacketType.DATA;
            p.pathId = reference.pathId;
            p.flags = reference.flags;
            p.connectionSequence = reference.connectionSequence;
            p.pathSequence = reference.pathSequence;
            p.payloadMessageOffset = reference.payloadMessageOffset;
            p.timestampNanos = reference.timestampNanos;
            p.sequenceFloor = reference.sequenceFloor;
            p.payloadLength = payloadLength;
            int n;
            if (holds) {
                Message.random(r, null, 0).setInto(p); // garbage: the template must not read these
                n = templated.encodeDataFromTemplate(p, a, OFFSET, payload, payloadIndex);
                fromTemplate++;
            } else {
                m.setInto(p);
                n = templated.encodeData(p, m.owner, m.key, a, OFFSET, payload, payloadIndex);
                held = m;
            }
            assertThat(n).as(at).isEqualTo(expected);
            for (int i = OFFSET; i < OFFSET + n; i++) {
                if (a.get(i) != b.get(i)) {
                    throw new AssertionError(at + ": byte " + i + " is " + a.get(i) + ", field by field " + b.get(i)
                            + (holds ? " (from the template)" : " (in full)"));
                }
            }
        }
        assertThat(fromTemplate).as(where + ": packets from the template").isGreaterThan(STEPS / 4);
    }

    @Test
    void anOwnerOfNullKeepsNoTemplate() {
        PacketCodec codec = new PacketCodec();
        Packet p = PacketCodecTest.sample(PacketType.DATA);
        ByteBuffer dst = ByteBuffer.allocateDirect(2048);
        Object owner = new Object();
        codec.encodeData(p, owner, 7, dst, 0, PacketCodecTest.payloadSource(p.payloadLength),
                PacketCodecTest.PAYLOAD_SOURCE_INDEX);
        assertThat(codec.holdsDataTemplate(owner, 7, p.destinationConnectionId)).isTrue();
        assertThat(codec.holdsDataTemplate(owner, 8, p.destinationConnectionId)).isFalse();
        codec.encodeData(p, null, 7, dst, 0, PacketCodecTest.payloadSource(p.payloadLength),
                PacketCodecTest.PAYLOAD_SOURCE_INDEX);
        assertThat(codec.holdsDataTemplate(owner, 7, p.destinationConnectionId)).isFalse();
        assertThat(codec.holdsDataTemplate(null, 7, p.destinationConnectionId)).isFalse();
    }

    @Test
    void misuseFailsWithAMessage() {
        PacketCodec codec = new PacketCodec();
        Packet data = PacketCodecTest.sample(PacketType.DATA);
        ByteBuffer dst = ByteBuffer.allocateDirect(2048);
        ByteBuffer source = PacketCodecTest.payloadSource(data.payloadLength);
        assertThatThrownBy(() -> codec.encodeDataFromTemplate(data, dst, 0, source, PacketCodecTest.PAYLOAD_SOURCE_INDEX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("encodeData first");
        assertThatThrownBy(() -> codec.encodeData(PacketCodecTest.sample(PacketType.ACK), new Object(), 1, dst, 0, null, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DATA");
        Object owner = new Object();
        codec.encodeData(data, owner, 1, dst, 0, source, PacketCodecTest.PAYLOAD_SOURCE_INDEX);
        assertThatThrownBy(() -> codec.encodeDataFromTemplate(data, ByteBuffer.allocateDirect(16), 0, source,
                PacketCodecTest.PAYLOAD_SOURCE_INDEX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too small");
        assertThatThrownBy(() -> codec.encodeData(data, owner, 1, dst.asReadOnlyBuffer(), 0, source,
                PacketCodecTest.PAYLOAD_SOURCE_INDEX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
        // A refused call changed nothing: the template still holds the message.
        assertThat(codec.holdsDataTemplate(owner, 1, data.destinationConnectionId)).isTrue();
    }

    /**
     * Bad arguments to {@code encodeDataFromTemplate} (destination too small or read-only at random
     * offsets, payload source too short, missing, or indexed out of it; short and long datagrams,
     * buffers with and without an accessible array) are refused exactly as {@code encode} refuses
     * them: the same {@link IllegalArgumentException} and message, and the destination untouched;
     * good ones write {@code encode}'s bytes. The short datagram's path leaves these checks to the
     * JDK's bulk copies and only translates their exceptions.
     */
    @Property(tries = 400)
    void templateRefusesBadArgumentsAsEncodeDoes(@ForAll @IntRange(max = 600) int payloadLength,
            @ForAll @IntRange(min = -3, max = 40) int offset, @ForAll @IntRange(min = -40, max = 8) int dstSlack,
            @ForAll @IntRange(min = -3, max = 12) int sourceIndex, @ForAll @IntRange(min = -8, max = 4) int sourceSlack,
            @ForAll boolean readOnly, @ForAll boolean directDestination, @ForAll boolean noSource) {
        Packet p = PacketCodecTest.sample(PacketType.DATA);
        p.payloadLength = payloadLength;
        p.messageLength = Math.max(p.messageLength, payloadLength);
        int length = PacketCodec.encodedLength(PacketType.DATA, payloadLength);
        int capacity = Math.max(0, offset + length + dstSlack);
        ByteBuffer source = noSource ? null : ByteBuffer.allocate(Math.max(0, Math.max(0, sourceIndex) + payloadLength + sourceSlack));
        PacketCodec templated = new PacketCodec();
        Object owner = new Object();
        ByteBuffer good = ByteBuffer.allocate(length);
        templated.encodeData(p, owner, 3, good, 0, PacketCodecTest.payloadSource(payloadLength),
                PacketCodecTest.PAYLOAD_SOURCE_INDEX);
        ByteBuffer expectedDst = destination(capacity, directDestination);
        ByteBuffer actualDst = destination(capacity, directDestination);
        String expectedError = null;
        try {
            new PacketCodec().encode(p, readOnly ? expectedDst.asReadOnlyBuffer() : expectedDst, offset, source, sourceIndex);
        } catch (IllegalArgumentException e) {
            expectedError = e.getMessage();
        }
        String actualError = null;
        try {
            templated.encodeDataFromTemplate(p, readOnly ? actualDst.asReadOnlyBuffer() : actualDst, offset, source,
                    sourceIndex);
        } catch (IllegalArgumentException e) {
            actualError = e.getMessage();
        }
        assertThat(actualError).isEqualTo(expectedError);
        assertThat(actualDst.position(0).limit(capacity)).isEqualTo(expectedDst.position(0).limit(capacity));
        if (expectedError != null) {
            for (int i = 0; i < capacity; i++) {
                assertThat(actualDst.get(i)).isEqualTo(PacketCodecTest.GARBAGE);
            }
        }
    }

    private static ByteBuffer destination(int capacity, boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
        for (int i = 0; i < capacity; i++) {
            b.put(i, PacketCodecTest.GARBAGE);
        }
        return b;
    }
}
