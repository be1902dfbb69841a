package io.metaroce.bench.conformance;

import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Cases of the implementation under test as a sender, made to send by the echo of its responder
 * ([SPEC-CONF-2]): the fields of its DATA, its repair of a hole the suite's ACK reveals, its
 * answer to repeated ACKs, its sequence window and datagram size. What every case checks of its
 * DATA anyway (CSN reuse, retransmission flags and contents, floors, window, sizes, cuts) is in
 * {@link WireSession}.
 *
 * <p>Stateless; thread-safe.
 */
final class SenderCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;

    private SenderCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("send.echo",
                        "the responder's echo is a SEND cut by the rules, numbered from 0, the last packet asking for an ACK",
                        "SPEC-CONF-2, SPEC-MSG-2, SPEC-MSG-3, SPEC-PATH-3, SPEC-PATH-5, SPEC-SACK-5, SPEC-ADM-2",
                        "R-SACK-1, R-OOO-2", SenderCases::echo),
                ConformanceCase.of("send.hole-resent-on-its-path",
                        "a hole the suite's ACK reveals is resent at once, on the path that lost it, with a new PSN",
                        "SPEC-LOSS-1, SPEC-LOSS-3, SPEC-PATH-5, SPEC-PATH-6, SPEC-SACK-5, SPEC-SACK-6",
                        "R-SACK-2", SenderCases::holeResent),
                ConformanceCase.of("send.repeated-ack",
                        "an ACK repeated four times makes the hole it reveals be resent once, not four times",
                        "SPEC-LOSS-3, SPEC-SACK-6", "R-SACK-2, R-SACK-4", SenderCases::repeatedAck),
                ConformanceCase.of("send.window",
                        "the sender keeps its CSNs within the window and its datagrams within the size the suite announced",
                        "SPEC-ADM-1, SPEC-ADM-2, SPEC-CONN-14, SPEC-WIRE-2", "R-SACK-4, R-CC-3", SenderCases::window),
                ConformanceCase.of("send.ack-now-when-lossy",
                        "after an ACK that reports all but the last of twelve packets of a path lost, the IUT's next"
                                + " message on that path asks for an ACK at once (FLAG_ACK_NOW) on its first"
                                + " transmissions, not only on its last packet",
                        "SPEC-SACK-12, SPEC-LOSS-1, SPEC-LOSS-3, SPEC-SACK-5", "R-SACK-2", SenderCases::ackNowWhenLossy));
    }

    /** Packets of the first echo in {@code send.ack-now-when-lossy}: all but the last reported lost. */
    private static final int LOSSY_PACKETS = 12;

    /**
     * Packets of the second echo in {@code send.ack-now-when-lossy}, whose first transmissions but
     * the last are judged: few enough that the path's loss average stays above 0.15 while they leave.
     */
    private static final int JUDGED_ECHO_PACKETS = 3;

    /**
     * The echo of a SEND of {@link #LOSSY_PACKETS} packets on one path, left unacknowledged until
     * whole, then one ACK reporting only its highest PSN: eleven transmissions lost, so the path's
     * moving average of lost transmissions (gain 1/16, [SPEC-PATH-11]) is at least
     * (1 − (15/16)^11)·15/16 ≈ 0.48 (the one delivered verdict taken last), above 0.15. From then
     * on the suite acknowledges every DATA at once but never those eleven, and has a second SEND of
     * {@link #JUDGED_ECHO_PACKETS} packets echoed: before the last of its echo's first transmissions
     * but one leaves, at most the eleven copies and one earlier packet are acknowledged, so the
     * average is still at least 0.48·(15/16)^12 ≈ 0.22 (eighteen acknowledgements would bring it
     * below 0.15; the margin is for copies the IUT's idle resend may add). Those first transmissions,
     * none of them a message's last packet nor a copy (copies ask for an ACK anyway, [SPEC-SACK-5]),
     * must carry FLAG_ACK_NOW: only [SPEC-SACK-12] asks it of them. An attempt the IUT's timer blurred
     * (a copy or a probe before the lossy ACK, or more than {@link #MAX_ACKED_SINCE_LOSSY} of its
     * transmissions acknowledged since the lossy ACK before a judged packet left) is retried; three,
     * then SKIP.
     */
    /**
     * The most acknowledgements of the IUT's transmissions on the lossy path, since the lossy ACK, under
     * which {@code send.ack-now-when-lossy} judges a packet: the average is then still at least
     * 0.4765·(15/16)^16 ≈ 0.171, above 0.15 (eighteen would bring it to 0.149).
     */
    private static final int MAX_ACKED_SINCE_LOSSY = 16;

    private static void ackNowWhenLossy(CaseContext c) {
        for (int attempt = 0; attempt < HOLE_ATTEMPTS; attempt++) {
            WireSession s = c.connect(1, 512, CaseContext.DEFAULT_SEQUENCE_WINDOW);
            s.autoAck(false);
            byte[] m = Scenarios.bytes(LOSSY_PACKETS * s.payloadSize(), 54);
            Scenarios.sendAll(s, s.send(ECHO, m), 0);
            boolean whole = s.await(() -> !s.echoes().isEmpty());
            Checks.check(whole, "the responder's echo of a SEND of %d packets did not arrive whole within %d ms while"
                    + " unacknowledged (%d DATA packets came)", LOSSY_PACKETS, c.options().waitMillis(),
                    s.data().size());
            boolean blurred = false;
            for (Received r : s.received()) {
                blurred |= r.type() == PacketType.PATH_PROBE || r.type() == PacketType.DATA
                        && (r.packet().flags & WireConstants.FLAG_RETRANSMISSION) != 0;
            }
            if (blurred) {
                s.close();
                continue;
            }
            TreeSet<Long> psns = s.iutPsns(0);
            int sent = psns.size();
            long lossyHighest = psns.last();
            Set<Long> lost = new HashSet<>(psns.headSet(lossyHighest));
            int mark = s.mark();
            s.ackExcept(0, lost);
            // Never acknowledged later either: a late ACK of a transmission declared lost takes the loss back.
            s.reportLost(0, lost);
            s.autoAck(true);
            byte[] judged = Scenarios.bytes(JUDGED_ECHO_PACKETS * s.payloadSize(), 55);
            Scenarios.sendAll(s, s.send(ECHO, judged), 0);
            Scenarios.awaitEchoes(s, 2, "a SEND of " + JUDGED_ECHO_PACKETS + " packets after an ACK reporting "
                    + lost.size() + " transmissions lost");
            Scenarios.checkEcho(s, 1, judged, "the SEND after the lossy ACK");
            int firsts = 0;
            boolean averageBlurred = false;
            for (Received r : s.ofType(mark, PacketType.DATA)) {
                Packet p = r.packet();
                if ((p.flags & WireConstants.FLAG_RETRANSMISSION) != 0
                        || p.payloadMessageOffset + p.payloadLength >= p.messageLength) {
                    continue;
                }
                // Every PSN above the lossy ACK's highest is acknowledged (never one of the eleven): the count
                // bounds the delivered verdicts that may have lowered the average before this packet left.
                int ackedSince = s.iutPsns(0).subSet(lossyHighest, false, p.pathSequence, false).size();
                if (ackedSince > MAX_ACKED_SINCE_LOSSY) {
                    averageBlurred = true; // copies of a slow host's timers: the average may rightly be at 0.15
                    break;
                }
                firsts++;
                Checks.check((p.flags & WireConstants.FLAG_ACK_NOW) != 0, "the IUT sent DATA (CSN %d, PSN %d, offset"
                        + " %d of a message of %d bytes, a first transmission) without FLAG_ACK_NOW on a path of which"
                        + " the suite had reported %d of %d transmissions lost and could have acknowledged at most %d"
                        + " since (moving average above 0.15) [SPEC-SACK-12]", p.connectionSequence, p.pathSequence,
                        p.payloadMessageOffset, p.messageLength, lost.size(), sent,
                        ackedSince);
            }
            if (averageBlurred) {
                s.close();
                continue;
            }
            Checks.check(firsts > 0, "of the echo of a SEND of %d packets after the lossy ACK, no packet but the last"
                    + " came as a first transmission [SPEC-PATH-5]", JUDGED_ECHO_PACKETS);
            return;
        }
        throw new CaseSkipped("in " + HOLE_ATTEMPTS + " attempts the IUT's retransmission timer fired before the suite"
                + " could acknowledge its echo (a copy or a PATH_PROBE came first), or its copies had more than "
                + MAX_ACKED_SINCE_LOSSY + " transmissions acknowledged after the lossy ACK before a judged packet left"
                + " (the average may rightly have fallen to 0.15): " + CaseSkipped.HOST_TOO_SLOW
                + " for the IUT's minimum RTO; run the responder with a longer one [SPEC-CONF-5]");
    }

    private static void echo(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(3 * s.payloadSize() + 17, 51);
        Scenarios.sendAll(s, s.send(ECHO, m), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND of four packets");
        Scenarios.checkEcho(s, 0, m, "a SEND of four packets");
        WireSession.EchoMessage e = s.echoes().getFirst();
        Checks.check(e.messageSequence() == 0 && e.receiveSequence() == 0, "the first message on stream %d has MSN %d"
                + " and RSN %d, expected 0 and 0 [SPEC-MSG-2]", ECHO, e.messageSequence(), e.receiveSequence());
        TreeSet<Long> csns = new TreeSet<>();
        for (Received r : s.data()) {
            Packet p = r.packet();
            Checks.check(p.opcode == DataOpcode.SEND && p.streamId == ECHO, "the echo is opcode %d on stream %d,"
                    + " expected SEND on stream %d [SPEC-CONF-2]", p.opcode, p.streamId, ECHO);
            csns.add(p.connectionSequence);
        }
        Checks.check(csns.first() == 0 && csns.last() == csns.size() - 1, "the responder's first reliable packets carry"
                + " CSNs %s, expected 0, 1, 2, ... [SPEC-PATH-5]", csns);
        TreeSet<Long> psns = s.iutPsns(0);
        Checks.check(psns.first() == 0 && psns.last() == psns.size() - 1, "the responder's transmissions on path 0"
                + " carry PSNs %s, expected 0, 1, 2, ... without gaps [SPEC-PATH-3]", psns);
    }

    /** The state of a hole case once the suite has revealed the hole. */
    private record Hole(WireSession session, byte[] message, int path, long psn, long csn, long highestBefore, int mark,
            boolean blurred) {
    }

    /**
     * Thrown by a hole check that finds the IUT's retransmission timer fired after {@link #revealHole}
     * looked (a PATH_PROBE or a copy of another CSN came after the suite's ACK): the copy it judges may
     * be the timer's, which may rightly go to another path ([SPEC-LOSS-10], [SPEC-PATH-10]).
     */
    private static final class HoleBlurred extends RuntimeException {
        HoleBlurred() {
            super("the IUT's retransmission timer fired after the suite's ACK", null, false, false);
        }
    }

    /** Whether a PATH_PROBE or a transmission of another CSN than {@code csn} came at or after {@code mark}. */
    private static boolean timerFiredAfter(WireSession s, int mark, long csn) {
        List<Received> all = s.received();
        for (int i = mark; i < all.size(); i++) {
            Received r = all.get(i);
            // The whole echo had arrived before the mark, so any DATA of another CSN after it is a copy.
            if (r.type() == PacketType.PATH_PROBE
                    || r.type() == PacketType.DATA && r.packet().connectionSequence != csn) {
                return true;
            }
        }
        return false;
    }

    /** Copies of a hole sent within this time of the first, by the IUT's clock, answer the same burst of ACKs. */
    private static final long BURST_NANOS = 5_000_000;

    /** Attempts at a hole case before it gives up on a host too slow for the IUT's timer. */
    private static final int HOLE_ATTEMPTS = 3;

    /**
     * Runs {@code check} on a revealed hole, again on a fresh connection when the IUT's own timer
     * blurred the scenario (it resent something, or probed, before the suite's ACK, or the check
     * throws {@link HoleBlurred} for a timer that fired after it: legal, and then a copy may rightly
     * go to another path, [SPEC-PATH-10]); SKIPs after {@link #HOLE_ATTEMPTS}.
     */
    private static void withHole(CaseContext c, int repeats, java.util.function.Consumer<Hole> check) {
        for (int attempt = 0; attempt < HOLE_ATTEMPTS; attempt++) {
            Hole h = revealHole(c, repeats);
            if (!h.blurred()) {
                try {
                    check.accept(h);
                    return;
                } catch (HoleBlurred late) {
                    // The timer fired after the snapshot: as blurred as one that fired before it.
                }
            }
            h.session().close();
        }
        throw new CaseSkipped("in " + HOLE_ATTEMPTS + " attempts the IUT's retransmission timer fired before the suite"
                + " could acknowledge its echo (a copy or a PATH_PROBE came first), or its copies had more than "
                + MAX_ACKED_SINCE_LOSSY + " transmissions acknowledged after the lossy ACK before a judged packet left"
                + " (the average may rightly have fallen to 0.15): " + CaseSkipped.HOST_TOO_SLOW
                + " for the IUT's minimum RTO; run the responder with a longer one [SPEC-CONF-5]");
    }

    /**
     * Makes the responder echo a message of twelve packets over two paths, withholds every ACK
     * until the whole echo has arrived, then acknowledges everything but one transmission, not the
     * highest of its path: a hole ([SPEC-LOSS-1]). The ACK revealing it is sent {@code repeats}
     * times.
     */
    private static Hole revealHole(CaseContext c, int repeats) {
        WireSession s = c.connect(2, 512, CaseContext.DEFAULT_SEQUENCE_WINDOW);
        Checks.check(s.grantedPaths() == 2, "the responder granted %d paths of 2 asked [SPEC-CONF-1]", s.grantedPaths());
        s.autoAck(false);
        byte[] m = Scenarios.bytes(12 * s.payloadSize(), 52);
        List<Segment> segs = s.send(ECHO, m);
        for (int i = 0; i < segs.size(); i++) {
            s.send(segs.get(i), i % 2);
        }
        boolean whole = s.await(() -> !s.echoes().isEmpty());
        Checks.check(whole, "the responder's echo of a SEND of 12 packets did not arrive whole within %d ms while"
                + " unacknowledged (%d DATA packets came)", c.options().waitMillis(), s.data().size());
        int path = s.iutPsns(1).size() >= 2 ? 1 : 0;
        TreeSet<Long> psns = s.iutPsns(path);
        Checks.check(psns.size() >= 2, "the responder sent the echo's %d packets all on other paths than %d",
                s.data().size(), path);
        long holePsn = psns.first();
        long holeCsn = csnOf(s, path, holePsn);
        // Every transmission of that CSN stays unacknowledged, on every path, so the CSN is not delivered.
        List<Set<Long>> missing = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            missing.add(new HashSet<>());
        }
        for (Received r : s.data()) {
            if (r.packet().connectionSequence == holeCsn) {
                missing.get(r.packet().pathId).add(r.packet().pathSequence);
            }
        }
        boolean blurred = false;
        for (Received r : s.received()) {
            blurred |= r.type() == PacketType.PATH_PROBE || r.type() == PacketType.DATA
                    && (r.packet().flags & WireConstants.FLAG_RETRANSMISSION) != 0;
        }
        int mark = s.mark();
        long highest = psns.last();
        // The hole's path first: an ACK of the other path alone would make the hole overdue ([SPEC-LOSS-7]),
        // a timeout that may rightly send its copy elsewhere ([SPEC-PATH-10]).
        for (int i = 0; i < repeats; i++) {
            s.ackExcept(path, missing.get(path));
        }
        s.ackExcept(1 - path, missing.get(1 - path));
        return new Hole(s, m, path, holePsn, holeCsn, highest, mark, blurred);
    }

    private static long csnOf(WireSession s, int path, long psn) {
        for (Received r : s.data()) {
            if (r.packet().pathId == path && r.packet().pathSequence == psn) {
                return r.packet().connectionSequence;
            }
        }
        throw new IllegalStateException("no DATA with PSN " + psn + " on path " + path);
    }

    /** The first transmission of {@code csn} received at or after {@code mark}, waiting for it. */
    private static Received awaitCopy(WireSession s, int mark, long csn) {
        Received[] found = new Received[1];
        s.await(() -> (found[0] = s.firstData(mark, csn)) != null);
        return found[0];
    }

    private static void holeResent(CaseContext c) {
        withHole(c, 1, h -> holeResent(c, h));
    }

    private static void holeResent(CaseContext c, Hole h) {
        WireSession s = h.session();
        Received copy = awaitCopy(s, h.mark(), h.csn());
        Checks.check(copy != null, "CSN %d, whose transmission PSN %d on path %d the ACK left as a hole below PSN %d, was"
                + " not sent again within %d ms [SPEC-LOSS-1], [SPEC-LOSS-3]", h.csn(), h.psn(), h.path(),
                h.highestBefore(), c.options().waitMillis());
        Packet p = copy.packet();
        if ((p.pathId != h.path() || copy.path() != h.path()) && timerFiredAfter(s, h.mark(), h.csn())) {
            throw new HoleBlurred();
        }
        Checks.check(p.pathId == h.path() && copy.path() == h.path(), "the hole of path %d was resent on path %d"
                + " (socket %d), not on the path that lost it [SPEC-LOSS-3], [SPEC-PATH-6]", h.path(), p.pathId,
                copy.path());
        Checks.check(p.pathSequence > h.highestBefore(), "the copy carries PSN %d, not a new one above %d"
                + " [SPEC-PATH-5]", p.pathSequence, h.highestBefore());
        int wanted = WireConstants.FLAG_RETRANSMISSION | WireConstants.FLAG_ACK_NOW;
        Checks.check((p.flags & wanted) == wanted, "the copy has flags %d, without FLAG_RETRANSMISSION and"
                + " FLAG_ACK_NOW [SPEC-PATH-5], [SPEC-SACK-5]", p.flags);
        finish(c, h);
    }

    private static void repeatedAck(CaseContext c) {
        int repeats = 4;
        withHole(c, repeats, h -> repeatedAck(c, h, repeats));
    }

    private static void repeatedAck(CaseContext c, Hole h, int repeats) {
        WireSession s = h.session();
        Received copy = awaitCopy(s, h.mark(), h.csn());
        Checks.check(copy != null, "CSN %d, left as a hole by %d identical ACKs, was not sent again within %d ms"
                + " [SPEC-LOSS-3]", h.csn(), repeats, c.options().waitMillis());
        finish(c, h);
        // Copies sent for the repeated ACKs leave in one burst; a later one is the IUT's timer (the suite's
        // answer was late), legal. The IUT's own timestamps (its send times, in nanoseconds) tell them apart.
        int copies = 0;
        int later = 0;
        long firstSent = copy.packet().timestampNanos;
        List<Received> all = s.received();
        for (int i = h.mark(); i < all.size(); i++) {
            Received r = all.get(i);
            if (r.type() == PacketType.DATA && r.packet().connectionSequence == h.csn()) {
                if (r.packet().timestampNanos - firstSent < BURST_NANOS) {
                    copies++;
                } else {
                    later++;
                }
            }
        }
        Checks.check(copies == 1, "%d identical ACKs revealing one hole made %d copies of it within %d ms of the first"
                + " (by the IUT's timestamps), expected 1: a lost transmission is declared lost once, and a CSN is"
                + " queued at most once [SPEC-LOSS-3], [SPEC-SACK-6] (%d later copies, from a timer, not counted)",
                repeats, copies, BURST_NANOS / 1_000_000, later);
    }

    /** Acknowledges everything from now on and checks that the echo completes with the bytes sent. */
    private static void finish(CaseContext c, Hole h) {
        WireSession s = h.session();
        s.autoAck(true);
        for (int p = 0; p < s.grantedPaths(); p++) {
            s.ack(p);
        }
        c.quiet(s);
        Scenarios.checkEcho(s, 0, h.message(), "the echo whose hole was repaired");
    }

    private static void window(CaseContext c) {
        int window = 64;
        int datagram = 256;
        WireSession s = c.connect(1, datagram, window);
        s.autoAck(false);
        int packets = 100;
        byte[] m = Scenarios.bytes(packets * s.payloadSize(), 53);
        Scenarios.sendAll(s, s.send(ECHO, m), 0);
        s.await(() -> distinctCsns(s).size() >= window);
        c.quiet(s);
        TreeMap<Long, Received> seen = distinctCsns(s);
        Checks.check(!seen.isEmpty(), "the responder sent nothing of its echo within %d ms", c.options().waitMillis());
        // Only the bound is a rule: how much of the window a sender fills before its first ACK is its congestion
        // control's choice ([SPEC-CONF-3]), so fewer CSNs than the window is no failure.
        Checks.check(seen.lastKey() < window, "with nothing acknowledged the responder sent CSN %d (%d distinct CSNs),"
                + " beyond the window of %d the suite announced [SPEC-ADM-1]", seen.lastKey(), seen.size(), window);
        s.autoAck(true);
        s.ack(0);
        Scenarios.awaitEchoes(s, 1, "a SEND of " + packets + " packets through a window of " + window);
        Scenarios.checkEcho(s, 0, m, "a SEND of " + packets + " packets through a window of " + window);
        for (Received r : s.received()) {
            Checks.check(r.datagramLength() <= datagram, "the responder sent a datagram of %d bytes after the suite"
                    + " announced %d [SPEC-CONN-14]", r.datagramLength(), datagram);
        }
    }

    private static TreeMap<Long, Received> distinctCsns(WireSession s) {
        TreeMap<Long, Received> out = new TreeMap<>();
        for (Received r : s.data()) {
            out.putIfAbsent(r.packet().connectionSequence, r);
        }
        return out;
    }
}
