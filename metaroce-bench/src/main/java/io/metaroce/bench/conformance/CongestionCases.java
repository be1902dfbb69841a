package io.metaroce.bench.conformance;

import io.metaroce.core.wire.WireConstants;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The suite as a receiver that signals congestion to the IUT's sender, round trip by round trip,
 * and judges from the wire how its window answers ([SPEC-CONF-16]): CE marks in the ACKs' ECN
 * counts ([SPEC-SACK-8], [SPEC-CC-8]) or a hole in every ACK ([SPEC-LOSS-1], [SPEC-CC-9]) must make
 * its flight fall, and once the signals stop it must grow again by additive increase
 * ([SPEC-CC-6]), not by slow start ([SPEC-CC-31]).
 *
 * <p>A round trip is clocked by the suite: it acknowledges nothing until the IUT has been silent
 * for a quiet spell ({@link #quietNanos}, below half the minimum RTO), then acknowledges all it
 * received in one ACK. With nothing acknowledged the IUT can send only its window, so the DATA
 * bytes a round carries are its window (less than a datagram more: a sender sends while its flight
 * is below the window). A round cut short by a stall of the IUT or of the suite reads as a smaller
 * window; every upper bound is therefore taken as the larger of the bounds from the two rounds before,
 * so one short round does not make the next one look too large. An attempt that fails after a
 * round's DATA left before the ACK that closed the round before it ({@link #spill}), or after the
 * IUT's timer resent a packet, is blurred: a fresh connection, three attempts, then SKIP.
 *
 * <p>Stateless; thread-safe.
 */
final class CongestionCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    /**
     * Echoes of a whole receive each the IUT is given before the rounds: about 490 KB of datagrams,
     * half again what the reference responder sends in the rounds, so its window and not its data
     * limits every round.
     */
    static final int MESSAGES = 7;
    /** The SEND (MSN 0) whose arrival completes every receive at once: one packet. */
    private static final int FIRST_BYTES = 100;
    /** ACKs that signal congestion (every packet CE-marked, or a hole), one per round trip. */
    static final int SIGNAL_ROUNDS = 5;
    /** ACKs after those that signal nothing. */
    static final int CLEAR_ROUNDS = 5;
    /** Attempts before a case whose rounds a slow host blurred gives up (SKIP). */
    private static final int ATTEMPTS = 3;
    /** The quiet spell that ends a round: at most this long, and below half the minimum RTO. */
    private static final long MAX_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MIN_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private CongestionCases() {
    }

    /** How the suite says "congestion" in a round's ACK. */
    enum Signal {
        /** Every packet the ACK newly counts is counted CE-marked ([SPEC-SACK-8]). */
        MARK,
        /** The round's first new packet is left out of the ACK, and out of every later one ([SPEC-LOSS-1]). */
        HOLE,
        /**
         * No ECN reported at all (every count 0), so the IUT's controller reads delay: each round's ACK
         * comes a quiet spell after its packets, far above the least RTT sample (the first packet,
         * acknowledged at once), so every sample is a delay mark ([SPEC-CC-15]). The signal never stops:
         * only the rounds under it are clocked.
         */
        DELAY
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("cc.ecn-cut",
                        "with every DATA packet reported CE-marked for five round trips, the IUT's flight falls by half"
                                + " at least every second round trip (additive increase allowed) toward the floor; once"
                                + " the marks stop it grows again, by additive increase, not slow start",
                        "SPEC-CC-5, SPEC-CC-6, SPEC-CC-7, SPEC-CC-8, SPEC-CC-31, SPEC-SACK-8, SPEC-CONF-16", "R-CC-1",
                        c -> run(c, Signal.MARK)),
                ConformanceCase.of("cc.loss-cut",
                        "with a hole revealed in every ACK for five round trips, the IUT's flight falls by half at least"
                                + " every second round trip (additive increase allowed) toward the floor; once the"
                                + " holes stop it grows again, by additive increase, not slow start",
                        "SPEC-CC-5, SPEC-CC-6, SPEC-CC-9, SPEC-CC-31, SPEC-LOSS-1, SPEC-LOSS-3, SPEC-CONF-16",
                        "R-CC-1, R-SACK-2", c -> run(c, Signal.HOLE)),
                ConformanceCase.of("cc.delay-cut",
                        "with no ECN reported (every ACK's counts 0) and every round trip's ACK a quiet spell late, far"
                                + " above the least RTT sample, the IUT reads delay as marks: its flight falls by half at"
                                + " least every second round trip toward the floor, as under CE marks",
                        "SPEC-CC-15, SPEC-CC-7, SPEC-CC-8, SPEC-CC-19, SPEC-CONF-16, SPEC-CONF-29", "R-CC-1",
                        c -> run(c, Signal.DELAY)),
                ConformanceCase.of("cc.paced",
                        "without a rate hint, a window that grows in slow start is paced over the round trip: each"
                                + " round trip's DATA beyond the burst allowance leaves no faster than twice the window"
                                + " per smoothed RTT, by the IUT's own send times",
                        "SPEC-CC-13, SPEC-CC-19, SPEC-SACK-7, SPEC-WIRE-8, SPEC-CONF-21", "R-CC-1, R-CC-3",
                        CongestionCases::paced),
                ConformanceCase.of("cc.spurious-undo",
                        "a loss the suite reported (a hole in one round trip's ACK) and then took back (the next ACK"
                                + " acknowledges the original) is spurious: the window its cut halved is restored",
                        "SPEC-CC-27, SPEC-LOSS-9, SPEC-LOSS-1, SPEC-CC-9, SPEC-CONF-16, SPEC-CONF-32", "R-CC-1, R-SACK-2",
                        CongestionCases::spurious));
    }

    /** Round trips {@code cc.spurious-undo} clocks: the hole's, the proof's, and the one that shows the undo. */
    private static final int SPURIOUS_ROUNDS = 3;

    private static void spurious(CaseContext c) {
        attempts(c, CongestionCases::spuriousOnce, "[SPEC-CONF-32]");
    }

    /**
     * Runs {@code once} on fresh connections until an attempt is not {@link Blurred} by a slow host;
     * after {@link #ATTEMPTS} blurred ones, SKIPs citing {@code rule} and the reasons.
     */
    private static void attempts(CaseContext c, java.util.function.Consumer<CaseContext> once, String rule) {
        Set<String> reasons = new LinkedHashSet<>();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                once.accept(c);
                return;
            } catch (Blurred b) {
                reasons.add(b.getMessage()); // a fresh connection: the host was too slow this time
            }
        }
        throw new CaseSkipped("in " + ATTEMPTS + " attempts " + String.join("; or ", reasons) + ": "
                + CaseSkipped.HOST_TOO_SLOW + " to clock round trips of "
                + TimeUnit.NANOSECONDS.toMillis(quietNanos(c.options())) + " ms; run the responder with a longer minimum"
                + " RTO, on a quieter host [SPEC-CONF-5], " + rule);
    }

    /**
     * Round trips clocked as in [SPEC-CONF-16] with no mark: round trip 0's ACK leaves out its first
     * new packet (a hole, [SPEC-LOSS-1]: the IUT resends it and cuts its window, [SPEC-CC-9]); round
     * trip 1's ACK acknowledges everything, that packet's original too, which proves the loss
     * spurious ([SPEC-LOSS-9]: PSNs are never reused). The controller restores the window it had
     * before the cut ([SPEC-CC-27]), at least round trip 0's: round trip 2 must carry round trip 0's
     * bytes less a datagram. If round trip 1 shows no cut (it carries within two increases and two
     * datagrams of round trip 0) the undo cannot be seen and the case SKIPs ({@code cc.loss-cut}
     * judges the cut). A failure after a round cut short by a stall blurs the attempt.
     */
    private static void spuriousOnce(CaseContext c) {
        WireSession s = c.connect(1);
        s.autoAck(false);
        s.reportEcn(true, false); // ECN-capable, never marked: no delay marks, no ECN cut to forget the loss cut
        long quiet = quietNanos(c.options());
        long increase = Integer.toUnsignedLong(s.accept().packet().maxDatagramBytes);
        queueEchoes(s, MESSAGES, 180, 0, quiet);
        List<Round> rounds = new ArrayList<>();
        List<Long> ackTimes = new ArrayList<>();
        Set<Long> holed = new HashSet<>();
        int from = 0;
        Received hole = null;
        for (int r = 0; r < SPURIOUS_ROUNDS; r++) {
            int start = from;
            boolean any = s.await(() -> s.data().size() > start, s.waitNanos());
            if (r == 0 && any) {
                s.ackThrough(0, s.data().getFirst().packet().pathSequence); // at once, [SPEC-CC-26]
            }
            checkCopies(s, holed);
            Checks.check(any, "no DATA came within %d ms of the suite's ACK of round trip %d, with %d of %d echoes"
                    + " complete [SPEC-CC-5], [SPEC-CONF-2]", s.waitNanos() / 1_000_000, r, s.echoes().size(),
                    MESSAGES + 1);
            awaitQuiet(s, quiet);
            int end = s.data().size();
            rounds.add(Round.of(s.data().subList(start, end)));
            from = end;
            if (r == SPURIOUS_ROUNDS - 1) {
                break;
            }
            ackTimes.add(System.nanoTime()); // no later than the ACK leaves
            if (r == 0) {
                hole = firstNew(s.data().subList(start, end), holed, s.data().getFirst().packet().pathSequence);
                Checks.check(hole != null, "round trip 0 carried no first transmission to leave out [SPEC-CONF-32]");
                holed.add(hole.packet().connectionSequence);
                s.ackExcept(0, Set.of(hole.packet().pathSequence));
            } else {
                s.ack(0); // the hole's original acknowledged at last: the loss was spurious
            }
        }
        long datagram = largestPacket(rounds);
        long r0 = rounds.get(0).bytes();
        long r1 = rounds.get(1).bytes();
        if (r1 > r0 - 2 * increase - 2 * datagram) {
            String spill = spill(s, rounds, ackTimes);
            if (spill != null) {
                throw new Blurred(spill + " (and then no loss cut showed)");
            }
            throw new CaseSkipped(String.format(Locale.ROOT, "round trip 1 carried %d bytes after round trip 0's %d and a"
                    + " hole in its ACK: no loss cut shows (cc.loss-cut judges it), so its undo cannot be seen"
                    + " [SPEC-CONF-32]", r1, r0));
        }
        Received lost = hole;
        judged(s, rounds, ackTimes, () -> Checks.check(rounds.get(2).bytes() >= r0 - datagram, "round trip 2 carried %d"
                + " bytes of DATA, less than round trip 0's %d (less a datagram of %d): round trip 0's ACK left out %s, the"
                + " IUT resent it and cut its window (round trip 1: %d bytes), and round trip 1's ACK acknowledged that"
                + " original (PSN %d), which proves the loss spurious [SPEC-LOSS-9]; the window before the cut is"
                + " restored [SPEC-CC-27]; rounds: %s", rounds.get(2).bytes(), r0, datagram, lost, r1,
                lost.packet().pathSequence, bytes(rounds)));
        s.autoAck(true);
        s.ack(0);
        Scenarios.awaitEchoes(s, MESSAGES + 1, "the echoes after the round trips");
        checkCopies(s, holed);
        checkQueuedEchoes(s, 0, MESSAGES, 180, "an echo clocked by the suite's round trips");
        Scenarios.checkAllAcks(s);
    }

    /**
     * Echoes of a whole receive each {@code cc.paced} queues: with the first one-packet SEND, as
     * many as the responder keeps receives posted ([SPEC-CONF-2]): about 1 MB of datagrams, so a
     * window that doubles from 64 KiB is not short of data in its first four round trips.
     */
    static final int PACED_MESSAGES = ResponderContract.RECEIVES_AHEAD - 1;
    /** Packets of a round {@code cc.paced} acknowledges per ACK before the last, well within one ACK's 256 PSNs. */
    private static final int ACK_STRIDE = 128;
    /** Round trips {@code cc.paced} clocks at most. */
    private static final int PACED_ROUNDS = 8;
    /**
     * What a path idle for a quiet spell may send back to back ([SPEC-CC-13]): 64 KiB, more than
     * {@code pacingBurstBytes} at its §12.1 default (56 KiB), as in [SPEC-CONF-14].
     */
    static final long BURST_ALLOWANCE_BYTES = 65_536;
    /** The largest pacing gain the suite allows ([SPEC-CONF-21]): twice the window per srtt (§12.1: 1.25). */
    static final double PACING_GAIN_ALLOWED = 2.0;
    /** A round trip whose bound is shorter than this is not judged: too little beyond the burst to tell. */
    private static final long LEAST_JUDGED_SPAN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static void paced(CaseContext c) {
        attempts(c, CongestionCases::pacedOnce, "[SPEC-CONF-21]");
    }

    /**
     * Round trips clocked as in [SPEC-CONF-16], with no signal: every ACK counts every packet
     * ECN-capable and none CE-marked (no delay marks, [SPEC-CC-15]), its hint 0, and the first
     * packet is not acknowledged at once, so the IUT's first RTT sample, and every later one, is at
     * least the quiet spell {@code Q} ([SPEC-CC-19]: the receiver's ACK delay included), and so is
     * its smoothed RTT from the first round's ACK on ([SPEC-SACK-7]). Its window grows in slow start
     * and is constant within a round trip (nothing is acknowledged in it), so a round of {@code n}
     * bytes that is not short of data was sent under a window of at most {@code n + D} ({@code D}
     * the largest DATA packet) at a pacing rate of at most {@code g·(n + D)/Q} ([SPEC-CC-13],
     * {@code g} ≤ {@link #PACING_GAIN_ALLOWED}); after the idle spell the path may send the burst
     * allowance {@code B} and a datagram back to back, so its last packet leaves at least
     * {@code (n − B − 2D)·Q / (g·(n + D))} after its first. The suite reads both from the IUT's own
     * {@code timestampNanos} ([SPEC-WIRE-8]: differences of the IUT's clock only): a stall of the
     * IUT only lengthens the span, a late read by the suite does not shorten it. Round 0 (before
     * any sample) and the last round with DATA (perhaps short of data) are not judged.
     */
    private static void pacedOnce(CaseContext c) {
        WireSession s = c.connect(1);
        s.autoAck(false);
        s.reportEcn(true, false);
        long quiet = quietNanos(c.options());
        queueEchoes(s, PACED_MESSAGES, 311, 0, quiet);
        List<Round> rounds = new ArrayList<>();
        List<Long> spans = new ArrayList<>();
        List<Long> ackTimes = new ArrayList<>();
        int from = 0;
        for (int r = 0; r < PACED_ROUNDS && s.echoes().size() < PACED_MESSAGES + 1; r++) {
            int start = from;
            boolean any = s.await(() -> s.data().size() > start, s.waitNanos());
            checkCopies(s, Set.of());
            Checks.check(any, "no DATA came within %d ms of the suite's ACK of round trip %d, with %d of %d echoes"
                    + " complete: the IUT stopped sending with its whole flight acknowledged [SPEC-CC-5], [SPEC-CONF-2]",
                    s.waitNanos() / 1_000_000, r, s.echoes().size(), PACED_MESSAGES + 1);
            awaitQuiet(s, quiet);
            int end = s.data().size();
            List<Received> round = s.data().subList(start, end);
            rounds.add(Round.of(round));
            spans.add(round.getLast().packet().timestampNanos - round.getFirst().packet().timestampNanos);
            from = end;
            ackTimes.add(System.nanoTime());
            // One ACK covers 256 PSNs ([SPEC-SACK-3]); a round of more would leave its first packets below the
            // last ACK's base, lost to the IUT ([SPEC-LOSS-2]): ACKs through every 128th packet first.
            for (int i = ACK_STRIDE; i < round.size(); i += ACK_STRIDE) {
                s.ackThrough(0, round.get(i - 1).packet().pathSequence);
            }
            s.ack(0);
        }
        s.autoAck(true);
        s.ack(0);
        Scenarios.awaitEchoes(s, PACED_MESSAGES + 1, "the echoes after the round trips");
        checkCopies(s, Set.of());
        judged(s, rounds, ackTimes, () -> pacing(rounds, spans, quiet));
        for (int i = 1; i <= PACED_MESSAGES; i++) {
            Scenarios.checkEcho(s, i, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, 311 + i),
                    "an echo clocked by the suite's round trips");
        }
        Scenarios.checkAllAcks(s);
    }

    /**
     * Judges the spans of the IUT's rounds against the pacing bound of {@link #pacedOnce} ([SPEC-CONF-21]);
     * SKIPs if no round's window was large enough beyond the burst allowance to judge.
     */
    static void pacing(List<Round> rounds, List<Long> spans, long quietNanos) {
        long datagram = largestPacket(rounds);
        int judged = 0;
        for (int r = 1; r < rounds.size() - 1; r++) {
            long n = rounds.get(r).bytes();
            double bound = (n - BURST_ALLOWANCE_BYTES - 2.0 * datagram) * quietNanos / (PACING_GAIN_ALLOWED * (n + datagram));
            if (bound < LEAST_JUDGED_SPAN_NANOS) {
                continue;
            }
            judged++;
            Checks.check(spans.get(r) >= bound, "round trip %d: the IUT sent its %d bytes of DATA (%d packets) within"
                    + " %.1f ms by its own timestamps, where a window of at most %d bytes paced at %.2f times the window"
                    + " per smoothed RTT (at least the %d ms quiet spell) takes at least %.1f ms beyond a burst of %d"
                    + " bytes: the window was not paced [SPEC-CC-13], [SPEC-CONF-21]; rounds: %s, spans (ms): %s", r, n,
                    rounds.get(r).packets(), spans.get(r) / 1e6, n + datagram, PACING_GAIN_ALLOWED,
                    TimeUnit.NANOSECONDS.toMillis(quietNanos), bound / 1e6, BURST_ALLOWANCE_BYTES, bytes(rounds),
                    millis(spans));
        }
        if (judged == 0) {
            throw new CaseSkipped("no round trip's window exceeded the burst allowance of " + BURST_ALLOWANCE_BYTES
                    + " bytes by enough to judge its pacing (rounds: " + bytes(rounds) + ") [SPEC-CONF-21]");
        }
    }

    private static String millis(List<Long> spans) {
        StringBuilder b = new StringBuilder();
        for (long x : spans) {
            b.append(b.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", x / 1e6));
        }
        return b.toString();
    }

    /**
     * What the IUT sent in one round trip.
     *
     * @param bytes the DATA packets' bytes (a bundled ACK ahead of one not counted)
     * @param packets how many DATA packets
     * @param largestPacket the largest DATA packet, bytes
     */
    record Round(long bytes, int packets, int largestPacket) {
        static Round of(List<Received> data) {
            long bytes = 0;
            int largest = 0;
            for (Received r : data) {
                bytes += r.length();
                largest = Math.max(largest, r.length());
            }
            return new Round(bytes, data.size(), largest);
        }
    }

    /** An attempt whose rounds a slow host blurred: the IUT's timer fired, or a round was cut short. */
    private static final class Blurred extends RuntimeException {
        Blurred(String why) {
            super(why, null, false, false);
        }
    }

    private static void run(CaseContext c, Signal signal) {
        attempts(c, context -> once(context, signal), "[SPEC-CONF-16]");
    }

    /**
     * The quiet spell that ends a round: two fifths of the minimum RTO, within [2, 100] ms, so that
     * the ACK of a round leaves before the IUT's timer fires for its first packet ([SPEC-CONF-5]).
     */
    static long quietNanos(SuiteOptions options) {
        return Math.clamp(TimeUnit.MILLISECONDS.toNanos(options.minRtoMillis()) * 2 / 5, MIN_QUIET_NANOS,
                MAX_QUIET_NANOS);
    }

    private static void once(CaseContext c, Signal signal) {
        WireSession s = c.connect(1);
        s.autoAck(false);
        // ECN-capable from the first ACK, so no delay marks stand in for marks [SPEC-CC-15]; for DELAY, never.
        s.reportEcn(signal != Signal.DELAY, false);
        long quiet = quietNanos(c.options());
        long increase = Integer.toUnsignedLong(s.accept().packet().maxDatagramBytes);
        queueEchoes(s, MESSAGES, 149, 0, quiet);
        List<Round> rounds = new ArrayList<>();
        List<Long> ackTimes = new ArrayList<>();
        Set<Long> holed = new HashSet<>();
        int from = 0;
        long acked = -1; // the highest PSN an ACK of the suite's covered
        int last = signal == Signal.DELAY ? SIGNAL_ROUNDS : SIGNAL_ROUNDS + CLEAR_ROUNDS;
        for (int r = 0; r <= last; r++) {
            int start = from;
            boolean any = s.await(() -> s.data().size() > start, s.waitNanos());
            if (r == 0 && any) {
                // The first packet acknowledged at once, as a receiver does [SPEC-CC-26]: its ECN counts tell
                // the IUT that the path is ECN-capable before it sees a round trip of 'queueing' [SPEC-CC-15].
                acked = s.data().getFirst().packet().pathSequence;
                s.ackThrough(0, acked);
            }
            checkCopies(s, holed);
            Checks.check(any, "no DATA came within %d ms of the suite's ACK of round trip %d, with %d of %d echoes"
                    + " complete: the IUT stopped sending with its whole flight acknowledged [SPEC-CC-5], [SPEC-CONF-2]",
                    s.waitNanos() / 1_000_000, r, s.echoes().size(), MESSAGES + 1);
            awaitQuiet(s, quiet);
            int end = s.data().size();
            rounds.add(Round.of(s.data().subList(start, end)));
            // Judged as they come: a window that grows too fast ends the echoes before the last round.
            judged(s, rounds, ackTimes, () -> bounds(rounds, increase, signal));
            from = end;
            if (r == last) {
                break;
            }
            boolean signalling = r < SIGNAL_ROUNDS;
            if (signal == Signal.MARK) {
                s.reportEcn(true, signalling);
            } else if (signal == Signal.HOLE && signalling) {
                Received hole = firstNew(s.data().subList(start, end), holed, acked);
                Checks.check(hole != null, "round trip %d carried no first transmission to leave out [SPEC-CONF-16]", r);
                s.withhold(0, hole.packet().pathSequence);
                holed.add(hole.packet().connectionSequence);
            }
            ackTimes.add(System.nanoTime()); // no later than the ACK leaves
            s.ack(0);
            acked = s.iutPsns(0).last();
        }
        // The rest goes at the suite's pace again: every packet acknowledged at once.
        s.reportEcn(signal != Signal.DELAY, false);
        s.autoAck(true);
        s.ack(0);
        Scenarios.awaitEchoes(s, MESSAGES + 1, "the echoes after the round trips");
        checkCopies(s, holed);
        if (signal != Signal.DELAY) {
            judged(s, rounds, ackTimes, () -> growth(rounds, increase));
        }
        checkQueuedEchoes(s, 0, MESSAGES, 149, "an echo clocked by the suite's round trips");
        Scenarios.checkAllAcks(s);
    }

    /**
     * Queues {@code count} echoes of a whole receive each (bytes from seed {@code seed} + 1 on), then,
     * after {@code quiet} for the IUT to take them in, sends a one-packet SEND (MSN 0 of the stream's
     * new messages, bytes from {@code seed}), all on {@code path}: no receive completes before it
     * arrives ([SPEC-MSG-10]), so every echo is posted at once and the first round's clock starts
     * with one packet of the suite's, not while the IUT still reads 64 KiB messages.
     */
    static void queueEchoes(WireSession s, int count, long seed, int path, long quiet) {
        List<Segment> opening = s.send(ECHO, Scenarios.bytes(FIRST_BYTES, seed));
        for (int i = 1; i <= count; i++) {
            Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, seed + i)), path);
            s.quiet(1); // the IUT's socket buffer drains between messages
        }
        s.await(() -> false, quiet); // its ACKs of them handled: the IUT has them all
        Scenarios.sendAll(s, opening, path);
    }

    /** The echoes of {@link #queueEchoes}, from echo {@code first} on, carry the bytes sent. */
    static void checkQueuedEchoes(WireSession s, int first, int count, long seed, String what) {
        Scenarios.checkEcho(s, first, Scenarios.bytes(FIRST_BYTES, seed), what);
        for (int i = 1; i <= count; i++) {
            Scenarios.checkEcho(s, first + i, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, seed + i), what);
        }
    }

    /**
     * Runs {@code check}; a failure blurs the attempt instead if a round was closed while the IUT
     * was still sending into it ({@link #spill}): a round cut short reads as a small window, which
     * the bounds of the rounds after it take on trust.
     */
    private static void judged(WireSession s, List<Round> rounds, List<Long> ackTimes, Runnable check) {
        try {
            check.run();
        } catch (CaseFailure f) {
            String spill = spill(s, rounds, ackTimes);
            if (spill != null) {
                throw new Blurred(spill + " (and then: " + f.getMessage() + ")");
            }
            throw f;
        }
    }

    /**
     * Why a round may have been cut short, or null: a DATA packet counted in round {@code r} that
     * the IUT sent before the suite's ACK closing round {@code r − 1} left. Its send time on the
     * suite's clock is at most its {@code timestampNanos} plus the least arrival-less-timestamp of
     * all the IUT's DATA (the clocks' offset plus the least transit, [SPEC-WIRE-8]: only differences
     * of the IUT's own timestamps are used), so the test errs toward "not cut short". A stall of
     * the IUT or of the suite as long as the quiet spell does this; it blurs, it does not fail.
     */
    private static String spill(WireSession s, List<Round> rounds, List<Long> ackTimes) {
        List<Received> data = s.data();
        long offset = Long.MAX_VALUE;
        for (Received r : data) {
            offset = Math.min(offset, r.arrivalNanos() - r.packet().timestampNanos);
        }
        int at = rounds.getFirst().packets();
        for (int r = 1; r < rounds.size() && r - 1 < ackTimes.size(); r++) {
            long closed = ackTimes.get(r - 1);
            for (int i = at; i < at + rounds.get(r).packets(); i++) {
                if (data.get(i).packet().timestampNanos + offset < closed) {
                    return String.format(Locale.ROOT, "round trip %d was closed while the IUT was still sending into"
                            + " it (%s left %.1f ms before the suite's ACK; a stall of the IUT or of the suite)", r - 1,
                            data.get(i), (closed - data.get(i).packet().timestampNanos - offset) / 1e6);
                }
            }
            at += rounds.get(r).packets();
        }
        return null;
    }

    /** Handles what arrives until the IUT has sent no DATA for {@code quietNanos}. */
    static void awaitQuiet(WireSession s, long quietNanos) {
        while (true) {
            int n = s.data().size();
            if (!s.await(() -> s.data().size() > n, quietNanos)) {
                return;
            }
        }
    }

    /**
     * The first packet of {@code round} that is a first transmission, not left out already and not
     * acknowledged (its PSN above {@code acked}).
     */
    private static Received firstNew(List<Received> round, Set<Long> holed, long acked) {
        for (Received r : round) {
            boolean copy = (r.packet().flags & WireConstants.FLAG_RETRANSMISSION) != 0;
            if (!copy && !holed.contains(r.packet().connectionSequence) && r.packet().pathSequence > acked) {
                return r;
            }
        }
        return null;
    }

    /**
     * Blurs the attempt if a CSN came more often than the suite's holes explain (once, twice for a
     * hole): the IUT's retransmission timer fired before a round's ACK reached it, which is legal
     * ([SPEC-CONF-5]) but is a loss the suite did not script.
     */
    private static void checkCopies(WireSession s, Set<Long> holed) {
        Map<Long, Integer> copies = new HashMap<>();
        for (Received r : s.data()) {
            long csn = r.packet().connectionSequence;
            int n = copies.merge(csn, 1, Integer::sum);
            if (n > (holed.contains(csn) ? 2 : 1)) {
                throw new Blurred("the IUT's retransmission timer fired for CSN " + csn + " before the suite's ACK"
                        + " reached it");
            }
        }
    }

    /**
     * Judges the rounds' bytes. With {@code increase} the IUT's {@code maxDatagramBytes} (its
     * additive increase, [SPEC-CC-6]) and {@code datagram} the largest DATA packet seen (what a
     * round may carry beyond the window), round {@code r} may carry at most the largest of the
     * {@link #ceiling ceilings} from rounds {@code r − 1} and {@code r − 2}, plus a datagram.
     */
    static void bounds(List<Round> rounds, long increase, Signal signal) {
        long datagram = largestPacket(rounds);
        String rule = switch (signal) {
            case MARK -> "[SPEC-CC-8]";
            case HOLE -> "[SPEC-CC-9]";
            case DELAY -> "[SPEC-CC-15], [SPEC-CC-8]";
        };
        double factor = cutFactor(signal);
        for (int r = 1; r < rounds.size(); r++) {
            double bound = 0;
            int from = -1;
            for (int j = Math.max(0, r - 2); j < r; j++) {
                double b = ceiling(rounds.get(j).bytes(), j, r, increase, factor);
                if (b > bound) {
                    bound = b;
                    from = j;
                }
            }
            bound += datagram;
            boolean signalled = r <= SIGNAL_ROUNDS;
            Checks.check(rounds.get(r).bytes() <= bound, "round trip %d carried %d bytes of DATA, more than the %.0f"
                    + " its window may hold after the %d bytes of round trip %d and %s (%s); rounds: %s", r,
                    rounds.get(r).bytes(), bound, rounds.get(from).bytes(), from, signalled
                            ? (switch (signal) {
                                case MARK -> "every packet reported CE-marked since";
                                case HOLE -> "a hole in every ACK since";
                                case DELAY -> "no ECN reported and every ACK a quiet spell after its round since (a"
                                        + " delay mark for every packet)";
                            })
                                    + ": a cut to " + String.format(Locale.ROOT, "%.4f", factor)
                                    + " of the window at least every second round trip, " + increase
                                    + " bytes of additive increase a round trip, floor "
                                    + ResponderContract.CC_MIN_WINDOW_BYTES + " bytes"
                            : "no signal since: additive increase of at most two datagrams of " + increase
                                    + " bytes a round trip, not slow start",
                    signalled ? rule + ", [SPEC-CONF-16]" : "[SPEC-CC-6], [SPEC-CC-31]", bytes(rounds));
        }
    }

    /**
     * The last two clear rounds carry at least two datagrams more than the smaller of the last two
     * rounds under the signals: the window grows again ([SPEC-CC-6]).
     */
    static void growth(List<Round> rounds, long increase) {
        long datagram = largestPacket(rounds);
        int lastSignal = SIGNAL_ROUNDS;
        long under = Math.min(rounds.get(lastSignal).bytes(), rounds.get(lastSignal - 1).bytes());
        long after = Math.max(rounds.getLast().bytes(), rounds.get(rounds.size() - 2).bytes());
        Checks.check(after >= under + 2 * datagram, "%d round trips after the signals stopped the IUT sent %d bytes a"
                + " round trip, not two datagrams (%d bytes) more than the %d it sent under the last signals: its window"
                + " did not grow again by %d bytes a round trip (additive increase); rounds: %s [SPEC-CC-6]",
                CLEAR_ROUNDS, after, 2 * datagram, under, increase, bytes(rounds));
    }

    /**
     * The largest share of its window a cut may leave ([SPEC-CONF-16]): 1/2 for a loss
     * ([SPEC-CC-9]); for marks {@code 1 − alpha / 2} ([SPEC-CC-8]) with the least {@code alpha} the
     * rounds allow: it starts at 1 ([SPEC-CC-7]) and, before the first mark, moves toward 0 at most
     * twice by the gain {@code g = 1/2^aimdEcnGainShift} (the RTT sample of the one packet the
     * suite's first ACK acknowledges, a delay sample of [SPEC-CC-15] until that ACK's ECN counts
     * reach the IUT, and that ACK's unmarked feedback); with every packet marked after that it only
     * rises. At the contract's gain of 1/16: 1 − (15/16)² / 2 = 0.5605.
     */
    static double cutFactor(Signal signal) {
        if (signal == Signal.HOLE) {
            return 0.5;
        }
        double keep = 1 - 1.0 / (1 << ResponderContract.CC_ECN_GAIN_SHIFT);
        return 1 - keep * keep / 2;
    }

    /**
     * The most the window of round {@code to} may be, [SPEC-CONF-16], if that of round
     * {@code from} was at most {@code window}; the ACK after round {@code k} signals if
     * {@code k < SIGNAL_ROUNDS}. Any ACK may add two additive increases (a round trip acknowledges
     * less than two windows, [SPEC-CC-6]). The first signal cuts ({@link #cutFactor}), perhaps
     * after its own ACK doubled the window in slow start ([SPEC-CC-31]), or before the rest of that
     * ACK grows it additively. Of two signalling ACKs after it one at least cuts, not below the
     * floor ([SPEC-CC-5]): a cut waits until the path has acknowledged what it had in flight at the
     * previous one ([SPEC-CC-8], [SPEC-CC-9]), which an IUT that counts the flight before its ACK's
     * acknowledgements reaches only a round trip late.
     */
    static double ceiling(double window, int from, int to, long increase, double factor) {
        double w = window;
        int pending = 0; // signalling ACKs since the last cut counted, after the first
        for (int k = from; k < to; k++) {
            if (k == 0) {
                w = Math.max(ResponderContract.CC_MIN_WINDOW_BYTES, 2 * factor * w) + 2.0 * increase;
            } else if (k < SIGNAL_ROUNDS) {
                pending++;
                if (pending == 2) {
                    // Grown in the one and cut (with its own increases first) in the other: the worst order.
                    w = Math.max(ResponderContract.CC_MIN_WINDOW_BYTES, (w + 2.0 * increase) * factor) + 2.0 * increase;
                    pending = 0;
                }
            } else {
                w += 2.0 * increase * (1 + pending); // a signal left without its pair may not have cut
                pending = 0;
            }
        }
        return w + 2.0 * increase * pending;
    }

    private static long largestPacket(List<Round> rounds) {
        long datagram = 0;
        for (Round r : rounds) {
            datagram = Math.max(datagram, r.largestPacket());
        }
        return datagram;
    }

    private static String bytes(List<Round> rounds) {
        StringBuilder b = new StringBuilder();
        for (Round r : rounds) {
            b.append(b.isEmpty() ? "" : ", ").append(r.bytes());
        }
        return b.toString();
    }
}
