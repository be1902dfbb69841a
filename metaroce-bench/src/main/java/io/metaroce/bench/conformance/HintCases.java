package io.metaroce.bench.conformance;

import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The suite as a receiver that limits the IUT's sender: its ACKs carry a rate hint
 * ([SPEC-SACK-9]) and the IUT's echoes must keep to it ([SPEC-CC-12], [SPEC-CC-13]), judged by the
 * suite's clock alone ([SPEC-CONF-14]).
 *
 * <p>Stateless; thread-safe.
 */
final class HintCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    /** The hint the suite gives, datagram bytes per second: a few hundred milliseconds for the echoes below. */
    static final long HINT_BYTES_PER_SECOND = 500_000;
    /**
     * Echoes of a whole receive each ([SPEC-CONF-2]) the IUT sends under the hint: about 430 KB,
     * so that the burst allowance is a sixth of it and a sender at twice the hint shows.
     */
    private static final int MESSAGES = 6;
    /**
     * What a sender idle before may send back to back: 64 KiB, above {@code pacingBurstBytes}' default of
     * 56 KiB (§12.1), so an IUT with the larger burst of earlier versions passes too [SPEC-CONF-14].
     */
    static final long BURST_BYTES = 64 << 10;
    /** The most a sender may exceed the hint by for random loss ([SPEC-CC-25]): a third. */
    private static final double LOSS_ALLOWANCE = 4.0 / 3.0;

    private HintCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("cc.hint-obeyed",
                "under the suite's rate hint, the IUT's echoes keep to the hint (a burst and a third allowed)",
                "SPEC-SACK-9, SPEC-CC-12, SPEC-CC-13, SPEC-CC-25, SPEC-CONF-14", "R-CC-2", HintCases::hintObeyed),
                ConformanceCase.of("cc.fair-share",
                        "two suite connections send to the IUT, one slowly and one twelve times as fast: the IUT's ACKs"
                                + " tell them shares that differ by their demands (max-min, the spare handed out), not"
                                + " an equal split",
                        "SPEC-CC-10, SPEC-CC-11, SPEC-CC-20, SPEC-SACK-9, SPEC-ADM-4, SPEC-CONF-25", "R-CC-2",
                        HintCases::fairShare),
                ConformanceCase.of("cc.announced-share",
                        "four connections accepted together (handshakes side by side) are announced at most C/j (the"
                                + " j-th largest share, in whatever order the IUT accepted them) and at least C/4 in"
                                + " their ACCEPTs, and the first ACK of the first of them,"
                                + " before the others sent anything, carries C/4: accepted connections count as senders"
                                + " in advance",
                        "SPEC-CC-23, SPEC-CC-28, SPEC-CC-11, SPEC-WIRE-24, SPEC-CONF-25", "R-CC-2",
                        HintCases::announcedShare),
                ConformanceCase.of("cc.held-back",
                        "against a capacity the suite can fill, a sender using more than half the share it is told"
                                + " beside one at the least demand is held back by its share: its ACKs tell it the"
                                + " capacity less the other's demand, not 5/4 of its rate plus half the spare",
                        "SPEC-CC-11, SPEC-CC-10, SPEC-SACK-9, SPEC-ADM-4, SPEC-CONF-26", "R-CC-2", HintCases::heldBack));
    }

    /** Connections {@code cc.announced-share} opens together. */
    private static final int TOGETHER = 4;
    /** How close an announced share must be to C / j: the integer steps of [SPEC-CC-10] and no more. */
    private static final double ANNOUNCED_TOLERANCE = 0.01;

    /** Ticks of {@code cc.fair-share} per fair-share period: the slow sender's one packet a tick keeps it active. */
    private static final int TICKS_PER_PERIOD = 4;
    /** Packets the busy sender sends a tick, to the slow sender's one ([SPEC-CONF-25]). */
    private static final int BUSY_PER_TICK = 12;
    /** Periods before the hints are read: the advance count and the first measurement windows are over. */
    private static final int WARM_UP_PERIODS = 12;
    /** Periods whose hints are judged. */
    private static final int JUDGED_PERIODS = 20;
    /** Attempts of {@code cc.fair-share} before it gives up on a host that stalls the suite. */
    private static final int FAIR_SHARE_ATTEMPTS = 3;
    /** A sender not held back by its share demands 5/4 of its rate ([SPEC-CC-11] item 2). */
    private static final double HEADROOM = 1.25;

    private static void hintObeyed(CaseContext c) {
        WireSession s = c.connect(1);
        s.rateHint(HINT_BYTES_PER_SECOND);
        // A first echo, acknowledged with the hint, gives the IUT's sender the hint before the echoes measured.
        Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 131)), 0);
        Scenarios.awaitEchoes(s, 1, "a first SEND under the suite's rate hint");
        s.quiet(20);
        int from = s.data().size();
        long start = 0;
        for (int i = 0; i < MESSAGES; i++) {
            Sent last = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, 132 + i)), 0)
                    .getLast();
            if (i == 0) {
                // No echo can leave before this: the suite's clock, read before the IUT sends, is the start.
                start = last.timestampNanos();
            }
        }
        long total = (long) MESSAGES * ResponderContract.RECEIVE_BYTES;
        long wait = s.waitNanos() + (long) (2e9 * total / HINT_BYTES_PER_SECOND);
        boolean all = s.await(() -> s.echoes().size() >= 1 + MESSAGES, wait);
        Checks.check(all, "%d of %d echoes of %d bytes came within %d ms under a rate hint of %d bytes/s [SPEC-CONF-2]",
                s.echoes().size() - 1, MESSAGES, ResponderContract.RECEIVE_BYTES, wait / 1_000_000,
                HINT_BYTES_PER_SECOND);
        // Every prefix of the IUT's DATA since the start, against what the hint allows by its last arrival. A
        // datagram read late only moves its arrival later, which the bound allows more for: no false verdict.
        long bytes = 0;
        List<Received> data = s.data();
        long allowanceOnce = BURST_BYTES + 2L * s.ownMaxDatagram();
        for (int i = from; i < data.size(); i++) {
            Received r = data.get(i);
            bytes += r.length();
            double elapsed = Math.max(0, r.arrivalNanos() - start) / 1e9;
            double allowed = allowanceOnce + LOSS_ALLOWANCE * HINT_BYTES_PER_SECOND * elapsed;
            Checks.check(bytes <= allowed, "the IUT had sent %d bytes of DATA %.1f ms after the suite's first SEND"
                    + " left, more than the %.0f a hint of %d bytes/s allows (%d bytes of burst and two datagrams, a"
                    + " third more for random loss): %s bytes/s [SPEC-SACK-9], [SPEC-CC-13]", bytes, elapsed * 1e3,
                    allowed, HINT_BYTES_PER_SECOND, BURST_BYTES, String.format(Locale.ROOT, "%.0f",
                            (bytes - allowanceOnce) / Math.max(elapsed, 1e-9)));
        }
        for (int i = 0; i < MESSAGES; i++) {
            Scenarios.checkEcho(s, 1 + i, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, 132 + i),
                    "an echo under the rate hint");
        }
        Scenarios.checkAllAcks(s);
    }

    /**
     * SKIPs the case unless the suite was told the responder's fair-share period ([SPEC-CONF-25]) and
     * capacity ([SPEC-CONF-4]), without which the allocator's hints cannot be judged.
     */
    private static void requireAllocatorKnown(CaseContext c) {
        if (c.options().fairSharePeriodMillis() == 0) {
            throw new CaseSkipped("the responder's fair-share period was not given: run it with a fairSharePeriodNanos"
                    + " of 20 ms or more and tell the suite (--fair-share-period-ms) [SPEC-CONF-25]");
        }
        if (c.options().capacityBytesPerSecond() <= 0) {
            throw new CaseSkipped("the responder's allocator is off or its capacity unknown (--capacity) [SPEC-CONF-4]");
        }
    }

    private static void fairShare(CaseContext c) {
        long periodMillis = c.options().fairSharePeriodMillis();
        long capacity = c.options().capacityBytesPerSecond();
        requireAllocatorKnown(c);
        String last = null;
        for (int attempt = 0; attempt < FAIR_SHARE_ATTEMPTS; attempt++) {
            last = fairShareAttempt(c, TimeUnit.MILLISECONDS.toNanos(periodMillis), capacity);
            if (last == null) {
                return;
            }
        }
        throw new CaseSkipped(CaseSkipped.HOST_TOO_SLOW + ": in each of " + FAIR_SHARE_ATTEMPTS + " attempts the"
                + " suite's slow sender stalled for a period or more, so the IUT may have seen it stop; last: " + last);
    }

    /**
     * One attempt of {@code cc.fair-share}: null when it passed; the failure when the suite's slow
     * sender stalled for a period or more (the IUT may then rightly have taken it for a new sender,
     * [SPEC-CC-11]); throws the failure otherwise.
     */
    private static String fairShareAttempt(CaseContext c, long periodNanos, long capacity) {
        c.awaitEarlierSendersInactive(); // two senders: the case's own
        WireSession slow = c.connect(1);
        WireSession busy = c.connect(1);
        // One full packet each, echoed; from then on its copies (duplicates, acknowledged at once, [SPEC-ADM-4]) are
        // the senders' traffic: reliable packets the allocator counts, admitted or not ([SPEC-CC-11] item 1).
        Segment slowSegment = firstPacket(slow);
        Segment busySegment = firstPacket(busy);
        long iutMaxDatagram = Integer.toUnsignedLong(slow.accept().packet().maxDatagramBytes);
        Paced run = pace(slow, slowSegment, busy, busySegment, periodNanos, BUSY_PER_TICK);
        double slowRate = run.slowRate();
        double busyRate = run.busyRate();
        long worstGap = run.worstGap();
        List<Long> slowHints = hints(c, slow, run.slowMark());
        List<Long> busyHints = hints(c, busy, run.busyMark());
        Checks.check(!slowHints.isEmpty() && !busyHints.isEmpty(), "no ACK came in the %d judged periods (%d to the"
                + " slow sender, %d to the busy one) for DATA already delivered [SPEC-ADM-4]", JUDGED_PERIODS,
                slowHints.size(), busyHints.size());
        long slowShare = median(slowHints);
        long busyShare = median(busyHints);
        // Demands as the allocator estimates them: 5/4 of the rate, at least a datagram of the IUT's a period.
        double slowDemand = Math.max(HEADROOM * slowRate, iutMaxDatagram * 1e9 / periodNanos);
        double busyDemand = Math.min(capacity, HEADROOM * busyRate);
        if (busyDemand < 4 * slowDemand) {
            throw new CaseSkipped(String.format(Locale.ROOT, "the busy sender's demand (%.0f bytes/s) is not four times"
                    + " the slow one's (%.0f: a datagram of %d bytes a period at least) below the capacity %d: the case"
                    + " cannot tell a division by demand from an equal split [SPEC-CONF-25]", busyDemand, slowDemand,
                    iutMaxDatagram, capacity));
        }
        // With no spare beyond the busy sender's demand, a slow sender above the least demand is told its demand, 5/4 of
        // its rate: at its next window its rate is then 4/5 of its share, above half, so it reads as held back and
        // demands C ([SPEC-CC-11] item 2), and its share flaps between its demand and an equal split. The busy sender
        // keeps a spare only while it is not held back itself: C above d_s + 11/4·r_b; 3·r_b leaves a margin.
        double leastDemand = iutMaxDatagram * 1e9 / periodNanos;
        if (HEADROOM * slowRate > leastDemand && capacity < slowDemand + 3 * busyRate) {
            throw new CaseSkipped(String.format(Locale.ROOT, "the capacity %d leaves no spare beyond the busy sender's"
                    + " demand (%.0f bytes/s) and the slow sender's (%.0f): the slow sender's share then flaps between its"
                    + " demand and an equal split by the held-back rule [SPEC-CC-11]; run the responder with a capacity"
                    + " of at least %.0f (cc.held-back judges a small one) [SPEC-CONF-25]", capacity, busyDemand,
                    slowDemand, slowDemand + 3 * busyRate));
        }
        // Max-min with the spare handed out: the busy share exceeds the slow one by its demand's excess if the two
        // fit (d_b − d_s, [SPEC-CC-20]), by C − 2·d_s if not ([SPEC-CC-10]); at least min(C, d_b) − 2·d_s either way.
        double floor = (busyDemand - 2 * slowDemand) / 2;
        String seen = String.format(Locale.ROOT, "the slow sender (%.0f bytes/s, %d ACKs) was told a median of %d"
                + " bytes/s, the busy one (%.0f bytes/s, %d ACKs) %d, capacity %d", slowRate, slowHints.size(),
                slowShare, busyRate, busyHints.size(), busyShare, capacity);
        String failure = null;
        if (busyShare - slowShare < floor) {
            failure = String.format(Locale.ROOT, "%s: shares %d apart, where a division by demand puts them at least"
                    + " %.0f apart (half of min(C, 5/4 of the busy rate) less twice the slow demand) [SPEC-CC-10],"
                    + " [SPEC-CC-11]", seen, busyShare - slowShare, floor);
        } else if (slowShare < HEADROOM * slowRate / 2) {
            failure = String.format(Locale.ROOT, "%s: the slow sender is told less than half its demand (%.0f): a"
                    + " satisfied sender's share is at least its demand [SPEC-CC-10]", seen, HEADROOM * slowRate);
        } else if (slowShare + busyShare > capacity + capacity / 50) {
            failure = String.format(Locale.ROOT, "%s: the shares add up to more than the capacity [SPEC-CC-10]", seen);
        } else if (2 * (slowDemand + HEADROOM * busyRate) <= capacity && slowShare + busyShare < capacity * 9 / 10) {
            failure = String.format(Locale.ROOT, "%s: the demands leave most of the capacity unused, and the shares add up"
                    + " to %d, not the capacity: the spare is to be handed out [SPEC-CC-20]", seen,
                    slowShare + busyShare);
        }
        if (failure == null) {
            return null;
        }
        if (worstGap < periodNanos) {
            throw new CaseFailure(failure);
        }
        return String.format(Locale.ROOT, "%s (the slow sender's longest gap %.1f ms)", failure, worstGap / 1e6);
    }

    /**
     * The largest capacity {@code cc.held-back} judges ([SPEC-CONF-26]): the suite must send
     * {@link #HELD_BACK_FRACTION} of it as copies of one full packet, about 1,000 datagrams a second.
     */
    static final long HELD_BACK_MAX_CAPACITY = 2_000_000;
    /**
     * The busy sender's rate in {@code cc.held-back}, a fraction of the capacity: above half the share
     * it is told (at most the capacity less the other's demand) by a quarter, so a suite stalled for a
     * quarter of a period still holds it back; below 4/5 of the capacity, so that a sender not held back
     * would demand (5/4 of its rate) less than the capacity and be told less.
     */
    private static final double HELD_BACK_FRACTION = 0.65;
    /** Payload of the slow sender's packets in {@code cc.held-back}: its demand stays the least an IUT gives. */
    private static final int SLOW_PAYLOAD = 100;

    private static void heldBack(CaseContext c) {
        requireAllocatorKnown(c);
        long capacity = c.options().capacityBytesPerSecond();
        if (capacity > HELD_BACK_MAX_CAPACITY) {
            throw new CaseSkipped(String.format(Locale.ROOT, "the responder's capacity (%d bytes/s) is more than the"
                    + " suite can fill half of: run it with a capacity of at most %d (--capacity) [SPEC-CONF-26]",
                    capacity, HELD_BACK_MAX_CAPACITY));
        }
        long periodNanos = TimeUnit.MILLISECONDS.toNanos(c.options().fairSharePeriodMillis());
        String last = null;
        int outOfRange = 0;
        for (int attempt = 0; attempt < FAIR_SHARE_ATTEMPTS; attempt++) {
            last = heldBackAttempt(c, periodNanos, capacity);
            if (last == null) {
                return;
            }
            outOfRange += last.endsWith(BUSY_RATE_OUT_OF_RANGE) ? 1 : 0;
        }
        String stalled = "the suite's busy sender stalled for a quarter period or more, so the IUT may have measured it"
                + " below half its share";
        String why = outOfRange == 0 ? stalled
                : outOfRange == FAIR_SHARE_ATTEMPTS ? BUSY_RATE_OUT_OF_RANGE
                : String.format(Locale.ROOT, "%s (%d) or %s (%d)", stalled, FAIR_SHARE_ATTEMPTS - outOfRange,
                        BUSY_RATE_OUT_OF_RANGE, outOfRange);
        throw new CaseSkipped(CaseSkipped.HOST_TOO_SLOW + ": in each of " + FAIR_SHARE_ATTEMPTS + " attempts " + why
                + "; last: " + last);
    }

    /** How an attempt of {@code cc.held-back} ends whose busy sender the suite could not pace in range. */
    private static final String BUSY_RATE_OUT_OF_RANGE = "the suite did not send the busy sender's rate between half"
            + " its share and 4/5 of the capacity, so the case cannot judge";

    /**
     * One attempt of {@code cc.held-back}: null when it passed; the failure when the suite's busy
     * sender stalled a quarter period or more (a period's rate then may fall below half its share, and
     * the IUT rightly reads a smaller demand); what the suite sent, ending in
     * {@link #BUSY_RATE_OUT_OF_RANGE}, when its busy rate left the range the case judges in; throws the
     * failure otherwise.
     */
    private static String heldBackAttempt(CaseContext c, long periodNanos, long capacity) {
        c.awaitEarlierSendersInactive();
        WireSession slow = c.connect(1);
        WireSession busy = c.connect(1);
        Segment slowSegment = slow.send(ECHO, Scenarios.bytes(SLOW_PAYLOAD, 53)).getFirst();
        slow.send(slowSegment, 0);
        Scenarios.awaitEchoes(slow, 1, "a SEND of one small packet");
        Segment busySegment = firstPacket(busy);
        long busyDatagram = busySegment.payload.length + WireConstants.DATA_OVERHEAD_BYTES;
        long iutMaxDatagram = Integer.toUnsignedLong(busy.accept().packet().maxDatagramBytes);
        double busyPerTick = HELD_BACK_FRACTION * capacity * periodNanos / TICKS_PER_PERIOD / 1e9 / busyDatagram;
        Paced run = pace(slow, slowSegment, busy, busySegment, periodNanos, busyPerTick);
        double slowRate = run.slowRate();
        double busyRate = run.busyRate();
        long worstGap = run.worstGap();
        List<Long> busyHints = hints(c, busy, run.busyMark());
        Checks.check(!busyHints.isEmpty(), "no ACK came to the busy sender in the %d judged periods for DATA already"
                + " delivered [SPEC-ADM-4]", JUDGED_PERIODS);
        long busyShare = median(busyHints);
        // The slow sender demands the least an IUT gives (a datagram of its a period), or 5/4 of its rate if more.
        double slowDemand = Math.min(capacity, Math.max(HEADROOM * slowRate, iutMaxDatagram * 1e9 / periodNanos));
        double heldShare = capacity - slowDemand;
        // Not held back, the busy sender would demand 5/4 of its rate and get half the spare on top.
        double spare = capacity - HEADROOM * busyRate - slowDemand;
        String seen = String.format(Locale.ROOT, "the busy sender (%.0f bytes/s, %d ACKs) was told a median of %d"
                + " bytes/s beside a slow sender of %.0f bytes/s (demand %.0f: a datagram of %d bytes a period at"
                + " least), capacity %d", busyRate, busyHints.size(), busyShare, slowRate, slowDemand, iutMaxDatagram,
                capacity);
        if (busyRate < heldShare / 2 || spare < capacity / 20) {
            return seen + ": " + BUSY_RATE_OUT_OF_RANGE;
        }
        double least = heldShare - spare / 4;
        String failure = null;
        if (busyShare < least) {
            failure = String.format(Locale.ROOT, "%s: a sender above half its share is held back by it and demands the"
                    + " whole capacity, so its share is the capacity less the other's demand (%.0f), at least %.0f;"
                    + " a demand of 5/4 of its rate with half the spare gives %.0f [SPEC-CC-11]", seen, heldShare,
                    least, HEADROOM * busyRate + spare / 2);
        } else if (busyShare > capacity + capacity / 50) {
            failure = String.format(Locale.ROOT, "%s: more than the capacity [SPEC-CC-10]", seen);
        }
        if (failure == null) {
            return null;
        }
        if (worstGap < 2 * periodNanos / TICKS_PER_PERIOD) {
            throw new CaseFailure(failure);
        }
        return String.format(Locale.ROOT, "%s (the suite's longest gap between ticks %.1f ms)", failure,
                worstGap / 1e6);
    }

    private static void announcedShare(CaseContext c) {
        long periodMillis = c.options().fairSharePeriodMillis();
        long capacity = c.options().capacityBytesPerSecond();
        requireAllocatorKnown(c);
        long period = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        long slowest = 0;
        for (int attempt = 0; attempt < FAIR_SHARE_ATTEMPTS; attempt++) {
            c.awaitEarlierSendersInactive();
            List<WireSession> sessions = new java.util.ArrayList<>();
            long firstCookie = handshakeTogether(c, sessions);
            WireSession first = sessions.getFirst();
            Sent sent = Scenarios.sendAll(first, first.send(ECHO, Scenarios.bytes(100, 52)), 0).getLast();
            Received ack = Scenarios.awaitAckOf(first, 0, sent.pathSequence());
            // Every connection is counted in advance for two periods from its registration, which is after the first
            // CONNECT with a cookie left: with the ACK read within two periods of that, all four still count.
            long span = ack.arrivalNanos() - firstCookie;
            if (span > 2 * period) {
                slowest = Math.max(slowest, span);
                continue;
            }
            // The shares the ACCEPTs announce: the j-th largest was written when at least j connections counted (C / j
            // at most), and none when more than the four did (C / 4 at least). Sorted, not in send order: the four
            // CONNECTs leave from four source ports, so a multi-queue IUT may register them in any order. An IUT that
            // reads the four CONNECTs in one batch before it writes any ACCEPT tells each C / 4 (the reference does,
            // on loopback).
            List<Long> announced = new java.util.ArrayList<>();
            for (WireSession s : sessions) {
                announced.add(s.accept().packet().rateHintBytesPerSecond);
            }
            announced.sort(java.util.Comparator.reverseOrder());
            for (int j = 1; j <= TOGETHER; j++) {
                long share = announced.get(j - 1);
                long most = capacity / j;
                long least = capacity / TOGETHER;
                Checks.check(share <= most + most * ANNOUNCED_TOLERANCE + 1
                        && share >= least - least * ANNOUNCED_TOLERANCE - 1, "the %d-th largest share announced by the"
                        + " ACCEPTs of %d connections accepted within %.1f ms is %d bytes/s (all: %s), outside [C / %d,"
                        + " C / %d] = [%d, %d]: a connection accepted counts as a sender from its registration"
                        + " [SPEC-CC-28], [SPEC-CC-23]", j, TOGETHER,
                        (sessions.getLast().accept().arrivalNanos() - firstCookie) / 1e6, share, announced, TOGETHER, j,
                        least, most);
            }
            long hint = ack.packet().rateHintBytesPerSecond;
            Checks.check(near(hint, capacity / TOGETHER), "the first ACK of the first of %d connections accepted"
                    + " together, %.1f ms after its CONNECT and before the others sent anything, carries %d bytes/s, not"
                    + " C / %d = %d: accepted connections count as senders demanding C for two periods [SPEC-CC-23],"
                    + " [SPEC-CC-11]", TOGETHER, span / 1e6, hint, TOGETHER, capacity / TOGETHER);
            return;
        }
        throw new CaseSkipped(String.format(Locale.ROOT, "%s: in each of %d attempts the first ACK came more than two"
                + " fair-share periods after the first CONNECT with a cookie (at last %.1f ms), when the IUT may rightly no longer count"
                + " the connections in advance", CaseSkipped.HOST_TOO_SLOW, FAIR_SHARE_ATTEMPTS, slowest / 1e6));
    }

    /**
     * Opens {@link #TOGETHER} connections into {@code sessions} with their handshakes side by side:
     * every CONNECT, then every CONNECT with its cookie in one burst, so the IUT accepts them within
     * a round trip (in an order of its own: they leave from different source ports). Returns when the first CONNECT with a cookie left.
     */
    private static long handshakeTogether(CaseContext c, List<WireSession> sessions) {
        List<Integer> marks = new java.util.ArrayList<>();
        for (int k = 0; k < TOGETHER; k++) {
            WireSession s = c.open(1);
            sessions.add(s);
            marks.add(s.mark());
            s.sendConnect(null);
        }
        List<byte[]> cookies = new java.util.ArrayList<>();
        for (int k = 0; k < TOGETHER; k++) {
            cookies.add(sessions.get(k).awaitCookie(marks.get(k), ""));
        }
        long firstCookie = System.nanoTime();
        for (int k = 0; k < TOGETHER; k++) {
            marks.set(k, sessions.get(k).mark());
            sessions.get(k).sendConnect(cookies.get(k));
        }
        for (int k = 0; k < TOGETHER; k++) {
            sessions.get(k).awaitAccept(marks.get(k), "");
        }
        return firstCookie;
    }

    private static boolean near(long value, long expected) {
        return Math.abs(value - expected) <= expected * ANNOUNCED_TOLERANCE + 1;
    }

    /**
     * What {@link #pace} measured: the marks at which the judged periods began, the rates the two
     * senders sent at over them (datagram bytes per second), and the longest gap between two ticks.
     */
    private record Paced(int slowMark, int busyMark, double slowRate, double busyRate, long worstGap) {
    }

    /**
     * Two senders of copies (duplicates, acknowledged at once, [SPEC-ADM-4]) for {@link #WARM_UP_PERIODS}
     * then {@link #JUDGED_PERIODS} fair-share periods: every quarter period one copy of {@code slowSegment}
     * and {@code busyPerTick} copies of {@code busySegment} on average (a fraction carried over).
     */
    private static Paced pace(WireSession slow, Segment slowSegment, WireSession busy, Segment busySegment,
            long periodNanos, double busyPerTick) {
        long slowDatagram = slowSegment.payload.length + WireConstants.DATA_OVERHEAD_BYTES;
        long busyDatagram = busySegment.payload.length + WireConstants.DATA_OVERHEAD_BYTES;
        long tick = periodNanos / TICKS_PER_PERIOD;
        int ticks = (WARM_UP_PERIODS + JUDGED_PERIODS) * TICKS_PER_PERIOD;
        int slowMark = 0;
        int busyMark = 0;
        long judgedFrom = 0;
        long slowBytes = 0;
        long busyBytes = 0;
        long worstGap = 0;
        long lastTick = 0;
        double owed = 0;
        long next = System.nanoTime();
        for (int t = 0; t < ticks; t++) {
            long now = System.nanoTime();
            if (t == WARM_UP_PERIODS * TICKS_PER_PERIOD) {
                slowMark = slow.mark();
                busyMark = busy.mark();
                judgedFrom = now;
                slowBytes = 0;
                busyBytes = 0;
            }
            if (lastTick != 0) {
                worstGap = Math.max(worstGap, now - lastTick);
            }
            lastTick = now;
            slow.resend(slowSegment, 0);
            slowBytes += slowDatagram;
            owed += busyPerTick;
            for (; owed >= 1; owed--) {
                busy.resend(busySegment, 0);
                busyBytes += busyDatagram;
            }
            // A stall is not made up for with a burst: the next tick is a tick from now at the latest.
            next = Math.max(next + tick, System.nanoTime());
            long deadline = next;
            slow.await(() -> false, Math.max(0, (deadline - System.nanoTime()) / 4));
            busy.await(() -> false, Math.max(0, deadline - System.nanoTime()));
        }
        long judgedNanos = System.nanoTime() - judgedFrom;
        slow.await(() -> false, tick);
        busy.await(() -> false, tick);
        return new Paced(slowMark, busyMark, slowBytes * 1e9 / judgedNanos, busyBytes * 1e9 / judgedNanos, worstGap);
    }

    /** Sends a SEND of one full packet on {@code s} and waits for its echo; returns the packet for its copies. */
    private static Segment firstPacket(WireSession s) {
        Segment seg = s.send(ECHO, Scenarios.bytes(s.payloadSize(), 51)).getFirst();
        s.send(seg, 0);
        Scenarios.awaitEchoes(s, 1, "a SEND of one packet");
        return seg;
    }

    /** The rate hints of the ACKs {@code s} received since {@code mark}, each checked against the capacity. */
    private static List<Long> hints(CaseContext c, WireSession s, int mark) {
        List<Long> out = new java.util.ArrayList<>();
        for (Received ack : s.ofType(mark, PacketType.ACK)) {
            long hint = ack.packet().rateHintBytesPerSecond;
            HandshakeCases.checkAnnouncedShare(c, hint, "an ACK's rateHintBytesPerSecond");
            out.add(hint);
        }
        return out;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
