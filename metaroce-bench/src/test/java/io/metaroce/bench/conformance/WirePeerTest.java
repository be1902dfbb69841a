package io.metaroce.bench.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.wire.PacketType;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The suite as a server ({@link WirePeer#listening}) follows a client that repaths
 * ([SPEC-PATH-13], [SPEC-PATH-2]): a DATA, READ_REQUEST or PATH_PROBE from a new port naming a
 * bound path rebinds the path there and is reported; other packets from a new port are taken as the
 * path's without moving it; a port bound to one path never speaks for another.
 */
class WirePeerTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** A datagram of {@code length} bytes with {@code type} and {@code path} in its common header. */
    private static ByteBuffer datagram(int type, int path, int tag) {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.put(0, (byte) 1).put(1, (byte) type).putShort(2, (short) path).put(63, (byte) tag);
        return b;
    }

    private static void send(DatagramChannel from, InetSocketAddress to, int type, int path, int tag) throws IOException {
        from.send(datagram(type, path, tag), to);
    }

    private static WirePeer.Datagram next(WirePeer peer) {
        WirePeer.Datagram d = peer.receive(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        assertThat(d).as("a datagram within 5 s").isNotNull();
        return d;
    }

    private static DatagramChannel open() throws IOException {
        return DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
    }

    private static InetSocketAddress address(DatagramChannel c) throws IOException {
        return (InetSocketAddress) c.getLocalAddress();
    }

    @Test
    void aClientThatRepathsIsFollowedAndReportedAndOtherPacketsFromANewPortDoNotMoveThePath() throws IOException {
        InetSocketAddress anyImplementation = new InetSocketAddress(LOOPBACK, 9);
        try (WirePeer server = WirePeer.listening(anyImplementation, 2);
                DatagramChannel first = open(); DatagramChannel second = open(); DatagramChannel third = open();
                DatagramChannel receiver = open()) {
            InetSocketAddress to = new InetSocketAddress(LOOPBACK, server.localPorts()[0]);
            send(first, to, PacketType.CONNECT, 0, 1);
            assertThat(next(server).path()).isZero();
            server.retarget(server.lastSender());
            assertThat(server.remote(0)).isEqualTo(address(first));

            // Path 1 binds from a port of its own.
            send(second, to, PacketType.DATA, 1, 2);
            assertThat(next(server).path()).isEqualTo(1);
            assertThat(server.remote(1)).isEqualTo(address(second));
            assertThat(server.rebinds()).isEmpty();

            // An ACK about path 0 from a new port is path 0's, and does not move it.
            send(third, to, PacketType.ACK, 0, 3);
            WirePeer.Datagram ack = next(server);
            assertThat(ack.path()).isZero();
            assertThat(ack.bytes()[63]).isEqualTo((byte) 3);
            assertThat(server.remote(0)).isEqualTo(address(first));
            assertThat(server.rebinds()).isEmpty();

            // DATA naming path 0 from that new port: the client repathed path 0; the suite follows.
            send(third, to, PacketType.DATA, 0, 4);
            WirePeer.Datagram moved = next(server);
            assertThat(moved.path()).isZero();
            assertThat(moved.bytes()[63]).isEqualTo((byte) 4);
            assertThat(server.remote(0)).isEqualTo(address(third));
            assertThat(server.target()).isEqualTo(address(third));
            assertThat(server.rebinds()).singleElement().asString().contains("path 0").contains("DATA")
                    .contains(address(first).toString()).contains(address(third).toString());
            // What the suite sends on path 0 now goes to the new port.
            byte[] reply = {7, 7, 7};
            server.send(0, reply, reply.length);
            ByteBuffer got = ByteBuffer.allocate(16);
            third.configureBlocking(true);
            assertThat(third.receive(got)).isNotNull();
            assertThat(got.position()).isEqualTo(3);

            // A PATH_PROBE naming path 1 from path 0's new port: that port is path 0's, so it stays path 0's
            // (the case sees a packet naming another path than its port's), and path 1 does not move.
            send(third, to, PacketType.PATH_PROBE, 1, 5);
            assertThat(next(server).path()).isZero();
            assertThat(server.remote(1)).isEqualTo(address(second));

            // A PATH_PROBE naming path 1 from yet another port rebinds path 1.
            send(receiver, to, PacketType.PATH_PROBE, 1, 6);
            assertThat(next(server).path()).isEqualTo(1);
            assertThat(server.remote(1)).isEqualTo(address(receiver));
            assertThat(server.rebinds()).hasSize(2);
        }
    }
}
