package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.harness.LossModel;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The handshake: CONNECT, CHALLENGE, CONNECT with the cookie, ACCEPT; over clean and lossy
 * networks; against forged CONNECTs; and against a peer that never answers.
 */
class HandshakeTest {
    private static final int CLIENT_ADDRESS = Pair.clientAddress(0);
    private static final int OTHER_ADDRESS = Pair.clientAddress(7);

    // =====================================================================================
    // Connecting
    // =====================================================================================

    @Test
    void connectOverACleanNetworkEstablishesBothSidesWithOneChallengeAndOneConnection() {
        long seed = 11;
        List<Connection> accepted = new ArrayList<>();
        Pair p = Pair.create(seed, 2, NetworkConditions.perfect(), EngineConfig.defaults())
                .onServerEvents(new ConnectionListener() {
                    @Override
                    public void onAccepted(Connection c) {
                        accepted.add(c);
                    }
                })
                .connect();
        p.advance(50_000_000L);

        Connection client = p.clientConnection();
        Connection server = p.serverConnection();
        String why = "seed " + seed;
        assertThat(client.state()).as(why).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(server.state()).as(why).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(client.peerId()).as(why).isEqualTo(server.localId());
        assertThat(server.peerId()).as(why).isEqualTo(client.localId());
        assertThat(client.pathCount()).as(why).isEqualTo(2);
        assertThat(server.pathCount()).as(why).isEqualTo(2);
        assertThat(accepted).as(why).containsExactly(server);
        EndpointStats s = p.server().stats();
        assertThat(s.connectionsAccepted()).as(why).isEqualTo(1);
        assertThat(p.server().connectionCount()).as(why).isEqualTo(1);
        assertThat(p.client().connectionCount()).as(why).isEqualTo(1);
        assertThat(s.challengesSent()).as(why).isEqualTo(1);
        assertThat(s.invalidCookies()).as(why).isZero();
        assertThat(s.connectionsRefused()).as(why).isZero();
        // CONNECT without cookie, CONNECT with cookie; one ACCEPT.
        assertThat(client.stats().handshakePacketsSent()).as(why).isEqualTo(2);
        assertThat(server.stats().handshakePacketsSent()).as(why).isEqualTo(1);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void connectOverThirtyPercentLossEstablishesExactlyOneServerConnection(long seed) {
        List<Connection> accepted = new ArrayList<>();
        Pair p = Pair.create(seed, 2, NetworkConditions.perfect().withLoss(0.3), EngineConfig.defaults())
                .onServerEvents(new ConnectionListener() {
                    @Override
                    public void onAccepted(Connection c) {
                        accepted.add(c);
                    }
                })
                .connect();
        // Let every retransmitted CONNECT still in flight arrive.
        p.advance(200_000_000L);

        String why = "seed " + seed + ", dropped " + p.dropped();
        assertThat(p.clientConnection().state()).as(why).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(p.serverConnection().state()).as(why).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(p.clientConnection().peerId()).as(why).isEqualTo(p.serverConnection().localId());
        assertThat(p.server().stats().connectionsAccepted()).as(why).isEqualTo(1);
        assertThat(p.server().connectionCount()).as(why).isEqualTo(1);
        assertThat(accepted).as(why).containsExactly(p.serverConnection());
    }

    @Test
    void lossyHandshakesAreReallyExercisedByTheSeedsAbove() {
        // Guards the parameterized test: some of its seeds must lose handshake packets.
        int seedsWithRetransmittedHandshake = 0;
        for (long seed = 1; seed <= 20; seed++) {
            Pair p = Pair.create(seed, 2, NetworkConditions.perfect().withLoss(0.3), EngineConfig.defaults()).connect();
            if (p.clientConnection().stats().handshakePacketsSent() > 2
                    || p.serverConnection().stats().handshakePacketsSent() > 1) {
                seedsWithRetransmittedHandshake++;
            }
        }
        assertThat(seedsWithRetransmittedHandshake).isGreaterThanOrEqualTo(5);
    }

    @Test
    void lostCookieConnectAndLostAcceptsAreRetransmittedWithoutASecondServerConnection() {
        long seed = 21;
        int[] cookieConnectsDropped = {0};
        int[] acceptsDropped = {0};
        LossModel loss = (fromClient, pathId, datagram, length, now) -> {
            int type = datagram.get(1) & 0xff;
            if (fromClient && type == PacketType.CONNECT && datagram.getShort(46) == WireConstants.COOKIE_BYTES
                    && cookieConnectsDropped[0] < 1) {
                cookieConnectsDropped[0]++;
                return true;
            }
            if (!fromClient && type == PacketType.ACCEPT && acceptsDropped[0] < 2) {
                acceptsDropped[0]++;
                return true;
            }
            return false;
        };
        Pair p = Pair.create(seed, 1, NetworkConditions.perfect(), EngineConfig.defaults()).lossModel(loss).connect();
        p.advance(100_000_000L);

        String why = "seed " + seed;
        assertThat(cookieConnectsDropped[0]).as(why).isEqualTo(1);
        assertThat(acceptsDropped[0]).as(why).isEqualTo(2);
        assertThat(p.clientConnection().state()).as(why).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(p.server().connectionCount()).as(why).isEqualTo(1);
        assertThat(p.server().stats().connectionsAccepted()).as(why).isEqualTo(1);
        // 1 CONNECT without cookie + 4 with it (1 lost, 2 whose ACCEPT was lost, 1 answered).
        assertThat(p.clientConnection().stats().handshakePacketsSent()).as(why).isEqualTo(5);
        // The first ACCEPT and one resend per repeated CONNECT.
        assertThat(p.serverConnection().stats().handshakePacketsSent()).as(why).isEqualTo(3);
    }

    // =====================================================================================
    // Cookies: a standalone listening endpoint fed hand-made CONNECTs
    // =====================================================================================

    @Test
    void connectWithoutCookieIsAnsweredByAChallengeAndCreatesNoConnection() {
        Server s = new Server(31, EngineConfig.defaults());
        long clientId = 0x1234_5678_9abcL;
        s.receive(1_000, connect(clientId, null), CLIENT_ADDRESS);

        List<Sent> out = s.drain(1_000);
        assertThat(out).hasSize(1);
        Sent challenge = out.get(0);
        assertThat(challenge.packet.type).isEqualTo(PacketType.CHALLENGE);
        assertThat(challenge.packet.destinationConnectionId).isEqualTo(clientId);
        assertThat(challenge.to).isEqualTo(CLIENT_ADDRESS);
        assertThat(challenge.packet.hasCookie).isTrue();
        assertThat(s.endpoint.connectionCount()).isZero();
        assertThat(s.endpoint.pollTimeoutNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(s.endpoint.stats().challengesSent()).isEqualTo(1);
        assertThat(s.endpoint.stats().connectionsAccepted()).isZero();
        assertThat(s.endpoint.stats().invalidCookies()).isZero();
    }

    @Test
    void connectEchoingTheChallengeCookieFromTheSameAddressIsAccepted() {
        // The positive control for the forgery tests below.
        Server s = new Server(32, EngineConfig.defaults());
        long clientId = 0x77L;
        byte[] cookie = s.challenge(1_000, clientId, CLIENT_ADDRESS);

        s.receive(2_000, connect(clientId, cookie), CLIENT_ADDRESS);
        List<Sent> out = s.drain(2_000);

        assertThat(s.endpoint.connectionCount()).isEqualTo(1);
        assertThat(s.endpoint.stats().connectionsAccepted()).isEqualTo(1);
        assertThat(s.endpoint.stats().invalidCookies()).isZero();
        assertThat(out).extracting(x -> x.packet.type).containsExactly(PacketType.ACCEPT);
        assertThat(out.get(0).packet.destinationConnectionId).isEqualTo(clientId);
        assertThat(out.get(0).to).isEqualTo(CLIENT_ADDRESS);

        // A repeated CONNECT (its ACCEPT was lost) gets the ACCEPT again, not a second connection.
        s.receive(3_000, connect(clientId, cookie), CLIENT_ADDRESS);
        assertThat(s.drain(3_000)).extracting(x -> x.packet.type).containsExactly(PacketType.ACCEPT);
        assertThat(s.endpoint.connectionCount()).isEqualTo(1);
        assertThat(s.endpoint.stats().connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void connectWithRandomCookiesFromAnAddressThatNeverAnsweredAChallengeCreatesNothing() {
        long seed = 33;
        Server s = new Server(seed, EngineConfig.defaults());
        SplittableRandom r = new SplittableRandom(seed);
        int forged = 500;
        for (int i = 0; i < forged; i++) {
            byte[] cookie = new byte[WireConstants.COOKIE_BYTES];
            r.nextBytes(cookie);
            if (i % 2 == 0) {
                // A plausible, fresh issue time with a random tag.
                ByteBuffer.wrap(cookie).putLong(0, 500_000L + i);
            }
            long clientId = r.nextLong() | 1;
            long now = 1_000_000L + i;
            s.receive(now, connect(clientId, cookie), OTHER_ADDRESS);
            s.drain(now);
        }
        String why = "seed " + seed;
        assertThat(s.endpoint.connectionCount()).as(why).isZero();
        assertThat(s.endpoint.stats().connectionsAccepted()).as(why).isZero();
        assertThat(s.endpoint.stats().invalidCookies()).as(why).isEqualTo(forged);
        assertThat(s.endpoint.pollTimeoutNanos()).as(why).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void connectReplayingAnotherAddressesCookieCreatesNothing() {
        Server s = new Server(34, EngineConfig.defaults());
        long clientId = 0x4242L;
        byte[] cookie = s.challenge(1_000, clientId, CLIENT_ADDRESS);

        // Same client id, same (valid, fresh) cookie, different source address.
        s.receive(2_000, connect(clientId, cookie), OTHER_ADDRESS);
        List<Sent> out = s.drain(2_000);
        // Another client id from the address the cookie was issued to.
        s.receive(3_000, connect(clientId + 1, cookie), CLIENT_ADDRESS);
        out.addAll(s.drain(3_000));

        assertThat(s.endpoint.connectionCount()).isZero();
        assertThat(s.endpoint.stats().connectionsAccepted()).isZero();
        assertThat(s.endpoint.stats().invalidCookies()).isEqualTo(2);
        // The forger only ever gets a fresh CHALLENGE, sent to the address it claims.
        assertThat(out).extracting(x -> x.packet.type).containsOnly(PacketType.CHALLENGE);
        assertThat(out).extracting(x -> x.to).containsExactly(OTHER_ADDRESS, CLIENT_ADDRESS);
    }

    @Test
    void connectWithACookieOlderThanItsLifetimeCreatesNothing() {
        long lifetime = 1_000_000_000L;
        EngineConfig config = EngineConfig.builder().cookieLifetimeNanos(lifetime).build();
        Server s = new Server(35, config);
        long clientId = 0x99L;
        long issuedAt = 5_000L;
        byte[] cookie = s.challenge(issuedAt, clientId, CLIENT_ADDRESS);

        s.receive(issuedAt + lifetime + 1, connect(clientId, cookie), CLIENT_ADDRESS);
        s.drain(issuedAt + lifetime + 1);
        assertThat(s.endpoint.connectionCount()).isZero();
        assertThat(s.endpoint.stats().invalidCookies()).isEqualTo(1);
        assertThat(s.endpoint.stats().connectionsAccepted()).isZero();

        // Control: the same kind of cookie, used within its lifetime, is accepted.
        long otherId = 0x9aL;
        byte[] fresh = s.challenge(issuedAt, otherId, CLIENT_ADDRESS);
        s.receive(issuedAt + lifetime - 1, connect(otherId, fresh), CLIENT_ADDRESS);
        assertThat(s.endpoint.connectionCount()).isEqualTo(1);
        assertThat(s.endpoint.stats().invalidCookies()).isEqualTo(1);
    }

    @Test
    void connectWithACookieFromTheFutureCreatesNothing() {
        Server s = new Server(36, EngineConfig.defaults());
        long clientId = 0x5L;
        byte[] cookie = s.challenge(10_000_000L, clientId, CLIENT_ADDRESS);
        // Presented "before" it was issued (a forger guessing a later time).
        s.receive(9_000_000L, connect(clientId, cookie), CLIENT_ADDRESS);
        assertThat(s.endpoint.connectionCount()).isZero();
        assertThat(s.endpoint.stats().invalidCookies()).isEqualTo(1);
    }

    // =====================================================================================
    // Nobody answers
    // =====================================================================================

    private static EngineConfig shortHandshake() {
        return EngineConfig.builder().handshakeRetryNanos(2_000_000L).handshakeTimeoutNanos(100_000_000L).build();
    }

    @Test
    void connectToAnEndpointThatIsNotListeningFailsWithHandshakeTimeout() {
        long seed = 41;
        EngineConfig config = shortHandshake();
        SplittableRandom r = new SplittableRandom(seed);
        Endpoint client = endpoint(r, config, false);
        Endpoint server = endpoint(r, config, false);
        Wire w = new Wire(client, server);
        w.now = 1_000_000L;
        Connection c = client.connect(w.now, Pair.SERVER_ADDRESS, new int[] {0});
        long started = w.now;

        w.runUntil(() -> c.state() == ConnectionState.CLOSED, started + 10 * config.handshakeTimeoutNanos());

        String why = "seed " + seed;
        assertThat(c.state()).as(why).isEqualTo(ConnectionState.CLOSED);
        assertThat(c.closeReason()).as(why).isEqualTo(CloseReason.HANDSHAKE_TIMEOUT);
        assertThat(w.closedAt - started).as(why).isBetween(config.handshakeTimeoutNanos(),
                config.handshakeTimeoutNanos() + config.handshakeRetryNanos());
        assertThat(w.clientClosed).as(why).containsExactly(CloseReason.HANDSHAKE_TIMEOUT);
        assertThat(c.stats().handshakePacketsSent()).as(why).isGreaterThan(1);
        assertThat(server.stats().connectionsRefused()).as(why).isEqualTo(c.stats().handshakePacketsSent());
        assertThat(server.stats().datagramsSent()).as(why).isZero();
        assertThat(server.connectionCount()).as(why).isZero();
        assertThat(client.connectionCount()).as(why).isZero();
        assertThat(client.pollTimeoutNanos()).as(why).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void connectToNothingFailsWithHandshakeTimeout() {
        long seed = 42;
        EngineConfig config = shortHandshake();
        Endpoint client = endpoint(new SplittableRandom(seed), config, false);
        Wire w = new Wire(client, null);
        Connection c = client.connect(w.now, Pair.SERVER_ADDRESS, new int[] {0, 1});

        w.runUntil(() -> c.state() == ConnectionState.CLOSED, 10 * config.handshakeTimeoutNanos());

        String why = "seed " + seed;
        assertThat(c.closeReason()).as(why).isEqualTo(CloseReason.HANDSHAKE_TIMEOUT);
        assertThat(w.closedAt).as(why).isBetween(config.handshakeTimeoutNanos(),
                config.handshakeTimeoutNanos() + config.handshakeRetryNanos());
        assertThat(w.clientClosed).as(why).containsExactly(CloseReason.HANDSHAKE_TIMEOUT);
        // Retries back off: 2, 4, 8, 16, 32, 64 ms fit in 100 ms -> about 6 CONNECTs, not hundreds.
        assertThat(c.stats().handshakePacketsSent()).as(why).isBetween(3L, 10L);
        assertThat(client.connectionCount()).as(why).isZero();
    }

    // =====================================================================================
    // Helpers
    // =====================================================================================

    private static Endpoint endpoint(SplittableRandom r, EngineConfig config, boolean listening) {
        byte[] secret = new byte[32];
        r.nextBytes(secret);
        return Endpoint.builder(r.split(), secret, Pair.INTEGER_ADDRESSES).config(config).listening(listening).build();
    }

    /** A CONNECT datagram from {@code clientId}, with {@code cookie} if not null. */
    static ByteBuffer connect(long clientId, byte[] cookie) {
        Packet p = new Packet();
        p.type = PacketType.CONNECT;
        p.sourceConnectionId = clientId;
        p.maxDatagramBytes = 4096;
        p.pathCount = 1;
        p.sequenceWindow = 1 << 16;
        if (cookie != null) {
            p.hasCookie = true;
            System.arraycopy(cookie, 0, p.cookie, 0, WireConstants.COOKIE_BYTES);
        }
        ByteBuffer b = ByteBuffer.allocate(WireConstants.CONNECT_BYTES);
        int n = new PacketCodec().encode(p, b, 0, null, 0);
        assertThat(n).isEqualTo(WireConstants.CONNECT_BYTES);
        return b;
    }

    record Sent(Packet packet, Object to) { }

    /** A listening endpoint driven by hand. */
    static final class Server {
        final Endpoint endpoint;
        private final Transmit transmit = new Transmit(ByteBuffer.allocate(65_535));
        private final PacketCodec codec = new PacketCodec();

        Server(long seed, EngineConfig config) {
            endpoint = endpoint(new SplittableRandom(seed), config, true);
        }

        void receive(long now, ByteBuffer datagram, Object from) {
            endpoint.handleDatagram(now, datagram, 0, datagram.limit(), 0, from, 0);
        }

        List<Sent> drain(long now) {
            List<Sent> out = new ArrayList<>();
            while (endpoint.pollTransmit(now, transmit)) {
                Packet p = new Packet();
                assertThat(codec.decode(transmit.buffer, 0, transmit.length, p)).isEqualTo(DecodeError.OK);
                out.add(new Sent(p, transmit.remoteAddress));
            }
            return out;
        }

        /** Sends a cookie-less CONNECT at {@code now} and returns the cookie of the CHALLENGE. */
        byte[] challenge(long now, long clientId, Object from) {
            receive(now, connect(clientId, null), from);
            List<Sent> out = drain(now);
            assertThat(out).hasSize(1);
            assertThat(out.get(0).packet.type).isEqualTo(PacketType.CHALLENGE);
            return out.get(0).packet.cookie.clone();
        }
    }

    /** Two endpoints (or one, talking to nothing) wired with zero delay and a manual clock. */
    static final class Wire {
        final Endpoint client;
        final Endpoint server;
        final List<CloseReason> clientClosed = new ArrayList<>();
        long now;
        long closedAt = -1;
        private final Transmit fromClient = new Transmit(ByteBuffer.allocate(65_535));
        private final Transmit fromServer = new Transmit(ByteBuffer.allocate(65_535));
        private final ConnectionListener listener = new ConnectionListener() {
            @Override
            public void onClosed(Connection connection, CloseReason reason) {
                clientClosed.add(reason);
                closedAt = now;
            }
        };

        Wire(Endpoint client, Endpoint server) {
            this.client = client;
            this.server = server;
        }

        void runUntil(BooleanSupplier done, long deadline) {
            int steps = 0;
            while (true) {
                flush();
                if (done.getAsBoolean() || now > deadline) {
                    return;
                }
                long next = Math.min(client.pollTimeoutNanos(),
                        server == null ? Long.MAX_VALUE : server.pollTimeoutNanos());
                if (next == Long.MAX_VALUE) {
                    return;
                }
                now = Math.max(now, next);
                client.handleTimeout(now);
                if (server != null) {
                    server.handleTimeout(now);
                }
                assertThat(++steps).as("steps at t=" + now).isLessThan(1_000_000);
            }
        }

        void flush() {
            boolean moved = true;
            while (moved) {
                moved = false;
                while (client.pollTransmit(now, fromClient)) {
                    moved = true;
                    if (server != null) {
                        server.handleDatagram(now, fromClient.buffer, 0, fromClient.length, 0,
                                Pair.clientAddress(fromClient.localSocket), 0);
                    }
                }
                while (server != null && server.pollTransmit(now, fromServer)) {
                    moved = true;
                    client.handleDatagram(now, fromServer.buffer, 0, fromServer.length,
                            (Integer) fromServer.remoteAddress - Pair.clientAddress(0), Pair.SERVER_ADDRESS, 0);
                }
            }
            client.pollEvents(listener);
        }
    }
}
