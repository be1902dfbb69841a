package io.metaroce.netty;

import static io.metaroce.netty.LinuxSyscalls.AF_INET;
import static io.metaroce.netty.LinuxSyscalls.IPPROTO_IP;
import static io.metaroce.netty.LinuxSyscalls.IP_RECVTOS;
import static io.metaroce.netty.LinuxSyscalls.IP_TOS;
import static io.metaroce.netty.LinuxSyscalls.SOCKADDR_IN_BYTES;
import static io.metaroce.netty.LinuxSyscalls.SOCK_CLOEXEC;
import static io.metaroce.netty.LinuxSyscalls.SOCK_DGRAM;
import static io.metaroce.netty.LinuxSyscalls.SOCK_NONBLOCK;
import static io.metaroce.netty.LinuxSyscalls.SOL_SOCKET;
import static io.metaroce.netty.LinuxSyscalls.SO_RCVBUF;
import static io.metaroce.netty.LinuxSyscalls.SO_SNDBUF;
import static io.metaroce.netty.LinuxSyscalls.SOL_UDP;
import static io.metaroce.netty.LinuxSyscalls.UDP_GRO;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The Linux socket layer: UDP sockets made and driven with libc calls through
 * {@code java.lang.foreign} ({@link LinuxSyscalls}), registered on Netty's epoll event loop
 * through its {@code IoHandle} API. Unlike Netty's own epoll datagram channel it reads the ECN
 * field of every received datagram ({@code IP_RECVTOS}), sets ECN per sent datagram (ECT(0) as the
 * socket's own {@code IP_TOS}, any other codepoint in a control message), and moves
 * datagrams in batches ({@code recvmmsg}, {@code sendmmsg}) without allocating, with GSO on send
 * and GRO on receive where the kernel offers them. IPv4 only.
 *
 * <p>Available when the OS is Linux, Netty's epoll transport loads, and a probe socket can be
 * made; {@link #unavailabilityCause()} says why not otherwise. Stateless and thread-safe.
 */
final class LinuxSocketLayer implements SocketLayer {
    /** Datagrams per {@code recvmmsg} call (without GRO). */
    static final int BATCH = 32;
    /**
     * Datagrams queued per socket before a {@code sendmmsg}: 64, so that the batch holds more than
     * two full GSO runs (a run ends at {@link LinuxUdpSocket#MAX_GSO_BYTES}: 23 datagrams of an
     * 8 KiB message's 2,731-byte packets). With 32 the batch was cut into runs of 23 and 9, 16
     * datagrams a run on average; with 64, into 23, 23 and 18.
     */
    static final int SEND_BATCH = 64;
    /**
     * The ECN codepoint each socket sets once with {@code setsockopt(IP_TOS)}: ECT(0), the one the
     * engine asks for on every DATA and READ_REQUEST ([SPEC-PATH-7], {@code Transmit.ecn} = 2).
     * A datagram with this codepoint then goes without an {@code IP_TOS} control message (the
     * kernel parses none, and a batch's headers carry none); one with another codepoint (ACKs and
     * control packets, Not-ECT) still carries its own, which overrides the socket's for that
     * datagram. See docs/benchmarks.md, "Latency round (session 12)".
     */
    static final int STICKY_ECN = 2;
    static final LinuxSocketLayer INSTANCE = new LinuxSocketLayer();
    private static final Throwable UNAVAILABILITY = probe();

    private LinuxSocketLayer() {
    }

    /** Whether this layer can run here. */
    static boolean isAvailable() {
        return UNAVAILABILITY == null;
    }

    /** Why this layer cannot run here, or null if it can. */
    static Throwable unavailabilityCause() {
        return UNAVAILABILITY;
    }

    /** Whether sockets of this layer can be registered on the loops of {@code group}. */
    static boolean canRunOn(EventLoopGroup group) {
        return isAvailable() && group.next() instanceof IoEventLoop loop && loop.isCompatible(EpollIoHandle.class);
    }

    private static Throwable probe() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return new UnsupportedOperationException("not Linux (" + os + ")");
        }
        try {
            if (!Epoll.isAvailable()) {
                return Epoll.unavailabilityCause();
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = LinuxSyscalls.newErrnoState(arena);
                int fd = LinuxSyscalls.socket(state, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                if (fd < 0) {
                    return new IOException("socket(): " + LinuxSyscalls.describe(LinuxSyscalls.errno(state)));
                }
                LinuxSyscalls.close(state, fd);
            }
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @Override
    public String name() {
        return "linux";
    }

    @Override
    public boolean readsEcn() {
        return true;
    }

    /** Its send batches point their iovecs at the endpoint's slots: no copy of each datagram. */
    @Override
    public boolean sendsInPlace() {
        return true;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, EpollIoHandler.newFactory());
    }

    @Override
    public EventLoopGroup newBusyPollEventLoopGroup(int threads, BusyPollStrategy strategy) {
        // maxEvents 0: Netty's growing event array, as newFactory() has.
        return new MultiThreadIoEventLoopGroup(threads, EpollIoHandler.newFactory(0, strategy));
    }

    /** A {@code timerfd} on the loop when it is an epoll one (re-armed without allocating), else scheduled tasks. */
    @Override
    public LoopTimer newTimer(EventLoop loop, Runnable task) {
        if (loop instanceof IoEventLoop ioLoop && ioLoop.isCompatible(EpollIoHandle.class)) {
            return LinuxTimer.open(ioLoop, task);
        }
        return new ScheduledLoopTimer(loop, task);
    }

    @Override
    public Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
            DatagramReceiver receiver) {
        Promise<UdpSocket> promise = loop.newPromise();
        if (!(loop instanceof IoEventLoop ioLoop) || !ioLoop.isCompatible(EpollIoHandle.class)) {
            return promise.setFailure(new IllegalArgumentException("the linux datapath needs an epoll event loop "
                    + "(MultiThreadIoEventLoopGroup with EpollIoHandler.newFactory()), not " + loop));
        }
        // The socket is made on the loop's own thread: it belongs to that thread's network
        // namespace, so an application can run an endpoint inside a namespace by moving its loop.
        if (loop.inEventLoop()) {
            openAndRegister(ioLoop, local, socketId, options, receiver, promise);
        } else {
            loop.execute(() -> openAndRegister(ioLoop, local, socketId, options, receiver, promise));
        }
        return promise;
    }

    private static void openAndRegister(IoEventLoop loop, InetSocketAddress local, int socketId,
            SocketOptions options, DatagramReceiver receiver, Promise<UdpSocket> promise) {
        LinuxUdpSocket socket;
        try {
            socket = open(loop, local, socketId, options, receiver);
        } catch (IOException | RuntimeException e) {
            promise.setFailure(e);
            return;
        }
        loop.register(socket.ioHandle).addListener(r -> {
            if (r.isSuccess()) {
                socket.registered((IoRegistration) r.getNow());
                promise.setSuccess(socket);
            } else {
                socket.close();
                promise.setFailure(r.cause());
            }
        });
    }

    /**
     * A socket that is not registered on any event loop, read by calling
     * {@link LinuxUdpSocket#readAvailable()} on one thread: for benchmarks of the socket layer alone.
     */
    static LinuxUdpSocket openUnregistered(InetSocketAddress local, SocketOptions options, DatagramReceiver receiver)
            throws IOException {
        return open(null, local, 0, options, receiver);
    }

    private static LinuxUdpSocket open(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
            DatagramReceiver receiver) throws IOException {
        InetAddress address = local.getAddress();
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("the linux datapath binds IPv4 addresses only, not " + address
                    + "; use Datapath.NIO for IPv6");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = LinuxSyscalls.newErrnoState(arena);
            int fd = LinuxSyscalls.socket(state, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw new IOException("socket(): " + LinuxSyscalls.describe(LinuxSyscalls.errno(state)));
            }
            try {
                setInt(arena, state, fd, SOL_SOCKET, SO_RCVBUF, options.bufferBytes(), "SO_RCVBUF");
                setInt(arena, state, fd, SOL_SOCKET, SO_SNDBUF, options.bufferBytes(), "SO_SNDBUF");
                setInt(arena, state, fd, IPPROTO_IP, IP_RECVTOS, 1, "IP_RECVTOS");
                // Where the kernel refuses a socket-wide TOS, every ECN-capable datagram carries its own.
                int socketEcn = trySetInt(arena, state, fd, IPPROTO_IP, IP_TOS, STICKY_ECN) ? STICKY_ECN : 0;
                boolean gro = options.gro() && trySetInt(arena, state, fd, SOL_UDP, UDP_GRO, 1);
                MemorySegment name = arena.allocate(SOCKADDR_IN_BYTES, 8);
                byte[] raw = address.getAddress();
                name.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) AF_INET);
                name.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) local.getPort());
                MemorySegment.copy(raw, 0, name, ValueLayout.JAVA_BYTE, 4, 4);
                if (LinuxSyscalls.bind(state, fd, name, SOCKADDR_IN_BYTES) != 0) {
                    throw new IOException("bind(" + local + "): " + LinuxSyscalls.describe(LinuxSyscalls.errno(state)));
                }
                MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
                length.set(ValueLayout.JAVA_INT, 0, SOCKADDR_IN_BYTES);
                if (LinuxSyscalls.getsockname(state, fd, name, length) != 0) {
                    throw new IOException("getsockname(): " + LinuxSyscalls.describe(LinuxSyscalls.errno(state)));
                }
                int port = Short.toUnsignedInt(name.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2));
                return new LinuxUdpSocket(fd, new InetSocketAddress(address, port), socketId, options.maxDatagramBytes(),
                        gro, socketEcn, receiver, loop);
            } catch (IOException | RuntimeException e) {
                LinuxSyscalls.close(state, fd);
                throw e;
            }
        }
    }

    /** Sets an option the layer can do without (GRO on an older kernel); returns whether it took. */
    private static boolean trySetInt(Arena arena, MemorySegment state, int fd, int level, int option, int value) {
        MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
        v.set(ValueLayout.JAVA_INT, 0, value);
        return LinuxSyscalls.setsockopt(state, fd, level, option, v, 4) == 0;
    }

    private static void setInt(Arena arena, MemorySegment state, int fd, int level, int option, int value, String what)
            throws IOException {
        if (!trySetInt(arena, state, fd, level, option, value)) {
            throw new IOException("setsockopt(" + what + "): " + LinuxSyscalls.describe(LinuxSyscalls.errno(state)));
        }
    }
}
