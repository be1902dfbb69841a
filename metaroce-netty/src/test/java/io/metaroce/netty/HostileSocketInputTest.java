package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile datagrams on live sockets: random bytes, truncated and corrupted MetaRoCE packets,
 * well-formed packets for connections that do not exist, and CONNECTs that never answer their
 * cookie or carry a forged one, all sent from a plain UDP socket to the server's listen port and
 * to the client's path ports while a connection is established. Everything is dropped and counted;
 * nothing throws, leaks or creates a connection, and the established connection carries on.
 */
class HostileSocketInputTest {
    static {
        LeakRecorder.install();
    }

    private static final long SEED = 0xBAD_DA7AL;
    private static final long WAIT_SECONDS = 20;
    private static final int RANDOM_DATAGRAMS = 200;

    @Test
    @Timeout(90)
    void hostileDatagramsAreDroppedAndCountedAndTheConnectionCarriesOn() throws Exception {
        LeakRecorder.clear();
        SplittableRandom random = new SplittableRandom(SEED);
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().build();
                DatagramChannel attacker = DatagramChannel.open()) {
            attacker.bind(new InetSocketAddress("127.0.0.1", 0));
            UdpConnection cc = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection sc = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(sc).isNotNull();
            List<InetSocketAddress> clientPorts = new ArrayList<>();
            for (int port : cc.stats().localSocketPorts()) {
                clientPorts.add(new InetSocketAddress("127.0.0.1", port));
            }

            // Malformed input: to the listen port and to every path port.
            UdpEndpointStats serverBefore = server.stats();
            UdpEndpointStats clientBefore = client.stats();
            int toServer = sendMalformed(attacker, server.localAddress(), random);
            int toClient = 0;
            for (InetSocketAddress port : clientPorts) {
                toClient += sendMalformed(attacker, port, random);
            }
            awaitCount("server decode failures", () -> server.stats().decodeFailures(),
                    serverBefore.decodeFailures() + toServer);
            awaitCount("client decode failures", () -> client.stats().decodeFailures(),
                    clientBefore.decodeFailures() + toClient);

            // Well-formed packets naming connections that do not exist.
            PacketCodec codec = new PacketCodec();
            for (int i = 0; i < 10; i++) {
                ByteBuffer probe = encodeProbe(codec, random.nextLong() | 1);
                attacker.send(probe.duplicate(), server.localAddress());
                attacker.send(probe.duplicate(), clientPorts.get(i % clientPorts.size()));
            }
            awaitCount("server unknown-connection packets", () -> server.stats().unknownConnection(),
                    serverBefore.unknownConnection() + 10);
            awaitCount("client unknown-connection packets", () -> client.stats().unknownConnection(),
                    clientBefore.unknownConnection() + 10);

            // A CONNECT from an address that never answers its cookie: challenged, no state kept.
            attacker.send(encodeConnect(codec, random, false), server.localAddress());
            ByteBuffer challenge = ByteBuffer.allocate(2048);
            attacker.configureBlocking(true);
            attacker.socket().setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(attacker.receive(challenge)).as("the server answers from its listen port")
                    .isEqualTo(server.localAddress());
            challenge.flip();
            Packet answer = new Packet();
            assertThat(codec.decode(challenge, 0, challenge.limit(), answer)).isEqualTo(DecodeError.OK);
            assertThat(answer.type).isEqualTo(PacketType.CHALLENGE);
            // A CONNECT with a forged cookie: dropped and counted.
            attacker.send(encodeConnect(codec, random, true), server.localAddress());
            awaitCount("invalid cookies", () -> server.stats().invalidCookies(), serverBefore.invalidCookies() + 1);

            UdpEndpointStats serverAfter = server.stats();
            // A bad cookie is answered with a fresh challenge (it may only be stale), so two in all.
            assertThat(serverAfter.challengesSent() - serverBefore.challengesSent()).isEqualTo(2);
            assertThat(serverAfter.openConnections()).as("only the real connection").isEqualTo(1);
            assertThat(serverAfter.connectionsAccepted()).isEqualTo(serverBefore.connectionsAccepted());

            // The established connection still moves verified data, both ways.
            int size = 200_000;
            MemorySegment pattern = arena.allocate(size);
            for (int i = 0; i < size; i++) {
                pattern.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            MemoryRegion src = client.register(pattern, Access.NONE);
            MemoryRegion dst = server.register(arena.allocate(size), Access.LOCAL_WRITE | Access.REMOTE_READ);
            var recv = sc.postRecv(3, 1, dst, 0, size);
            assertThat(cc.postSend(3, 1, src, 0, size).get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(recv.get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(dst.segment().mismatch(pattern)).isEqualTo(-1L);
            MemoryRegion back = client.register(arena.allocate(size), Access.LOCAL_WRITE);
            assertThat(cc.postRead(3, 2, back, 0, size, dst.remoteKey(), 0).get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .isSuccess()).isTrue();
            assertThat(back.segment().mismatch(pattern)).isEqualTo(-1L);
        }
        assertThat(LeakRecorder.collect()).as("Netty buffer leaks").isEmpty();
    }

    /** Random bytes, truncations and single-bit corruptions of a valid packet; returns how many were sent. */
    private static int sendMalformed(DatagramChannel attacker, InetSocketAddress to, SplittableRandom random)
            throws Exception {
        int sent = 0;
        for (int i = 0; i < RANDOM_DATAGRAMS; i++) {
            byte[] junk = new byte[1 + random.nextInt(1500)];
            random.nextBytes(junk);
            attacker.send(ByteBuffer.wrap(junk), to);
            sent++;
        }
        ByteBuffer valid = encodeProbe(new PacketCodec(), random.nextLong() | 1);
        int length = valid.limit();
        for (int cut = 1; cut < length; cut += 3) {
            attacker.send(valid.duplicate().limit(cut), to);
            sent++;
        }
        for (int i = 0; i < 50; i++) {
            ByteBuffer corrupted = ByteBuffer.allocate(length).put(valid.duplicate()).flip();
            int bit = random.nextInt(length * 8);
            corrupted.put(bit >>> 3, (byte) (corrupted.get(bit >>> 3) ^ (1 << (bit & 7))));
            attacker.send(corrupted, to);
            sent++;
        }
        return sent;
    }

    private static ByteBuffer encodeProbe(PacketCodec codec, long connectionId) {
        Packet p = new Packet();
        p.type = PacketType.PATH_PROBE;
        p.destinationConnectionId = connectionId;
        p.probeId = 7;
        p.timestampNanos = 1;
        ByteBuffer b = ByteBuffer.allocate(PacketCodec.fixedLength(PacketType.PATH_PROBE));
        int n = codec.encode(p, b, 0, null, 0);
        return b.limit(n);
    }

    private static ByteBuffer encodeConnect(PacketCodec codec, SplittableRandom random, boolean forgedCookie) {
        Packet p = new Packet();
        p.type = PacketType.CONNECT;
        p.sourceConnectionId = random.nextLong() | 1;
        p.maxDatagramBytes = 4096;
        p.pathCount = 1;
        p.sequenceWindow = 1 << 16;
        if (forgedCookie) {
            p.hasCookie = true;
            for (int i = 0; i < WireConstants.COOKIE_BYTES; i++) {
                p.cookie[i] = (byte) random.nextInt();
            }
        }
        ByteBuffer b = ByteBuffer.allocate(WireConstants.CONNECT_BYTES);
        int n = codec.encode(p, b, 0, null, 0);
        return b.limit(n);
    }

    private static void awaitCount(String what, LongSupplier counter, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        long value;
        while ((value = counter.getAsLong()) < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(50);
        assertThat(counter.getAsLong()).as(what + " (seed " + SEED + ")").isEqualTo(expected);
    }
}
