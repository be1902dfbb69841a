package io.metaroce.bench.conformance;

import io.metaroce.core.wire.PacketType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A peer that falls silent ([SPEC-CONF-30]): the IUT's echo is never acknowledged, its copies come
 * one per expiry of the backed-off timer ([SPEC-LOSS-5]), and at {@code maxConsecutiveTimeouts}
 * the connection ends ([SPEC-LOSS-6]), well before its idle timeout ([SPEC-STATE-8]) could end it;
 * an ACK that newly acknowledges something in between is progress and starts the count afresh
 * ([SPEC-SACK-11]). The suite is told the IUT's timeouts, maximum RTO and idle timeout; the cases
 * SKIP against an idle timeout too short to tell the two ends apart.
 *
 * <p>Stateless; thread-safe.
 */
final class UnreachableCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    /**
     * How far below the idle timeout the cases want the back-off's sum ([SPEC-CONF-30]): the idle
     * timeout at least three sums and this much more.
     */
    static final long IDLE_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private UnreachableCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("timer.peer-unreachable",
                        "an echo the suite never acknowledges is resent at each expiry of the backed-off timer until"
                                + " maxConsecutiveTimeouts; then the connection ends, well before its idle timeout,"
                                + " without a CLOSE",
                        "SPEC-LOSS-6, SPEC-LOSS-5, SPEC-CONN-3, SPEC-CONF-10, SPEC-CONF-30", "R-SACK-2, R-CONN-4",
                        UnreachableCases::peerUnreachable),
                ConformanceCase.of("timer.progress-resets",
                        "an ACK that acknowledges a copy after timeouts is progress: the count of consecutive timeouts"
                                + " starts afresh, so a later silence takes maxConsecutiveTimeouts timeouts again",
                        "SPEC-SACK-11, SPEC-LOSS-6, SPEC-LOSS-5, SPEC-CONF-30", "R-SACK-2, R-CONN-4",
                        UnreachableCases::progressResets));
    }

    /**
     * The time {@code timeouts} expiries of a path's timer take, backing off from {@code minRto}
     * and capped at {@code maxRto} ([SPEC-LOSS-4]), with nothing acknowledged.
     */
    static long backoffSumNanos(int timeouts, long minRto, long maxRto) {
        long sum = 0;
        long rto = minRto;
        for (int k = 0; k < timeouts; k++) {
            sum += Math.min(rto, maxRto);
            rto = Math.min(rto * 2, maxRto);
        }
        return sum;
    }

    /** SKIPs unless the IUT's idle timeout is at least three back-off sums and {@link #IDLE_MARGIN_NANOS} ([SPEC-CONF-30]). */
    private static void requireLongIdleTimeout(SuiteOptions o) {
        long backoff = backoffSumNanos(o.maxConsecutiveTimeouts(), TimeUnit.MILLISECONDS.toNanos(o.minRtoMillis()),
                TimeUnit.MILLISECONDS.toNanos(o.maxRtoMillis()));
        long needed = 3 * backoff + IDLE_MARGIN_NANOS;
        if (TimeUnit.MILLISECONDS.toNanos(o.idleTimeoutMillis()) < needed) {
            throw new CaseSkipped(String.format(Locale.ROOT, "the responder's idle timeout (%d ms) would end a silent"
                    + " connection before its %d timeouts (maxConsecutiveTimeouts) could, backing off from the minimum"
                    + " RTO of %d ms to at most %d ms (%d ms in all): run it with an idle timeout of %d ms or more, or"
                    + " fewer timeouts, and tell the suite (--idle-timeout-ms, --max-consecutive-timeouts, --max-rto-ms)"
                    + " [SPEC-CONF-30]", o.idleTimeoutMillis(), o.maxConsecutiveTimeouts(), o.minRtoMillis(),
                    o.maxRtoMillis(), TimeUnit.NANOSECONDS.toMillis(backoff),
                    TimeUnit.NANOSECONDS.toMillis(needed + 999_999)));
        }
    }

    /**
     * An echo never acknowledged, nothing else sent to the IUT (its keep-alives unanswered): its
     * copies come one per expiry of the path's timer ([SPEC-LOSS-5]), and the connection ends at
     * the {@code maxConsecutiveTimeouts}-th ([SPEC-LOSS-6]), judged before a copy is queued: FAIL on
     * a copy beyond one fewer. Once the copies stopped ({@link #copiesUntilSilent}), a one-packet
     * SEND must get nothing back: the connection ended, its id unknown ([SPEC-CONN-3]). That SEND
     * leaves well before the idle timeout could have ended the connection ([SPEC-STATE-8]), or the
     * case SKIPs; and no CLOSE may come at all.
     */
    private static void peerUnreachable(CaseContext c) {
        SuiteOptions o = c.options();
        requireLongIdleTimeout(o);
        WireSession s = c.connect(1);
        s.autoAck(false);
        s.answerProbes(false); // a PROBE_ACK is progress ([SPEC-PATH-9]): it would reset the count
        int mark = s.mark();
        Sent last = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 109)), 0).getLast();
        long csn = awaitEcho(s, -1);
        int copies = copiesUntilSilent(s, csn, o, "the SEND the echo answers");
        Sent after = sendWhileIdleTimerRuns(c, s, last, copies);
        expectNothingBack(c, s, after, last, copies, "with maxConsecutiveTimeouts (" + o.maxConsecutiveTimeouts()
                + ") timeouts and nothing answered, the connection ends [SPEC-LOSS-6]");
        Checks.check(s.ofType(mark, PacketType.CLOSE).isEmpty(), "the IUT sent CLOSE to a peer it found unreachable;"
                + " the connection ends without one [SPEC-LOSS-6]");
    }

    /**
     * As {@link #peerUnreachable}, but once the echo has been resent {@code maxConsecutiveTimeouts}
     * − 2 times the suite acknowledges everything: that ACK newly acknowledges a transmission, and
     * progress resets the count of consecutive timeouts to 0 ([SPEC-SACK-11]). Then a second SEND,
     * whose echo is never acknowledged, must be resent {@code maxConsecutiveTimeouts} − 1 times
     * before the connection ends: an IUT that kept counting from before the ACK ends after one copy.
     */
    private static void progressResets(CaseContext c) {
        SuiteOptions o = c.options();
        requireLongIdleTimeout(o);
        int timeouts = o.maxConsecutiveTimeouts();
        if (timeouts < 3) {
            throw new CaseSkipped("with maxConsecutiveTimeouts " + timeouts + " no copy comes both before and after the"
                    + " suite's ACK; run the responder with 3 or more [SPEC-CONF-30]");
        }
        WireSession s = c.connect(1);
        s.autoAck(false);
        s.answerProbes(false);
        Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 111)), 0);
        long first = awaitEcho(s, -1);
        long wait = 3 * backoffSumNanos(timeouts, TimeUnit.MILLISECONDS.toNanos(o.minRtoMillis()),
                TimeUnit.MILLISECONDS.toNanos(o.maxRtoMillis())) + s.waitNanos();
        boolean resent = s.await(() -> transmissions(s, first).size() >= timeouts - 1, wait);
        Checks.check(resent, "an echo never acknowledged was sent %d time(s) in %d ms; each expiry of the path's timer"
                + " resends it [SPEC-LOSS-5]", transmissions(s, first).size(), TimeUnit.NANOSECONDS.toMillis(wait));
        int before = transmissions(s, first).size() - 1;
        s.ack(0); // newly acknowledges the echo: progress ([SPEC-SACK-11])
        Sent last = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 112)), 0).getLast();
        long second = awaitEcho(s, first);
        int copies = copiesUntilSilent(s, second, o, "the second SEND");
        Sent after = sendWhileIdleTimerRuns(c, s, last, copies);
        expectNothingBack(c, s, after, last, copies, "with maxConsecutiveTimeouts (" + timeouts + ") timeouts since"
                + " the suite's ACK and nothing answered, the connection ends [SPEC-LOSS-6]");
        Checks.check(copies == timeouts - 1, "after the suite's ACK acknowledged the first echo and its %d copies, the"
                + " second echo, never acknowledged, was resent %d time(s) and then the connection had ended (a SEND got"
                + " nothing back): that ACK was progress, which starts the count of consecutive timeouts afresh"
                + " [SPEC-SACK-11], so the connection ends only at timeout %d after it, having resent the echo %d times"
                + " [SPEC-LOSS-6]", before, copies, timeouts, timeouts - 1);
    }

    /** Waits for the first DATA with a CSN above {@code after}: an echo; returns its CSN. */
    private static long awaitEcho(WireSession s, long after) {
        long[] csn = {-1};
        boolean came = s.await(() -> {
            for (Received r : s.data()) {
                if (r.packet().connectionSequence > after) {
                    csn[0] = r.packet().connectionSequence;
                    return true;
                }
            }
            return false;
        });
        Checks.check(came, "no echo within %d ms [SPEC-CONF-2]", s.waitNanos() / 1_000_000);
        return csn[0];
    }

    /**
     * Watches the copies of CSN {@code csn}, never acknowledged, until none came for twice the
     * next backed-off timeout ({@link #nextTimeoutBoundNanos}) and 200 ms; FAILs on a copy beyond
     * {@code maxConsecutiveTimeouts} − 1 ([SPEC-LOSS-5]: the path's health, and so the end, is
     * judged before the copy is queued). Returns the copies seen.
     */
    private static int copiesUntilSilent(WireSession s, long csn, SuiteOptions o, String since) {
        int timeouts = o.maxConsecutiveTimeouts();
        long minRto = TimeUnit.MILLISECONDS.toNanos(o.minRtoMillis());
        long maxRto = TimeUnit.MILLISECONDS.toNanos(o.maxRtoMillis());
        while (true) {
            List<Received> t = transmissions(s, csn);
            Checks.check(t.size() <= timeouts, "the IUT sent copy %d of an echo the suite never acknowledged (its"
                    + " connection heard nothing since %s): each copy follows a timeout of its path, and at the timeout"
                    + " that reaches maxConsecutiveTimeouts (%d), its health judged before a copy is queued"
                    + " ([SPEC-LOSS-5]), the connection ends with no other path in service, so at most %d copies"
                    + " [SPEC-LOSS-6]", t.size() - 1, since, timeouts, timeouts - 1);
            long quiet = 2 * nextTimeoutBoundNanos(t, minRto, maxRto) + TimerCases.ACK_DELAY_MARGIN_NANOS;
            long until = t.getLast().arrivalNanos() + quiet;
            int before = t.size();
            if (!s.await(() -> transmissions(s, csn).size() > before, Math.max(0, until - System.nanoTime()))) {
                return t.size() - 1;
            }
        }
    }

    /**
     * A one-packet SEND, sent now; SKIPs if now is too late: the IUT's idle timer, started no sooner
     * than {@code last} (the suite's last packet) left, may have ended the connection by then.
     */
    private static Sent sendWhileIdleTimerRuns(CaseContext c, WireSession s, Sent last, int copies) {
        long idle = TimeUnit.MILLISECONDS.toNanos(c.options().idleTimeoutMillis());
        long now = System.nanoTime();
        if (now > last.timestampNanos() + idle - TimerCases.slack(idle)) {
            throw new CaseSkipped(String.format(Locale.ROOT, "%s: the IUT's copies of the echo (%d) stopped only %.1f ms"
                    + " after the suite's last packet, too late to tell the end of [SPEC-LOSS-6] from its idle timeout of"
                    + " %d ms [SPEC-CONF-30]", CaseSkipped.HOST_TOO_SLOW, copies, (now - last.timestampNanos()) / 1e6,
                    c.options().idleTimeoutMillis()));
        }
        return Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 110)), 0).getLast();
    }

    /** Nothing may come back for {@code after} within the quiet spell: the connection ended ([SPEC-CONN-3]). */
    private static void expectNothingBack(CaseContext c, WireSession s, Sent after, Sent last, int copies, String why) {
        int mark = s.received().size();
        c.quiet(s);
        List<Received> answers = s.received().subList(mark, s.received().size());
        Checks.check(answers.isEmpty(), "%d packet(s) (the first %s) came for a SEND sent %.1f ms after the suite's"
                + " last packet before it (well within the idle timeout of %d ms), after the IUT's %d copies of the"
                + " unacknowledged echo had stopped: %s, and a packet for an unknown connection is dropped"
                + " [SPEC-CONN-3]", answers.size(), answers.isEmpty() ? "" : answers.getFirst(),
                (after.timestampNanos() - last.timestampNanos()) / 1e6, c.options().idleTimeoutMillis(), copies, why);
    }

    /**
     * A bound on the next expiry's timeout after the transmissions {@code t} of one packet: twice the
     * latest gap between them by the IUT's own timestamps (the back-off doubles it, [SPEC-LOSS-4]),
     * at least the minimum RTO, at most {@code maxRto}; {@code maxRto} before the first copy (the
     * first timeout rests on a round-trip estimate the suite does not know).
     */
    private static long nextTimeoutBoundNanos(List<Received> t, long minRto, long maxRto) {
        if (t.size() < 2) {
            return Math.max(minRto, maxRto);
        }
        long gap = t.getLast().packet().timestampNanos - t.get(t.size() - 2).packet().timestampNanos;
        return Math.min(maxRto, Math.max(minRto, 2 * gap));
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
}
