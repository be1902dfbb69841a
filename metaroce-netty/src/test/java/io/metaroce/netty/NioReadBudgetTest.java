package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One busy socket of an endpoint on the NIO layer takes at most {@link NioSocketLayer#READS_PER_PASS}
 * reads of an I/O pass of its loop, and the endpoint's other sockets are read in the same pass
 * ([SPEC-LOSS-13]): an endpoint that listens and has a connection of its own out, its path
 * socket flooded, still reads its listen socket in every pass and accepts a new connection.
 *
 * <p>Netty's NIO datagram channel read one datagram per pass by default (its receive allocator's
 * {@code maxMessagesPerRead} is 1 unless the channel's own default of 16 is applied, and a read
 * shorter than the buffer ends the read), so a socket that receives more than one datagram per
 * loop turn fell behind for good; a budget without a bound would read a flooded socket until it
 * ran empty and leave the others for as long.
 *
 * <p>Counted in the loop's own work, not in time: each round, a task on the endpoint's loop puts
 * {@link #PROBES_PER_ROUND} numbered probes into its listen socket and then
 * {@link #FLOOD_PER_ROUND} undecodable datagrams into its path socket (sent from the loop's own
 * thread, so both are there before the loop's next I/O pass, whatever the host's load), and the
 * endpoint's receiver notes the I/O pass in which it reads each. Every round's probes must be read
 * in at most two passes (one, unless the kernel delivers the round's probes across a pass
 * boundary; twelve at one read a pass), and no pass may read more than the budget from the path
 * socket (the flood is ten passes' worth; read until empty, one pass would read all of it).
 */
class NioReadBudgetTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 30;
    private static final int ROUNDS = 20;
    /** Fewer than the budget: one pass reads them all. */
    private static final int PROBES_PER_ROUND = 12;
    private static final int FLOOD_PER_ROUND = 10 * NioSocketLayer.READS_PER_PASS;
    private static final int FLOOD_BYTES = 64;
    private static final long PROBE_MAGIC = 0x4e49_4f50_524f_4245L;
    private static final int PROBE_BYTES = 16;
    /** Socket 0 is the endpoint's listen socket (one plane); its path socket comes after. */
    private static final int LISTEN_SOCKET = 0;

    /** The NIO layer, its loop's I/O passes counted and what its sockets read noted per pass. */
    private static final class CountedLayer extends ForwardingSocketLayer {
        final AtomicLong ioPasses = new AtomicLong();
        /** The I/O pass in which each probe (by number) was read. */
        final Map<Long, Long> passWhenRead = new ConcurrentHashMap<>();
        /** Datagrams the path sockets read in the current pass (loop only), and the most in one pass. */
        private long pathReadsThisPass;
        final AtomicLong mostPathReadsInAPass = new AtomicLong();
        final AtomicLong pathReads = new AtomicLong();

        CountedLayer() {
            super(NioSocketLayer.INSTANCE);
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int threads) {
            return PassCountingIoHandler.group(threads, NioIoHandler.newFactory(),
                    new PassCountingIoHandler.PassListener() {
                        @Override
                        public void passStarting() {
                            ioPasses.incrementAndGet();
                            pathReadsThisPass = 0;
                        }

                        @Override
                        public void passEnded() {
                            mostPathReadsInAPass.accumulateAndGet(pathReadsThisPass, Math::max);
                        }
                    });
        }

        @Override
        DatagramReceiver receiver(DatagramReceiver endpoints) {
            return new ForwardingReceiver(endpoints) {
                @Override
                public void onDatagram(int id, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                        int ecn) {
                    if (id == LISTEN_SOCKET && length == PROBE_BYTES
                            && data.duplicate().order(ByteOrder.BIG_ENDIAN).getLong(offset + 8) == PROBE_MAGIC) {
                        passWhenRead.put(data.duplicate().order(ByteOrder.BIG_ENDIAN).getLong(offset), ioPasses.get());
                        return;
                    }
                    if (id != LISTEN_SOCKET) {
                        pathReadsThisPass++;
                        pathReads.incrementAndGet();
                    }
                    super.onDatagram(id, data, offset, length, sender, ecn);
                }
            };
        }
    }

    @Test
    @Timeout(120)
    void aFloodedPathSocketTakesAtMostItsBudgetOfAPassAndTheListenSocketIsReadInEveryPass() throws Exception {
        CountedLayer layer = new CountedLayer();
        BlockingQueue<UdpConnection> acceptedByPeer = new LinkedBlockingQueue<>();
        BlockingQueue<UdpConnection> acceptedByFlooded = new LinkedBlockingQueue<>();
        try (UdpEndpoint peer = UdpEndpoint.builder().datapath(Datapath.NIO).listening(true)
                        .acceptListener(acceptedByPeer::add).build();
                UdpEndpoint flooded = UdpEndpoint.builder().socketLayer(layer).listening(true)
                        .acceptListener(acceptedByFlooded::add).build();
                UdpEndpoint newcomer = UdpEndpoint.builder().datapath(Datapath.NIO).build();
                DatagramChannel injector = DatagramChannel.open()) {
            // The flooded endpoint's own connection out gives it a path socket besides its listen socket.
            UdpConnection out = flooded.connect(peer.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(acceptedByPeer.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            InetSocketAddress pathSocket = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    out.stats().localSocketPorts()[0]);
            InetSocketAddress listenSocket = flooded.localAddress();
            injector.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));

            for (int round = 0; round < ROUNDS; round++) {
                long first = (long) round * PROBES_PER_ROUND;
                CountDownLatch injected = new CountDownLatch(1);
                flooded.eventLoop().execute(() -> {
                    try {
                        ByteBuffer probe = ByteBuffer.allocate(PROBE_BYTES);
                        for (long n = first; n < first + PROBES_PER_ROUND; n++) {
                            probe.clear();
                            probe.putLong(n).putLong(PROBE_MAGIC).flip();
                            injector.send(probe, listenSocket);
                        }
                        ByteBuffer garbage = ByteBuffer.allocate(FLOOD_BYTES);
                        for (int i = 0; i < FLOOD_PER_ROUND; i++) {
                            garbage.clear();
                            injector.send(garbage, pathSocket);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        injected.countDown();
                    }
                });
                assertThat(injected.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("round %d injected", round).isTrue();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (!allRead(layer.passWhenRead, first) && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                Set<Long> passes = ConcurrentHashMap.newKeySet();
                for (long n = first; n < first + PROBES_PER_ROUND; n++) {
                    Long pass = layer.passWhenRead.get(n);
                    assertThat(pass).as("probe %d of round %d read", n, round).isNotNull();
                    passes.add(pass);
                }
                assertThat(passes).as("I/O passes in which round %d's %d probes were read (a budget of %d reads a"
                        + " pass)", round, PROBES_PER_ROUND, NioSocketLayer.READS_PER_PASS).hasSizeLessThanOrEqualTo(2);
            }
            // The flood drains at the budget a pass (slowly on a loaded host: about 40 passes in 100 ms
            // at load 25); every datagram of it is read, none lost to a full socket buffer.
            long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (layer.pathReads.get() < (long) ROUNDS * FLOOD_PER_ROUND && System.nanoTime() < drainDeadline) {
                Thread.sleep(1);
            }
            assertThat(layer.pathReads.get()).as("flood datagrams read from the path socket")
                    .isGreaterThanOrEqualTo((long) ROUNDS * FLOOD_PER_ROUND);
            long mostInAPass = layer.mostPathReadsInAPass.get();
            System.out.printf("NioReadBudgetTest: %d I/O passes, %d datagrams read from the flooded path socket, at most"
                    + " %d in one pass%n", layer.ioPasses.get(), layer.pathReads.get(), mostInAPass);
            assertThat(mostInAPass).as("datagrams the flooded path socket read in one I/O pass")
                    .isEqualTo(NioSocketLayer.READS_PER_PASS);

            // Through the public surface: flooded without pause on its path socket, the endpoint
            // still answers a handshake on its listen socket.
            AtomicBoolean flooding = new AtomicBoolean(true);
            Thread flooder = Thread.ofPlatform().daemon().start(() -> {
                try (DatagramChannel f = DatagramChannel.open()) {
                    ByteBuffer garbage = ByteBuffer.allocate(FLOOD_BYTES);
                    while (flooding.get()) {
                        garbage.clear();
                        f.send(garbage, pathSocket);
                    }
                } catch (Exception e) {
                    // the test is over
                }
            });
            try {
                long readBefore = layer.pathReads.get();
                newcomer.connect(listenSocket, 1).get(WAIT_SECONDS, TimeUnit.SECONDS); // fails if not answered
                assertThat(acceptedByFlooded.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("connection accepted")
                        .isNotNull();
                System.out.printf("NioReadBudgetTest: %d flood datagrams read while the handshake ran%n",
                        layer.pathReads.get() - readBefore);
            } finally {
                flooding.set(false);
                flooder.join();
            }
            UdpEndpointStats stats = flooded.stats();
            assertThat(stats.decodeFailures() + stats.unknownConnection()).as("flood datagrams dropped and counted")
                    .isGreaterThanOrEqualTo((long) ROUNDS * FLOOD_PER_ROUND);
        }
    }

    private static boolean allRead(Map<Long, Long> passWhenRead, long first) {
        for (long n = first; n < first + PROBES_PER_ROUND; n++) {
            if (!passWhenRead.containsKey(n)) {
                return false;
            }
        }
        return true;
    }
}
