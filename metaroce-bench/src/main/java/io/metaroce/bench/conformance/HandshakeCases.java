package io.metaroce.bench.conformance;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.util.List;
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
                        "SPEC-CONN-9, SPEC-CONN-11", "R-CONN-4", HandshakeCases::forgedCookie));
    }

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
