package io.metaroce.bench.conformance;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Path failure and probing back as far as the wire shows them ([SPEC-PATH-9] to [SPEC-PATH-12]):
 * the suite black-holes one of two paths (both seen taking new data first, so both ACTIVE; which
 * one is drawn from the seed) while it keeps the IUT sending echoes, and checks that the IUT
 * resends what the path lost on the other, stops using it, probes it no faster than its RTO once
 * it has failed, and uses it again once a probe is answered. The IUT's states are not on the
 * wire; its packets are. Since session 15 also the rebinding of a path the suite moves to a new
 * source port ([SPEC-PATH-2]).
 *
 * <p>Stateless; thread-safe.
 */
final class PathCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    /** Probes on the black-holed path before the suite lets it heal: enough for a path to fail ([SPEC-PATH-11]). */
    private static final int PROBES_BEFORE_HEALING = 3;
    /** The spec's default ceiling of a FAILED path's probe interval ({@code pathProbeMaxIntervalNanos}, §12.1). */
    private static final long PROBE_MAX_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Packets of each echo the suite makes the IUT send while the path is black-holed. */
    private static final int ECHO_PACKETS = 6;
    /** Warm-up echoes the suite tries before it gives up reading which paths are ACTIVE. */
    private static final int WARM_UP_ECHOES = 3;
    /**
     * The index (from 0) of the first probe of a black-holed path that surely went out FAILED: the
     * default failure threshold ({@code pathFailureTimeouts} 3, §12.1) is reached at the latest when
     * the second probe expires ([SPEC-PATH-11]).
     */
    private static final int FAILED_FROM_PROBE = 2;
    /**
     * How late the suite may read one probe and not the next: a single interval is judged with at
     * least this allowance (the whole span with the ordinary one of [SPEC-CONF-10]).
     */
    private static final long LATE_READ_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Intervals between FAILED probes the probe-interval case judges. */
    private static final int FAILED_GAPS = 4;
    /**
     * Intervals between FAILED probes over which the probe-interval case judges the doubling
     * ([SPEC-CONF-17]): from the §12.1 first interval of 1 ms the interval reaches its 100 ms
     * ceiling at the eighth.
     */
    private static final int DOUBLING_GAPS = 9;

    private PathCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("path.failover",
                "with one of two paths black-holed, the IUT resends what it lost on the other, sends nothing more on it"
                        + " but PATH_PROBEs, and uses it again once a probe is answered",
                "SPEC-PATH-9, SPEC-PATH-10, SPEC-PATH-11, SPEC-PATH-12, SPEC-LOSS-3, SPEC-LOSS-7, SPEC-STATE-9, SPEC-CONF-10",
                "R-PATH-4, R-PATH-1, R-SACK-2", PathCases::failover),
                ConformanceCase.of("path.probe-interval",
                        "a black-holed path, once its probes have made it fail, is probed no faster than one probe per"
                                + " minimum RTO, at an interval that doubles",
                        "SPEC-PATH-11, SPEC-PATH-12, SPEC-LOSS-4, SPEC-CONF-5, SPEC-CONF-15, SPEC-CONF-17", "R-PATH-4",
                        PathCases::probeInterval),
                ConformanceCase.of("path.rebind",
                        "a path whose DATA (path 1) or PATH_PROBE (path 0) comes from a new source port is rebound there:"
                                + " its ACKs, PROBE_ACKs and DATA go to the new port, nothing more to the old one",
                        "SPEC-PATH-2, SPEC-PATH-13, SPEC-CONN-3, SPEC-SACK-3, SPEC-STATE-9, SPEC-CONF-20",
                        "R-PATH-1, R-PATH-2", PathCases::rebind),
                ConformanceCase.of("cc.restart-after-failure",
                        "a path back from failure (its probe answered) restarts its window at the floor: its first"
                                + " round trips, clocked by the suite, carry no more than the floor and additive increase",
                        "SPEC-CC-14, SPEC-CC-31, SPEC-PATH-12, SPEC-CONF-16, SPEC-CONF-31", "R-CC-1, R-PATH-4",
                        PathCases::restartAfterFailure));
    }

    /**
     * Round trips {@code cc.restart-after-failure} clocks on the restored path: from a floor of 8 KiB
     * and an increase of 4 KiB (the reference's), slow start exceeds two increases a round trip in
     * the fourth.
     */
    private static final int RESTART_ROUNDS = 4;
    /**
     * Echoes of a whole receive each queued once the path is restored: about 530 KB of datagrams,
     * more than both paths' windows take in the rounds, so no round of the restored path lacks data.
     */
    private static final int RESTART_MESSAGES = 8;

    /**
     * As {@code path.failover} until the black-holed path has sent three probes (FAILED by then,
     * [SPEC-CONF-15]; its window, 64 KiB or more when it failed, cut once by the losses, since no
     * ACK came on it), then heals it: its next probe is answered ([SPEC-PATH-12]) and the controller
     * restarts the path's window at {@code aimdMinWindowBytes} ([SPEC-CC-14]). Then the round trips
     * are clocked on both paths as in [SPEC-CONF-16] (nothing acknowledged until the IUT has been
     * silent for a quiet spell) with eight 64 KiB echoes queued: round trip {@code r} on the restored
     * path may carry at most the floor ({@link ResponderContract#CC_MIN_WINDOW_BYTES}) plus
     * {@code 2·(r + 1)} additive increases and a datagram ([SPEC-CC-6], not slow start,
     * [SPEC-CC-31]). A copy from the IUT's timer (a slow host) in the first round SKIPs; in a later
     * one it ends the rounds, those before it judged.
     */
    private static void restartAfterFailure(CaseContext c) {
        WireSession s = c.connect(2);
        s.reportEcn(true, false); // ECN-capable: the quiet spells are not read as delay marks ([SPEC-CC-15])
        Roles roles = warmUp(c, s);
        int holed = roles.holed();
        int kept = roles.kept();
        blackHole(c, s, roles, PROBES_BEFORE_HEALING);
        if (probes(s.blackHoled()).size() < PROBES_BEFORE_HEALING) {
            throw new CaseSkipped("path " + holed + " sent " + probes(s.blackHoled()).size() + " PATH_PROBE(s) once"
                    + " black-holed, too few to be sure it failed (path.failover judges the probes) [SPEC-CONF-31]");
        }
        s.blackHole(holed, false);
        int answers = s.probeAnswerTimes().size();
        boolean healed = s.await(() -> s.probeAnswerTimes().size() > answers, probeWaitNanos(c, s));
        if (!healed) {
            throw new CaseSkipped("no PATH_PROBE came on path " + holed + " once healed, so it was not restored"
                    + " (path.failover judges the probes) [SPEC-CONF-31]");
        }
        s.autoAck(false);
        long quiet = CongestionCases.quietNanos(c.options());
        long increase = Integer.toUnsignedLong(s.accept().packet().maxDatagramBytes);
        int echoes = s.echoes().size();
        int from = s.data().size();
        CongestionCases.queueEchoes(s, RESTART_MESSAGES, 170, kept, quiet);
        List<CongestionCases.Round> restored = new ArrayList<>();
        List<CongestionCases.Round> other = new ArrayList<>();
        for (int r = 0; r < RESTART_ROUNDS; r++) {
            int start = from;
            boolean any = s.await(() -> s.data().size() > start, s.waitNanos());
            Checks.check(any, "no DATA came within %d ms of the suite's ACK of round trip %d after path %d was restored,"
                    + " with %d of %d echoes complete [SPEC-CC-5], [SPEC-CONF-2]", s.waitNanos() / 1_000_000, r, holed,
                    s.echoes().size() - echoes, RESTART_MESSAGES + 1);
            CongestionCases.awaitQuiet(s, quiet);
            int end = s.data().size();
            List<Received> round = s.data().subList(start, end);
            Received copy = firstCopy(round);
            if (copy != null && r == 0) {
                throw new CaseSkipped(CaseSkipped.HOST_TOO_SLOW + ": the IUT's timer resent " + copy + " in the first"
                        + " round trip after path " + holed + " was restored, before the suite's ACK reached it; run the"
                        + " responder with a longer minimum RTO [SPEC-CONF-5], [SPEC-CONF-31]");
            }
            if (copy != null) {
                break; // the timer blurred this round and those after it: the rounds before stand
            }
            restored.add(CongestionCases.Round.of(onPath(round, holed)));
            other.add(CongestionCases.Round.of(onPath(round, kept)));
            long datagram = Math.max(restored.getLast().largestPacket(), other.getLast().largestPacket());
            long bound = ResponderContract.CC_MIN_WINDOW_BYTES + 2 * (r + 1) * increase + datagram;
            Checks.check(restored.getLast().bytes() <= bound, "round trip %d on path %d after it was restored (its probe"
                    + " answered) carried %d bytes of DATA, more than the %d its window may hold: a path back from failure"
                    + " restarts at the floor (at most %d bytes, [SPEC-CONF-16]) and grows by additive increase (%d bytes,"
                    + " at most two a round trip), not slow start [SPEC-CC-14], [SPEC-CC-31]; rounds on it: %s, on path"
                    + " %d: %s", r, holed, restored.getLast().bytes(), bound, ResponderContract.CC_MIN_WINDOW_BYTES,
                    increase, describeRounds(restored), kept, describeRounds(other));
            from = end;
            s.ack(0);
            s.ack(1);
        }
        if (restored.stream().mapToLong(CongestionCases.Round::bytes).sum() == 0) {
            throw new CaseSkipped("the IUT sent no DATA on the restored path " + holed + " in " + RESTART_ROUNDS
                    + " round trips (path.failover judges its use again) [SPEC-CONF-31]");
        }
        s.autoAck(true);
        s.ack(0);
        s.ack(1);
        Scenarios.awaitEchoes(s, echoes + RESTART_MESSAGES + 1, "the echoes clocked after a path was restored");
        CongestionCases.checkQueuedEchoes(s, echoes, RESTART_MESSAGES, 170, "an echo clocked after a path was restored");
        Scenarios.checkAllAcks(s);
    }

    /** The first retransmission among {@code packets}, or null. */
    private static Received firstCopy(List<Received> packets) {
        for (Received r : packets) {
            if ((r.packet().flags & io.metaroce.core.wire.WireConstants.FLAG_RETRANSMISSION) != 0) {
                return r;
            }
        }
        return null;
    }

    private static List<Received> onPath(List<Received> packets, int path) {
        List<Received> out = new ArrayList<>();
        for (Received r : packets) {
            if (r.path() == path) {
                out.add(r);
            }
        }
        return out;
    }

    private static String describeRounds(List<CongestionCases.Round> rounds) {
        List<String> out = new ArrayList<>();
        for (CongestionCases.Round r : rounds) {
            out.add(Long.toString(r.bytes()));
        }
        return String.join(", ", out);
    }

    /** Packets of each SEND of {@code path.rebind}, spread over its two paths in turn. */
    private static final int REBIND_PACKETS = 4;

    /**
     * The suite as a client of two paths moves each path to a fresh UDP source port, as a repathing
     * sender does ([SPEC-PATH-13]): path 1 first, by sending DATA from its new port, then path 0, by
     * a PATH_PROBE from its new port. A receiver MUST rebind a path to the socket and address of a
     * DATA, READ_REQUEST or PATH_PROBE that arrives on it from elsewhere ([SPEC-PATH-2]): the ACK of
     * that DATA, and the PROBE_ACK, come to the new port, and so does everything later sent on the
     * path (a third SEND over both paths is acknowledged and echoed there). The old sockets stay
     * open: what reached them before the IUT answered from the new port may have been sent before it
     * saw the move, and is allowed; anything arriving there later is a FAIL.
     */
    private static void rebind(CaseContext c) {
        WireSession s = c.connect(2);
        Checks.check(s.grantedPaths() == 2, "the responder granted %d paths of 2 asked [SPEC-CONF-1]", s.grantedPaths());
        echoOverBothPaths(s, 1, 71, "a SEND over both paths before any move");
        c.quiet(s); // nothing of the IUT's in flight when the first path moves
        WirePeer peer = s.peer();
        int oldPort1 = peer.localAddress(1).getPort();
        int newPort1 = peer.movePath(1);
        List<Sent> sent = echoOverBothPaths(s, 2, 72, "a SEND whose path-1 packets came from a new port");
        long lastOnOne = lastOn(sent, 1);
        boolean acked = s.await(() -> Scenarios.ackOf(s, 1, lastOnOne) != null);
        peer.drainNow();
        Checks.check(acked, "after path 1's DATA came from port %d instead of %d, no ACK of it came to the new port"
                + " within %d ms (%d datagrams came to the old port since: %s): the path was not rebound [SPEC-PATH-2]",
                newPort1, oldPort1, s.waitNanos() / 1_000_000, peer.staleArrivals().size(),
                describe(peer.staleArrivals()));
        Scenarios.awaitEchoes(s, 2, "a SEND whose path-1 packets came from a new port [SPEC-PATH-2]");
        int sentBeforeTheMoves = peer.staleArrivals().size();
        int oldPort0 = peer.localAddress(0).getPort();
        int newPort0 = peer.movePath(0);
        int mark = s.mark();
        s.sendProbe(0, 0x5EB1_4D00L, 4242L);
        Received probeAck = s.awaitType(mark, PacketType.PROBE_ACK);
        peer.drainNow();
        Checks.check(probeAck != null && probeAck.path() == 0, "after a PATH_PROBE of path 0 came from port %d instead"
                + " of %d, no PROBE_ACK came to the new port within %d ms (%d datagrams came to the old ports since path"
                + " 1 moved: %s): the path was not rebound [SPEC-PATH-2]", newPort0, oldPort0, s.waitNanos() / 1_000_000,
                peer.staleArrivals().size() - sentBeforeTheMoves, describe(peer.staleArrivals()));
        int legitimate = peer.staleArrivals().size();
        sent = echoOverBothPaths(s, 3, 73, "a SEND over both moved paths");
        for (int path = 0; path < 2; path++) {
            Scenarios.awaitAckOf(s, path, lastOn(sent, path));
        }
        c.quiet(s);
        peer.drainNow();
        List<WirePeer.Datagram> stale = peer.staleArrivals();
        Checks.check(stale.size() == legitimate, "%d datagrams came to a path's old port after the IUT had answered from"
                + " its new one (%s): everything sent on a rebound path goes to the new port [SPEC-PATH-2]",
                stale.size() - legitimate, describe(stale.subList(legitimate, stale.size())));
        Scenarios.checkAllAcks(s);
    }

    /** Sends a SEND of {@link #REBIND_PACKETS} packets over paths 0 and 1 in turn and waits for its echo, the {@code count}-th. */
    private static List<Sent> echoOverBothPaths(WireSession s, int count, long seed, String what) {
        byte[] m = Scenarios.bytes(REBIND_PACKETS * s.payloadSize() - 50, seed);
        List<Segment> segs = s.send(ECHO, m);
        List<Sent> sent = new ArrayList<>();
        for (int i = 0; i < segs.size(); i++) {
            sent.add(s.send(segs.get(i), i % 2));
        }
        for (int p = 0; p < 2; p++) {
            int path = p;
            long psn = lastOn(sent, path);
            if (!s.await(() -> Scenarios.ackOf(s, path, psn) != null)) {
                return sent; // the caller says what is missing
            }
        }
        Scenarios.awaitEchoes(s, count, what);
        Scenarios.checkEcho(s, count - 1, m, what);
        return sent;
    }

    /** The PSN of the last of {@code sent} on {@code path}. */
    private static long lastOn(List<Sent> sent, int path) {
        long psn = -1;
        for (Sent x : sent) {
            psn = x.path() == path ? x.pathSequence() : psn;
        }
        return psn;
    }

    /** The type and path named by each datagram in {@code datagrams}, for a failure message. */
    private static String describe(List<WirePeer.Datagram> datagrams) {
        List<String> out = new ArrayList<>();
        for (WirePeer.Datagram d : datagrams) {
            byte[] b = d.bytes();
            out.add(b.length < 4 ? b.length + " bytes" : PacketType.name(Byte.toUnsignedInt(b[1])) + " of path "
                    + (((b[2] & 0xFF) << 8) | (b[3] & 0xFF)) + " at the old port of path " + d.path());
        }
        return out.isEmpty() ? "none" : String.join(", ", out.subList(0, Math.min(6, out.size())))
                + (out.size() > 6 ? ", ..." : "");
    }

    /**
     * The longest the suite waits for the next probe of a path in doubt: a SUSPECT path's probe
     * waits its backed-off RTO (up to 2^3 minimum RTOs before it fails with the default threshold),
     * a FAILED path's the RTO without back-off plus at most {@link #PROBE_MAX_INTERVAL_NANOS}; all
     * that plus the suite's wait, as a generous margin.
     */
    private static long probeWaitNanos(CaseContext c, WireSession s) {
        return 8 * TimeUnit.MILLISECONDS.toNanos(c.options().minRtoMillis()) + PROBE_MAX_INTERVAL_NANOS + s.waitNanos();
    }

    /**
     * The paths of a failover as the wire shows them: {@code kept} and {@code holed} both carried
     * first transmissions of the IUT's latest warm-up echo, so both were ACTIVE then
     * ([SPEC-PATH-9]: only an ACTIVE path takes new data while another is ACTIVE).
     */
    private record Roles(int kept, int holed) {
    }

    /** Warm-up echoes split over both paths until each carried the IUT's new data; which to black-hole is drawn. */
    private static Roles warmUp(CaseContext c, WireSession s) {
        Checks.check(s.grantedPaths() == 2, "the responder granted %d paths of 2 asked [SPEC-CONF-1]", s.grantedPaths());
        for (int attempt = 0; attempt < WARM_UP_ECHOES; attempt++) {
            // A SEND over both paths binds each at the responder ([SPEC-PATH-1]) and gives both RTT samples.
            byte[] warm = Scenarios.bytes(4 * s.payloadSize(), 111 + 1_000L * attempt);
            // Counted before the SEND leaves, so that an echo quicker than this thread cannot be missed.
            int expected = s.echoes().size() + 1;
            List<Segment> segs = s.send(ECHO, warm);
            int mark = s.mark();
            for (int i = 0; i < segs.size(); i++) {
                s.send(segs.get(i), i % 2);
            }
            boolean echoed = s.await(() -> s.echoes().size() >= expected);
            Checks.check(echoed, "a SEND over two paths was not echoed within %d ms [SPEC-CONF-2]",
                    c.options().waitMillis());
            c.quiet(s);
            boolean[] fresh = new boolean[2];
            for (Received r : s.ofType(mark, PacketType.DATA)) {
                if ((r.packet().flags & io.metaroce.core.wire.WireConstants.FLAG_RETRANSMISSION) == 0) {
                    fresh[r.path()] = true;
                }
            }
            if (fresh[0] && fresh[1]) {
                int holed = (int) Math.floorMod(c.options().seed(), 2L);
                return new Roles(1 - holed, holed);
            }
        }
        throw new CaseSkipped("in " + WARM_UP_ECHOES + " echoes of messages the suite sent over both paths the IUT never"
                + " sent new data on both paths: it may spread new data by another rule than round robin"
                + " ([SPEC-CONF-3]), so which path is ACTIVE cannot be read from the wire");
    }

    /** What the black-hole phase saw: the messages echoed meanwhile and where they start in the echoes. */
    private record BlackHole(List<byte[]> messages, int echoesBefore, long openedNanos) {
    }

    /**
     * Black-holes {@code roles.holed()} and keeps the IUT echoing over the kept path (acknowledged
     * there: the evidence that makes the holed path's transmissions overdue, [SPEC-LOSS-7]) until
     * {@code probes} PATH_PROBEs came on the holed path or the suite's patience ran out.
     */
    private static BlackHole blackHole(CaseContext c, WireSession s, Roles roles, int probes) {
        s.blackHole(roles.holed(), true);
        long opened = System.nanoTime();
        int echoesBefore = s.echoes().size();
        List<byte[]> sentMessages = new ArrayList<>();
        long deadline = System.nanoTime() + probes * probeWaitNanos(c, s);
        while (probes(s.blackHoled()).size() < probes && System.nanoTime() < deadline) {
            byte[] m = Scenarios.bytes(ECHO_PACKETS * s.payloadSize() - 1, 112 + sentMessages.size());
            sentMessages.add(m);
            Scenarios.sendAll(s, s.send(ECHO, m), roles.kept());
            int expected = echoesBefore + sentMessages.size();
            boolean echoed = s.await(() -> s.echoes().size() >= expected);
            Checks.check(echoed, "with path %d black-holed, the echo of message %d did not complete on path %d within"
                    + " %d ms (%d DATA packets were lost on path %d): what a path in doubt loses is resent on an ACTIVE"
                    + " path [SPEC-PATH-10], [SPEC-PATH-11], [SPEC-LOSS-3]", roles.holed(), sentMessages.size(),
                    roles.kept(), c.options().waitMillis(), data(s.blackHoled()).size(), roles.holed());
            s.quiet(20);
        }
        if (data(s.blackHoled()).isEmpty() && probes(s.blackHoled()).isEmpty()) {
            throw new CaseSkipped("the IUT sent nothing on path " + roles.holed() + " in " + sentMessages.size()
                    + " echoes once it was black-holed, so its failure could not be seen (it may spread new data by"
                    + " another rule than round robin, [SPEC-CONF-3])");
        }
        return new BlackHole(sentMessages, echoesBefore, opened);
    }

    private static void failover(CaseContext c) {
        WireSession s = c.connect(2);
        Roles roles = warmUp(c, s);
        int kept = roles.kept();
        int holed = roles.holed();
        long probeWait = probeWaitNanos(c, s);
        BlackHole hole = blackHole(c, s, roles, PROBES_BEFORE_HEALING);
        List<byte[]> sentMessages = hole.messages();
        int echoesBefore = hole.echoesBefore();
        List<Received> lost = data(s.blackHoled());
        List<Received> probes = probes(s.blackHoled());
        Checks.check(probes.size() >= PROBES_BEFORE_HEALING, "%d PATH_PROBE(s) came on the black-holed path %d in %d"
                + " ms (%d DATA packets lost there, %d echoes sent over path %d): a path in doubt is probed"
                + " [SPEC-PATH-10], [SPEC-PATH-12]", probes.size(), holed,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hole.openedNanos()), lost.size(), sentMessages.size(),
                kept);
        for (Received p : probes) {
            Packet q = p.packet();
            Checks.check(q.pathId == holed && q.connectionSequence == 0 && q.pathSequence == 0, "a PATH_PROBE on socket"
                    + " %d names path %d with CSN %d, PSN %d [SPEC-PATH-4], [SPEC-PATH-10]", holed, q.pathId,
                    q.connectionSequence, q.pathSequence);
        }
        for (int i = 1; i < probes.size(); i++) {
            long gap = probes.get(i).arrivalNanos() - probes.get(i - 1).arrivalNanos();
            Checks.check(gap <= probeWait, "%.1f ms passed between two PATH_PROBEs of the black-holed path; a SUSPECT or"
                    + " FAILED path is probed again within its backed-off RTO or its probe interval (at most %d ms"
                    + " allowed) [SPEC-PATH-10], [SPEC-PATH-12]", gap / 1e6, TimeUnit.NANOSECONDS.toMillis(probeWait));
        }
        long firstProbe = probes.getFirst().arrivalNanos();
        List<Received> afterProbe = new ArrayList<>();
        for (Received r : lost) {
            if (r.arrivalNanos() > firstProbe) {
                afterProbe.add(r);
            }
        }
        Checks.check(afterProbe.isEmpty(), "%d DATA packet(s) (the first %s) came on path %d after its first PATH_PROBE"
                + " while path %d delivered everything: a path in doubt takes no new data while another is ACTIVE,"
                + " and its losses go to an ACTIVE path [SPEC-PATH-10], [SPEC-PATH-9]", afterProbe.size(),
                afterProbe.isEmpty() ? "" : afterProbe.getFirst(), holed, kept);
        // Every CSN lost on the holed path was delivered over the kept one (the echoes completed, byte for byte now).
        for (int i = 0; i < sentMessages.size(); i++) {
            Scenarios.checkEcho(s, echoesBefore + i, sentMessages.get(i), "an echo sent while a path was black-holed");
        }
        // Probing back: the path heals, the next probe is answered, and new data comes on it again.
        s.blackHole(holed, false);
        int answersBefore = s.probeAnswerTimes().size();
        int healedMark = s.mark();
        long healDeadline = System.nanoTime() + probeWait + s.waitNanos();
        int messages = sentMessages.size();
        while (!usedAgain(s, healedMark, holed) && System.nanoTime() < healDeadline) {
            byte[] m = Scenarios.bytes(ECHO_PACKETS * s.payloadSize() - 1, 112 + messages);
            messages++;
            Scenarios.sendAll(s, s.send(ECHO, m), kept);
            int expected = echoesBefore + messages;
            s.await(() -> s.echoes().size() >= expected);
            s.quiet(20);
        }
        Checks.check(s.probeAnswerTimes().size() > answersBefore, "no PATH_PROBE came on path %d within %d ms of its"
                + " healing [SPEC-PATH-12]", holed, TimeUnit.NANOSECONDS.toMillis(probeWait + s.waitNanos()));
        Checks.check(usedAgain(s, healedMark, holed), "path %d carried no DATA within %d ms of the suite's PROBE_ACK,"
                + " while %d echoes went over path %d: the PROBE_ACK of the latest probe makes a path ACTIVE, and new"
                + " data goes round robin over ACTIVE paths [SPEC-PATH-12], [SPEC-PATH-6]", holed,
                TimeUnit.NANOSECONDS.toMillis(healDeadline - s.probeAnswerTimes().getLast()),
                messages - sentMessages.size(), kept);
        Scenarios.checkAllAcks(s);
    }

    /**
     * Probes of a black-holed path once it has FAILED, judged while the other path is idle: after
     * the third probe (FAILED by then, [SPEC-CONF-15]) the suite stops asking for echoes, and from
     * the second probe that arrives after its last ACK of the IUT's DATA (sent, then, after every
     * transmission acknowledged on the other path) each probe waits the RTO without back-off, at
     * least the minimum RTO, before the next interval starts ([SPEC-PATH-12]). While the other path
     * delivers, a probe may time out at its overdue time instead, as a SUSPECT one does
     * ([SPEC-PATH-10]; the reference implementation does so for a PROBING one too), which can be
     * shorter. Judged over the whole span, by the suite's clock: a late read shortens a span by the
     * delay of its first probe only.
     */
    private static void probeInterval(CaseContext c) {
        long minRto = TimeUnit.MILLISECONDS.toNanos(c.options().minRtoMillis());
        WireSession s = c.connect(2);
        Roles roles = warmUp(c, s);
        BlackHole hole = blackHole(c, s, roles, FAILED_FROM_PROBE + 1);
        Checks.check(probes(s.blackHoled()).size() > FAILED_FROM_PROBE, "%d PATH_PROBE(s) came on the black-holed path"
                + " %d in %d ms (%d echoes sent over path %d): a path in doubt is probed [SPEC-PATH-10],"
                + " [SPEC-PATH-12]", probes(s.blackHoled()).size(), roles.holed(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hole.openedNanos()), hole.messages().size(),
                roles.kept());
        // The other path falls idle: nothing more is sent there but keep-alives, so no transmission sent after a
        // probe is acknowledged on it.
        long lastAck = s.peer().lastSendNanos();
        int wanted = DOUBLING_GAPS + 2;
        long wait = wanted * (8 * minRto + PROBE_MAX_INTERVAL_NANOS) + s.waitNanos();
        long deadline = System.nanoTime() + wait;
        // The suite's own PATH_PROBEs on the other path keep the connection alive whatever the IUT's keep-alive
        // ([SPEC-STATE-8], [SPEC-STATE-9]); they acknowledge no DATA, so the FAILED path's probes are judged with
        // the other path idle.
        long probeEvery = Math.max(1, Math.min(PROBE_MAX_INTERVAL_NANOS, TimeUnit.MILLISECONDS.toNanos(
                c.options().idleTimeoutMillis()) / 4));
        long ownProbe = 1;
        while (probesAfter(s, lastAck).size() < wanted && System.nanoTime() < deadline) {
            s.sendProbe(roles.kept(), ownProbe++, System.nanoTime());
            s.await(() -> probesAfter(s, lastAck).size() >= wanted, probeEvery);
        }
        List<Received> idle = probesAfter(s, lastAck);
        Checks.check(idle.size() >= wanted, "%d PATH_PROBE(s) came on the black-holed path %d in %d ms while the other"
                + " path was idle; a FAILED path is probed again after its RTO and at most %d ms [SPEC-PATH-12]",
                idle.size(), roles.holed(), TimeUnit.NANOSECONDS.toMillis(wait),
                TimeUnit.NANOSECONDS.toMillis(PROBE_MAX_INTERVAL_NANOS));
        List<Received> judged = idle.subList(1, FAILED_GAPS + 2);
        long span = judged.getLast().arrivalNanos() - judged.getFirst().arrivalNanos();
        long floor = (judged.size() - 1) * minRto;
        StringBuilder gaps = new StringBuilder();
        for (int i = 1; i < judged.size(); i++) {
            gaps.append(i == 1 ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%.1f",
                    (judged.get(i).arrivalNanos() - judged.get(i - 1).arrivalNanos()) / 1e6));
        }
        for (int i = 1; i < judged.size(); i++) {
            long gap = judged.get(i).arrivalNanos() - judged.get(i - 1).arrivalNanos();
            // Never below half the minimum RTO: at a small one (the suite's default 20 ms) the late-read allowance
            // alone would leave no bound, and a probe sent twice would pass.
            long least = Math.max(minRto / 2, minRto - Math.max(TimerCases.slack(minRto), LATE_READ_NANOS));
            Checks.check(gap >= least, "two probes of the FAILED, black-holed path, the other path idle, came %.2f ms"
                    + " apart (gaps %s ms), less than the minimum RTO (%d ms, less %.1f ms for the host) a FAILED path's"
                    + " probe waits before the next interval starts [SPEC-PATH-12], [SPEC-LOSS-4]", gap / 1e6, gaps,
                    c.options().minRtoMillis(), (minRto - least) / 1e6);
        }
        Checks.check(span >= floor - TimerCases.slack(floor), "%d probes of the FAILED, black-holed path, the other"
                + " path idle, spanned %.1f ms, less than one minimum RTO (%d ms) per interval, %d ms (less %.1f ms"
                + " for the host); the gaps were %s ms: a FAILED path's probe waits its RTO before the next interval"
                + " starts [SPEC-PATH-12], [SPEC-LOSS-4]", judged.size(), span / 1e6, c.options().minRtoMillis(),
                TimeUnit.NANOSECONDS.toMillis(floor), TimerCases.slack(floor) / 1e6, gaps);
        checkDoubling(idle.subList(1, wanted));
        Checks.check(data(s.blackHoled()).stream().noneMatch(r -> r.arrivalNanos() > lastAck), "DATA came on the"
                + " FAILED path %d while the other path was ACTIVE [SPEC-PATH-9]", roles.holed());
        Scenarios.checkAllAcks(s);
    }

    /**
     * The FAILED path's probe interval doubles ([SPEC-PATH-12], [SPEC-CONF-17]): two probes are
     * spaced by the first one's wait (its RTO without back-off, the same for every probe of a path
     * that has no new RTT sample) plus the interval, so the gaps grow by what the interval grows,
     * from the §12.1 first interval of 1 ms to its 100 ms ceiling. The larger of the last two gaps
     * must exceed the smaller of the first two by half the ceiling: a constant interval shows no
     * growth but the host's, and a late read lengthens one gap only by shortening the next.
     */
    private static void checkDoubling(List<Received> probes) {
        long[] gaps = new long[probes.size() - 1];
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = probes.get(i + 1).arrivalNanos() - probes.get(i).arrivalNanos();
            text.append(i == 0 ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%.1f", gaps[i] / 1e6));
        }
        long early = Math.min(gaps[0], gaps[1]);
        long late = Math.max(gaps[gaps.length - 1], gaps[gaps.length - 2]);
        Checks.check(late - early >= PROBE_MAX_INTERVAL_NANOS / 2, "the gaps between %d probes of the FAILED,"
                + " black-holed path, the other path idle, grew by %.1f ms (%s ms), not by half the %d ms ceiling of the"
                + " probe interval: the interval does not double after each unanswered probe [SPEC-PATH-12],"
                + " [SPEC-CONF-17]", probes.size(), (late - early) / 1e6, text,
                TimeUnit.NANOSECONDS.toMillis(PROBE_MAX_INTERVAL_NANOS));
    }

    /** The PATH_PROBEs that arrived on a black-holed path after {@code nanos}. */
    private static List<Received> probesAfter(WireSession s, long nanos) {
        List<Received> out = new ArrayList<>();
        for (Received r : probes(s.blackHoled())) {
            if (r.arrivalNanos() > nanos) {
                out.add(r);
            }
        }
        return out;
    }

    /** Whether DATA came on {@code path}'s socket at or after {@code mark} (the path healed). */
    private static boolean usedAgain(WireSession s, int mark, int path) {
        List<Received> all = s.received();
        for (int i = mark; i < all.size(); i++) {
            Received r = all.get(i);
            if (r.type() == PacketType.DATA && r.path() == path) {
                return true;
            }
        }
        return false;
    }

    private static List<Received> probes(List<Received> packets) {
        List<Received> out = new ArrayList<>();
        for (Received r : packets) {
            if (r.type() == PacketType.PATH_PROBE) {
                out.add(r);
            }
        }
        return out;
    }

    private static List<Received> data(List<Received> packets) {
        List<Received> out = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (Received r : packets) {
            if (r.type() == PacketType.DATA && seen.add(r.packet().pathSequence)) {
                out.add(r);
            }
        }
        return out;
    }
}
