package io.metaroce.bench.conformance;

import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Cases of the implementation under test as a receiver: what it acknowledges ([SPEC-SACK-1] to
 * [SPEC-SACK-4]), what it admits ([SPEC-ADM-5]), where it places bytes ([SPEC-MSG-5]), what it
 * reports in ACKs (ECN counts, the rate hint), that it ignores reserved bits, and that it handles
 * an ACK riding ahead of DATA in one datagram ([SPEC-WIRE-30]); since session 15 that it takes an ACK
 * in the short form ([SPEC-WIRE-31]), records PSNs far ahead ([SPEC-ADM-10]), drops packets beyond
 * its window or with an implausible floor ([SPEC-ADM-6], [SPEC-ADM-9]), refuses a packet inconsistent
 * with its message ([SPEC-MSG-9]), echoes any timestamp ([SPEC-WIRE-8]), claims no CSN final that has
 * not arrived ([SPEC-SACK-10]) and keeps its streams independent ([SPEC-MSG-14]).
 *
 * <p>Stateless; thread-safe.
 */
final class ReceiverCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;

    private ReceiverCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("sack.in-order",
                        "DATA in order is acknowledged with every PSN set, and the message is delivered whole",
                        "SPEC-SACK-1, SPEC-SACK-3, SPEC-SACK-4, SPEC-WIRE-18, SPEC-MSG-6, SPEC-CONF-2",
                        "R-SACK-1, R-OOO-2", ReceiverCases::inOrder),
                ConformanceCase.of("sack.holes",
                        "lost transmissions leave their SACK bits clear, and their retransmissions complete the message",
                        "SPEC-SACK-1, SPEC-SACK-2, SPEC-SACK-3, SPEC-PATH-3, SPEC-PATH-5, SPEC-ADM-7",
                        "R-SACK-1, R-SACK-2", ReceiverCases::holes),
                ConformanceCase.of("adm.duplicate",
                        "a duplicate DATA is acknowledged at once but not delivered a second time",
                        "SPEC-ADM-4, SPEC-ADM-5, SPEC-ADM-8, SPEC-SACK-2, SPEC-SACK-4", "R-SACK-4",
                        ReceiverCases::duplicate),
                ConformanceCase.of("placement.out-of-order",
                        "packets arriving in any order are placed by their offsets; receives complete in MSN order",
                        "SPEC-MSG-5, SPEC-MSG-6, SPEC-MSG-10, SPEC-WIRE-12", "R-OOO-1, R-OOO-2, R-OOO-4",
                        ReceiverCases::outOfOrder),
                ConformanceCase.of("sack.multipath",
                        "each path is acknowledged on its own, in its own PSN space, on its own socket",
                        "SPEC-PATH-1, SPEC-PATH-3, SPEC-SACK-3, SPEC-CONN-3", "R-SACK-1, R-PATH-1, R-PATH-2",
                        ReceiverCases::multipath),
                ConformanceCase.of("ecn.counts",
                        "ACKs count the ECN-capable and the CE-marked DATA packets of their path",
                        "SPEC-PATH-7, SPEC-SACK-3, SPEC-WIRE-19", "R-CC-1, R-PATH-1", ReceiverCases::ecnCounts),
                ConformanceCase.of("cc.rate-hint",
                        "ACKs carry the receiver's share of its capacity (the whole capacity for a lone sender)",
                        "SPEC-SACK-9, SPEC-CC-11, SPEC-CC-12, SPEC-CONF-4", "R-CC-2", ReceiverCases::rateHint),
                ConformanceCase.of("sack.bundled-ack",
                        "an ACK riding ahead of a SEND in one datagram is handled, then the SEND: the SEND is"
                                + " acknowledged and echoed, and the echo the ACK acknowledged is not resent on a timeout",
                        "SPEC-WIRE-30, SPEC-SACK-6, SPEC-LOSS-4, SPEC-LOSS-5, SPEC-CONF-2", "R-SACK-1, R-SACK-2",
                        ReceiverCases::bundledAck),
                ConformanceCase.of("sack.short-ack",
                        "an ACK in the 84-byte short form is taken as the full form: the echo it acknowledged is not"
                                + " resent on a timeout, and the SEND after it is acknowledged and echoed",
                        "SPEC-WIRE-31, SPEC-SACK-16, SPEC-SACK-6, SPEC-LOSS-4, SPEC-LOSS-5, SPEC-CONF-18", "R-SACK-1, R-SACK-2",
                        ReceiverCases::shortAck),
                ConformanceCase.of("sack.psn-jump",
                        "packets whose PSN jumps far above the path's highest (by a million, then to 2^62) are recorded,"
                                + " acknowledged and delivered, not dropped",
                        "SPEC-ADM-10, SPEC-SACK-3, SPEC-WIRE-7, SPEC-CONF-19", "R-SACK-1, R-OOO-1",
                        ReceiverCases::psnJump),
                ConformanceCase.of("adm.beyond-window",
                        "a DATA whose CSN is at the receiver's base plus its sequence window, and one whose sequenceFloor"
                                + " is above its own CSN, are dropped: not acknowledged, not refused, not delivered",
                        "SPEC-ADM-3, SPEC-ADM-6, SPEC-ADM-9, SPEC-SACK-2, SPEC-CONF-22", "R-SACK-4, R-JAVA-4",
                        ReceiverCases::beyondWindow),
                ConformanceCase.of("msg.inconsistent-length",
                        "a DATA whose messageLength differs from its message's as first seen is refused with"
                                + " REMOTE_INVALID_REQUEST and not acknowledged; its correct retransmission completes the"
                                + " message",
                        "SPEC-MSG-9, SPEC-NAK-1, SPEC-NAK-2, SPEC-NAK-7, SPEC-SACK-2, SPEC-CONF-22", "R-OOO-1, R-JAVA-4",
                        ReceiverCases::inconsistentLength),
                ConformanceCase.of("wire.timestamps",
                        "DATA whose timestampNanos is -1, the least and the greatest signed 64-bit values is"
                                + " acknowledged, each ACK echoing the value exactly, and delivered",
                        "SPEC-WIRE-8, SPEC-SACK-3, SPEC-CONF-23", "R-SACK-1, R-JAVA-4", ReceiverCases::timestamps),
                ConformanceCase.of("sack.cumulative",
                        "an ACK's cumulativeSequence never claims final a CSN the receiver has not had: at most the"
                                + " CSN of a packet lost on the way until its retransmission arrives",
                        "SPEC-SACK-10, SPEC-SACK-3, SPEC-ADM-3, SPEC-CONF-23", "R-SACK-1, R-SACK-4",
                        ReceiverCases::cumulative),
                ConformanceCase.of("msg.independent-streams",
                        "while a message on one stream waits for a lost packet, a later SEND on another stream is"
                                + " delivered and echoed; the waiting message completes once its packet arrives",
                        "SPEC-MSG-14, SPEC-MSG-10, SPEC-MSG-6, SPEC-CONF-8, SPEC-CONF-23", "R-OOO-1, R-OOO-4",
                        ReceiverCases::independentStreams),
                ConformanceCase.of("wire.reserved-ignored",
                        "reserved fields and unknown flag bits set by a sender do not make a packet invalid",
                        "SPEC-WIRE-4, SPEC-WIRE-5, SPEC-WIRE-16", "R-JAVA-4", ReceiverCases::reservedIgnored));
    }

    /** Attempts before {@code sack.bundled-ack} gives up on a host too slow for the IUT's timer. */
    private static final int BUNDLE_ATTEMPTS = 3;

    private static void bundledAck(CaseContext c) {
        ackFormCase(c, AckForm.BUNDLED);
    }

    private static void shortAck(CaseContext c) {
        ackFormCase(c, AckForm.SHORT);
    }

    /** How the suite acknowledges the first echo in {@code sack.bundled-ack} and {@code sack.short-ack}. */
    private enum AckForm {
        /** A 124-byte ACK with {@code FLAG_BUNDLED} ahead of the second SEND in one datagram ([SPEC-WIRE-30]). */
        BUNDLED("the ACK ahead of the SEND in the datagram", "the SEND that rode behind an ACK in one datagram",
                "[SPEC-WIRE-30]"),
        /** An 84-byte ACK alone ([SPEC-WIRE-31]), then the second SEND in a datagram of its own. */
        SHORT("the ACK in the 84-byte short form", "the SEND after a short ACK", "[SPEC-WIRE-31]");

        final String ack;
        final String send;
        final String rule;

        AckForm(String ack, String send, String rule) {
            this.ack = ack;
            this.send = send;
            this.rule = rule;
        }
    }

    private static void ackFormCase(CaseContext c, AckForm form) {
        for (int attempt = 0; attempt < BUNDLE_ATTEMPTS; attempt++) {
            if (ackFormOnce(c, form)) {
                return;
            }
        }
        throw new CaseSkipped("in " + BUNDLE_ATTEMPTS + " attempts the IUT's retransmission timer resent the first echo"
                + " before the suite's ACK reached it: " + CaseSkipped.HOST_TOO_SLOW + " for the IUT's minimum RTO;"
                + " run the responder with a longer one, on a quieter host [SPEC-CONF-5]");
    }

    /**
     * The suite leaves the echo of a first SEND unacknowledged, then acknowledges it in the form
     * {@code form} says and sends a second SEND: in one datagram, the ACK with {@code FLAG_BUNDLED}
     * ahead of the SEND ([SPEC-WIRE-30]), or the ACK alone in the 84-byte short form
     * ([SPEC-WIRE-31], which a receiver takes whatever its own setting, [SPEC-SACK-16]) and then the
     * SEND. The SEND must be acknowledged and echoed; the ACK must be handled too: with the second
     * echo left unacknowledged, the IUT's timer resends that echo (the oldest in flight), never the
     * first, which the ACK acknowledged ([SPEC-LOSS-5], [SPEC-SACK-6]).
     *
     * <p>Whether a copy of the first echo is legal is judged on the IUT's own clock
     * ([SPEC-WIRE-8]): the second echo's DATA is stamped after the IUT handled the bundle (the ACK
     * ahead of the SEND, then the SEND, then the echo); a copy stamped before that may have left
     * while the bundle was in flight or queued unread, which [SPEC-CONF-5] allows; a copy stamped
     * after it was sent with the bundle's ACK already handled. A copy stamped the same as the second
     * echo is blurred too: a coarse or cached clock gives one stamp to sends in the same tick, so
     * equal stamps cannot order them, and a faulty IUT's copy would come a minimum RTO later, with
     * a later stamp.
     *
     * @return false if the attempt is blurred: the first echo's copy was stamped no later than the second echo
     */
    private static boolean ackFormOnce(CaseContext c, AckForm form) {
        WireSession s = c.connect(1);
        s.autoAck(false);
        s.shortAcks(form == AckForm.SHORT);
        byte[] first = Scenarios.bytes(100, 61);
        byte[] second = Scenarios.bytes(100, 62);
        Scenarios.sendAll(s, s.send(ECHO, first), 0);
        Scenarios.awaitEchoes(s, 1, "a SEND before the " + (form == AckForm.BUNDLED ? "bundle" : "short ACK"));
        long firstCsn = s.data().getLast().packet().connectionSequence;
        Sent after;
        if (form == AckForm.BUNDLED) {
            after = s.sendBundled(s.send(ECHO, second).getFirst(), 0);
        } else {
            s.ack(0); // one packet, no hole: the short form ([SPEC-WIRE-31])
            after = s.send(s.send(ECHO, second).getFirst(), 0);
        }
        Scenarios.awaitAckOf(s, 0, after.pathSequence());
        Scenarios.awaitEchoes(s, 2, form.send + " " + form.rule);
        Scenarios.checkEcho(s, 0, first, "the SEND before " + form.ack);
        Scenarios.checkEcho(s, 1, second, form.send + " " + form.rule);
        Received secondEcho = firstOtherThan(s, firstCsn);
        long secondCsn = secondEcho.packet().connectionSequence;
        long wait = s.waitNanos() + 4 * java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(c.options().minRtoMillis());
        boolean resent = s.await(() -> copies(s, firstCsn) > 1 || copies(s, secondCsn) > 1, wait);
        s.quiet(20); // a copy of the first echo sent by the same timer as the second's
        Received firstCopy = copy(s, firstCsn);
        if (firstCopy != null && firstCopy.packet().timestampNanos - secondEcho.packet().timestampNanos <= 0) {
            // Stamped before the IUT handled the bundle (a difference: the clock may wrap): legal [SPEC-CONF-5]. Equal
            // stamps are blurred too: a coarse or cached clock stamps sends in one tick alike, whereas a copy
            // resent by a faulty IUT comes a minimum RTO after the second echo.
            return false;
        }
        Checks.check(firstCopy == null, "the IUT resent the first echo (CSN %d) after the suite had acknowledged it:"
                + " %s was not handled %s", firstCsn, form.ack, form.rule);
        Checks.check(resent, "the echo of " + form.send + " was never acknowledged, and not resent within %d ms"
                + " [SPEC-LOSS-4], [SPEC-LOSS-5]", wait / 1_000_000);
        s.autoAck(true);
        s.ack(0);
        Scenarios.checkAllAcks(s);
        return true;
    }

    /**
     * PSNs the suite jumps to on its one path in {@code sack.psn-jump}: a million (far beyond any
     * SACK window or sequence window) and 2^62 (arithmetic that is not safe up to 2^63 − 1 overflows
     * on the difference from the path's highest), [SPEC-ADM-10].
     */
    private static final long[] PSN_JUMPS = {1_000_000L, 1L << 62};

    /**
     * The suite sends a SEND of six packets on one path: two at PSNs 0 and 1, two after its PSN
     * jumped to a million, two after it jumped to 2^62 (the transmissions between lost, as after a
     * long outage or a receiver-not-ready wait), then a second SEND. A receiver must not drop a packet
     * for a PSN far above its path's highest ([SPEC-ADM-10]): each pair is acknowledged (a jump of
     * 256 or more clears the SACK window: the ACK's base is L − 255, [SPEC-SACK-3]), and both
     * messages are echoed.
     */
    private static void psnJump(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(6 * s.payloadSize() - 100, 63);
        List<Segment> segs = s.send(ECHO, m);
        Checks.require(segs.size() == 6, "a SEND of six packets");
        List<Sent> sent = new ArrayList<>();
        long before = -1;
        for (int i = 0; i < segs.size(); i++) {
            if (i == 2 || i == 4) {
                before = sent.getLast().pathSequence();
                s.jumpPsn(0, PSN_JUMPS[i / 2 - 1]);
            }
            sent.add(s.send(segs.get(i), 0));
            if (i == 3 || i == 5) {
                long psn = sent.get(i).pathSequence();
                long from = before;
                boolean acked = s.await(() -> Scenarios.ackOf(s, 0, psn) != null);
                Checks.check(acked, "no ACK acknowledged PSN %d within %d ms after the path's PSN jumped from %d to %d:"
                        + " a receiver must not drop a packet because its PSN is far above the path's highest"
                        + " [SPEC-ADM-10]", psn, s.waitNanos() / 1_000_000, from, sent.get(i - 1).pathSequence());
            }
        }
        Scenarios.awaitEchoes(s, 1, "a SEND whose PSNs jumped twice [SPEC-ADM-10]");
        Scenarios.checkEcho(s, 0, m, "a SEND whose PSNs jumped twice [SPEC-ADM-10]");
        checkSecondSendEchoed(s, Scenarios.bytes(100, 64), "a SEND after the PSN jumps");
    }

    /**
     * A second SEND on path 0, acknowledged and echoed whole after the case's first: the receiver
     * goes on as before whatever the case did to the first; then every ACK is checked.
     */
    private static void checkSecondSendEchoed(WireSession s, byte[] after, String what) {
        Sent last = Scenarios.sendAll(s, s.send(ECHO, after), 0).getLast();
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        Scenarios.awaitEchoes(s, 2, what);
        Scenarios.checkEcho(s, 1, after, what);
        Scenarios.checkAllAcks(s);
    }

    /** Byte offsets in a DATA packet of fields the suite tampers with (spec.md §2.4). */
    private static final int OFF_MESSAGE_LENGTH = 56;
    private static final int OFF_SEQUENCE_FLOOR = 96;

    /**
     * The suite sends, on one path, a one-packet SEND with CSN {@code B + W} (nothing sent before,
     * so the IUT's base {@code B} is 0, and {@code W} the sequence window of its ACCEPT: BEYOND_WINDOW,
     * [SPEC-ADM-6]), then the same packet with CSN 0 and {@code sequenceFloor} 1, above its own CSN
     * ([SPEC-ADM-9]), then the same packet as it should be (CSN 0, floor 0). A receiver drops the
     * first two without recording or acknowledging them (and refuses neither: no NAK), so its ACKs
     * leave their PSNs clear, and delivers the message once, from the third.
     */
    private static void beyondWindow(CaseContext c) {
        WireSession s = c.connect(1);
        long window = Integer.toUnsignedLong(s.accept().packet().sequenceWindow);
        byte[] m = Scenarios.bytes(200, 65);
        Segment seg = s.send(ECHO, m).getFirst();
        int mark = s.mark();
        Sent beyond = sendTampered(s, seg, window, 0);
        Sent floorAbove = sendTampered(s, seg, 0, 1);
        Sent good = s.send(seg, 0);
        Checks.require(seg.connectionSequence() == 0, "the SEND took CSN 0");
        // Whatever answer comes first: an IUT that admitted an implausible copy may never acknowledge the good one.
        s.await(() -> Scenarios.ackOf(s, 0, good.pathSequence()) != null
                || Scenarios.ackOf(s, 0, beyond.pathSequence()) != null
                || Scenarios.ackOf(s, 0, floorAbove.pathSequence()) != null
                || !s.ofType(mark, PacketType.NAK).isEmpty());
        c.quiet(s);
        for (Received r : s.acks(0)) {
            Checks.check(!Scenarios.acknowledges(r.packet(), beyond.pathSequence()), "an ACK acknowledges PSN %d, a DATA"
                    + " with CSN %d: the receiver's base plus its sequence window %d, beyond it; it must be dropped"
                    + " unrecorded [SPEC-ADM-6]", beyond.pathSequence(), window, window);
            Checks.check(!Scenarios.acknowledges(r.packet(), floorAbove.pathSequence()), "an ACK acknowledges PSN %d, a"
                    + " DATA with CSN 0 and sequenceFloor 1, above its own CSN; it must be dropped unrecorded"
                    + " [SPEC-ADM-9]", floorAbove.pathSequence());
        }
        Checks.check(s.ofType(mark, PacketType.NAK).isEmpty(), "the IUT sent a NAK for a packet"
                + " it must drop without a word: BEYOND_WINDOW and implausible floors are not refusals [SPEC-ADM-6],"
                + " [SPEC-ADM-9]");
        Scenarios.awaitAckOf(s, 0, good.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND after two implausible copies of it");
        Checks.check(s.echoes().size() == 1, "%d echoes of one SEND sent three times (two of them implausible): it"
                + " was delivered more than once [SPEC-ADM-6], [SPEC-ADM-9]", s.echoes().size());
        Scenarios.checkEcho(s, 0, m, "a SEND after two implausible copies of it");
        Scenarios.checkAllAcks(s);
    }

    /**
     * Sends the one packet of {@code seg} on path 0 with CSN {@code csn} and {@code sequenceFloor}
     * {@code floor}, as a packet a receiver must drop (not recorded); {@code seg} keeps no CSN.
     */
    private static Sent sendTampered(WireSession s, Segment seg, long csn, long floor) {
        seg.connectionSequence = csn;
        long psn = s.skipPsn(0);
        byte[] d = s.encode(seg, 0, psn, WireConstants.FLAG_ACK_NOW);
        ByteBuffer.wrap(d).putLong(OFF_SEQUENCE_FLOOR, floor);
        new PacketCodec().reseal(ByteBuffer.wrap(d), 0, d.length);
        seg.connectionSequence = -1;
        return s.sendRaw(0, d, d.length, psn, csn, false);
    }

    /**
     * The suite sends a SEND of three packets: the first as it is, the second with a
     * {@code messageLength} one byte longer than the first's, then the third. The second is refused
     * with REMOTE_INVALID_REQUEST ([SPEC-MSG-9], [SPEC-NAK-2]) naming it, and not acknowledged; the
     * suite then resends it as it should be (same CSN, a new PSN), and the message completes and is
     * echoed once; the connection goes on.
     */
    private static void inconsistentLength(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(3 * s.payloadSize() - 100, 66);
        List<Segment> segs = s.send(ECHO, m);
        Checks.require(segs.size() == 3, "a SEND of three packets");
        s.send(segs.get(0), 0);
        Segment bad = segs.get(1);
        long psn = s.skipPsn(0);
        byte[] d = s.encode(bad, 0, psn, 0);
        ByteBuffer.wrap(d).putLong(OFF_MESSAGE_LENGTH, m.length + 1L);
        new PacketCodec().reseal(ByteBuffer.wrap(d), 0, d.length);
        int mark = s.mark();
        Sent refused = s.sendRaw(0, d, d.length, psn, bad.connectionSequence(), false);
        Received nak = s.awaitType(mark, PacketType.NAK);
        Checks.check(nak != null, "no NAK within %d ms for a packet whose messageLength (%d) differs from its message's"
                + " (%d) as first seen [SPEC-MSG-9]", s.waitNanos() / 1_000_000, m.length + 1L, m.length);
        ControlCases.checkNak(nak, NakCode.REMOTE_INVALID_REQUEST, refused, bad);
        s.send(segs.get(2), 0);
        Sent repair = s.resend(bad, 0);
        Scenarios.awaitAckOf(s, 0, repair.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND whose refused packet was sent again as it should be [SPEC-MSG-9]");
        Scenarios.checkEcho(s, 0, m, "a SEND whose refused packet was sent again as it should be [SPEC-MSG-9]");
        checkSecondSendEchoed(s, Scenarios.bytes(300, 67), "a SEND after a refused packet [SPEC-NAK-7]");
    }

    /**
     * Timestamps of {@code wire.timestamps}: values a receiver that compares a sender's clock with
     * its own, or takes it as unsigned or positive, would mishandle ([SPEC-WIRE-8]).
     */
    private static final long[] ODD_TIMESTAMPS = {-1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L};

    /**
     * The suite sends a SEND of four packets, each with {@code FLAG_ACK_NOW} and one of
     * {@link #ODD_TIMESTAMPS}, and waits for each one's ACK before the next: each ACK, whose highest
     * PSN is that packet's, echoes its timestamp exactly ([SPEC-SACK-3]), since a receiver neither
     * rejects a packet for its timestamp nor compares it with its own clock ([SPEC-WIRE-8]).
     */
    private static void timestamps(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(4 * s.payloadSize() - 100, 68);
        List<Segment> segs = s.send(ECHO, m);
        Checks.require(segs.size() == ODD_TIMESTAMPS.length, "a SEND of four packets");
        for (int i = 0; i < segs.size(); i++) {
            long stamp = ODD_TIMESTAMPS[i];
            Sent sent = s.transmitStamped(segs.get(i), 0, WireConstants.FLAG_ACK_NOW, stamp);
            Received[] ack = new Received[1];
            s.await(() -> (ack[0] = Scenarios.ackOf(s, 0, sent.pathSequence())) != null);
            Checks.check(ack[0] != null, "no ACK within %d ms of a DATA with timestampNanos %d: a receiver must not reject"
                    + " a packet because of its timestamp [SPEC-WIRE-8]", s.waitNanos() / 1_000_000, stamp);
            Checks.check(ack[0].packet().echoTimestampNanos == stamp, "the ACK of a DATA with timestampNanos %d echoes %d"
                    + " [SPEC-SACK-3], [SPEC-WIRE-8]", stamp, ack[0].packet().echoTimestampNanos);
        }
        Scenarios.awaitEchoes(s, 1, "a SEND whose packets carry odd timestamps [SPEC-WIRE-8]");
        Scenarios.checkEcho(s, 0, m, "a SEND whose packets carry odd timestamps [SPEC-WIRE-8]");
        Scenarios.checkAllAcks(s);
    }

    /**
     * The suite sends a SEND of four packets (CSNs 0 to 3) with the second lost on the way (its
     * CSN taken, its PSN skipped), and the suite's floors all 0: CSN 1 is not final at the receiver
     * until its retransmission arrives, so every ACK before that has a {@code cumulativeSequence} of
     * at most 1, and every ACK at most 4, the CSNs the suite issued ([SPEC-SACK-10]). A receiver
     * MAY report less (0 is always true); it may not claim more.
     */
    private static void cumulative(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(4 * s.payloadSize() - 100, 69);
        List<Segment> segs = s.send(ECHO, m);
        Checks.require(segs.size() == 4, "a SEND of four packets");
        s.send(segs.get(0), 0);
        s.skipPsn(0);
        takeCsn(s, segs.get(1));
        s.send(segs.get(2), 0);
        Sent third = s.transmit(segs.get(3), 0, WireConstants.FLAG_ACK_NOW, 0);
        Scenarios.awaitAckOf(s, 0, third.pathSequence());
        int before = s.acks(0).size();
        checkCumulative(s.acks(0), 1, "CSN 1 was lost on the way and not sent again yet");
        Sent repair = s.resend(segs.get(1), 0);
        Scenarios.awaitAckOf(s, 0, repair.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND whose lost packet was sent again");
        Scenarios.checkEcho(s, 0, m, "a SEND whose lost packet was sent again");
        c.quiet(s);
        checkCumulative(s.acks(0).subList(before, s.acks(0).size()), 4, "the suite issued CSNs 0 to 3 only");
        Scenarios.checkAllAcks(s);
    }

    /**
     * The suite posts a receive on the held stream 2 ([SPEC-CONF-8]) and sends a SEND of three
     * packets there with the second lost on the way, so the message waits; then a SEND on stream 0,
     * with later CSNs. Streams share only the window, the paths and the congestion window
     * ([SPEC-MSG-14]): the SEND on stream 0 is delivered and echoed while stream 2's message still
     * waits, and that one completes (and is echoed on stream 2) once the lost packet is resent.
     */
    private static void independentStreams(CaseContext c) {
        WireSession s = c.connect(1);
        int held = ResponderContract.HELD_STREAM;
        Commands.postHeld(s, 1);
        byte[] waiting = Scenarios.bytes(3 * s.payloadSize() - 100, 70);
        List<Segment> segs = s.send(held, waiting);
        Checks.require(segs.size() == 3, "a SEND of three packets");
        s.send(segs.get(0), 0);
        s.skipPsn(0);
        takeCsn(s, segs.get(1));
        s.send(segs.get(2), 0);
        byte[] other = Scenarios.bytes(300, 71);
        Sent last = Scenarios.sendAll(s, s.send(ECHO, other), 0).getLast();
        boolean echoed = s.await(() -> !s.messagesOn(ECHO).isEmpty());
        Checks.check(echoed, "a SEND on stream %d was not echoed within %d ms (%s) while a message on stream %d waited"
                + " for a lost packet: a message of one stream must not wait for another stream's [SPEC-MSG-14]", ECHO,
                s.waitNanos() / 1_000_000, Scenarios.ackOf(s, 0, last.pathSequence()) == null ? "nor acknowledged"
                        : "though acknowledged", held);
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        Checks.check(Arrays.equals(s.messagesOn(ECHO).getFirst().bytes(), other), "the echo on stream %d"
                + " differs from its SEND [SPEC-MSG-5]", ECHO);
        Checks.check(s.messagesOn(held).isEmpty(), "the message on stream %d was delivered with a packet missing"
                + " [SPEC-MSG-10]", held);
        Sent repair = s.resend(segs.get(1), 0);
        Scenarios.awaitAckOf(s, 0, repair.pathSequence());
        boolean completed = s.await(() -> !s.messagesOn(held).isEmpty());
        Checks.check(completed, "the message on stream %d was not echoed within %d ms after its lost packet was resent"
                + " [SPEC-MSG-10], [SPEC-CONF-8]", held, s.waitNanos() / 1_000_000);
        Checks.check(Arrays.equals(s.messagesOn(held).getFirst().bytes(), waiting), "the echo on stream %d"
                + " differs from its SEND [SPEC-MSG-5]", held);
        Scenarios.checkAllAcks(s);
    }

    /** Every ACK of {@code acks} has a {@code cumulativeSequence} of at most {@code most} ([SPEC-SACK-10]). */
    private static void checkCumulative(List<Received> acks, long most, String why) {
        for (Received r : acks) {
            long cumulative = r.packet().cumulativeSequence;
            Checks.check(cumulative <= most, "an ACK's cumulativeSequence is %d: it says every CSN below it is final at the"
                    + " receiver, but %s, so at most %d is true [SPEC-SACK-10]", cumulative, why, most);
        }
    }

    /** How many transmissions of {@code csn} the IUT sent. */
    private static int copies(WireSession s, long csn) {
        int n = 0;
        for (Received r : s.data()) {
            n += r.packet().connectionSequence == csn ? 1 : 0;
        }
        return n;
    }

    /** The second transmission of {@code csn}, or null. */
    private static Received copy(WireSession s, long csn) {
        int n = 0;
        for (Received r : s.data()) {
            if (r.packet().connectionSequence == csn && ++n == 2) {
                return r;
            }
        }
        return null;
    }

    /** The IUT's first DATA of another CSN than {@code csn}: here, the first transmission of the second echo. */
    private static Received firstOtherThan(WireSession s, long csn) {
        for (Received r : s.data()) {
            if (r.packet().connectionSequence != csn) {
                return r;
            }
        }
        throw new CaseFailure("no DATA of the second echo, though its message was reassembled");
    }

    private static void inOrder(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(3 * s.payloadSize() - 100, 21);
        List<Sent> sent = Scenarios.sendAll(s, s.send(ECHO, m), 0);
        Scenarios.awaitAckOf(s, 0, sent.getLast().pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND of three packets");
        Scenarios.checkEcho(s, 0, m, "a SEND of three packets");
        Scenarios.checkAllAcks(s);
    }

    private static void holes(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(8 * s.payloadSize(), 22);
        List<Segment> segs = s.send(ECHO, m);
        List<Segment> lost = new ArrayList<>();
        for (int i = 0; i < segs.size(); i++) {
            if (i == 2 || i == 5) {
                s.skipPsn(0); // this transmission is lost on the way: its CSN is taken, its PSN never arrives
                lost.add(segs.get(i));
                takeCsn(s, segs.get(i));
            } else {
                s.send(segs.get(i), 0);
            }
        }
        long last = s.sent(0).getLast().pathSequence();
        Scenarios.awaitAckOf(s, 0, last);
        Scenarios.checkAllAcks(s);
        Checks.check(s.echoes().isEmpty(), "the message was delivered with two of its packets missing");
        Sent repair = null;
        for (Segment seg : lost) {
            repair = s.resend(seg, 0);
        }
        Scenarios.awaitAckOf(s, 0, repair.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND whose two lost packets were sent again");
        Scenarios.checkEcho(s, 0, m, "a SEND whose two lost packets were sent again");
        Scenarios.checkAllAcks(s);
    }

    /** Gives {@code seg} its CSN without sending it: the first transmission was lost. */
    private static void takeCsn(WireSession s, Segment seg) {
        s.encode(seg, 0, 0, 0);
    }

    private static void duplicate(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] a = Scenarios.bytes(300, 23);
        byte[] b = Scenarios.bytes(400, 24);
        Segment first = s.send(ECHO, a).getFirst();
        s.send(first, 0);
        Scenarios.awaitEchoes(s, 1, "a SEND");
        Sent dup = s.resend(first, 0);
        Scenarios.awaitAckOf(s, 0, dup.pathSequence());
        Sent next = Scenarios.sendAll(s, s.send(ECHO, b), 0).getLast();
        Scenarios.awaitAckOf(s, 0, next.pathSequence());
        Scenarios.awaitEchoes(s, 2, "a SEND after a duplicate");
        c.quiet(s);
        Checks.check(s.echoes().size() == 2, "%d messages were echoed for two SENDs, one of them duplicated: the"
                + " duplicate was delivered again [SPEC-ADM-5]", s.echoes().size());
        Scenarios.checkEcho(s, 0, a, "the duplicated SEND");
        Scenarios.checkEcho(s, 1, b, "the SEND after the duplicate");
        Scenarios.checkAllAcks(s);
    }

    private static void outOfOrder(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] a = Scenarios.bytes(5 * s.payloadSize() - 7, 25);
        byte[] b = Scenarios.bytes(3 * s.payloadSize() - 3, 26);
        List<Segment> first = new ArrayList<>(s.send(ECHO, a));
        List<Segment> second = new ArrayList<>(s.send(ECHO, b));
        Collections.reverse(second);
        Collections.shuffle(first, new Random(c.options().seed()));
        List<Segment> order = new ArrayList<>(second);
        order.addAll(first);
        Sent last = null;
        for (Segment seg : order) {
            // Every packet asks for an ACK, so none waits for a delayed ACK at the end.
            last = s.transmit(seg, 0, WireConstants.FLAG_ACK_NOW, 0);
        }
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        Scenarios.awaitEchoes(s, 2, "two SENDs whose packets arrived in reverse and shuffled order");
        Scenarios.checkEcho(s, 0, a, "the SEND with MSN 0 (its packets arrived last and shuffled)");
        Scenarios.checkEcho(s, 1, b, "the SEND with MSN 1 (its packets arrived first and reversed)");
        Scenarios.checkAllAcks(s);
    }

    private static void multipath(CaseContext c) {
        WireSession s = c.connect(3);
        Checks.check(s.grantedPaths() == 3, "the responder granted %d paths of 3 asked [SPEC-CONF-1]", s.grantedPaths());
        byte[] m = Scenarios.bytes(9 * s.payloadSize(), 27);
        List<Segment> segs = s.send(ECHO, m);
        for (int i = 0; i < segs.size(); i++) {
            s.send(segs.get(i), (i * 2) % 3);
        }
        for (int path = 0; path < 3; path++) {
            Scenarios.awaitAckOf(s, path, s.sent(path).getLast().pathSequence());
        }
        Scenarios.awaitEchoes(s, 1, "a SEND spread over three paths");
        Scenarios.checkEcho(s, 0, m, "a SEND spread over three paths");
        Scenarios.checkAllAcks(s);
    }

    private static void ecnCounts(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(8 * s.payloadSize(), 28);
        List<Segment> segs = s.send(ECHO, m);
        // Not-ECT, Not-ECT, ECT(0), ECT(0), ECT(1), CE, CE, ECT(0): six ECN-capable, two CE.
        int[] ecn = {0, 0, 2, 2, 1, 3, 3, 2};
        Sent last = null;
        try {
            for (int i = 0; i < segs.size(); i++) {
                last = s.transmit(segs.get(i), 0, segs.get(i).last() ? WireConstants.FLAG_ACK_NOW : 0, ecn[i]);
            }
        } catch (UncheckedIOException | UnsupportedOperationException e) {
            throw new CaseSkipped("the suite cannot set the IP TOS byte on its socket: " + e.getMessage());
        }
        Received ack = Scenarios.awaitAckOf(s, 0, last.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND with marked packets");
        Scenarios.checkAllAcks(s);
        long ect = ack.packet().ectCount;
        long ce = ack.packet().ceCount;
        if (ect == 0 && ce == 0 && !c.options().requireEcn()) {
            throw new CaseSkipped("the ACKs count no ECN-capable packet: the implementation under test does not read"
                    + " ECN on this host (allowed, [SPEC-PATH-7]: it counts what its driver reports); --require-ecn"
                    + " makes this a failure");
        }
        Checks.check(ect == 6 && ce == 2, "after 2 Not-ECT, 3 ECT(0), 1 ECT(1) and 2 CE packets the ACK counts"
                + " ectCount %d and ceCount %d, expected 6 and 2 [SPEC-PATH-7], [SPEC-SACK-3]", ect, ce);
    }

    private static void rateHint(CaseContext c) {
        c.awaitEarlierSendersInactive(); // a lone sender: told the whole capacity
        WireSession s = c.connect(1);
        HandshakeCases.checkAnnouncedShare(c, s.accept().packet().rateHintBytesPerSecond,
                "the ACCEPT's rateHintBytesPerSecond");
        byte[] m = Scenarios.bytes(4 * s.payloadSize(), 29);
        Sent last = Scenarios.sendAll(s, s.send(ECHO, m), 0).getLast();
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a SEND");
        long capacity = c.options().capacityBytesPerSecond();
        boolean anyZero = false;
        boolean anyNonZero = false;
        for (Received ack : s.acks(0)) {
            long hint = ack.packet().rateHintBytesPerSecond;
            HandshakeCases.checkAnnouncedShare(c, hint, "an ACK's rateHintBytesPerSecond");
            anyZero |= hint == 0;
            anyNonZero |= hint != 0;
        }
        Checks.check(!(anyZero && anyNonZero), "some ACKs carry a rate hint of 0 and others not: an allocator is on or"
                + " off for the whole endpoint [SPEC-SACK-9]");
        if (capacity > 0) {
            long hint = Scenarios.ackOf(s, 0, last.pathSequence()).packet().rateHintBytesPerSecond;
            Checks.check(hint == capacity, "the only connection sending to the responder is told %d bytes/s, not the"
                    + " whole capacity %d [SPEC-CC-11], [SPEC-CC-20]", hint, capacity);
        }
    }

    private static void reservedIgnored(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(200, 30);
        Segment seg = s.send(ECHO, m).getFirst();
        long psn = s.skipPsn(0);
        int unknownFlags = 0x8000 | 0x0100 | 0x0008;
        byte[] d = s.encode(seg, 0, psn, WireConstants.FLAG_ACK_NOW | unknownFlags);
        ByteBuffer b = ByteBuffer.wrap(d);
        b.putShort(6, (short) 0xA5A5); // header reserved
        b.put(33, (byte) 0x80); // a reserved dataFlags bit
        b.putShort(34, (short) 0x5A5A); // DATA reserved
        new PacketCodec().reseal(b, 0, d.length);
        s.sendRaw(0, d, d.length, psn, seg.connectionSequence(), true);
        Scenarios.awaitAckOf(s, 0, psn);
        Scenarios.awaitEchoes(s, 1, "a SEND with reserved bits set");
        Scenarios.checkEcho(s, 0, m, "a SEND with reserved bits set");
    }
}
