package io.metaroce.bench.jmh;

import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The floor under {@link EnginePairBenchmark}: only the byte work one DATA packet costs the two
 * engines, with no protocol logic at all. One op copies {@code payloadBytes} from a source region
 * into a datagram buffer, runs CRC32C over the datagram (the sender's encode), runs CRC32C over it
 * again (the receiver's check) and copies the payload out into a target region (placement): two
 * copies and two CRC passes, on direct buffers through the same JDK calls the codec and
 * {@code MemoryRegion} use ({@code ByteBuffer.put(int, ByteBuffer, int, int)} and
 * {@link CRC32C#update(ByteBuffer)}, both intrinsics). {@code crcOnly} and {@code copyOnly} split
 * the cost. The source and target rotate over 1 MiB (a message), as in the engine pair, so the
 * regions are not all in L1.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main DataBoundBenchmark -f 1 -wi 3 -i 5 -w 1 -r 1
 * </pre>
 *
 * <p>Not thread-safe: JMH gives each thread its own state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DataBoundBenchmark {
    /** Bytes of the source and target regions the payload offsets rotate over (one 1 MiB message). */
    static final int REGION_BYTES = 1 << 20;

    /** DATA payload bytes per packet, as in {@link EnginePairBenchmark}. */
    @Param({"4096", "256"})
    public int payloadBytes;

    private final CRC32C crc = new CRC32C();
    private ByteBuffer source;
    private ByteBuffer target;
    private ByteBuffer datagram;
    private int datagramBytes;
    private int offset;

    /** Fills the source region and sizes the datagram to the payload plus the DATA overhead. */
    @Setup
    public void setup() {
        source = ByteBuffer.allocateDirect(REGION_BYTES);
        target = ByteBuffer.allocateDirect(REGION_BYTES);
        for (int i = 0; i < REGION_BYTES; i += 8) {
            source.putLong(i, 0x9E37_79B9_7F4A_7C15L * (i + 1));
        }
        datagramBytes = payloadBytes + WireConstants.DATA_OVERHEAD_BYTES;
        datagram = ByteBuffer.allocateDirect(datagramBytes);
    }

    private int nextOffset() {
        int o = offset;
        // Wrap when the next payload would not fit (payloads need not divide the region).
        int n = o + payloadBytes;
        offset = n + payloadBytes > REGION_BYTES ? 0 : n;
        return o;
    }

    private int crc(int from, int to) {
        CRC32C c = crc;
        c.reset();
        datagram.limit(to).position(from);
        c.update(datagram);
        datagram.limit(datagram.capacity());
        return (int) c.getValue();
    }

    /** One DATA packet's byte work for both engines: copy in, CRC, CRC, copy out. */
    @Benchmark
    public int copyCrcTwice() {
        int o = nextOffset();
        int end = datagramBytes - WireConstants.CHECKSUM_BYTES;
        datagram.put(WireConstants.DATA_HEADER_BYTES, source, o, payloadBytes);
        int sent = crc(0, end);
        datagram.putInt(end, sent);
        int received = crc(0, end);
        target.put(o, datagram, WireConstants.DATA_HEADER_BYTES, payloadBytes);
        return sent ^ received;
    }

    /** One CRC32C pass over the datagram. */
    @Benchmark
    public int crcOnly() {
        return crc(0, datagramBytes - WireConstants.CHECKSUM_BYTES);
    }

    /** One payload copy from a region into the datagram. */
    @Benchmark
    public int copyOnly() {
        int o = nextOffset();
        datagram.put(WireConstants.DATA_HEADER_BYTES, source, o, payloadBytes);
        return o;
    }
}
