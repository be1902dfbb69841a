package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A saturated sender's drives end with its next pacing burst already due, so it runs the
 * engine's timers as the loop's next task again and again; Netty runs a task queued while it runs
 * its tasks in the same pass, for up to a second, and such a chain once kept the sender's sockets
 * unread (its ACKs, anything else) until its window was full. The endpoint now looks at its
 * sockets after {@link UdpEndpoint#DUE_DEADLINES_PER_LOOK} of them in a row.
 *
 * <p>Measured in the loop's own work, not in time (a loaded host deschedules the loop for tens of
 * milliseconds whatever it does): a thread sends small probe datagrams to the sender's listen
 * socket, each carrying how many times the sender had flushed a socket when it was sent, and
 * the sender's receiver counts the flushes made while the probe waited in the socket.
 */
class DueDeadlineChainTest {
    private static final long WAIT_SECONDS = 30;
    private static final long PROBE_MAGIC = 0x5052_4f42_4550_5242L;
    private static final int PROBE_BYTES = 16;

    /** The Linux layer, counting its sockets' flushes and taking probes out of what they read. */
    private static final class ProbedLayer implements SocketLayer {
        final AtomicLong flushes = new AtomicLong();
        final AtomicLong mostFlushesWhileAProbeWaited = new AtomicLong();
        final AtomicLong probesRead = new AtomicLong();

        @Override
        public String name() {
            return LinuxSocketLayer.INSTANCE.name();
        }

        @Override
        public boolean readsEcn() {
            return LinuxSocketLayer.INSTANCE.readsEcn();
        }

        @Override
        public boolean sendsInPlace() {
            return LinuxSocketLayer.INSTANCE.sendsInPlace();
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int threads) {
            return LinuxSocketLayer.INSTANCE.newEventLoopGroup(threads);
        }

        @Override
        public LoopTimer newTimer(EventLoop loop, Runnable task) {
            return LinuxSocketLayer.INSTANCE.newTimer(loop, task);
        }

        @Override
        public Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
                DatagramReceiver receiver) {
            DatagramReceiver probed = new DatagramReceiver() {
                @Override
                public void onDatagram(int id, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                        int ecn) {
                    ByteBuffer big = data.duplicate().order(ByteOrder.BIG_ENDIAN);
                    if (length == PROBE_BYTES && big.getLong(offset + 8) == PROBE_MAGIC) {
                        mostFlushesWhileAProbeWaited.accumulateAndGet(flushes.get() - big.getLong(offset), Math::max);
                        probesRead.incrementAndGet();
                        return;
                    }
                    receiver.onDatagram(id, data, offset, length, sender, ecn);
                }

                @Override
                public void onReceiveCall(int id) {
                    receiver.onReceiveCall(id);
                }

                @Override
                public void onReadBatchComplete(int id) {
                    receiver.onReadBatchComplete(id);
                }

                @Override
                public void onSocketError(int id, Throwable cause) {
                    receiver.onSocketError(id, cause);
                }
            };
            Promise<UdpSocket> promise = loop.newPromise();
            LinuxSocketLayer.INSTANCE.bind(loop, local, socketId, options, probed).addListener(f -> {
                if (f.isSuccess()) {
                    promise.setSuccess(counting((UdpSocket) f.getNow()));
                } else {
                    promise.setFailure(f.cause());
                }
            });
            return promise;
        }

        private UdpSocket counting(UdpSocket inner) {
            return new UdpSocket() {
                @Override
                public InetSocketAddress localAddress() {
                    return inner.localAddress();
                }

                @Override
                public boolean isOpen() {
                    return inner.isOpen();
                }

                @Override
                public boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn) {
                    return inner.write(source, length, to, ecn);
                }

                @Override
                public boolean writeInPlace(ByteBuffer slot, long slotAddress, int length, InetSocketAddress to,
                        int ecn) {
                    return inner.writeInPlace(slot, slotAddress, length, to, ecn);
                }

                @Override
                public int flush() {
                    flushes.incrementAndGet();
                    return inner.flush();
                }

                @Override
                public int readNow() {
                    return inner.readNow();
                }

                @Override
                public Future<?> close() {
                    return inner.close();
                }
            };
        }
    }

    @Test
    @Timeout(120)
    void aSaturatedSenderLooksAtItsSocketsAfterEverySixteenPassedDeadlinesInARow() throws Exception {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        ProbedLayer layer = new ProbedLayer();
        int size = 8192;
        long total = 32L << 20;
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(Datapath.LINUX).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().socketLayer(layer).build();
                DatagramChannel prober = DatagramChannel.open()) {
            UdpConnection cc = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            PatternedWrites writes = new PatternedWrites(arena, client, server, total);
            InetSocketAddress listenSocket = client.localAddress();
            Thread probing = Thread.ofPlatform().daemon().start(() -> {
                ByteBuffer probe = ByteBuffer.allocate(PROBE_BYTES);
                while (!Thread.currentThread().isInterrupted()) {
                    probe.clear();
                    probe.putLong(layer.flushes.get()).putLong(PROBE_MAGIC).flip();
                    try {
                        prober.send(probe, listenSocket);
                        Thread.sleep(1);
                    } catch (Exception e) {
                        return; // interrupted: the transfer is over
                    }
                }
            });
            try {
                writes.writeAll(cc, size, WAIT_SECONDS);
            } finally {
                probing.interrupt();
                probing.join();
            }
            UdpEndpointStats stats = client.stats();
            long worst = layer.mostFlushesWhileAProbeWaited.get();
            System.out.printf("DueDeadlineChainTest: %d probes read, at most %d flushes while one waited; %d passed"
                    + " deadlines run as tasks, %d through the timer after %d in a row; %d datagrams sent%n",
                    layer.probesRead.get(), worst, stats.dueDeadlinesRun(), stats.dueDeadlinesDeferred(),
                    UdpEndpoint.DUE_DEADLINES_PER_LOOK, stats.datagramsSent());
            assertThat(stats.dueDeadlinesDeferred()).as("chains of passed deadlines longer than the bound: the case"
                    + " this test is about happened").isPositive();
            assertThat(layer.probesRead.get()).as("probes read").isPositive();
            // A probe that arrives just after a look waits for the next: up to two chains and
            // the drives of what that look read.
            assertThat(worst).as("flushes the sender made while a probe waited unread in its socket")
                    .isLessThanOrEqualTo(3L * UdpEndpoint.DUE_DEADLINES_PER_LOOK);
        }
    }
}
