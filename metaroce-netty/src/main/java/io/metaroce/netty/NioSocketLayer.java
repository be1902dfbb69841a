package io.metaroce.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.nio.channels.spi.SelectorProvider;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The portable socket layer: one Netty {@link NioDatagramChannel} per socket. One system call per
 * datagram each way, one pooled buffer copy per sent datagram, and no ECN: NIO neither reads the
 * TOS byte of a received datagram nor sets it per datagram, so datagrams are reported Not-ECT (0)
 * and leave Not-ECT. Stateless and thread-safe.
 */
final class NioSocketLayer implements SocketLayer {
    /**
     * Datagrams each socket may read in one I/O pass of the loop, before the loop reads its other
     * ready sockets and runs its tasks; fewer if the socket runs empty first
     * [SPEC-LOSS-13]. Netty's {@code FixedRecvByteBufAllocator} reads one datagram per pass
     * by default (its {@code maxMessagesPerRead} is 1 unless the channel's own default is applied,
     * and a read shorter than the buffer, which every datagram but a full-size one is, is taken
     * to mean the socket is empty): a socket that received more than one datagram per loop turn
     * fell behind for good (a probe every millisecond to a saturated sender's listen socket waited
     * up to 1,552 flushes, about 90 turns, and the wait grew with every probe; docs/benchmarks.md,
     * "Driver loop fairness (session 13)"). 16, as the Linux layer's {@code READ_AGAIN_DATAGRAMS}
     * and Netty's own default for datagram channels: one busy socket takes at most this many
     * reads of a pass, never the whole pass, and the others are read in the same pass.
     */
    static final int READS_PER_PASS = 16;
    static final NioSocketLayer INSTANCE = new NioSocketLayer();

    private NioSocketLayer() {
    }

    @Override
    public String name() {
        return "nio";
    }

    @Override
    public boolean readsEcn() {
        return false;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
    }

    @Override
    public EventLoopGroup newBusyPollEventLoopGroup(int threads, BusyPollStrategy strategy) {
        return new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory(SelectorProvider.provider(), strategy));
    }

    @Override
    public Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
            DatagramReceiver receiver) {
        Promise<UdpSocket> promise = loop.newPromise();
        ChannelFuture bound = new Bootstrap()
                .group(loop)
                .channel(NioDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, options.bufferBytes())
                .option(ChannelOption.SO_SNDBUF, options.bufferBytes())
                .option(ChannelOption.RECVBUF_ALLOCATOR, readBudget(options.maxDatagramBytes()))
                .handler(new Reader(socketId, receiver))
                .bind(local);
        bound.addListener(done -> {
            if (done.isSuccess()) {
                promise.setSuccess(new NioSocket((DatagramChannel) bound.channel()));
            } else {
                bound.channel().close();
                promise.setFailure(done.cause());
            }
        });
        return promise;
    }

    /**
     * Buffers of {@code maxDatagramBytes}, and up to {@link #READS_PER_PASS} reads per pass until
     * the socket is empty, whatever length each datagram has (Netty's guess that a short read
     * drained the socket is off: a datagram read says nothing about the next one).
     */
    static FixedRecvByteBufAllocator readBudget(int maxDatagramBytes) {
        FixedRecvByteBufAllocator allocator = new FixedRecvByteBufAllocator(maxDatagramBytes);
        allocator.respectMaybeMoreData(false).maxMessagesPerRead(READS_PER_PASS);
        return allocator;
    }

    /** A bound NIO channel. */
    private static final class NioSocket implements UdpSocket {
        private final DatagramChannel channel;
        private final InetSocketAddress localAddress;

        NioSocket(DatagramChannel channel) {
            this.channel = channel;
            this.localAddress = channel.localAddress();
        }

        @Override
        public InetSocketAddress localAddress() {
            return localAddress;
        }

        @Override
        public boolean isOpen() {
            return channel.isActive();
        }

        @Override
        public boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn) {
            ByteBuf buf = channel.alloc().ioBuffer(length);
            try {
                buf.writeBytes(source.array(), source.arrayOffset(), length);
            } catch (RuntimeException e) {
                // Not handed to Netty yet: the buffer is still ours to release.
                buf.release();
                return false;
            }
            try {
                // From here Netty owns the buffer and releases it, whether the write succeeds or not.
                channel.write(new DatagramPacket(buf, to), channel.voidPromise());
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        }

        @Override
        public int flush() {
            // Netty reports a failed write through exceptionCaught, counted there.
            channel.flush();
            return 0;
        }

        @Override
        public Future<?> close() {
            return channel.close();
        }

        @Override
        public String toString() {
            return "nio socket " + localAddress;
        }
    }

    /** Hands every received datagram to the receiver and releases it. */
    private static final class Reader extends ChannelInboundHandlerAdapter {
        private final int socketId;
        private final DatagramReceiver receiver;

        Reader(int socketId, DatagramReceiver receiver) {
            this.socketId = socketId;
            this.receiver = receiver;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof DatagramPacket packet) {
                    ByteBuf content = packet.content();
                    int length = content.readableBytes();
                    if (length > 0) {
                        int index = content.readerIndex();
                        ByteBuffer nio = content.nioBufferCount() == 1
                                ? content.internalNioBuffer(index, length) : content.nioBuffer(index, length);
                        receiver.onDatagram(socketId, nio, nio.position(), length, packet.sender(), 0);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            receiver.onReadBatchComplete(socketId);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            receiver.onSocketError(socketId, cause);
        }
    }
}
