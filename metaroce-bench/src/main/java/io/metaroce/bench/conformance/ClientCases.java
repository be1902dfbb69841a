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

    private ClientCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("client.handshake",
                "the IUT as a client sends CONNECTs at doubling intervals, answers a CHALLENGE with its cookie, and"
                        + " once ACCEPTed carries a SEND both ways",
                "SPEC-CONN-4, SPEC-CONN-5, SPEC-CONN-6, SPEC-CONN-7, SPEC-CONN-8, SPEC-WIRE-21, SPEC-CONF-9",
                "R-CONN-4", ClientCases::handshake));
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

    private static void handshake(CaseContext c) {
        WireSession control = c.connect(1);
        WireSession server = c.openServer();
        InetSocketAddress listen = new InetSocketAddress(suiteAddress(c.options().target()),
                server.peer().localPorts()[0]);
        int replies = Commands.sendConnectTo(control, listen, 1);
        // Only the server socket is read until the CONNECTs are in: a datagram left waiting in a socket while the
        // suite reads another would be stamped late, and the intervals judged below would shrink.
        Received first = server.awaitType(0, PacketType.CONNECT);
        Checks.check(first != null, "no CONNECT reached the suite's %s within %d ms of the connect command"
                + " [SPEC-CONF-9], [SPEC-CONN-4]", listen, c.options().waitMillis());
        server.peer().retarget(server.peer().lastSender());
        checkConnect(first, null);
        long clientId = first.packet().sourceConnectionId;
        boolean resent = server.await(() -> server.ofType(0, PacketType.CONNECT).size() >= UNANSWERED);
        List<Received> connects = server.ofType(0, PacketType.CONNECT);
        Checks.check(resent, "%d CONNECT(s) came in %d ms while the suite answered none: a client resends CONNECT"
                + " while CONNECTING [SPEC-CONN-5]", connects.size(), c.options().waitMillis());
        for (Received r : connects) {
            checkConnect(r, null);
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
        byte[] cookie = new byte[WireConstants.COOKIE_BYTES];
        new SplittableRandom(c.options().seed() ^ clientId).nextBytes(cookie);
        int mark = server.mark();
        server.sendChallenge(first, cookie);
        Received[] withCookie = new Received[1];
        server.await(() -> (withCookie[0] = connectWithCookie(server, mark)) != null);
        Checks.check(withCookie[0] != null, "no CONNECT carrying the CHALLENGE's cookie within %d ms of the CHALLENGE"
                + " [SPEC-CONN-6]", c.options().waitMillis());
        checkConnect(withCookie[0], cookie);
        // ACCEPT: the connection is ESTABLISHED and carries a SEND both ways.
        Checks.check(server.ofType(0, PacketType.DATA).isEmpty() && server.ofType(0, PacketType.ACK).isEmpty(),
                "the client sent DATA or ACK before it was ACCEPTed [SPEC-CONN-8]");
        server.acceptClient(withCookie[0], 1);
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
    private static void checkConnect(Received r, byte[] cookie) {
        Packet p = r.packet();
        Checks.check(p.destinationConnectionId == 0 && p.pathId == 0 && p.connectionSequence == 0 && p.pathSequence == 0,
                "a CONNECT has destination id %s, path %d, CSN %d, PSN %d; all must be 0 [SPEC-CONN-4]",
                Long.toUnsignedString(p.destinationConnectionId), p.pathId, p.connectionSequence, p.pathSequence);
        Checks.check(p.sourceConnectionId != 0, "a CONNECT's sourceConnectionId is 0 [SPEC-CONN-2], [SPEC-CONN-4]");
        Checks.check(p.pathCount == 1, "the CONNECT asks for %d paths; the connect command asked for 1 [SPEC-CONF-9]",
                p.pathCount);
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
