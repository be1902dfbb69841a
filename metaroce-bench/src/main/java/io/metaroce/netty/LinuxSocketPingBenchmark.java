package io.metaroce.netty;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One 64-byte datagram through the Linux socket layer on loopback, as a ping-pong moves it: one
 * operation is the datagram written, sent alone ({@code sendmmsg} of one entry) and read
 * ({@code recvmmsg}) with its ECN bits, both sockets driven by the benchmark thread, so the time
 * is the two system calls and the layer's own work, without any wake-up. {@code ecn} 2 (ECT(0),
 * the engine's codepoint for data) rides on the socket's own {@code IP_TOS}; 0 (Not-ECT) carries
 * an {@code IP_TOS} control message: the difference is what that message costs.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main LinuxSocketPingBenchmark -prof gc -f 1 -wi 3 -i 5 -w 2 -r 2
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LinuxSocketPingBenchmark {
    private static final int BYTES = 64;

    /** ECN codepoint of the datagram: 2 rides on the socket's {@code IP_TOS}, 0 carries its own. */
    @Param({"2", "0"})
    public int ecn;

    private LinuxUdpSocket sender;
    private LinuxUdpSocket receiver;
    private InetSocketAddress to;
    private final ByteBuffer payload = ByteBuffer.allocate(BYTES);

    private final DatagramCounter counter = new DatagramCounter();

    @Setup
    public void setUp() throws IOException {
        LinuxDatapathRequired.check();
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(1 << 20, 2048);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        sender = LinuxSocketLayer.openUnregistered(any, options, counter);
        receiver = LinuxSocketLayer.openUnregistered(any, options, counter);
        to = receiver.localAddress();
    }

    @TearDown
    public void tearDown() {
        if (counter.datagrams > 0 && counter.ecnCodepoints != (long) ecn * counter.datagrams) {
            throw new IllegalStateException("datagrams sent with ECN " + ecn + " arrived with others");
        }
        sender.close();
        receiver.close();
    }

    /** One datagram out and in; loopback delivers it within the send, or the read is repeated. */
    @Benchmark
    public long oneDatagram() {
        sender.write(payload, BYTES, to, ecn);
        sender.flush();
        long before = counter.datagrams;
        for (int spins = 0; counter.datagrams == before && spins < 64; spins++) {
            receiver.readAvailable();
        }
        return counter.datagrams;
    }
}
