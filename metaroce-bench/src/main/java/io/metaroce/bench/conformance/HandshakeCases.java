package io.metaroce.bench.conformance;

import io.metaroce.core.wire.CloseCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Cases of the handshake (docs/spec.md chapter 3): the stateless CHALLENGE, the ACCEPT and its
 * fields, a repeated CONNECT, a forged cookie.
 *
 * <p>Stateless; thread-safe.
 */
final class HandshakeCases {
    private HandshakeCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("handshake.challenge",
                        "a CONNECT without a cookie is answered by a CHALLENGE to the client's id, and nothing else",
                        "SPEC-CONN-9, SPEC-WIRE-23, SPEC-WIRE-3, SPEC-WIRE-9", "R-CONN-4", HandshakeCases::challenge),
                ConformanceCase.of("handshake.accept",
                        "a CONNECT with the cookie is answered by an ACCEPT with the server's id and values",
                        "SPEC-CONN-12, SPEC-CONN-13, SPEC-CONN-15, SPEC-WIRE-24, SPEC-CONF-4", "R-CONN-4",
                        HandshakeCases::accept),
                ConformanceCase.of("handshake.repeated-connect",
                        "a repeated CONNECT with a valid cookie gets the same ACCEPT, never a second connection",
                        "SPEC-CONN-12, SPEC-CONN-13", "R-CONN-4", HandshakeCases::repeatedConnect),
                ConformanceCase.of("handshake.forged-cookie",
                        "a CONNECT with a cookie the server did not issue gets a CHALLENGE, not an ACCEPT",
                        "SPEC-CONN-9, SPEC-CONN-11", "R-CONN-4", HandshakeCases::forgedCookie),
                ConformanceCase.of("handshake.live-id-elsewhere",
                        "a CONNECT with a valid cookie naming the client id of a live connection, from another address,"
                                + " creates nothing (no ACCEPT) and leaves the live connection as it was",
                        "SPEC-CONN-16, SPEC-CONN-12, SPEC-CONN-9, SPEC-CONF-24", "R-CONN-4",
                        HandshakeCases::liveIdElsewhere),
                ConformanceCase.of("handshake.replay-after-close",
                        "the CONNECT that opened a connection, replayed during its drain, gets at most its own ACCEPT"
                                + " again; replayed after the connection ended, it gets no ACCEPT; a fresh handshake with"
                                + " that client id then opens a new connection",
                        "SPEC-CONN-16, SPEC-CONN-12, SPEC-STATE-6, SPEC-STATE-7, SPEC-CONF-24", "R-CONN-4",
                        HandshakeCases::replayAfterClose),
                ConformanceCase.of("handshake.bad-connect",
                        "CONNECTs breaking a rule of their layout (destination id not 0, source id 0, maxDatagramBytes"
                                + " 255, pathCount 0, cookieLength 23, sequenceWindow 63) get no answer; one whose u32"
                                + " fields are 2^31 and 2^32 − 1 is valid: CHALLENGE, then ACCEPT",
                        "SPEC-WIRE-22, SPEC-WIRE-21, SPEC-WIRE-27, SPEC-CONN-9, SPEC-CONN-14", "R-CONN-4, R-JAVA-4",
                        HandshakeCases::badConnect),
                ConformanceCase.of("handshake.connection-ids",
                        "the IUT's ids of four connections open at once, each in its ACCEPT, are non-zero and distinct,"
                                + " and every packet it sends on a connection carries the suite's id of it",
                        "SPEC-CONN-2, SPEC-WIRE-24, SPEC-WIRE-6, SPEC-CONF-2", "R-CONN-4",
                        HandshakeCases::connectionIds));
    }

    /** Connections {@code handshake.connection-ids} holds open at once. */
    private static final int ID_CONNECTIONS = 4;

    /**
     * Four connections, each from sockets of its own, open at once; each carries a SEND both ways.
     * The id each ACCEPT announces ({@code sourceConnectionId}) is the IUT's end of that connection:
     * never 0, and not in use by another connection of the same endpoint ([SPEC-CONN-2]). Every
     * packet the IUT sends on a connection names the suite's id of it ({@link WireSession} checks
     * every packet; a packet naming another id FAILs the case).
     */
    private static void connectionIds(CaseContext c) {
        List<WireSession> sessions = new java.util.ArrayList<>();
        java.util.Map<Long, Integer> owner = new java.util.HashMap<>();
        for (int i = 0; i < ID_CONNECTIONS; i++) {
            WireSession s = c.connect(1);
            sessions.add(s);
            long id = s.peerId();
            Checks.check(id != 0, "the ACCEPT of connection %d announces sourceConnectionId 0 [SPEC-CONN-2]", i);
            Integer before = owner.putIfAbsent(id, i);
            Checks.check(before == null, "the ACCEPTs of connections %d and %d, both open, announce the same id %016x:"
                    + " an endpoint's id of a connection is not in use by another of its connections [SPEC-CONN-2]",
                    before == null ? 0 : before, i, id);
        }
        for (int i = 0; i < ID_CONNECTIONS; i++) {
            WireSession s = sessions.get(i);
            byte[] m = Scenarios.bytes(2 * s.payloadSize() - 7, 190 + i);
            Sent last = Scenarios.sendAll(s, s.send(ResponderContract.ECHO_STREAM, m), 0).getLast();
            Scenarios.awaitAckOf(s, 0, last.pathSequence());
            Scenarios.awaitEchoes(s, 1, "a SEND on one of four connections open at once");
            Scenarios.checkEcho(s, 0, m, "a SEND on one of four connections open at once");
        }
        for (WireSession s : sessions) {
            Scenarios.checkAllAcks(s);
        }
    }

    /** One way to break a CONNECT's layout ([SPEC-WIRE-21]): a field set to a value the table refuses. */
    private record BadConnect(String name, int offset, int size, long value) {
    }

    /** CONNECTs of a replay the suite sends, each followed by a quiet spell: one could be lost on a loaded host. */
    private static final int REPLAYS = 2;
    /** The longest drain the contract allows ([SPEC-CONF-24], [SPEC-STATE-7]), from the CLOSE reply. */
    private static final long DRAIN_LIMIT_MILLIS = 5_000;
    /**
     * Added to {@link #DRAIN_LIMIT_MILLIS} before a drain still going FAILs: the IUT's timer may fire late on a
     * loaded host. A host that stalled the suite itself longer than this makes the case SKIP instead.
     */
    private static final long DRAIN_MARGIN_MILLIS = 2_000;

    private static void challenge(CaseContext c) {
        WireSession s = c.open(1);
        int mark = s.mark();
        Received r = null;
        int connects = 0;
        // A client resends an unanswered CONNECT ([SPEC-CONN-5]); so does the suite, up to three times.
        while (r == null && connects < 3) {
            s.sendConnect(null);
            connects++;
            r = s.awaitType(mark, PacketType.CHALLENGE);
        }
        Checks.check(r != null, "no CHALLENGE came within %d ms of each of %d CONNECTs without a cookie",
                c.options().waitMillis(), connects);
        checkHandshakeHeader(s, r, "the CHALLENGE");
        c.quiet(s);
        Checks.check(s.ofType(mark, PacketType.ACCEPT).isEmpty(), "a CONNECT without a cookie was ACCEPTed: the server"
                + " must stay stateless until a valid cookie [SPEC-CONN-9]");
        int challenges = s.ofType(mark, PacketType.CHALLENGE).size();
        Checks.check(challenges <= connects, "%d CHALLENGEs came for %d CONNECTs: a CHALLENGE is no larger than its"
                + " CONNECT and one answers one, so the server cannot amplify [SPEC-CONN-9]", challenges, connects);
    }

    private static void accept(CaseContext c) {
        WireSession s = c.open(2);
        Received r = s.handshake();
        Packet a = r.packet();
        checkHandshakeHeader(s, r, "the ACCEPT");
        Checks.check(a.pathCount >= 1 && a.pathCount <= 2, "the ACCEPT grants %d paths; the CONNECT asked for 2"
                + " [SPEC-CONN-15]", a.pathCount);
        Checks.check(a.sourceConnectionId != 0, "the ACCEPT's sourceConnectionId is 0 [SPEC-CONN-2]");
        Checks.checkEquals(0, a.announcementSequence, "the first ACCEPT's announcementSequence [SPEC-CONN-17]");
        checkAnnouncedShare(c, a.rateHintBytesPerSecond, "the ACCEPT's rateHintBytesPerSecond");
    }

    /** Checks a share the responder announced against its capacity ([SPEC-CONF-4], [SPEC-CC-11]). */
    static void checkAnnouncedShare(CaseContext c, long hint, String what) {
        long capacity = c.options().capacityBytesPerSecond();
        if (capacity == 0) {
            Checks.check(hint == 0, "%s is %d with the responder's allocator off; it must be 0 [SPEC-SACK-9]", what, hint);
        } else if (capacity > 0) {
            Checks.check(hint >= 1 && hint <= capacity, "%s is %d, outside [1, %d] (the responder's capacity)"
                    + " [SPEC-CC-11]", what, hint, capacity);
        }
    }

    private static void repeatedConnect(CaseContext c) {
        WireSession s = c.open(1);
        int mark = s.mark();
        s.sendConnect(null);
        Received challenge = s.awaitType(mark, PacketType.CHALLENGE);
        Checks.check(challenge != null, "no CHALLENGE for a CONNECT without a cookie");
        byte[] cookie = challenge.packet().cookie.clone();
        int first = s.mark();
        s.sendConnect(cookie);
        Received accept = s.awaitType(first, PacketType.ACCEPT);
        Checks.check(accept != null, "no ACCEPT for a CONNECT with the CHALLENGE's cookie");
        s.established(accept);
        int second = s.mark();
        s.sendConnect(cookie);
        Received again = s.awaitType(second, PacketType.ACCEPT);
        Checks.check(again != null, "no ACCEPT for a repeated CONNECT with a valid cookie: a lost ACCEPT could never"
                + " be repaired [SPEC-CONN-13]");
        Checks.check(again.packet().sourceConnectionId == accept.packet().sourceConnectionId, "the repeated CONNECT"
                + " got an ACCEPT naming connection %s, the first named %s: a second connection [SPEC-CONN-12]",
                Long.toUnsignedString(again.packet().sourceConnectionId),
                Long.toUnsignedString(accept.packet().sourceConnectionId));
        // The one connection carries a message both ways.
        byte[] m = Scenarios.bytes(500, 11);
        Scenarios.sendAll(s, s.send(ResponderContract.ECHO_STREAM, m), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND after the repeated CONNECT");
        Scenarios.checkEcho(s, 0, m, "a SEND after the repeated CONNECT");
    }

    private static void forgedCookie(CaseContext c) {
        WireSession s = c.open(1);
        byte[] forged = new byte[WireConstants.COOKIE_BYTES];
        new SplittableRandom(c.options().seed()).nextBytes(forged);
        int mark = s.mark();
        s.sendConnect(forged);
        Received r = s.awaitType(mark, PacketType.CHALLENGE);
        Checks.check(r != null, "no CHALLENGE came for a CONNECT with a forged cookie [SPEC-CONN-9]");
        c.quiet(s);
        Checks.check(s.ofType(mark, PacketType.ACCEPT).isEmpty(), "a CONNECT with a forged cookie was ACCEPTed"
                + " [SPEC-CONN-11]");
    }

    private static void liveIdElsewhere(CaseContext c) {
        WireSession live = c.connect(1);
        byte[] first = Scenarios.bytes(300, 41);
        Scenarios.sendAll(live, live.send(ResponderContract.ECHO_STREAM, first), 0);
        Scenarios.awaitEchoes(live, 1, "a SEND on the live connection");
        int liveMark = live.mark();
        // Another socket (another source port) names the live connection's client id: a valid cookie for that
        // address and id is to be had (the CHALLENGE is stateless), but the CONNECT carrying it must create nothing.
        WireSession other = c.openAs(1, live.localId());
        byte[] cookie = other.requestCookie(" from a second address");
        int withCookie = other.mark();
        for (int i = 0; i < REPLAYS; i++) {
            other.sendConnect(cookie);
            c.quiet(other);
        }
        List<Received> accepts = other.ofType(withCookie, PacketType.ACCEPT);
        Checks.check(accepts.isEmpty(), "a CONNECT with a valid cookie naming client id %s, which a live connection"
                + " (the IUT's %s) holds for another address, was ACCEPTed (naming connection %s): it must create"
                + " nothing [SPEC-CONN-16]", Long.toUnsignedString(live.localId()),
                Long.toUnsignedString(live.peerId()),
                accepts.isEmpty() ? "" : Long.toUnsignedString(accepts.getFirst().packet().sourceConnectionId));
        // The live connection goes on as it was: no CLOSE, and its next SEND is echoed as its second message.
        byte[] second = Scenarios.bytes(300, 42);
        Scenarios.sendAll(live, live.send(ResponderContract.ECHO_STREAM, second), 0);
        Scenarios.awaitEchoes(live, 2, "a SEND on the live connection after a CONNECT for its client id from"
                + " another address [SPEC-CONN-16]");
        Scenarios.checkEcho(live, 1, second, "the live connection's second SEND");
        Checks.check(live.echoes().get(1).messageSequence() == 1, "the live connection's second echo has MSN %d, not 1:"
                + " the connection was reset by a CONNECT from another address [SPEC-CONN-16]",
                live.echoes().get(1).messageSequence());
        Checks.check(live.ofType(liveMark, PacketType.CLOSE).isEmpty(), "the live connection got a CLOSE after a"
                + " CONNECT for its client id from another address [SPEC-CONN-16]");
    }

    private static void replayAfterClose(CaseContext c) {
        WireSession s = c.open(1);
        WireSession.Handshake opened = s.handshakeOnce("");
        byte[] cookie = opened.cookie();
        long ended = opened.accept().packet().sourceConnectionId;
        byte[] m = Scenarios.bytes(400, 43);
        Scenarios.sendAll(s, s.send(ResponderContract.ECHO_STREAM, m), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND before the CLOSE");
        int closing = s.mark();
        s.sendClose(CloseCode.NO_ERROR, false);
        Received closeReply = s.awaitType(closing, PacketType.CLOSE);
        Checks.check(closeReply != null, "no CLOSE reply within %d ms of a CLOSE [SPEC-STATE-6]",
                c.options().waitMillis());
        // Replayed while the connection drains: the server still holds it, so its ACCEPT may come again
        // ([SPEC-CONN-12] rule 1), but never one naming another connection.
        int draining = s.mark();
        s.sendConnect(cookie);
        c.quiet(s);
        checkNoNewConnection(s.ofType(draining, PacketType.ACCEPT), ended, "during its drain");
        // The drain ends ([SPEC-STATE-7]), within 5 s ([SPEC-CONF-24]): a CLOSE then gets no reply, the connection id
        // being unknown. A drain still going past the bound and a margin FAILs, unless the host stalled the suite for
        // longer than the margin (then the host, not the IUT, may be the cause); datagrams the host dropped turn the
        // failure into a SKIP as for every case.
        long quietNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(c.options().quietMillis());
        long stalled = 0;
        int lastPoll;
        while (true) {
            lastPoll = s.mark();
            long pollFrom = System.nanoTime();
            s.sendClose(CloseCode.NO_ERROR, false);
            c.quiet(s);
            stalled += Math.max(0, System.nanoTime() - pollFrom - quietNanos);
            if (s.ofType(lastPoll, PacketType.CLOSE).isEmpty()) {
                break;
            }
            long drained = System.nanoTime() - closeReply.arrivalNanos();
            if (drained > java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DRAIN_LIMIT_MILLIS + DRAIN_MARGIN_MILLIS)) {
                String seen = String.format(Locale.ROOT, "the closed connection still answered CLOSEs %.1f s after its"
                        + " CLOSE reply", drained / 1e9);
                if (stalled > java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DRAIN_MARGIN_MILLIS)) {
                    throw new CaseSkipped(String.format(Locale.ROOT, "%s: %s (the suite's own waits overran by %.1f"
                            + " s in all), so a late drain timer cannot be told from one that never fires"
                            + " [SPEC-CONF-24]", CaseSkipped.HOST_TOO_SLOW, seen, stalled / 1e9));
                }
                throw new CaseFailure(String.format(Locale.ROOT, "%s: a drain lasts at most %d ms for the contract"
                        + " (%d ms allowed with the margin), then the connection is CLOSED and its CLOSEs unanswered"
                        + " [SPEC-STATE-7], [SPEC-CONF-24]", seen, DRAIN_LIMIT_MILLIS,
                        DRAIN_LIMIT_MILLIS + DRAIN_MARGIN_MILLIS));
            }
        }
        int replay = s.mark();
        for (int i = 0; i < REPLAYS; i++) {
            s.sendConnect(cookie);
            c.quiet(s);
        }
        List<Received> accepts = s.ofType(replay, PacketType.ACCEPT);
        checkNoNewConnection(accepts, ended, "after it ended");
        // A CLOSE reply that came after the poll saw none says the IUT was only slow: its connection may have been
        // draining still, and the ACCEPT of a connection held is allowed. Otherwise the replay must be ignored.
        boolean stillHeld = !s.ofType(lastPoll, PacketType.CLOSE).isEmpty();
        Checks.check(stillHeld || accepts.isEmpty(), "the CONNECT that opened connection %s, replayed after it ended"
                + " (its CLOSEs no longer answered), got its ACCEPT again: a replay of an ended connection's CONNECT"
                + " must be ignored [SPEC-CONN-16]", Long.toUnsignedString(ended));
        // A cookie issued after the end is no replay: a fresh handshake with the same client id opens a new
        // connection (from a socket of its own, whose echoes start at MSN 0).
        WireSession fresh = c.openAs(1, s.localId());
        fresh.handshakeOnce(" naming an ended connection's client id, in a fresh handshake (a cookie issued after"
                + " the connection ended): only cookies issued before the end are replays [SPEC-CONN-16]");
        byte[] n = Scenarios.bytes(400, 44);
        Scenarios.sendAll(fresh, fresh.send(ResponderContract.ECHO_STREAM, n), 0);
        Scenarios.awaitEchoes(fresh, 1, "a SEND on the connection a fresh handshake opened");
        Scenarios.checkEcho(fresh, 0, n, "the new connection's SEND");
        Checks.check(fresh.echoes().getFirst().messageSequence() == 0, "the new connection's first echo has MSN %d,"
                + " not 0 [SPEC-CONN-12]", fresh.echoes().getFirst().messageSequence());
    }

    private static void badConnect(CaseContext c) {
        WireSession s = c.open(1);
        List<BadConnect> breakages = List.of(
                new BadConnect("destinationConnectionId 1", 8, 8, 1),
                new BadConnect("sourceConnectionId 0", 32, 8, 0),
                new BadConnect("maxDatagramBytes 255", 40, 4, 255),
                new BadConnect("pathCount 0", 44, 2, 0),
                new BadConnect("cookieLength 23", 46, 2, 23),
                new BadConnect("sequenceWindow 63", 48, 4, 63));
        for (BadConnect b : breakages) {
            byte[] d = connectDatagram(s, CaseContext.DEFAULT_MAX_DATAGRAM, CaseContext.DEFAULT_SEQUENCE_WINDOW, null);
            ByteBuffer buf = ByteBuffer.wrap(d);
            switch (b.size()) {
                case 8 -> buf.putLong(b.offset(), b.value());
                case 4 -> buf.putInt(b.offset(), (int) b.value());
                default -> buf.putShort(b.offset(), (short) b.value());
            }
            new PacketCodec().reseal(buf, 0, d.length);
            int mark = s.mark();
            s.sendUnnumbered(0, d, d.length);
            c.quiet(s);
            Checks.check(s.mark() == mark, "a CONNECT with %s was answered (%s): a CONNECT breaking a rule of its layout"
                    + " is dropped [SPEC-WIRE-22]", b.name(), s.received().subList(mark, s.mark()));
        }
        // Unsigned u32 fields: 2^31 and 2^32 − 1 are valid sizes, not negative ones.
        int mark = s.mark();
        s.sendUnnumbered(0, connectDatagram(s, Integer.MIN_VALUE, -1, null), WireConstants.CONNECT_BYTES);
        Received challenge = s.awaitType(mark, PacketType.CHALLENGE);
        Checks.check(challenge != null, "no CHALLENGE for a CONNECT with maxDatagramBytes 2^31 and sequenceWindow"
                + " 2^32 - 1: u32 fields are unsigned and such values valid [SPEC-WIRE-22]");
        int accepting = s.mark();
        s.sendUnnumbered(0, connectDatagram(s, Integer.MIN_VALUE, -1, challenge.packet().cookie),
                WireConstants.CONNECT_BYTES);
        Received accept = s.awaitType(accepting, PacketType.ACCEPT);
        Checks.check(accept != null, "no ACCEPT for a CONNECT with maxDatagramBytes 2^31, sequenceWindow 2^32 - 1"
                + " and the CHALLENGE's cookie [SPEC-WIRE-22], [SPEC-CONN-14]");
        s.established(accept);
        s.sendClose(CloseCode.NO_ERROR, false);
    }

    /** A CONNECT of {@code s}'s client id with the given u32 values (as bits) and {@code cookie} (null: none). */
    private static byte[] connectDatagram(WireSession s, int maxDatagram, int window, byte[] cookie) {
        Packet p = new Packet();
        p.type = PacketType.CONNECT;
        p.sourceConnectionId = s.localId();
        p.maxDatagramBytes = maxDatagram;
        p.pathCount = 1;
        p.sequenceWindow = window;
        if (cookie != null) {
            p.hasCookie = true;
            System.arraycopy(cookie, 0, p.cookie, 0, WireConstants.COOKIE_BYTES);
        }
        byte[] d = new byte[WireConstants.CONNECT_BYTES];
        int n = new PacketCodec().encode(p, ByteBuffer.wrap(d), 0, null, 0);
        Checks.require(n == d.length, "a CONNECT is " + d.length + " bytes");
        return d;
    }

    /** Every ACCEPT in {@code accepts} names {@code ended}: a replayed CONNECT opened no other connection. */
    private static void checkNoNewConnection(List<Received> accepts, long ended, String when) {
        for (Received a : accepts) {
            Checks.check(a.packet().sourceConnectionId == ended, "the CONNECT that opened connection %s, replayed %s,"
                    + " was ACCEPTed as connection %s: a replayed CONNECT opened a second connection [SPEC-CONN-16],"
                    + " [SPEC-CONN-12]", Long.toUnsignedString(ended), when,
                    Long.toUnsignedString(a.packet().sourceConnectionId));
        }
    }

    /** A handshake answer: to the client's id, path 0, no sequence numbers, on the socket the CONNECT left from. */
    private static void checkHandshakeHeader(WireSession s, Received r, String what) {
        Packet p = r.packet();
        Checks.check(p.destinationConnectionId == s.localId(), "%s names connection %s, not the CONNECT's"
                + " sourceConnectionId %s [SPEC-CONN-9]", what, Long.toUnsignedString(p.destinationConnectionId),
                Long.toUnsignedString(s.localId()));
        Checks.check(p.pathId == 0 && p.connectionSequence == 0 && p.pathSequence == 0, "%s has pathId %d, CSN %d,"
                + " PSN %d; all must be 0 [SPEC-CONN-9], [SPEC-CONN-13]", what, p.pathId, p.connectionSequence,
                p.pathSequence);
        Checks.check(r.path() == 0, "%s reached the suite's socket %d, not the one the CONNECT left from", what, r.path());
    }
}
