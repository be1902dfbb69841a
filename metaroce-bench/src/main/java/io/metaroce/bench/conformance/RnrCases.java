package io.metaroce.bench.conformance;

import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cases of RECEIVER_NOT_READY: the IUT as a receiver refuses a SEND that finds no receive posted
 * (the responder's held stream, [SPEC-CONF-8]) and takes it once one is; the IUT as a sender
 * holds a CSN the suite refused so back for the delay the NAK asked, pauses its stream, and sends
 * it again, however often it is refused.
 *
 * <p>Stateless; thread-safe.
 */
final class RnrCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    private static final int HELD = ResponderContract.HELD_STREAM;
    /** The delay the suite's RECEIVER_NOT_READY NAKs ask for. */
    static final long RETRY_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How early, by the suite's clock, a copy may be read and still count as after the delay. */
    private static final long CLOCK_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * How soon after a NAK the PROBE_ACK of a PATH_PROBE sent right behind it must come for a copy
     * that waited to count as held back: half the delay asked for. The IUT reads the NAK before the
     * probe, so its answer shows that it had read the NAK by then; a copy read the delay after the
     * NAK then left at least half the delay after the IUT read it, which a sender that ignores the
     * delay (it resends at once) does only if it stalls that long in between. Without it a stall
     * anywhere (the IUT's loop before it read the NAK, a relay, the suite's own thread) made an IUT
     * that ignores the delay look as if it waited.
     */
    private static final long ANSWER_BOUND_NANOS = RETRY_AFTER_NANOS / 2;
    /** The id of the suite's PATH_PROBE behind each NAK (any id: the IUT answers every probe). */
    private static final long PROBE_ID = 0x5EED_0000L;

    private RnrCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("rnr.receiver",
                        "a SEND finding no receive posted is refused with RECEIVER_NOT_READY and a retry delay, not"
                                + " acknowledged, and delivered once a receive is posted and it is sent again",
                        "SPEC-NAK-1, SPEC-NAK-2, SPEC-NAK-5, SPEC-MSG-6, SPEC-SACK-2, SPEC-ADM-7, SPEC-CONF-8",
                        "R-OOO-2, R-SACK-1", RnrCases::receiver),
                ConformanceCase.of("rnr.sender-waits",
                        "a CSN refused with RECEIVER_NOT_READY is sent again after the NAK's retryAfterNanos, not"
                                + " before, its stream paused until then, and again after a second refusal",
                        "SPEC-NAK-4, SPEC-NAK-6, SPEC-MSG-4, SPEC-PATH-5, SPEC-PATH-6", "R-SACK-2, R-OOO-4",
                        RnrCases::senderWaits));
    }

    private static void receiver(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(300, 91);
        Segment seg = s.send(HELD, m).getFirst();
        int mark = s.mark();
        Sent refused = s.send(seg, 0);
        s.markRefused(refused);
        Received nak = s.awaitType(mark, PacketType.NAK);
        Checks.check(nak != null, "no NAK within %d ms for a SEND on stream %d, where no receive is posted"
                + " [SPEC-MSG-6], [SPEC-NAK-2]", c.options().waitMillis(), HELD);
        Packet n = nak.packet();
        Checks.check(n.nakCode == NakCode.RECEIVER_NOT_READY, "a SEND finding no receive posted got NAK code %d,"
                + " expected RECEIVER_NOT_READY (%d) [SPEC-NAK-2]", n.nakCode, NakCode.RECEIVER_NOT_READY);
        Checks.check(n.retryAfterNanos > 0, "the RECEIVER_NOT_READY NAK asks for retryAfterNanos %d; it carries the"
                + " receiver's rnrRetryDelayNanos, which is positive [SPEC-NAK-1]", n.retryAfterNanos);
        Checks.check(n.pathId == refused.path() && n.refusedPathSequence == refused.pathSequence()
                && n.refusedConnectionSequence == refused.connectionSequence() && n.streamId == HELD
                && n.messageSequence == seg.messageSequence(), "the NAK names path %d, PSN %d, CSN %d, stream %d, MSN"
                + " %d; the refused packet was path %d, PSN %d, CSN %d, stream %d, MSN %d [SPEC-NAK-1]", n.pathId,
                n.refusedPathSequence, n.refusedConnectionSequence, n.streamId, n.messageSequence, refused.path(),
                refused.pathSequence(), refused.connectionSequence(), HELD, seg.messageSequence());
        c.quiet(s);
        Checks.check(Scenarios.ackOf(s, 0, refused.pathSequence()) == null, "the refused SEND was acknowledged"
                + " [SPEC-NAK-1], [SPEC-SACK-2]");
        Checks.check(s.messagesOn(HELD).isEmpty(), "a SEND refused for want of a receive was delivered [SPEC-NAK-1]");
        Commands.postHeld(s, 1);
        // The refused CSN was never admitted, so its retransmission is NEW and now finds its receive ([SPEC-NAK-5]).
        Sent again = s.resend(seg, 0);
        Scenarios.awaitAckOf(s, 0, again.pathSequence());
        boolean echoed = s.await(() -> !s.messagesOn(HELD).isEmpty());
        Checks.check(echoed, "the SEND, sent again after a receive was posted on stream %d, was not delivered (no echo"
                + " on that stream within %d ms) [SPEC-NAK-5], [SPEC-MSG-6], [SPEC-CONF-8]", HELD,
                c.options().waitMillis());
        WireSession.EchoMessage e = s.messagesOn(HELD).getFirst();
        Checks.check(java.util.Arrays.equals(e.bytes(), m), "the held stream's echo differs from the SEND refused and"
                + " sent again [SPEC-MSG-6]");
        Checks.check(e.receiveSequence() == 0, "the held stream's first echo has RSN %d, expected 0 [SPEC-MSG-2]",
                e.receiveSequence());
        Scenarios.checkAllAcks(s);
    }

    /** Attempts before {@code rnr.sender-waits} gives up on a host too slow for the IUT's timer. */
    private static final int ATTEMPTS = 3;

    /**
     * Thrown when an attempt cannot judge the delay: the IUT's retransmission timer fired before
     * the suite's NAK reached it (a copy of a CSN was read before the NAK left; legal,
     * [SPEC-CONF-5]), or the answer to the probe behind a NAK came late (a stall somewhere).
     */
    private static final class Blurred extends RuntimeException {
        static final String TIMER = "the IUT's retransmission timer fired before the suite's NAK reached it";
        static final String STALL = "the PROBE_ACK of the PATH_PROBE sent right behind the NAK came later than "
                + TimeUnit.NANOSECONDS.toMillis(ANSWER_BOUND_NANOS) + " ms after it";

        Blurred() {
            this(TIMER);
        }

        Blurred(String why) {
            super(why, null, false, false);
        }
    }

    private static void senderWaits(CaseContext c) {
        java.util.Set<String> reasons = new java.util.LinkedHashSet<>();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                senderWaitsOnce(c);
                return;
            } catch (Blurred b) {
                reasons.add(b.getMessage()); // a fresh connection: the host was too slow this time
            }
        }
        throw new CaseSkipped("in " + ATTEMPTS + " attempts " + String.join(", or ", reasons) + ": " + CaseSkipped.HOST_TOO_SLOW
                + " for the IUT's minimum RTO, or stalls too long to judge a delay of "
                + TimeUnit.NANOSECONDS.toMillis(RETRY_AFTER_NANOS) + " ms; run the responder with a longer minimum RTO,"
                + " on a quieter host [SPEC-CONF-5]");
    }

    /** Throws {@link Blurred} if a copy of {@code csn} was read (stamped) before {@code nakSent}, at or after {@code mark}. */
    private static void checkNotBlurred(WireSession s, int mark, long csn, long nakSent) {
        List<Received> all = s.received();
        for (int i = mark; i < all.size(); i++) {
            Received r = all.get(i);
            if (r.type() == PacketType.DATA && r.packet().connectionSequence == csn && r.arrivalNanos() < nakSent) {
                throw new Blurred();
            }
        }
    }

    private static void senderWaitsOnce(CaseContext c) {
        WireSession s = c.connect(1);
        s.autoAck(false);
        byte[] m = Scenarios.bytes(3 * s.payloadSize() - 9, 92);
        Scenarios.sendAll(s, s.send(ECHO, m), 0);
        boolean whole = s.await(() -> s.data().size() >= 3);
        Checks.check(whole, "the responder's echo of a SEND of 3 packets did not arrive within %d ms while"
                + " unacknowledged (%d DATA packets came)", c.options().waitMillis(), s.data().size());
        for (Received r : s.data()) {
            if ((r.packet().flags & io.metaroce.core.wire.WireConstants.FLAG_RETRANSMISSION) != 0) {
                throw new Blurred();
            }
        }
        Received first = s.data().getFirst();
        long csn = first.packet().connectionSequence;
        // The NAK goes before the ACK of the others, as a receiver sends them ([SPEC-NAK-1]).
        int mark = s.mark();
        s.sendNak(first, NakCode.RECEIVER_NOT_READY, RETRY_AFTER_NANOS);
        long nakSent = System.nanoTime();
        s.ack(0);
        s.sendProbe(0, PROBE_ID + 1, nakSent);
        // A second message on the paused stream: its echo may not start before the pause ends ([SPEC-NAK-4]).
        byte[] m2 = Scenarios.bytes(200, 93);
        Scenarios.sendAll(s, s.send(ECHO, m2), 0);
        Received copy = awaitCopy(c, s, mark, csn, "refused once");
        checkNotBlurred(s, mark, csn, nakSent);
        checkWaited(c, first, copy, nakSent, csn, "first");
        checkAnsweredSoon(s, mark, PROBE_ID + 1, nakSent);
        // Refused again: no retry limit ([SPEC-NAK-6]).
        int mark2 = s.mark();
        s.sendNak(copy, NakCode.RECEIVER_NOT_READY, RETRY_AFTER_NANOS);
        long nak2Sent = System.nanoTime();
        s.ack(0);
        s.sendProbe(0, PROBE_ID + 2, nak2Sent);
        Received copy2 = awaitCopy(c, s, mark2, csn, "refused twice");
        checkNotBlurred(s, mark2, csn, nak2Sent);
        checkWaited(c, copy, copy2, nak2Sent, csn, "second");
        checkAnsweredSoon(s, mark2, PROBE_ID + 2, nak2Sent);
        s.autoAck(true);
        s.ack(0);
        boolean both = s.await(() -> s.messagesOn(ECHO).size() >= 2);
        Checks.check(both, "the echoes did not complete after the CSN refused twice was acknowledged (%d of 2)",
                s.messagesOn(ECHO).size());
        Received nextEcho = firstOfMessage(s, mark, 1);
        Checks.check(nextEcho != null && nextEcho.arrivalNanos() - nakSent >= RETRY_AFTER_NANOS - CLOCK_SLACK_NANOS,
                "the echo of a later SEND on the paused stream arrived %.1f ms after the RECEIVER_NOT_READY NAK, before"
                + " its %d ms: none of a paused stream's packets is sent for the first time before the pause ends"
                + " [SPEC-NAK-4], [SPEC-MSG-4]", nextEcho == null ? -1.0 : (nextEcho.arrivalNanos() - nakSent) / 1e6,
                TimeUnit.NANOSECONDS.toMillis(RETRY_AFTER_NANOS));
        Scenarios.checkEcho(s, 0, m, "the echo whose first packet was refused twice");
        Scenarios.checkEcho(s, 1, m2, "the echo posted while its stream was paused");
    }

    private static Received awaitCopy(CaseContext c, WireSession s, int mark, long csn, String what) {
        Received[] found = new Received[1];
        s.await(() -> (found[0] = s.firstData(mark, csn)) != null, RETRY_AFTER_NANOS + s.waitNanos());
        Checks.check(found[0] != null, "CSN %d, %s with RECEIVER_NOT_READY and retryAfterNanos %d ms, was not sent again"
                + " within %d ms of the NAK: the sender retries without limit [SPEC-NAK-4], [SPEC-NAK-6]", csn, what,
                TimeUnit.NANOSECONDS.toMillis(RETRY_AFTER_NANOS),
                TimeUnit.NANOSECONDS.toMillis(RETRY_AFTER_NANOS + s.waitNanos()));
        return found[0];
    }

    /**
     * The copy {@code copy} of the CSN refused in {@code refused} came no sooner than the NAK's
     * delay after the NAK left. A copy that came sooner but left the IUT at least a minimum RTO
     * (less the suite's allowance) after {@code refused}, by the IUT's own timestamps, may be its
     * retransmission timer's, fired before it read the NAK (legal, [SPEC-CONF-5]): the attempt is
     * blurred, not failed.
     */
    private static void checkWaited(CaseContext c, Received refused, Received copy, long nakSent, long csn,
            String which) {
        double waited = (copy.arrivalNanos() - nakSent) / 1e6;
        if (copy.arrivalNanos() - nakSent >= RETRY_AFTER_NANOS - CLOCK_SLACK_NANOS) {
            return;
        }
        long minRto = TimeUnit.MILLISECONDS.toNanos(c.options().minRtoMillis());
        long sinceRefused = copy.packet().timestampNanos - refused.packet().timestampNanos;
        if (sinceRefused >= minRto - Math.max(CLOCK_SLACK_NANOS, minRto / 4)) {
            throw new Blurred();
        }
        throw new CaseFailure(String.format(java.util.Locale.ROOT, "the %s copy of CSN %d arrived %.1f ms after the"
                + " RECEIVER_NOT_READY NAK asked for %d ms, and left the IUT %.1f ms after the refused transmission (by"
                + " its timestamps), too soon for its retransmission timer: a refused CSN is held back for"
                + " retryAfterNanos [SPEC-NAK-4]", which, csn, waited, TimeUnit.NANOSECONDS.toMillis(RETRY_AFTER_NANOS),
                sinceRefused / 1e6));
    }

    /**
     * Throws {@link Blurred} unless the PROBE_ACK of probe {@code probeId}, sent right behind the NAK
     * sent at {@code nakSent}, was read within {@link #ANSWER_BOUND_NANOS} of it: otherwise the IUT,
     * the network or the suite stalled, and a copy that came late says nothing of the delay.
     */
    private static void checkAnsweredSoon(WireSession s, int mark, long probeId, long nakSent) {
        List<Received> all = s.received();
        for (int i = mark; i < all.size(); i++) {
            Received r = all.get(i);
            if (r.type() == PacketType.PROBE_ACK && r.packet().probeId == probeId) {
                if (r.arrivalNanos() - nakSent <= ANSWER_BOUND_NANOS) {
                    return;
                }
                break;
            }
        }
        throw new Blurred(Blurred.STALL);
    }

    /** The first DATA of message {@code msn} of the echo stream received at or after {@code mark}, or null. */
    private static Received firstOfMessage(WireSession s, int mark, long msn) {
        List<Received> all = s.received();
        for (int i = mark; i < all.size(); i++) {
            Received r = all.get(i);
            if (r.type() == PacketType.DATA && r.packet().streamId == ECHO && r.packet().messageSequence == msn) {
                return r;
            }
        }
        return null;
    }
}
