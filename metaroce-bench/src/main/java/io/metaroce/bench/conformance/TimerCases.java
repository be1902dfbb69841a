package io.metaroce.bench.conformance;

import io.metaroce.core.wire.PacketType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cases of the timers whose values the spec fixes, judged by the suite's clock (and, for the
 * intervals between the IUT's own transmissions, by its timestamps) with tolerances for a loaded
 * host: the retransmission timeout's floor and back-off ([SPEC-LOSS-4]) against the
 * minimum RTO the responder's operator gives ([SPEC-CONF-5], {@code --min-rto-ms}), and the ACK
 * delay bound ([SPEC-SACK-4]) against {@code maxAckDelayNanos} ({@code --max-ack-delay-us}).
 *
 * <p>Stateless; thread-safe.
 */
final class TimerCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    /** Least allowance for reading a datagram late (a descheduled suite thread). */
    private static final long MIN_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** What a loaded host may add to a timer that should fire at once: the ACK-delay case's margin. */
    static final long ACK_DELAY_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private TimerCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("timer.rto",
                        "an echo the suite never acknowledges is sent again no sooner than the minimum RTO, and again"
                                + " no sooner than twice that (back-off)",
                        "SPEC-LOSS-4, SPEC-LOSS-5, SPEC-LOSS-10, SPEC-PATH-5, SPEC-CONF-5, SPEC-CONF-10", "R-SACK-2",
                        TimerCases::rto),
                ConformanceCase.of("timer.ack-delay",
                        "a lone DATA packet without FLAG_ACK_NOW is acknowledged within maxAckDelayNanos (plus a margin"
                                + " for the host), with an ackDelayNanos no longer than the round trip",
                        "SPEC-SACK-3, SPEC-SACK-4, SPEC-WIRE-18, SPEC-CONF-10", "R-SACK-1", TimerCases::ackDelay));
    }

    /** The suite's allowance for a datagram read late: a quarter of {@code nanos}, at least 5 ms. */
    private static long slack(long nanos) {
        return Math.max(MIN_SLACK_NANOS, nanos / 4);
    }

    private static void rto(CaseContext c) {
        long minRto = TimeUnit.MILLISECONDS.toNanos(c.options().minRtoMillis());
        WireSession s = c.connect(1);
        s.autoAck(false);
        s.answerProbes(false); // a PROBE_ACK is progress ([SPEC-PATH-9]) and would reset the back-off
        byte[] m = Scenarios.bytes(100, 101);
        Scenarios.sendAll(s, s.send(ECHO, m), 0);
        boolean came = s.await(() -> !s.data().isEmpty());
        Checks.check(came, "no echo within %d ms [SPEC-CONF-2]", c.options().waitMillis());
        long csn = s.data().getFirst().packet().connectionSequence;
        long wait = 2 * minRto + 4 * minRto + s.waitNanos();
        boolean three = s.await(() -> transmissions(s, csn).size() >= 3, wait);
        List<Received> t = transmissions(s, csn);
        Checks.check(three, "an echo never acknowledged was sent %d time(s) in %d ms; with a minimum RTO of %d ms it is"
                + " sent again when the path's timer expires, and again after the doubled timeout [SPEC-LOSS-5]",
                t.size(), TimeUnit.NANOSECONDS.toMillis(wait), c.options().minRtoMillis());
        long first = interval(t.get(0), t.get(1));
        long second = interval(t.get(1), t.get(2));
        Checks.check(first >= minRto - slack(minRto), "the first copy of an unacknowledged echo came %.1f ms after it,"
                + " below the minimum RTO of %d ms (less %.1f ms for the suite's clock) [SPEC-LOSS-4], [SPEC-CONF-5]",
                first / 1e6, c.options().minRtoMillis(), slack(minRto) / 1e6);
        Checks.check(second >= 2 * minRto - slack(2 * minRto), "the second copy came %.1f ms after the first: after a"
                + " timeout the RTO doubles, so no sooner than %d ms (less %.1f ms) [SPEC-LOSS-4], [SPEC-LOSS-5]",
                second / 1e6, 2 * c.options().minRtoMillis(), slack(2 * minRto) / 1e6);
        s.autoAck(true);
        s.ack(0);
        Scenarios.awaitEchoes(s, 1, "an echo acknowledged after two timeouts");
        Scenarios.checkEcho(s, 0, m, "an echo acknowledged after two timeouts");
    }

    /**
     * The time between two transmissions: the longer of the gap between their arrivals (the suite's
     * clock) and the gap between their timestamps (the IUT's send times, nanoseconds of its own clock,
     * [SPEC-WIRE-8]). A suite thread that reads two datagrams in one go sees them arrive together;
     * the IUT's own stamps still tell when each left.
     */
    private static long interval(Received earlier, Received later) {
        return Math.max(later.arrivalNanos() - earlier.arrivalNanos(),
                later.packet().timestampNanos - earlier.packet().timestampNanos);
    }

    private static List<Received> transmissions(WireSession s, long csn) {
        List<Received> out = new ArrayList<>();
        for (Received r : s.data()) {
            if (r.packet().connectionSequence == csn) {
                out.add(r);
            }
        }
        return out;
    }

    private static void ackDelay(CaseContext c) {
        long bound = TimeUnit.MICROSECONDS.toNanos(c.options().maxAckDelayMicros()) + ACK_DELAY_MARGIN_NANOS;
        WireSession s = c.connect(1);
        // The first packet the connection admits is acknowledged at once ([SPEC-SACK-4]): send it first.
        Sent opening = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 102)), 0).getLast();
        Scenarios.awaitAckOf(s, 0, opening.pathSequence());
        Scenarios.awaitEchoes(s, 1, "a first SEND");
        // One packet, in order, without FLAG_ACK_NOW, of a message of two: nothing asks for an ACK at once.
        byte[] m = Scenarios.bytes(2 * s.payloadSize(), 103);
        List<Segment> segs = s.send(ECHO, m);
        Sent lone = s.transmit(segs.getFirst(), 0, 0, 0);
        Received ack = Scenarios.awaitAckOf(s, 0, lone.pathSequence());
        long roundTrip = ack.arrivalNanos() - lone.timestampNanos();
        Checks.check(roundTrip <= bound, "a lone DATA packet without FLAG_ACK_NOW was acknowledged %.1f ms after it was"
                + " sent: the ACK is due maxAckDelayNanos (%d us) after it arrived (%.0f ms allowed for the host)"
                + " [SPEC-SACK-4]", roundTrip / 1e6, c.options().maxAckDelayMicros(), ACK_DELAY_MARGIN_NANOS / 1e6);
        long reported = ack.packet().ackDelayNanos;
        Checks.check(reported >= 0 && reported <= roundTrip, "the ACK reports ackDelayNanos %d, more than the %d ns"
                + " between the packet's sending and the ACK's arrival: the receiver held it no longer [SPEC-SACK-3]",
                reported, roundTrip);
        Checks.check(ack.packet().echoTimestampNanos == lone.timestampNanos(), "the ACK echoes timestamp %d, not the"
                + " packet's %d [SPEC-SACK-3]", ack.packet().echoTimestampNanos, lone.timestampNanos());
        Sent rest = s.send(segs.get(1), 0);
        Scenarios.awaitAckOf(s, 0, rest.pathSequence());
        Scenarios.awaitEchoes(s, 2, "a SEND whose first packet waited for a delayed ACK");
        Scenarios.checkEcho(s, 1, m, "a SEND whose first packet waited for a delayed ACK");
        Scenarios.checkAllAcks(s);
        Checks.check(s.ofType(0, PacketType.NAK).isEmpty(), "a NAK came for valid SENDs");
    }
}
