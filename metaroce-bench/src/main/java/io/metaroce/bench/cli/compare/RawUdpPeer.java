package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import io.metaroce.netty.IdleSpin;
import io.metaroce.netty.UdpEndpoint;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.SegmentedDatagramPacket;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.IntSupplier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The UDP ceiling: an unreliable blast of datagrams through Netty on 127.0.0.1, sender and receiver
 * each on its own event loop (epoll where it runs, else NIO), and a 64-byte echo ping-pong on the
 * same kind of event loops. Nothing is retransmitted or checked; what counts is what the receiver
 * gets. Not thread-safe: one run at a time per instance (each call builds and tears down its own
 * event loops).
 */
final class RawUdpPeer {
    /** The datagram size every peer is compared at: MetaRoCE's MTU. */
    static final int DATAGRAM = 4096;
    /** Bytes of one GSO send at most (15 datagrams of 4096), under the 64 KiB UDP limit. */
    static final int GSO_BYTES = 61_440;
    private static final int SOCKET_BUFFER = 4 << 20;
    private static final int WRITES_PER_TURN = 64;

    private final boolean epoll = Epoll.isAvailable();

    /** Whether the sender can hand the kernel segmented datagrams (epoll with UDP_SEGMENT). */
    boolean gsoSupported() {
        return epoll && SegmentedDatagramPacket.isSupported();
    }

    /** Which event loops run: {@code epoll} or {@code nio}. */
    String transport() {
        return epoll ? "epoll" : "nio";
    }

    /**
     * Blasts messages of {@code size} bytes, each split into datagrams of at most {@link #DATAGRAM}
     * bytes, for {@code window}; with {@code gso}, up to {@link #GSO_BYTES} of equal datagrams per
     * send and GRO on the receiver. Returns what the receiver got and what the sender wrote.
     */
    Blast blast(int size, boolean gso, Window window) throws InterruptedException {
        if (gso && !gsoSupported()) {
            throw new IllegalStateException("GSO needs the epoll transport with UDP_SEGMENT support");
        }
        EventLoopGroup rxGroup = group();
        EventLoopGroup txGroup = group();
        AtomicLong received = new AtomicLong();
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(65_536).writeZero(65_536);
        try {
            Bootstrap rx = new Bootstrap().group(rxGroup).channel(channelClass())
                    .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                            received.addAndGet(packet.content().readableBytes());
                        }
                    });
            if (epoll) {
                if (gso) {
                    rx.option(EpollChannelOption.UDP_GRO, true);
                } else {
                    // recvmmsg: up to 16 datagrams of 4096 per system call, the best plain receive.
                    rx.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, DATAGRAM);
                }
            }
            Channel receiver = rx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            InetSocketAddress target = (InetSocketAddress) receiver.localAddress();
            AtomicLong sent = new AtomicLong();
            Sender sender = new Sender(payload, size, gso, target, sent);
            new Bootstrap().group(txGroup).channel(channelClass())
                    .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
                    .handler(sender)
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync();
            TimeUnit.NANOSECONDS.sleep(window.warmupNanos());
            long r0 = received.get();
            long s0 = sent.get();
            double gbps = new Window(0, window.durationNanos()).measureGbps(received);
            sender.running = false;
            long r1 = received.get();
            long s1 = sent.get();
            return new Blast(gbps, s1 == s0 ? 1.0 : Math.min(1.0, (double) (r1 - r0) / (s1 - s0)));
        } finally {
            shutdown(txGroup);
            shutdown(rxGroup);
            payload.release();
        }
    }

    /** 64-byte echo ping-pong over {@code window}: round trips after the warm-up. */
    LatencyPercentiles pingPong(int size, Window window) throws InterruptedException {
        return pingPong(size, window, false);
    }

    /**
     * As {@link #pingPong(int, Window)}; with {@code busyPoll} both event loops poll their socket on
     * every turn instead of sleeping in the kernel (what MetaRoCE's busy-polling endpoints do).
     */
    LatencyPercentiles pingPong(int size, Window window, boolean busyPoll) throws InterruptedException {
        EventLoopGroup serverGroup = group(busyPoll);
        EventLoopGroup clientGroup = group(busyPoll);
        try {
            Channel echo = new Bootstrap().group(serverGroup).channel(channelClass())
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                            ctx.writeAndFlush(new DatagramPacket(packet.content().retain(), packet.sender()));
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            Pinger pinger = new Pinger(size, (InetSocketAddress) echo.localAddress(), window);
            new Bootstrap().group(clientGroup).channel(channelClass()).handler(pinger)
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync();
            return pinger.done.get(window.warmupNanos() + window.durationNanos() + 30_000_000_000L,
                    TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("raw UDP ping-pong did not finish: " + e, e);
        } finally {
            shutdown(clientGroup);
            shutdown(serverGroup);
        }
    }

    /**
     * One blast's outcome.
     *
     * @param receivedGbps what the receiver got during the window, Gb/s of payload
     * @param deliveredFraction of what the sender handed to its socket during the window, the
     *     part the receiver got (about: the window's ends are not exactly simultaneous)
     */
    record Blast(double receivedGbps, double deliveredFraction) {
    }

    private EventLoopGroup group() {
        return group(false);
    }

    /**
     * One event loop; busy-polling: every turn polls without waiting (a zero-timeout epoll_wait or
     * selectNow), and turns with nothing to do spin, then yield the core on each idle turn once the
     * loop has been idle for {@link UdpEndpoint.Builder#BUSY_POLL_IDLE_SPIN_NANOS}, as MetaRoCE's
     * busy-polling loops do.
     */
    private EventLoopGroup group(boolean busyPoll) {
        SelectStrategyFactory strategy = busyPoll ? IdleSpinStrategy::new : DefaultSelectStrategyFactory.INSTANCE;
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory(0, strategy)
                : NioIoHandler.newFactory(SelectorProvider.provider(), strategy);
        return new MultiThreadIoEventLoopGroup(1, factory);
    }

    private Class<? extends DatagramChannel> channelClass() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    private static void shutdown(EventLoopGroup group) {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * Writes datagrams while the channel is writable and yields the event loop between turns, so
     * the socket buffer stays full without the outbound buffer growing. Runs on its event loop.
     */
    private static final class Sender extends ChannelInboundHandlerAdapter {
        private final ByteBuf payload;
        private final int size;
        private final boolean gso;
        private final InetSocketAddress target;
        private final int segment;
        private final AtomicLong sent;
        private volatile boolean running = true;
        private int offsetInMessage;
        private Channel channel;

        Sender(ByteBuf payload, int size, boolean gso, InetSocketAddress target, AtomicLong sent) {
            this.sent = sent;
            this.payload = payload;
            this.size = size;
            this.gso = gso;
            this.target = target;
            this.segment = Math.min(size, DATAGRAM);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            pump();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                pump();
            }
        }

        private void pump() {
            int n = 0;
            long bytes = 0;
            while (running && channel.isWritable() && n++ < WRITES_PER_TURN) {
                DatagramPacket packet = next();
                bytes += packet.content().readableBytes();
                channel.write(packet, channel.voidPromise());
            }
            channel.flush();
            sent.addAndGet(bytes); // handed to the channel; the socket takes them as it can
            if (running && channel.isWritable()) {
                channel.eventLoop().execute(this::pump);
            }
        }

        private DatagramPacket next() {
            if (gso) {
                // Equal segments of the message's datagram size; several small messages per send.
                int count = Math.max(1, GSO_BYTES / segment);
                return new SegmentedDatagramPacket(payload.retainedSlice(0, count * segment), segment, target);
            }
            int length = Math.min(DATAGRAM, size - offsetInMessage);
            offsetInMessage += length;
            if (offsetInMessage == size) {
                offsetInMessage = 0;
            }
            return new DatagramPacket(payload.retainedSlice(0, length), target);
        }
    }

    /** The busy-polling select strategy of one raw UDP loop (confined to it). */
    private static final class IdleSpinStrategy implements SelectStrategy {
        private final IdleSpin idleSpin = new IdleSpin();

        @Override
        public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
            int ready = selectNow.get();
            if (ready > 0 || hasTasks) {
                idleSpin.busy();
            } else {
                idleSpin.idle();
            }
            return ready;
        }
    }

    /** Sends one datagram, waits for its echo, records the round trip, and again until the end. */
    private static final class Pinger extends SimpleChannelInboundHandler<DatagramPacket> {
        private final int size;
        private final InetSocketAddress target;
        private final Window window;
        private final Latency latency = new Latency();
        private final CompletableFuture<LatencyPercentiles> done = new CompletableFuture<>();
        private long start;
        private long sentAt;
        private Channel channel;

        Pinger(int size, InetSocketAddress target, Window window) {
            this.size = size;
            this.target = target;
            this.window = window;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            start = System.nanoTime();
            ping();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            long now = System.nanoTime();
            if (window.isWarm(start, now)) {
                latency.record(now - sentAt);
            }
            if (now >= window.end(start)) {
                done.complete(latency.percentiles());
                return;
            }
            ping();
        }

        private void ping() {
            ByteBuf buf = channel.alloc().directBuffer(size).writeZero(size);
            sentAt = System.nanoTime();
            channel.writeAndFlush(new DatagramPacket(buf, target));
        }
    }
}
