package io.metaroce.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;

/**
 * The seam between a {@link UdpEndpoint} and the operating system's UDP sockets: which event loop
 * the endpoint runs on, how a socket is opened, and how datagrams go out and come in. The endpoint
 * above it is the same whatever the layer; the layer below is Netty's NIO datagram channel (the
 * portable one) or a platform-specific layer that reads what NIO cannot (the ECN field of each
 * datagram, batches of datagrams in one system call).
 *
 * <p>{@link #bind} is called on the endpoint's event loop, which must be one of a group made by
 * {@link #newEventLoopGroup} or of the same kind. Implementations are stateless or thread-safe.
 */
interface SocketLayer {
    /** Short name for stats and logs ({@code nio}, ...). */
    String name();

    /** Whether received datagrams carry their real ECN codepoint (otherwise 0 is reported). */
    boolean readsEcn();

    /**
     * Whether this layer's sockets send a datagram from the endpoint's {@link SendSlots} without
     * copying it ({@link UdpSocket#writeInPlace}); the endpoint then has the engine encode every
     * datagram into such a slot. By default false: the engine encodes into one heap buffer and
     * {@link UdpSocket#write} copies it.
     */
    default boolean sendsInPlace() {
        return false;
    }

    /** A new event loop group this layer's sockets can run on ({@code threads} loops). */
    EventLoopGroup newEventLoopGroup(int threads);

    /**
     * As {@link #newEventLoopGroup(int)}, but the loops never park in the kernel: they poll their
     * sockets on every turn with {@code strategy}. By default a layer cannot busy-poll and says so.
     */
    default EventLoopGroup newBusyPollEventLoopGroup(int threads, BusyPollStrategy strategy) {
        throw new IllegalStateException("the " + name() + " socket layer cannot busy-poll; leave busyPoll off");
    }

    /**
     * Opens a UDP socket bound to {@code local} and registers it on {@code loop}; every datagram it
     * receives goes to {@code receiver} under {@code socketId}. The future completes on the loop.
     */
    Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
            DatagramReceiver receiver);

    /**
     * The endpoint's timer on {@code loop}, running {@code task} there (called off the loop, while
     * the endpoint is built). By default Netty scheduled tasks.
     */
    default LoopTimer newTimer(EventLoop loop, Runnable task) {
        return new ScheduledLoopTimer(loop, task);
    }

    /**
     * Options every socket of an endpoint is opened with.
     *
     * @param bufferBytes SO_SNDBUF and SO_RCVBUF asked for
     * @param maxDatagramBytes the largest datagram the endpoint sends or accepts
     * @param gro whether to let the kernel coalesce received runs of datagrams (where a layer can)
     */
    record SocketOptions(int bufferBytes, int maxDatagramBytes, boolean gro) {
        SocketOptions(int bufferBytes, int maxDatagramBytes) {
            this(bufferBytes, maxDatagramBytes, true);
        }
    }
}
