package io.metaroce.bench.conformance;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The implementation under test as a client ([SPEC-CONF-9]): told on the control stream to
 * connect to a socket of the suite, it must send CONNECTs by [SPEC-CONN-4], resend them at
 * growing intervals while unanswered ([SPEC-CONN-5]), answer a CHALLENGE with its cookie
 * ([SPEC-CONN-6]), and, once ACCEPTed, carry a SEND both ways ([SPEC-CONN-7]).
 *
 * <p>Stateless; thread-safe.
 */
final class ClientCases {
    /**
     * CONNECTs the suite leaves unanswered to see the retransmission schedule: with the default
     * 5 ms doubling ([SPEC-CONN-5]) they leave at 0, 5, 15, 35, 75, 155 and 315 ms.
     */
    private static final int UNANSWERED = 7;
    /**
     * The last two intervals over the shortest of the first three, at least: 16 and more when each
     * interval doubles the previous one, about 2 when they are all alike. A loaded host fires a
     * timer, or reads a datagram, tens of milliseconds late, which stretches the short early
     * intervals most; 3 leaves room for that.
     */
    private static final double GROWTH = 3.0;
    /** Echoes of six packets the suite asks for before it gives up seeing the client's path 1. */
    private static final int MULTIPATH_ECHOES = 4;

    private ClientCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("client.handshake",
                "the IUT as a client sends CONNECTs at doubling intervals, answers a CHALLENGE with its cookie, and"
                        + " once ACCEPTed carries a SEND both ways",
                "SPEC-CONN-4, SPEC-CONN-5, SPEC-CONN-6, SPEC-CONN-7, SPEC-CONN-8, SPEC-WIRE-21, SPEC-CONF-9",
                "R-CONN-4", ClientCases::handshake),
                ConformanceCase.of("client.multipath",
                        "the IUT as a client of two paths sends each path from a UDP source port of its own, echoes over"
                                + " both, and acknowledges each path on its own",
                        "SPEC-PATH-1, SPEC-PATH-3, SPEC-PATH-6, SPEC-SACK-3, SPEC-CONN-3, SPEC-CONN-15, SPEC-CONF-9",
                        "R-PATH-1, R-PATH-2, R-SACK-1", ClientCases::multipath));
    }

    /** The address of this host that the IUT at {@code target} reaches it by. */
    private static InetAddress suiteAddress(InetSocketAddress target) {
        if (target.getAddress().isLoopbackAddress()) {
            return target.getAddress();
        }
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.connect(target); // no datagram leaves: the kernel only picks the route and its source address
            return ((InetSocketAddress) probe.getLocalAddress()).getAddress();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find the suite's address towards " + target, e);
        }
    }

    /** A connect command under way: the control session that gave it, the suite's server, the IUT's first CONNECT. */
    private record Connecting(WireSession control, WireSession server, int replies, Received first) {
    }

    /**
     * Tells the IUT on its control stream to connect with {@code paths} paths to a server socket of
     * the suite ([SPEC-CONF-9]) and waits for its first CONNECT, checked, whose port the server
     * answers from then on.
     */
    private static Connecting commandConnect(CaseContext c, int paths) {
        WireSession control = c.connect(1);
        WireSession server = c.openServer(paths);
        InetSocketAddress listen = new InetSocketAddress(suiteAddress(c.options().target()),
                server.peer().localPorts()[0]);
        int replies = Commands.sendConnectTo(control, listen, paths);
        // Only the server socket is read until the CONNECTs are in: a datagram left waiting in a socket while the
        // suite reads another would be stamped late, and the intervals judged after would shrink.
        Received first = server.awaitType(0, PacketType.CONNECT);
        Checks.check(first != null, "no CONNECT reached the suite's %s within %d ms of the connect command"
                + " [SPEC-CONF-9], [SPEC-CONN-4]", listen, c.options().waitMillis());
        server.peer().retarget(server.peer().lastSender());
        checkConnect(first, null, paths);
        return new Connecting(control, server, replies, first);
    }

    private static void handshake(CaseContext c) {
        Connecting connecting = commandConnect(c, 1);
        WireSession control = connecting.control();
        WireSession server = connecting.server();
        int replies = connecting.replies();
        Received first = connecting.first();
        long clientId = first.packet().sourceConnectionId;
        boolean resent = server.await(() -> server.ofType(0, PacketType.CONNECT).size() >= UNANSWERED);
        List<Received> connects = server.ofType(0, PacketType.CONNECT);
        Checks.check(resent, "%d CONNECT(s) came in %d ms while the suite answered none: a client resends CONNECT"
                + " while CONNECTING [SPEC-CONN-5]", connects.size(), c.options().waitMillis());
        for (Received r : connects) {
            checkConnect(r, null, 1);
            Checks.check(r.packet().sourceConnectionId == clientId, "a repeated CONNECT names client id %s, the first %s"
                    + " [SPEC-CONN-5]", Long.toUnsignedString(r.packet().sourceConnectionId),
                    Long.toUnsignedString(clientId));
        }
        long early = Long.MAX_VALUE;
        for (int i = 1; i <= 3; i++) {
            early = Math.min(early, connects.get(i).arrivalNanos() - connects.get(i - 1).arrivalNanos());
        }
        long late = connects.get(UNANSWERED - 1).arrivalNanos() - connects.get(UNANSWERED - 3).arrivalNanos();
        Commands.awaitConnectReply(control, replies);
        StringBuilder times = new StringBuilder();
        for (Received r : connects) {
            times.append(times.isEmpty() ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%.1f",
                    (r.arrivalNanos() - connects.getFirst().arrivalNanos()) / 1e6));
        }
        Checks.check(late >= GROWTH * early, "%d unanswered CONNECTs came at %s ms: their last two intervals (%.1f ms)"
                + " are not %.0f times the shortest of the first three (%.1f ms), as intervals that each double the"
                + " previous one are [SPEC-CONN-5]", UNANSWERED, times, late / 1e6, GROWTH, early / 1e6);
        // CHALLENGE: the client keeps the cookie and sends a CONNECT carrying it at once.
        Received withCookie = challenge(c, server, first, 1);
        // ACCEPT: the connection is ESTABLISHED and carries a SEND both ways.
        Checks.check(server.ofType(0, PacketType.DATA).isEmpty() && server.ofType(0, PacketType.ACK).isEmpty(),
                "the client sent DATA or ACK before it was ACCEPTed [SPEC-CONN-8]");
        server.acceptClient(withCookie, 1);
        byte[] m = Scenarios.bytes(700, 121);
        Segment seg = server.send(ResponderContract.ECHO_STREAM, m).getFirst();
        Sent last = sendPastNotReady(server, seg);
        Scenarios.awaitAckOf(server, 0, last.pathSequence());
        Scenarios.awaitEchoes(server, 1, "a SEND to the IUT's client connection");
        Scenarios.checkEcho(server, 0, m, "a SEND to the IUT's client connection");
        Scenarios.checkAllAcks(server);
        int established = server.mark();
        c.quiet(server);
        Checks.check(server.ofType(established, PacketType.CONNECT).isEmpty(), "the client sent CONNECT after its"
                + " connection carried data both ways: CONNECTs are resent only while CONNECTING [SPEC-CONN-5],"
                + " [SPEC-CONN-7]");
    }

    /**
     * The IUT connects with two paths: the suite, one socket, accepts both; the IUT's path 1 must
     * come from a source port other than its path 0's ([SPEC-PATH-1], the port that binds the path on
     * the suite's side), carry part of its echoes, and get the suite's SENDs over both paths
     * acknowledged per path, each ACK from its path's port.
     */
    private static void multipath(CaseContext c) {
        Connecting connecting = commandConnect(c, 2);
        WireSession control = connecting.control();
        WireSession server = connecting.server();
        int replies = connecting.replies();
        Received first = connecting.first();
        Received withCookie = challenge(c, server, first, 2);
        server.acceptClient(withCookie, 2);
        Commands.awaitConnectReply(control, replies);
        Checks.check(server.grantedPaths() == 2, "%d paths after an ACCEPT of 2 to a CONNECT of 2 [SPEC-CONN-15]",
                server.grantedPaths());
        // A first SEND, on path 0 (the only path the suite can reach yet), past the receives the client posts late.
        byte[] opening = Scenarios.bytes(300, 122);
        Sent sent = sendPastNotReady(server, server.send(ResponderContract.ECHO_STREAM, opening).getFirst());
        Scenarios.awaitAckOf(server, 0, sent.pathSequence());
        Scenarios.awaitEchoes(server, 1, "a SEND to the IUT's client connection of two paths");
        // Echoes of several packets: new data goes round robin over the ACTIVE paths ([SPEC-PATH-6]), so path 1
        // carries some, from the port that binds it.
        for (int i = 0; i < MULTIPATH_ECHOES && server.peer().remote(1) == null; i++) {
            Scenarios.sendAll(server, server.send(ResponderContract.ECHO_STREAM,
                    Scenarios.bytes(6 * server.payloadSize() - 3, 123 + i)), 0);
            int expected = 2 + i;
            server.await(() -> server.echoes().size() >= expected || samePort(server) != null);
            Received shared = samePort(server);
            Checks.check(shared == null, "%s names path 1 of the IUT's client but came from the UDP source port of its"
                    + " path 0 (%s): each path of a client has a socket, a port, of its own [SPEC-PATH-1]", shared,
                    server.peer().remote(0));
            Scenarios.awaitEchoes(server, expected, "a SEND of six packets to the IUT's client connection");
        }
        InetSocketAddress zero = server.peer().remote(0);
        InetSocketAddress one = server.peer().remote(1);
        long onPathOne = server.data().stream().filter(r -> r.packet().pathId == 1).count();
        Checks.check(one != null, "the IUT's client sent %d DATA packet(s) naming path 1, none from a UDP source port"
                + " other than path 0's (%s), in %d echoes of six packets: each path of a client has a socket, a port,"
                + " of its own [SPEC-PATH-1], and new data goes round robin over the ACTIVE paths [SPEC-PATH-6]",
                onPathOne, zero, MULTIPATH_ECHOES);
        Checks.check(!one.equals(zero) && one.getPort() != zero.getPort(), "paths 0 and 1 of the client share port %d"
                + " [SPEC-PATH-1]", zero.getPort());
        // The suite's SEND over both paths: each path is acknowledged on its own, in its own PSN space, each ACK
        // from its path's port (Scenarios.checkAck judges the socket of an ACK by the port it came from).
        byte[] both = Scenarios.bytes(6 * server.payloadSize() - 5, 129);
        // Counted before the SEND leaves: its echo may arrive before the last of its ACKs.
        int echoes = server.echoes().size() + 1;
        List<Segment> segs = server.send(ResponderContract.ECHO_STREAM, both);
        Sent[] lastOn = new Sent[2];
        for (int i = 0; i < segs.size(); i++) {
            lastOn[i % 2] = server.send(segs.get(i), i % 2);
        }
        Scenarios.awaitAckOf(server, 0, lastOn[0].pathSequence());
        Scenarios.awaitAckOf(server, 1, lastOn[1].pathSequence());
        boolean echoed = server.await(() -> server.echoes().size() >= echoes);
        Checks.check(echoed, "a SEND over both paths of the IUT's client connection was not echoed within %d ms"
                + " [SPEC-CONF-2]", c.options().waitMillis());
        Scenarios.checkEcho(server, echoes - 1, both, "a SEND over both paths of the IUT's client connection");
        Scenarios.checkAllAcks(server);
    }

    /** A packet of the client naming a path other than the one whose port it came from, or null. */
    private static Received samePort(WireSession s) {
        for (Received r : s.received()) {
            if (r.packet().pathId != r.path() && r.type() != PacketType.CONNECT) {
                return r;
            }
        }
        return null;
    }

    /**
     * Answers the client's {@code first} CONNECT with a CHALLENGE (a cookie drawn from the suite's
     * seed and the client's id) and returns the CONNECT that carries the cookie back, checked by
     * [SPEC-CONN-4] for {@code paths} paths; fails the case when none comes in time [SPEC-CONN-6].
     */
    private static Received challenge(CaseContext c, WireSession server, Received first, int paths) {
        byte[] cookie = new byte[WireConstants.COOKIE_BYTES];
        new SplittableRandom(c.options().seed() ^ first.packet().sourceConnectionId).nextBytes(cookie);
        int mark = server.mark();
        server.sendChallenge(first, cookie);
        Received[] withCookie = new Received[1];
        server.await(() -> (withCookie[0] = connectWithCookie(server, mark)) != null);
        Checks.check(withCookie[0] != null, "no CONNECT carrying the CHALLENGE's cookie within %d ms of the CHALLENGE"
                + " [SPEC-CONN-6]", c.options().waitMillis());
        checkConnect(withCookie[0], cookie, paths);
        return withCookie[0];
    }

    /**
     * Sends {@code seg} and, as a conforming sender, again after the delay a RECEIVER_NOT_READY
     * NAK asks for ([SPEC-NAK-4]): the responder can post its receives only once its connection is
     * ESTABLISHED, which the ACCEPT the SEND follows closely may not have made it yet.
     */
    private static Sent sendPastNotReady(WireSession s, Segment seg) {
        for (int attempt = 0; attempt < 3; attempt++) {
            int mark = s.mark();
            Sent sent = attempt == 0 ? s.send(seg, 0) : s.resend(seg, 0);
            Received[] nak = new Received[1];
            s.await(() -> Scenarios.ackOf(s, 0, sent.pathSequence()) != null
                    || (nak[0] = s.firstOfType(mark, PacketType.NAK)) != null);
            if (nak[0] == null || nak[0].packet().nakCode != io.metaroce.core.wire.NakCode.RECEIVER_NOT_READY) {
                return sent;
            }
            s.markRefused(sent);
            s.quiet(Math.max(1, nak[0].packet().retryAfterNanos / 1_000_000));
        }
        throw new CaseFailure("a SEND to the IUT's client connection was refused with RECEIVER_NOT_READY three times:"
                + " the responder posts its receives once the connection is established [SPEC-CONF-9], [SPEC-CONF-2]");
    }

    private static Received connectWithCookie(WireSession s, int mark) {
        for (Received r : s.ofType(mark, PacketType.CONNECT)) {
            if (r.packet().hasCookie) {
                return r;
            }
        }
        return null;
    }

    /** A CONNECT by [SPEC-CONN-4]: no destination, path 0, no sequence numbers, sane values, the cookie expected. */
    private static void checkConnect(Received r, byte[] cookie, int paths) {
        Packet p = r.packet();
        Checks.check(p.destinationConnectionId == 0 && p.pathId == 0 && p.connectionSequence == 0 && p.pathSequence == 0,
                "a CONNECT has destination id %s, path %d, CSN %d, PSN %d; all must be 0 [SPEC-CONN-4]",
                Long.toUnsignedString(p.destinationConnectionId), p.pathId, p.connectionSequence, p.pathSequence);
        Checks.check(p.sourceConnectionId != 0, "a CONNECT's sourceConnectionId is 0 [SPEC-CONN-2], [SPEC-CONN-4]");
        Checks.check(p.pathCount == paths, "the CONNECT asks for %d paths; the connect command asked for %d"
                + " [SPEC-CONF-9]", p.pathCount, paths);
        Checks.check(r.datagramLength() == WireConstants.CONNECT_BYTES, "a CONNECT of %d bytes, not %d [SPEC-WIRE-21]",
                r.datagramLength(), WireConstants.CONNECT_BYTES);
        if (cookie == null) {
            Checks.check(!p.hasCookie, "a CONNECT before any CHALLENGE carries a cookie [SPEC-CONN-4]");
        } else {
            Checks.check(java.util.Arrays.equals(p.cookie, cookie), "the CONNECT after the CHALLENGE carries another"
                    + " cookie than the CHALLENGE's [SPEC-CONN-6]");
        }
    }
}
