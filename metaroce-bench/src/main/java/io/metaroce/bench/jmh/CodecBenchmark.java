package io.metaroce.bench.jmh;

import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Cost of encoding and then decoding one packet with {@link PacketCodec}, into and out of a direct
 * buffer (the datagram path). Run with {@code -prof gc}: {@code gc.alloc.rate.norm} must be ~0 B/op.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main CodecBenchmark -prof gc -f 1 -wi 3 -i 5 -w 1 -r 1
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodecBenchmark {
    /** Payload bytes of the DATA packet: a typical jumbo-safe segment. */
    static final int PAYLOAD_BYTES = 4000;

    private final PacketCodec codec = new PacketCodec();
    private final Packet data = new Packet();
    private final Packet ack = new Packet();
    private final Packet decoded = new Packet();
    private ByteBuffer payload;
    private ByteBuffer datagram;
    private long sequence;

    @Setup
    public void setup() {
        payload = ByteBuffer.allocateDirect(PAYLOAD_BYTES);
        for (int i = 0; i < PAYLOAD_BYTES; i++) {
            payload.put(i, (byte) i);
        }
        datagram = ByteBuffer.allocateDirect(PacketCodec.encodedLength(PacketType.DATA, PAYLOAD_BYTES));

        data.type = PacketType.DATA;
        data.pathId = 1;
        data.destinationConnectionId = 0x1234_5678_9ABC_DEF0L;
        data.opcode = DataOpcode.WRITE;
        data.streamId = 3;
        data.messageSequence = 42;
        data.messageLength = 1L << 20;
        data.payloadMessageOffset = 8 * PAYLOAD_BYTES;
        data.remoteOffset = 4096;
        data.remoteKey = 0xCAFE_F00D;
        data.payloadLength = PAYLOAD_BYTES;

        ack.type = PacketType.ACK;
        ack.pathId = 1;
        ack.destinationConnectionId = 0x1234_5678_9ABC_DEF0L;
        ack.sackBase = 1_000_000;
        for (int i = 0; i < WireConstants.SACK_WORDS; i++) {
            ack.sackBits[i] = 0xFFFF_FFFF_FFFF_FF7FL;
        }
        ack.ackDelayNanos = 20_000;
        ack.ectCount = 1_000_000;
        ack.ceCount = 17;
        ack.rateHintBytesPerSecond = 1_250_000_000L;
        ack.cumulativeSequence = 999_000;
    }

    /** Encode a DATA packet with a 4000-byte payload into a direct buffer, then decode it. */
    @Benchmark
    public long dataEncodeDecode(Blackhole bh) {
        long s = ++sequence & Long.MAX_VALUE;
        data.connectionSequence = s;
        data.pathSequence = s;
        data.timestampNanos = s;
        int length = codec.encode(data, datagram, 0, payload, 0);
        int result = codec.decode(datagram, 0, length, decoded);
        if (result != DecodeError.OK) {
            throw new IllegalStateException(DecodeError.name(result));
        }
        bh.consume(decoded.payloadOffset);
        return decoded.connectionSequence + length;
    }

    /** Encode an ACK into a direct buffer, then decode it. */
    @Benchmark
    public long ackEncodeDecode(Blackhole bh) {
        long s = ++sequence & Long.MAX_VALUE;
        ack.pathSequence = s;
        ack.echoTimestampNanos = s;
        int length = codec.encode(ack, datagram, 0, null, 0);
        int result = codec.decode(datagram, 0, length, decoded);
        if (result != DecodeError.OK) {
            throw new IllegalStateException(DecodeError.name(result));
        }
        bh.consume(decoded.sackBits[3]);
        return decoded.echoTimestampNanos + length;
    }
}
