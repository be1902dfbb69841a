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
 * the suite black-holes one of two paths while it keeps the IUT sending echoes, and checks that
 * the IUT resends what the path lost on the other, stops using it, probes it, and uses it again
 * once a probe is answered. The IUT's states are not on the wire; its packets are.
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

    private PathCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("path.failover",
                "with one of two paths black-holed, the IUT resends what it lost on the other, sends nothing more on it"
                        + " but PATH_PROBEs, and uses it again once a probe is answered",
                "SPEC-PATH-9, SPEC-PATH-10, SPEC-PATH-11, SPEC-PATH-12, SPEC-LOSS-3, SPEC-LOSS-7, SPEC-STATE-9, SPEC-CONF-10",
                "R-PATH-4, R-PATH-1, R-SACK-2", PathCases::failover));
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

    private static void failover(CaseContext c) {
        WireSession s = c.connect(2);
        Checks.check(s.grantedPaths() == 2, "the responder granted %d paths of 2 asked [SPEC-CONF-1]", s.grantedPaths());
        // A first SEND over both paths binds path 1 at the responder ([SPEC-PATH-1]) and gives both RTT samples.
        byte[] warm = Scenarios.bytes(4 * s.payloadSize(), 111);
        List<Segment> segs = s.send(ECHO, warm);
        for (int i = 0; i < segs.size(); i++) {
            s.send(segs.get(i), i % 2);
        }
        Scenarios.awaitEchoes(s, 1, "a SEND over two paths");
        c.quiet(s);
        s.blackHole(1, true);
        long blackHoleOpened = System.nanoTime();
        int echoesBefore = s.echoes().size();
        List<byte[]> sentMessages = new ArrayList<>();
        long probeWait = probeWaitNanos(c, s);
        long deadline = System.nanoTime() + PROBES_BEFORE_HEALING * probeWait;
        // Keep the IUT sending on path 0 (acknowledged there) until path 1 has been probed enough: acknowledged data
        // on the other path is the evidence that makes the black-holed path's transmissions overdue ([SPEC-LOSS-7]).
        while (probes(s.blackHoled()).size() < PROBES_BEFORE_HEALING && System.nanoTime() < deadline) {
            byte[] m = Scenarios.bytes(ECHO_PACKETS * s.payloadSize() - 1, 112 + sentMessages.size());
            sentMessages.add(m);
            Scenarios.sendAll(s, s.send(ECHO, m), 0);
            int expected = echoesBefore + sentMessages.size();
            boolean echoed = s.await(() -> s.echoes().size() >= expected);
            Checks.check(echoed, "with path 1 black-holed, the echo of message %d did not complete on path 0 within %d ms"
                    + " (%d DATA packets were lost on path 1): what a path in doubt loses is resent on an ACTIVE path"
                    + " [SPEC-PATH-10], [SPEC-PATH-11], [SPEC-LOSS-3]", sentMessages.size(), c.options().waitMillis(),
                    data(s.blackHoled()).size());
            s.quiet(20);
        }
        List<Received> lost = data(s.blackHoled());
        List<Received> probes = probes(s.blackHoled());
        if (lost.isEmpty() && probes.isEmpty()) {
            throw new CaseSkipped("the IUT sent nothing on path 1 in " + sentMessages.size() + " echoes once it was"
                    + " black-holed, so its failure could not be seen (it may spread new data by another rule than"
                    + " round robin, [SPEC-CONF-3])");
        }
        Checks.check(probes.size() >= PROBES_BEFORE_HEALING, "%d PATH_PROBE(s) came on the black-holed path 1 in %d"
                + " ms (%d DATA packets lost there, %d echoes sent over path 0): a path in doubt is probed"
                + " [SPEC-PATH-10], [SPEC-PATH-12]", probes.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - blackHoleOpened), lost.size(), sentMessages.size());
        for (Received p : probes) {
            Packet q = p.packet();
            Checks.check(q.pathId == 1 && q.connectionSequence == 0 && q.pathSequence == 0, "a PATH_PROBE on socket 1"
                    + " names path %d with CSN %d, PSN %d [SPEC-PATH-4], [SPEC-PATH-10]", q.pathId,
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
        Checks.check(afterProbe.isEmpty(), "%d DATA packet(s) (the first %s) came on path 1 after its first PATH_PROBE"
                + " while path 0 delivered everything: a path in doubt takes no new data while another is ACTIVE,"
                + " and its losses go to an ACTIVE path [SPEC-PATH-10], [SPEC-PATH-9]", afterProbe.size(),
                afterProbe.isEmpty() ? "" : afterProbe.getFirst());
        // Every CSN lost on path 1 was delivered over path 0 (the echoes completed, checked above, byte for byte now).
        for (int i = 0; i < sentMessages.size(); i++) {
            Scenarios.checkEcho(s, echoesBefore + i, sentMessages.get(i), "an echo sent while path 1 was black-holed");
        }
        // Probing back: the path heals, the next probe is answered, and new data comes on path 1 again.
        s.blackHole(1, false);
        int answersBefore = s.probeAnswerTimes().size();
        int healedMark = s.mark();
        long healDeadline = System.nanoTime() + probeWait + s.waitNanos();
        int messages = sentMessages.size();
        while (!usedAgain(s, healedMark) && System.nanoTime() < healDeadline) {
            byte[] m = Scenarios.bytes(ECHO_PACKETS * s.payloadSize() - 1, 112 + messages);
            messages++;
            Scenarios.sendAll(s, s.send(ECHO, m), 0);
            int expected = echoesBefore + messages;
            s.await(() -> s.echoes().size() >= expected);
            s.quiet(20);
        }
        Checks.check(s.probeAnswerTimes().size() > answersBefore, "no PATH_PROBE came on path 1 within %d ms of its healing"
                + " [SPEC-PATH-12]", TimeUnit.NANOSECONDS.toMillis(probeWait + s.waitNanos()));
        Checks.check(usedAgain(s, healedMark), "path 1 carried no DATA within %d ms of the suite's PROBE_ACK, while %d"
                + " echoes went over path 0: the PROBE_ACK of the latest probe makes a path ACTIVE, and new data goes"
                + " round robin over ACTIVE paths [SPEC-PATH-12], [SPEC-PATH-6]",
                TimeUnit.NANOSECONDS.toMillis(healDeadline - s.probeAnswerTimes().getLast()), messages
                        - sentMessages.size());
        Scenarios.checkAllAcks(s);
    }

    /** Whether DATA came on path 1's socket at or after {@code mark} (the path healed). */
    private static boolean usedAgain(WireSession s, int mark) {
        List<Received> all = s.received();
        for (int i = mark; i < all.size(); i++) {
            Received r = all.get(i);
            if (r.type() == PacketType.DATA && r.path() == 1) {
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
