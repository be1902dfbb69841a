package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.api.CloseReason;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.util.concurrent.Future;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * An endpoint with one socket that carries traffic drives the engine at the end of a read, within
 * its handling ({@code UdpEndpoint}'s {@code onReadBatchComplete}), so a sleeping ping-pong's reply
 * is written and flushed before the read's handling returns; an endpoint with several (multipath)
 * queues one drive per loop turn instead. A connection that ends in such a drive closes the socket
 * being read, inside its own read, without harm. On the NIO layer and the Linux layer where it runs.
 */
class ReadEndDriveTest {
    static {
        LeakRecorder.install();
    }

    private static final long WAIT_SECONDS = 20;
    private static final int ROUNDS = 50;
    private static final int SIZE = 64;

    @ParameterizedTest
    @ValueSource(strings = {"nio", "linux"})
    @Timeout(60)
    void aSinglePathEchoIsFlushedWithinTheReadThatCompletedItsMessage(String datapath) throws Exception {
        Recording serverLayer = new Recording(layer(datapath));
        Recording clientLayer = new Recording(layer(datapath));
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().socketLayer(serverLayer).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().socketLayer(clientLayer).build()) {
            pingPong(arena, server, accepted, client, 1);
            UdpEndpointStats serverStats = server.stats();
            UdpEndpointStats clientStats = client.stats();
            System.out.printf("ReadEndDriveTest (%s, 1 path): server %s; client %s; server stats %s%n", datapath,
                    serverLayer, clientLayer, serverStats);
            // Every echo is posted by the completion of a ping the server read, and leaves in the
            // drive at the end of that read: written and flushed before the read's handling returns.
            assertThat(serverLayer.writesInReadEnd.get()).as("server datagrams written within a read's handling")
                    .isGreaterThanOrEqualTo(ROUNDS);
            assertThat(serverLayer.flushesInReadEnd.get()).as("server flushes of written datagrams within a read")
                    .isGreaterThanOrEqualTo(ROUNDS);
            assertThat(serverStats.readEndDrives()).as("server drives at read end").isGreaterThanOrEqualTo(ROUNDS);
            // The client's only traffic socket is its path socket (its listen socket carries strays).
            assertThat(clientStats.readEndDrives()).as("client drives at read end").isGreaterThanOrEqualTo(ROUNDS);
            assertThat(serverLayer.escaped).as("exceptions out of a read's handling").isEmpty();
            assertThat(clientLayer.escaped).as("exceptions out of a read's handling").isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "linux"})
    @Timeout(60)
    void aMultipathEndpointQueuesItsDriveAndSendsNothingWithinARead(String datapath) throws Exception {
        Recording serverLayer = new Recording(layer(datapath));
        Recording clientLayer = new Recording(layer(datapath));
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().socketLayer(serverLayer).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().socketLayer(clientLayer).build()) {
            pingPong(arena, server, accepted, client, 2);
            UdpEndpointStats clientStats = client.stats();
            System.out.printf("ReadEndDriveTest (%s, 2 paths): server %s; client %s; client stats %s%n", datapath,
                    serverLayer, clientLayer, clientStats);
            // Two path sockets: a read of one is not the whole of the turn's input, so the drive
            // is a task after the loop's I/O, and nothing is written within a read.
            assertThat(clientStats.readEndDrives()).as("client drives at read end").isZero();
            assertThat(clientLayer.writesInReadEnd.get()).as("client datagrams written within a read").isZero();
            assertThat(clientLayer.readEnds.get()).as("client reads").isGreaterThanOrEqualTo(ROUNDS);
            assertThat(clientStats.datagramsSent()).as("client datagrams sent").isGreaterThanOrEqualTo(ROUNDS);
            // The server still has one listen socket: it answers within the read.
            assertThat(server.stats().readEndDrives()).as("server drives at read end").isGreaterThanOrEqualTo(ROUNDS);
            assertThat(serverLayer.writesInReadEnd.get()).isGreaterThanOrEqualTo(ROUNDS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "linux"})
    @Timeout(60)
    void aConnectionEndingInAReadEndDriveClosesTheSocketBeingReadWithoutHarm(String datapath) throws Exception {
        assertThat(LeakRecorder.isActive()).as("leak recorder installed before Netty's buffers").isTrue();
        LeakRecorder.clear();
        Recording serverLayer = new Recording(layer(datapath));
        Recording clientLayer = new Recording(layer(datapath));
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().socketLayer(serverLayer).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().socketLayer(clientLayer).build()) {
            UdpConnection c = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(s).isNotNull();
            MemoryRegion serverBuffer = server.register(arena.allocate(SIZE), Access.LOCAL_WRITE);
            MemoryRegion clientBuffer = client.register(arena.allocate(2 * SIZE), Access.LOCAL_WRITE);
            AtomicLong echoes = new AtomicLong();
            server.eventLoop().submit(() -> echo(s, serverBuffer, echoes)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            // The client's receive callback, run in the drive at the end of the read that brought
            // the echo, closes the connection; the CLOSE exchange ends it in the drive at the end
            // of the read that brings the peer's answer, which closes the path socket being read.
            // The close future's callback, run there too, posts again.
            AtomicInteger depthAtReply = new AtomicInteger(-1);
            AtomicInteger depthAtEnd = new AtomicInteger(-1);
            CompletableFuture<Object> postAfterEnd = new CompletableFuture<>();
            CompletableFuture<Completion> reply = c.postRecv(0, 1, clientBuffer, 0, SIZE);
            reply.thenRun(() -> {
                depthAtReply.set(clientLayer.depth);
                c.close();
            });
            c.closeFuture().thenRun(() -> {
                depthAtEnd.set(clientLayer.depth);
                c.postSend(0, 3, clientBuffer, SIZE, SIZE).whenComplete((d, f) -> postAfterEnd.complete(f));
            });
            c.postSend(0, 2, clientBuffer, SIZE, SIZE);
            assertThat(reply.get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(c.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.LOCAL_CLOSE);
            assertThat(s.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.PEER_CLOSE);
            assertThat(postAfterEnd.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("a post after the end is refused")
                    .isInstanceOf(PostRejectedException.class);
            System.out.printf("ReadEndDriveTest (%s, close): server %s; client %s%n", datapath, serverLayer,
                    clientLayer);
            assertThat(echoes.get()).isEqualTo(1);
            assertThat(depthAtReply.get()).as("the reply completed within the client's read").isEqualTo(1);
            assertThat(depthAtEnd.get()).as("the connection ended within the client's read").isEqualTo(1);
            assertThat(clientLayer.closesInReadEnd.get()).as("path socket closed within its own read").isEqualTo(1);
            UdpEndpointStats clientStats = client.stats();
            assertThat(clientStats.openConnections()).isZero();
            assertThat(clientStats.openSockets()).as("the listen socket only").isEqualTo(1);
            assertThat(clientLayer.sockets.get(1).isOpen()).as("the path socket").isFalse();
            assertThat(serverLayer.escaped).as("exceptions out of a read's handling").isEmpty();
            assertThat(clientLayer.escaped).as("exceptions out of a read's handling").isEmpty();
            // The client endpoint goes on: a new connection, a new path socket, driven at read end.
            UdpConnection again = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            again.close().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        assertThat(serverLayer.escaped).isEmpty();
        assertThat(clientLayer.escaped).isEmpty();
        assertThat(LeakRecorder.collect()).as("Netty buffer leaks").isEmpty();
    }

    /** {@code ROUNDS} 64-byte pings from the client, each echoed by the server's receive callback. */
    private static void pingPong(Arena arena, UdpEndpoint server, BlockingQueue<UdpConnection> accepted,
            UdpEndpoint client, int paths) throws Exception {
        UdpConnection c = client.connect(server.localAddress(), paths).get(WAIT_SECONDS, TimeUnit.SECONDS);
        UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(s).as("accepted connection").isNotNull();
        MemoryRegion serverBuffer = server.register(arena.allocate(SIZE), Access.LOCAL_WRITE);
        MemoryRegion clientBuffer = client.register(arena.allocate(2 * SIZE), Access.LOCAL_WRITE);
        AtomicLong echoes = new AtomicLong();
        server.eventLoop().submit(() -> echo(s, serverBuffer, echoes)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        for (int i = 0; i < ROUNDS; i++) {
            CompletableFuture<Completion> reply = c.postRecv(0, i, clientBuffer, 0, SIZE);
            c.postSend(0, i, clientBuffer, SIZE, SIZE);
            assertThat(reply.get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).as("reply %d", i).isTrue();
        }
        assertThat(echoes.get()).isEqualTo(ROUNDS);
        c.close().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** Posts a receive whose completion, on the loop, posts the next receive and the echo. */
    private static void echo(UdpConnection s, MemoryRegion buffer, AtomicLong echoes) {
        s.postRecv(0, 0, buffer, 0, SIZE).thenAccept(done -> {
            if (!done.isSuccess()) {
                return; // the connection ended
            }
            echo(s, buffer, echoes);
            s.postSend(0, 1, buffer, 0, SIZE);
            echoes.incrementAndGet();
        });
    }

    private static SocketLayer layer(String datapath) {
        if (datapath.equals("nio")) {
            return NioSocketLayer.INSTANCE;
        }
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        return LinuxSocketLayer.INSTANCE;
    }

    /**
     * A socket layer that notes, on the endpoint's event loop, what happens within a read's
     * handling ({@link DatagramReceiver#onReadBatchComplete}): datagrams written, flushes of
     * written datagrams, sockets closed, and any exception that escapes it.
     */
    private static final class Recording extends ForwardingSocketLayer {
        /** How deep in {@code onReadBatchComplete} the loop is (event loop only). */
        volatile int depth;
        final AtomicLong readEnds = new AtomicLong();
        final AtomicLong writesInReadEnd = new AtomicLong();
        final AtomicLong flushesInReadEnd = new AtomicLong();
        final AtomicLong flushesElsewhere = new AtomicLong();
        final AtomicInteger closesInReadEnd = new AtomicInteger();
        final List<Throwable> escaped = new CopyOnWriteArrayList<>();
        final List<UdpSocket> sockets = new CopyOnWriteArrayList<>();

        Recording(SocketLayer inner) {
            super(inner);
        }

        @Override
        DatagramReceiver receiver(DatagramReceiver endpoints) {
            return new ForwardingReceiver(endpoints) {
                @Override
                public void onReadBatchComplete(int id) {
                    readEnds.incrementAndGet();
                    depth++;
                    try {
                        inner.onReadBatchComplete(id);
                    } catch (RuntimeException | Error e) {
                        escaped.add(e);
                        throw e;
                    } finally {
                        depth--;
                    }
                }
            };
        }

        @Override
        UdpSocket socket(UdpSocket inners) {
            UdpSocket noting = new ForwardingSocket(inners) {
                private int unflushed;

                @Override
                public boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn) {
                    return written(inner.write(source, length, to, ecn));
                }

                @Override
                public boolean writeInPlace(ByteBuffer slot, long slotAddress, int length, InetSocketAddress to,
                        int ecn) {
                    return written(inner.writeInPlace(slot, slotAddress, length, to, ecn));
                }

                private boolean written(boolean queued) {
                    if (queued) {
                        unflushed++;
                        if (depth > 0) {
                            writesInReadEnd.incrementAndGet();
                        }
                    }
                    return queued;
                }

                @Override
                public int flush() {
                    if (unflushed > 0) {
                        (depth > 0 ? flushesInReadEnd : flushesElsewhere).incrementAndGet();
                        unflushed = 0;
                    }
                    return inner.flush();
                }

                @Override
                public Future<?> close() {
                    if (depth > 0) {
                        closesInReadEnd.incrementAndGet();
                    }
                    return inner.close();
                }
            };
            sockets.add(noting);
            return noting;
        }

        @Override
        public String toString() {
            return "reads " + readEnds + ", written within them " + writesInReadEnd + ", flushes within "
                    + flushesInReadEnd + " and elsewhere " + flushesElsewhere + ", closes within " + closesInReadEnd;
        }
    }
}
