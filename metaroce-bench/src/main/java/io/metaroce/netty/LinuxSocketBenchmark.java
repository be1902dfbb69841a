package io.metaroce.netty;

import java.io.IOException;
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
 * The Linux socket layer alone, on loopback: one operation is one datagram written into the send
 * batch, sent ({@code sendmmsg}, GSO for the full-size case), received ({@code recvmmsg}) with its
 * ECN bits, and handed to a receiver that only counts it. Both sockets are driven by the benchmark
 * thread (no event loop), so {@code gc.alloc.rate.norm} under {@code -prof gc} is the layer's own
 * allocation per datagram, send and receive loops together. It lives in the datapath's package to
 * reach the package-private layer.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main LinuxSocketBenchmark -prof gc -f 1 -wi 3 -i 5 -w 2 -r 2
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LinuxSocketBenchmark {
    private static final int BATCH = LinuxSocketLayer.BATCH;

    /** Datagram size: 4096 is full size (GSO runs), 1000 is not (one sendmmsg entry per datagram). */
    @Param({"4096", "1000"})
    public int datagramBytes;

    private LinuxUdpSocket sender;
    private LinuxUdpSocket receiver;
    private InetSocketAddress to;
    private final ByteBuffer payload = ByteBuffer.allocate(4096);

    private final DatagramCounter counter = new DatagramCounter();

    @Setup
    public void setUp() throws IOException {
        LinuxDatapathRequired.check();
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(8 << 20, 4096);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        sender = LinuxSocketLayer.openUnregistered(any, options, counter);
        receiver = LinuxSocketLayer.openUnregistered(any, options, counter);
        to = receiver.localAddress();
    }

    @TearDown
    public void tearDown() {
        sender.close();
        receiver.close();
    }

    /** A batch of datagrams out and back in; loopback may drop under pressure, so read what arrived. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long sendAndReceiveBatch() {
        for (int i = 0; i < BATCH; i++) {
            payload.put(0, (byte) i);
            sender.write(payload, datagramBytes, to, 2);
        }
        sender.flush();
        long before = counter.datagrams;
        for (int spins = 0; counter.datagrams - before < BATCH && spins < 64; spins++) {
            receiver.readAvailable();
        }
        return counter.bytes;
    }
}
