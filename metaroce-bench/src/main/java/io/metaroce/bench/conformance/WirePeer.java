package io.metaroce.bench.conformance;

import io.metaroce.core.wire.PacketType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The suite's side of the wire: one plain UDP socket per path (each its own source port, as a
 * MetaRoCE client binds path {@code i} to socket {@code i}), all sending to the implementation
 * under test at one address. It knows little of the protocol (as a server, the path id and the type
 * in a datagram's header): it sends byte arrays, with an IP TOS byte of the caller's choosing (the
 * ECN bits are its low two bits), and hands back whole datagrams with the index of the socket they
 * arrived on.
 *
 * <p>Not thread-safe: one suite thread drives it.
 */
public final class WirePeer implements AutoCloseable {
    /** Larger than any UDP payload, so no datagram is ever cut. */
    private static final int RECEIVE_BUFFER_BYTES = 65_536;

    private InetSocketAddress target;
    /** Until the first datagram from a client: datagrams from any address are taken (the suite as a server). */
    private boolean anySender;
    private InetSocketAddress lastSender;
    /** The suite as a server: the client's address of each path, null until bound; null for a client's peer. */
    private final InetSocketAddress[] remotes;
    private final DatagramChannel[] sockets;
    private final int[] tos;
    private final Selector selector;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocate(RECEIVE_BUFFER_BYTES);
    private final List<Datagram> ready = new ArrayList<>();
    private long datagramsSent;
    private long lastSendNanos;
    private long datagramsReceived;
    private final List<String> rebinds = new ArrayList<>();
    /** The suite as a client: sockets a path left by {@link #movePath}, still open to see what comes there late. */
    private final List<DatagramChannel> retired = new ArrayList<>();
    /** Datagrams that arrived on a retired socket, each with the path the socket served. */
    private final List<Datagram> staleArrivals = new ArrayList<>();

    /**
     * Opens {@code paths} sockets on ephemeral ports of the wildcard address of the target's
     * family.
     *
     * @throws UncheckedIOException if a socket cannot be opened
     */
    public WirePeer(InetSocketAddress target, int paths) {
        this(target, paths, false);
    }

    /**
     * One socket for the suite as a server of {@code paths} paths ([SPEC-CONF-9]): bound like those of
     * {@link #WirePeer(InetSocketAddress, int)} (the family of {@code implementation}, the IUT's
     * listening address), but taking datagrams from any address until {@link #retarget} names the
     * client's path 0. A server has one port and its client one per path ([SPEC-PATH-1]): from then
     * on, a datagram from a new port of the client's address binds the path its header names
     * (bytes 2 and 3 of the common header), if that path is not bound yet; datagrams go to the
     * address bound to their path. A DATA, READ_REQUEST or PATH_PROBE from a new port naming a path
     * already bound rebinds it there: the client repathed ([SPEC-PATH-13], [SPEC-PATH-2]), and
     * {@link #rebinds()} says so. Any other datagram from a new port naming a bound path is taken as
     * that path's ([SPEC-CONN-3]: a receiver finds the connection by its id, not the address) without
     * rebinding it.
     */
    public static WirePeer listening(InetSocketAddress implementation, int paths) {
        return new WirePeer(implementation, paths, true);
    }

    private WirePeer(InetSocketAddress target, int paths, boolean anySender) {
        this.anySender = anySender;
        if (target.isUnresolved()) {
            throw new IllegalArgumentException("cannot resolve the target host " + target.getHostString());
        }
        if (paths < 1) {
            throw new IllegalArgumentException("paths is " + paths + " but must be at least 1");
        }
        this.target = target;
        this.remotes = anySender ? new InetSocketAddress[paths] : null;
        this.sockets = new DatagramChannel[anySender ? 1 : paths];
        this.tos = new int[sockets.length];
        try {
            this.selector = Selector.open();
            StandardProtocolFamily family = target.getAddress() instanceof Inet4Address
                    ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
            for (int i = 0; i < sockets.length; i++) {
                DatagramChannel c = DatagramChannel.open(family);
                sockets[i] = c;
                c.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
                c.bind(null);
                c.configureBlocking(false);
                c.register(selector, SelectionKey.OP_READ, i);
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot open the suite's UDP sockets: " + e.getMessage(), e);
        }
    }

    /** From now on the peer is {@code address}: datagrams go there and only its datagrams are taken. */
    public void retarget(InetSocketAddress address) {
        this.target = address;
        this.anySender = false;
        if (remotes != null) {
            remotes[0] = address;
        }
    }

    /** The suite as a server: the client's address bound to {@code path}, or null while none is. */
    public InetSocketAddress remote(int path) {
        return remotes == null ? target : remotes[path];
    }

    /** The address the latest datagram taken came from. */
    public InetSocketAddress lastSender() {
        return lastSender;
    }

    /** The local UDP port of each socket. */
    public int[] localPorts() {
        int[] ports = new int[sockets.length];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = localAddress(i).getPort();
        }
        return ports;
    }

    /** The address of the implementation under test. */
    public InetSocketAddress target() {
        return target;
    }

    /** Number of paths: of sockets for a client's peer, of the client's paths for a server's. */
    public int paths() {
        return remotes != null ? remotes.length : sockets.length;
    }

    /** The local address of socket {@code path}. */
    public InetSocketAddress localAddress(int path) {
        try {
            return (InetSocketAddress) sockets[path].getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends {@code length} bytes of {@code datagram} from socket {@code path} with IP TOS 0 (Not-ECT). */
    public void send(int path, byte[] datagram, int length) {
        send(path, datagram, length, 0);
    }

    /**
     * Sends {@code length} bytes of {@code datagram} from socket {@code path} with the IP TOS byte
     * {@code ipTos} (ECN codepoint in its low two bits: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE).
     */
    public void send(int path, byte[] datagram, int length, int ipTos) {
        int socket = remotes != null ? 0 : path;
        InetSocketAddress to = remotes != null && remotes[path] != null ? remotes[path] : target;
        if (remotes != null && path > 0 && remotes[path] == null) {
            throw new IllegalStateException("path " + path + " of the client is not bound yet: nothing came from it");
        }
        try {
            if (tos[socket] != ipTos) {
                sockets[socket].setOption(StandardSocketOptions.IP_TOS, ipTos);
                tos[socket] = ipTos;
            }
            int sent = sockets[socket].send(ByteBuffer.wrap(datagram, 0, length), to);
            if (sent != length) {
                throw new IOException("the socket's send buffer is full (" + sent + " of " + length + " bytes sent)");
            }
            datagramsSent++;
            lastSendNanos = System.nanoTime();
        } catch (IOException e) {
            throw new UncheckedIOException("sending to " + target + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The next datagram from the target, waiting at most until {@code deadlineNanos} (of
     * {@link System#nanoTime()}); null when none came in time. Datagrams from any other address
     * are dropped: they are not the implementation under test.
     */
    public Datagram receive(long deadlineNanos) {
        try {
            while (ready.isEmpty()) {
                drainReady();
                if (!ready.isEmpty()) {
                    break;
                }
                long waitNanos = deadlineNanos - System.nanoTime();
                if (waitNanos <= 0) {
                    return null;
                }
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
            }
            return ready.removeFirst();
        } catch (IOException e) {
            throw new UncheckedIOException("receiving from " + target + " failed: " + e.getMessage(), e);
        }
    }

    private void drainReady() throws IOException {
        selector.selectNow();
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            int attached = (Integer) key.attachment();
            boolean stale = attached < 0;
            int path = stale ? -1 - attached : attached;
            DatagramChannel c = (DatagramChannel) key.channel();
            while (true) {
                receiveBuffer.clear();
                InetSocketAddress from = (InetSocketAddress) c.receive(receiveBuffer);
                if (from == null) {
                    break;
                }
                long arrival = System.nanoTime();
                receiveBuffer.flip();
                if (stale) {
                    byte[] bytes = new byte[receiveBuffer.remaining()];
                    receiveBuffer.get(bytes);
                    staleArrivals.add(new Datagram(path, bytes, arrival));
                    continue;
                }
                int fromPath = remotes == null || anySender ? path : clientPath(from, receiveBuffer);
                if (fromPath < 0 || (remotes == null && !anySender && !from.equals(target))) {
                    continue;
                }
                lastSender = from;
                datagramsReceived++;
                byte[] bytes = new byte[receiveBuffer.remaining()];
                receiveBuffer.get(bytes);
                ready.add(new Datagram(fromPath, bytes, arrival));
            }
        }
    }

    /**
     * The suite as a server: the client's path a datagram from {@code from} belongs to, binding the
     * path its header names to {@code from} if that path is unbound and {@code from} is the client's
     * host; -1 for a datagram of anyone else.
     */
    private int clientPath(InetSocketAddress from, ByteBuffer datagram) {
        for (int i = 0; i < remotes.length; i++) {
            if (from.equals(remotes[i])) {
                return i;
            }
        }
        if (datagram.remaining() < 4 || !from.getAddress().equals(remotes[0].getAddress())) {
            return -1;
        }
        int named = Short.toUnsignedInt(datagram.getShort(datagram.position() + 2));
        if (named >= remotes.length) {
            return -1;
        }
        if (remotes[named] != null) {
            int type = Byte.toUnsignedInt(datagram.get(datagram.position() + 1));
            if (type != PacketType.DATA && type != PacketType.READ_REQUEST && type != PacketType.PATH_PROBE) {
                return named;
            }
            rebinds.add("path " + named + " moved from " + remotes[named] + " to " + from + " (" + PacketType.name(type)
                    + ")");
        }
        remotes[named] = from;
        if (named == 0) {
            target = from;
        }
        return named;
    }

    /**
     * The suite as a server: each time a path of the client was rebound to a new port (the
     * client repathed, [SPEC-PATH-13]), in order, naming the path, both addresses and the packet
     * type that moved it; empty for a client's peer.
     */
    public List<String> rebinds() {
        return List.copyOf(rebinds);
    }

    /**
     * The suite as a client: moves path {@code path} to a fresh socket on a new ephemeral port (a
     * repathing sender, [SPEC-PATH-13]); what the path sends from now on leaves from the new port,
     * which the IUT sees first in whatever the case sends next. The old socket stays open, and every
     * datagram that arrives there from now on is kept in {@link #staleArrivals()}, not handed to
     * {@link #receive}: after the IUT has rebound the path ([SPEC-PATH-2]) nothing should.
     *
     * @return the new local port
     * @throws IllegalStateException for the suite as a server (its one socket serves every path)
     */
    public int movePath(int path) {
        if (remotes != null) {
            throw new IllegalStateException("the suite as a server has one socket for all paths: it cannot move one");
        }
        try {
            StandardProtocolFamily family = target.getAddress() instanceof Inet4Address
                    ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
            DatagramChannel fresh = DatagramChannel.open(family);
            fresh.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            fresh.bind(null);
            fresh.configureBlocking(false);
            DatagramChannel old = sockets[path];
            old.keyFor(selector).attach(-1 - path);
            retired.add(old);
            sockets[path] = fresh;
            tos[path] = 0;
            fresh.register(selector, SelectionKey.OP_READ, path);
            return localAddress(path).getPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a new socket for path " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads what is waiting at the sockets now, without blocking: afterwards {@link
     * #staleArrivals()} holds every datagram the old sockets had received by this moment.
     */
    public void drainNow() {
        try {
            drainReady();
        } catch (IOException e) {
            throw new UncheckedIOException("receiving from " + target + " failed: " + e.getMessage(), e);
        }
    }

    /** Datagrams that arrived, since a path moved ({@link #movePath}), on the socket it left; in arrival order. */
    public List<Datagram> staleArrivals() {
        return List.copyOf(staleArrivals);
    }

    /** Datagrams sent so far. */
    public long datagramsSent() {
        return datagramsSent;
    }

    /** When ({@link System#nanoTime()}) the latest datagram left, after its send returned; 0 before the first. */
    public long lastSendNanos() {
        return lastSendNanos;
    }

    /** Datagrams received from the target so far. */
    public long datagramsReceived() {
        return datagramsReceived;
    }

    @Override
    public void close() {
        for (DatagramChannel c : retired) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        for (DatagramChannel c : sockets) {
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
        if (selector != null) {
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /**
     * One datagram received from the implementation under test. Not modified after it is made (the
     * array is not copied): safe to read from any thread once published.
     *
     * @param path index of the suite socket it arrived on
     * @param bytes the whole datagram
     * @param arrivalNanos {@link System#nanoTime()} when the suite read it
     */
    public record Datagram(int path, byte[] bytes, long arrivalNanos) {
        @Override
        public String toString() {
            return "Datagram[path=" + path + ", " + bytes.length + " bytes]";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Datagram d && d.path == path && d.arrivalNanos == arrivalNanos
                    && Arrays.equals(d.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(bytes) + path;
        }
    }
}
