package io.metaroce.netty;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One path's sender as the 8 KiB flow drives it, without the engine: each datagram encoded in place
 * into a send slot by the {@link PacketCodec} (header, payload copied from a 1 MiB source area that
 * the messages cycle through, CRC32C over the slot), queued with {@code writeInPlace}, and a run of
 * {@link #RUN} datagrams (about one pacing burst, 56 KiB) flushed as one GSO send; the receiving
 * socket (GRO) is read on the same thread. One operation is one datagram.
 *
 * <p>{@code layout}: {@code packed} puts the slots back to back ({@link SendSlots} after it packed
 * at the flow's length: one iovec for the run, slots not 64-byte aligned), {@code strided} 4,096
 * bytes apart (before packing: one iovec a datagram, every slot 64-byte aligned). The question it
 * answers (session 15): whether packing costs one path something.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main LinuxSendSlotsBenchmark -prof gc -f 2 -wi 3 -i 5 -w 2 -r 2
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LinuxSendSlotsBenchmark {
    /** Datagrams per flush: a 56 KiB pacing burst of 2,839-byte datagrams. */
    private static final int RUN = 20;
    private static final int SOURCE_BYTES = 1 << 20;
    private static final int MESSAGE_BYTES = 8192;
    private static final int STRIDE_UNPACKED = 4096;

    @Param({"packed", "strided"})
    public String layout;

    /** The 8 KiB flow's datagram: 104 header + 2,731 payload + 4 trailer bytes. */
    @Param({"2839"})
    public int datagramBytes;

    private LinuxUdpSocket sender;
    private LinuxUdpSocket receiver;
    private InetSocketAddress to;
    private MemorySegment slotMemory;
    private ByteBuffer slots;
    private long slotBase;
    private int stride;
    private int payloadBytes;
    // A message's three payloads span 8,193 bytes: the last message of the cycle reads one byte past it.
    private final ByteBuffer source = ByteBuffer.allocateDirect(SOURCE_BYTES + MESSAGE_BYTES);
    private final PacketCodec codec = new PacketCodec();
    private final Packet packet = new Packet();
    private long message;
    private int datagramOfMessage;

    private final DatagramCounter counter = new DatagramCounter();

    @Setup
    public void setUp() throws IOException {
        LinuxDatapathRequired.check();
        stride = switch (layout) {
            case "packed" -> datagramBytes;
            case "strided" -> STRIDE_UNPACKED;
            default -> throw new IllegalArgumentException("layout is packed or strided, not " + layout);
        };
        payloadBytes = datagramBytes - WireConstants.DATA_HEADER_BYTES - WireConstants.CHECKSUM_BYTES;
        slotMemory = Arena.ofAuto().allocate((long) RUN * STRIDE_UNPACKED, 64);
        slots = slotMemory.asByteBuffer();
        slotBase = slotMemory.address();
        for (int i = 0; i < SOURCE_BYTES; i += 8) {
            source.putLong(i, i * 0x9E3779B97F4A7C15L);
        }
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(8 << 20, 4096);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        sender = LinuxSocketLayer.openUnregistered(any, options, counter);
        receiver = LinuxSocketLayer.openUnregistered(any, options, counter);
        to = receiver.localAddress();
        packet.type = PacketType.DATA;
        packet.destinationConnectionId = 0x1234_5678_9ABCL;
        packet.messageLength = MESSAGE_BYTES;
        packet.pathId = 1;
    }

    @TearDown
    public void tearDown() {
        sender.close();
        receiver.close();
    }

    /** A run of datagrams encoded into the slots, sent as one GSO send, and read back. */
    @Benchmark
    @OperationsPerInvocation(RUN)
    public long encodeSendAndReceiveRun() {
        for (int i = 0; i < RUN; i++) {
            int offset = i * stride;
            encode(offset);
            sender.writeInPlace(slots, slotBase + offset, datagramBytes, to, 2);
        }
        sender.flush();
        long before = counter.datagrams;
        for (int spins = 0; counter.datagrams - before < RUN && spins < 64; spins++) {
            receiver.readAvailable();
        }
        return counter.bytes;
    }

    /** The next datagram of the current message into the slot at {@code offset}, as the engine encodes it. */
    private void encode(int offset) {
        long messageOffset = (long) datagramOfMessage * payloadBytes;
        int sourceIndex = (int) ((message * MESSAGE_BYTES) % SOURCE_BYTES + messageOffset);
        packet.connectionSequence++;
        packet.pathSequence++;
        packet.payloadMessageOffset = messageOffset;
        packet.payloadLength = payloadBytes;
        if (datagramOfMessage == 0) {
            packet.messageSequence = message;
            codec.encodeData(packet, this, message, slots, offset, source, sourceIndex);
        } else {
            codec.encodeDataFromTemplate(packet, slots, offset, source, sourceIndex);
        }
        if (++datagramOfMessage == 3) {
            datagramOfMessage = 0;
            message++;
        }
    }
}
