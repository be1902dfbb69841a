package io.metaroce.bench.conformance;

import io.metaroce.core.wire.CloseCode;
import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import java.util.List;

/**
 * Cases of control exchanges: path probes, refusals (NAKs) that leave the connection going, and
 * the close handshake.
 *
 * <p>Stateless; thread-safe.
 */
final class ControlCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;

    private ControlCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("probe.answered",
                        "a PATH_PROBE is answered on its path by a PROBE_ACK echoing its id and timestamp",
                        "SPEC-STATE-9, SPEC-WIRE-26, SPEC-PATH-1, SPEC-PATH-12", "R-PATH-4, R-CONN-4",
                        ControlCases::probe),
                ConformanceCase.of("nak.invalid-stream",
                        "a SEND on a stream id beyond every maxStreams is refused with REMOTE_INVALID_REQUEST, not"
                                + " acknowledged, and the connection goes on",
                        "SPEC-NAK-1, SPEC-NAK-2, SPEC-NAK-7, SPEC-SACK-2, SPEC-WIRE-20", "R-JAVA-4, R-OOO-2",
                        ControlCases::invalidStream),
                ConformanceCase.of("nak.unknown-key",
                        "a WRITE naming remote key 0 is refused with REMOTE_ACCESS_ERROR; the stream goes on",
                        "SPEC-NAK-1, SPEC-NAK-2, SPEC-NAK-3, SPEC-MEM-3, SPEC-MEM-9, SPEC-MEM-11",
                        "R-OOO-3, R-JAVA-4", ControlCases::unknownKey),
                ConformanceCase.of("close.graceful",
                        "a CLOSE is answered by a CLOSE reply, again for a repeated CLOSE, and DATA after it is ignored",
                        "SPEC-STATE-1, SPEC-STATE-3, SPEC-STATE-5, SPEC-STATE-6, SPEC-STATE-7, SPEC-WIRE-25", "R-CONN-4",
                        ControlCases::closeGraceful),
                ConformanceCase.of("close.draining-silent",
                        "closed by the suite while an echo of three packets waits for its ACK, the IUT sends no DATA"
                                + " and no PATH_PROBE after its CLOSE reply (neither the echo's retransmissions nor a"
                                + " keep-alive) for three minimum RTOs and past the keep-alive",
                        "SPEC-STATE-2, SPEC-STATE-6, SPEC-STATE-7, SPEC-CONF-5, SPEC-CONF-13", "R-CONN-4",
                        ControlCases::drainingSilent),
                ConformanceCase.of("close.closing",
                        "told to close (the close command), the IUT sends CLOSE once its reply is acknowledged; left"
                                + " unanswered, it still acknowledges a SEND (without echoing it) and answers a"
                                + " PATH_PROBE, and sends nothing but CLOSE, ACK, NAK and PROBE_ACK until it gives up",
                        "SPEC-STATE-2, SPEC-STATE-3, SPEC-STATE-1, SPEC-STATE-5, SPEC-STATE-9, SPEC-CONF-27",
                        "R-CONN-4", ControlCases::closing));
    }

    private static void probe(CaseContext c) {
        WireSession s = c.connect(2);
        long[] ids = {0x0123_4567_89AB_CDEFL, -2L};
        long[] stamps = {-7L, 42L};
        int mark = s.mark();
        for (int path = 0; path < 2; path++) {
            s.sendProbe(path, ids[path], stamps[path]);
        }
        s.await(() -> s.ofType(mark, PacketType.PROBE_ACK).size() >= 2);
        // Extra copies come after the first ones: listen a while so that they can be seen.
        c.quiet(s);
        List<Received> acks = s.ofType(mark, PacketType.PROBE_ACK);
        int[] perPath = new int[2];
        for (Received r : acks) {
            if (r.packet().pathId == 0 || r.packet().pathId == 1) {
                perPath[r.packet().pathId]++;
            }
        }
        // A PROBE_ACK goes more than once only on a path whose receive side saw sequence numbers skipped
        // ([SPEC-SACK-14]); these paths carried nothing before the probes, so one each.
        Checks.check(acks.size() == 2 && perPath[0] == 1 && perPath[1] == 1, "%d PROBE_ACKs came for 2 PATH_PROBEs"
                + " (%d on path 0, %d on path 1), expected one each: copies are for a path that loses much, and these"
                + " paths skipped no sequence number [SPEC-STATE-9], [SPEC-SACK-14]", acks.size(), perPath[0],
                perPath[1]);
        for (Received r : acks) {
            Packet p = r.packet();
            Checks.check(p.pathId == 0 || p.pathId == 1, "a PROBE_ACK names path %d", p.pathId);
            Checks.check(p.probeId == ids[p.pathId] && p.timestampNanos == stamps[p.pathId], "the PROBE_ACK of path %d"
                    + " carries probeId %d and timestamp %d, not the probe's %d and %d [SPEC-STATE-9]", p.pathId,
                    p.probeId, p.timestampNanos, ids[p.pathId], stamps[p.pathId]);
            Checks.check(r.path() == p.pathId, "the PROBE_ACK of path %d reached the socket of path %d: it must go on"
                    + " the path it names [SPEC-STATE-9]", p.pathId, r.path());
            Checks.check(p.connectionSequence == 0 && p.pathSequence == 0, "a PROBE_ACK carries CSN %d, PSN %d"
                    + " [SPEC-PATH-4]", p.connectionSequence, p.pathSequence);
        }
    }

    private static void invalidStream(CaseContext c) {
        WireSession s = c.connect(1);
        int stream = 0xFFFF_FFFF;
        Segment bad = s.send(stream, Scenarios.bytes(100, 61)).getFirst();
        int mark = s.mark();
        Sent refused = s.send(bad, 0);
        s.markRefused(refused);
        Received nak = s.awaitType(mark, PacketType.NAK);
        Checks.check(nak != null, "no NAK for a SEND on stream %d within %d ms [SPEC-NAK-2]",
                Integer.toUnsignedLong(stream), c.options().waitMillis());
        checkNak(nak, NakCode.REMOTE_INVALID_REQUEST, refused, bad);
        goesOn(c, s, "a SEND after a refused one");
    }

    private static void unknownKey(CaseContext c) {
        WireSession s = c.connect(1);
        Segment bad = s.write(ECHO, Scenarios.bytes(100, 62), 0, 0).getFirst();
        int mark = s.mark();
        Sent refused = s.send(bad, 0);
        s.markRefused(refused);
        Received nak = s.awaitType(mark, PacketType.NAK);
        Checks.check(nak != null, "no NAK for a WRITE naming remote key 0 within %d ms [SPEC-MEM-11]",
                c.options().waitMillis());
        checkNak(nak, NakCode.REMOTE_ACCESS_ERROR, refused, bad);
        // The failed WRITE took MSN 0 of the stream; the SEND after it (MSN 1, RSN 0) must still complete.
        goesOn(c, s, "a SEND after a refused WRITE on its stream [SPEC-NAK-3]");
    }

    static void checkNak(Received nak, int code, Sent refused, Segment seg) {
        Packet n = nak.packet();
        Checks.check(n.nakCode == code, "the NAK has code %d, expected %d [SPEC-NAK-2]", n.nakCode, code);
        Checks.check(n.pathId == refused.path() && n.refusedPathSequence == refused.pathSequence()
                && n.refusedConnectionSequence == refused.connectionSequence() && n.streamId == seg.streamId
                && n.messageSequence == seg.messageSequence, "the NAK names path %d, PSN %d, CSN %d, stream %d, MSN %d;"
                + " the refused packet was path %d, PSN %d, CSN %d, stream %d, MSN %d [SPEC-NAK-1]", n.pathId,
                n.refusedPathSequence, n.refusedConnectionSequence, Integer.toUnsignedLong(n.streamId),
                n.messageSequence, refused.path(), refused.pathSequence(), refused.connectionSequence(),
                Integer.toUnsignedLong(seg.streamId), seg.messageSequence);
        Checks.check(n.retryAfterNanos == 0, "a NAK of code %d carries retryAfterNanos %d, expected 0 [SPEC-NAK-1]",
                code, n.retryAfterNanos);
        Checks.check(n.connectionSequence == 0 && n.pathSequence == 0, "the NAK carries CSN %d, PSN %d [SPEC-NAK-1]",
                n.connectionSequence, n.pathSequence);
        Checks.check(nak.path() == refused.path(), "the NAK reached socket %d, not the refused packet's path %d"
                + " [SPEC-NAK-1]", nak.path(), refused.path());
    }

    /** The connection still carries a SEND both ways, and no ACK acknowledged the refused packet. */
    private static void goesOn(CaseContext c, WireSession s, String what) {
        byte[] m = Scenarios.bytes(300, 63);
        Sent last = Scenarios.sendAll(s, s.send(ECHO, m), 0).getLast();
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        Scenarios.awaitEchoes(s, 1, what);
        Scenarios.checkEcho(s, 0, m, what);
        Scenarios.checkAllAcks(s);
        Checks.check(s.ofType(0, PacketType.CLOSE).isEmpty(), "the refusal closed the connection [SPEC-NAK-7]");
    }

    private static void closeGraceful(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(200, 64);
        Scenarios.sendAll(s, s.send(ECHO, m), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND before the CLOSE");
        int mark = s.mark();
        s.sendClose(CloseCode.NO_ERROR, false);
        Received reply = s.awaitType(mark, PacketType.CLOSE);
        Checks.check(reply != null, "no CLOSE reply within %d ms of a CLOSE [SPEC-STATE-6]", c.options().waitMillis());
        checkReply(reply);
        int again = s.mark();
        s.sendClose(CloseCode.NO_ERROR, false);
        Received second = s.awaitType(again, PacketType.CLOSE);
        Checks.check(second != null, "no CLOSE reply to a repeated CLOSE (a lost reply could never be repaired)"
                + " [SPEC-STATE-6], [SPEC-STATE-7]");
        checkReply(second);
        // Reliable packets after the peer's CLOSE are ignored: nothing is placed, completed or acknowledged.
        int late = s.mark();
        Sent after = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(200, 65)), 0).getLast();
        s.markRefused(after);
        c.quiet(s);
        Checks.check(Scenarios.ackOf(s, 0, after.pathSequence()) == null, "a SEND after the CLOSE was acknowledged"
                + " [SPEC-STATE-3]");
        Checks.check(s.echoes().size() == 1, "a SEND after the CLOSE was delivered [SPEC-STATE-3]");
        Checks.check(s.ofType(late, PacketType.DATA).isEmpty(), "the responder sent DATA after the CLOSE [SPEC-STATE-2]");
    }

    private static void drainingSilent(CaseContext c) {
        WireSession s = c.connect(1);
        s.autoAck(false);
        Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(3 * s.payloadSize() - 7, 66)), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND whose echo the suite leaves unacknowledged");
        // The echo is in flight, unacknowledged: its retransmission timer runs, and so does the keep-alive.
        int mark = s.mark();
        s.sendClose(CloseCode.NO_ERROR, false);
        Received reply = s.awaitType(mark, PacketType.CLOSE);
        Checks.check(reply != null, "no CLOSE reply within %d ms of a CLOSE [SPEC-STATE-6]", c.options().waitMillis());
        checkReply(reply);
        int afterReply = s.received().indexOf(reply) + 1;
        long listen = Math.max(3 * c.options().minRtoMillis(), c.options().keepAliveMillis() + c.options().quietMillis());
        s.quiet(listen);
        for (Received r : s.received().subList(afterReply, s.received().size())) {
            Checks.check(allowedWhileDraining(r, s.peerId()), "the IUT sent %s %.1f ms after its CLOSE reply: a"
                    + " connection in DRAINING sends only CLOSE replies, ACK, NAK, PROBE_ACK and its ACCEPT again"
                    + " [SPEC-STATE-2], [SPEC-CONN-12]", r, (r.arrivalNanos() - reply.arrivalNanos()) / 1e6);
        }
    }

    /** How long {@code close.closing} listens after the IUT's first CLOSE: past the 315 ms a default CLOSING lasts. */
    private static final long CLOSING_LISTEN_MILLIS = 400;

    /** Attempts of {@code close.closing} before it gives up on a host too slow for the IUT's CLOSING. */
    private static final int CLOSING_ATTEMPTS = 3;

    private static void closing(CaseContext c) {
        for (int attempt = 0; attempt < CLOSING_ATTEMPTS; attempt++) {
            if (closingAttempt(c)) {
                return;
            }
        }
        throw new CaseSkipped(CaseSkipped.HOST_TOO_SLOW + ": in each of " + CLOSING_ATTEMPTS + " attempts the suite's"
                + " SEND or PATH_PROBE went unanswered and no CLOSE of the IUT came after it left: the IUT may have ended"
                + " its CLOSING (315 ms with the §12.1 defaults) before they arrived [SPEC-CONF-27]");
    }

    /**
     * One attempt of {@code close.closing}: true when judged (it throws on a fault); false when a
     * SEND or PATH_PROBE sent in CLOSING went unanswered but no CLOSE of the IUT came after it
     * left, so the IUT may have ended CLOSING before it arrived (a suite that read its first CLOSE
     * late). Its CLOSE sent but once, whenever the suite read it, is no such case: CLOSING sends it
     * six times in 155 ms with the §12.1 defaults ([SPEC-STATE-5]).
     */
    private static boolean closingAttempt(CaseContext c) {
        WireSession s = c.connect(1);
        Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(200, 67)), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND before the close command");
        int mark = s.mark();
        Commands.close(s);
        // The reply is acknowledged (the suite's receiver), so the IUT's send-side work is done: CLOSING.
        Received close = s.awaitType(mark, PacketType.CLOSE);
        Checks.check(close != null, "no CLOSE within %d ms of the close command's reply, acknowledged: a connection"
                + " closing gracefully sends CLOSE once its work is done [SPEC-STATE-1], [SPEC-CONF-27]",
                c.options().waitMillis());
        Packet p = close.packet();
        Checks.check(!p.closeReply && p.closeCode == CloseCode.NO_ERROR, "the IUT's CLOSE after the close command has"
                + " the reply flag %s and code %d, not a CLOSE of its own with NO_ERROR [SPEC-STATE-5]", p.closeReply,
                p.closeCode);
        // Left unanswered, the IUT is in CLOSING: a graceful close still places and acknowledges what comes.
        int probes = s.mark();
        Sent late = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 68)), 0).getLast();
        s.sendProbe(0, 0x5EED_C105EL, 17);
        boolean acked = s.await(() -> Scenarios.ackOf(s, 0, late.pathSequence()) != null
                && s.firstOfType(probes, PacketType.PROBE_ACK) != null);
        boolean stillClosing = false;
        for (Received r : s.ofType(probes, PacketType.CLOSE)) {
            stillClosing |= r.arrivalNanos() > late.timestampNanos();
        }
        if (!acked && !stillClosing) {
            if (ownCloses(s, mark) < 2) {
                s.quiet(CLOSING_LISTEN_MILLIS); // past the whole schedule, however late the suite read the first
                checkCloseRepeated(s, mark, " (nor acknowledged a SEND sent after it)");
            }
            return false;
        }
        Checks.check(Scenarios.ackOf(s, 0, late.pathSequence()) != null, "a SEND that reached the IUT in CLOSING (a"
                + " graceful close, its CLOSE unanswered and sent again after the SEND left) was not acknowledged within"
                + " %d ms [SPEC-STATE-3]", c.options().waitMillis());
        Checks.check(s.firstOfType(probes, PacketType.PROBE_ACK) != null, "a PATH_PROBE to the IUT in CLOSING got no"
                + " PROBE_ACK within %d ms [SPEC-STATE-9]", c.options().waitMillis());
        s.quiet(CLOSING_LISTEN_MILLIS);
        // Answering the SEND and the PATH_PROBE is not enough: the IUT's second CLOSE was due 5 ms after its
        // first, long before the listen ends, however late the suite read the first.
        checkCloseRepeated(s, mark, "");
        int from = s.received().indexOf(close);
        for (Received r : s.received().subList(from, s.received().size())) {
            Checks.check(allowedWhileClosing(r), "the IUT sent %s %.1f ms after its CLOSE, unanswered: a connection in"
                    + " CLOSING sends only CLOSE, CLOSE replies, ACK, NAK and PROBE_ACK (no DATA, READ_REQUEST or"
                    + " PATH_PROBE) [SPEC-STATE-2]", r, (r.arrivalNanos() - close.arrivalNanos()) / 1e6);
        }
        Checks.check(s.messagesOn(ECHO).size() == 1, "the IUT echoed a SEND it received in CLOSING: it sent DATA"
                + " [SPEC-STATE-2]");
        return true;
    }

    /**
     * Fails unless the IUT sent its own CLOSE at least twice since {@code mark}, the suite having listened
     * {@link #CLOSING_LISTEN_MILLIS} after the first ([SPEC-STATE-5]); {@code besides} adds what else went
     * unanswered.
     */
    private static void checkCloseRepeated(WireSession s, int mark, String besides) {
        Checks.check(ownCloses(s, mark) >= 2, "the IUT sent its CLOSE once and, unanswered, never again in %d ms%s: a"
                + " connection in CLOSING sends CLOSE again after closeRetryNanos, 5 ms with the §12.1 defaults, and at"
                + " doubling intervals after [SPEC-STATE-5]", CLOSING_LISTEN_MILLIS, besides);
    }

    /** The CLOSEs of the IUT's own (not replies) received at or after {@code mark}. */
    private static int ownCloses(WireSession s, int mark) {
        int n = 0;
        for (Received r : s.ofType(mark, PacketType.CLOSE)) {
            n += r.packet().closeReply ? 0 : 1;
        }
        return n;
    }

    /** Whether a connection in CLOSING may send {@code r} ([SPEC-STATE-2]). */
    private static boolean allowedWhileClosing(Received r) {
        return switch (r.type()) {
            case PacketType.CLOSE, PacketType.ACK, PacketType.NAK, PacketType.PROBE_ACK -> true;
            default -> false;
        };
    }

    /**
     * Whether a connection in DRAINING may send {@code r} ([SPEC-STATE-2]): a CLOSE reply, ACK, NAK,
     * PROBE_ACK, or the connection's own ACCEPT sent again ([SPEC-CONN-12] rule 1). Anything else (DATA,
     * a CLOSE without the reply flag, a PATH_PROBE, an ACCEPT naming another connection) is not.
     */
    private static boolean allowedWhileDraining(Received r, long connection) {
        return switch (r.type()) {
            case PacketType.ACK, PacketType.NAK, PacketType.PROBE_ACK -> true;
            case PacketType.CLOSE -> r.packet().closeReply;
            case PacketType.ACCEPT -> r.packet().sourceConnectionId == connection;
            default -> false;
        };
    }

    private static void checkReply(Received reply) {
        Packet p = reply.packet();
        Checks.check(p.closeReply, "the answer to a CLOSE is a CLOSE without the reply flag [SPEC-STATE-5]");
        Checks.check(p.closeCode == CloseCode.NO_ERROR, "a CLOSE reply carries code %d, not NO_ERROR [SPEC-STATE-5]",
                p.closeCode);
        Checks.check(p.connectionSequence == 0 && p.pathSequence == 0, "the CLOSE reply carries CSN %d, PSN %d"
                + " [SPEC-STATE-5]", p.connectionSequence, p.pathSequence);
    }
}
