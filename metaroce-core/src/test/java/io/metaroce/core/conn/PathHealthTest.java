package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Congestion and failure told apart, both ways (R-PATH-4, [SPEC-PATH-9] to [SPEC-PATH-13]): a
 * heavily CE-marked path stays ACTIVE and keeps carrying less; a black-holed path becomes FAILED
 * within a bounded time while everything completes over the other paths, and is probed back to
 * ACTIVE once the black hole ends; a connection fails only when every path is dead.
 */
class PathHealthTest {
    private static final long MS = 1_000_000L;

    /** A path state change seen by the client. */
    private record Change(long atNanos, int pathId, int state) { }

    /** Collects the client's path state changes and its close. */
    private static final class Events implements ConnectionListener {
        final List<Change> changes = new ArrayList<>();
        CloseReason closed;
        Pair pair;

        @Override
        public void onPathStateChanged(Connection connection, int pathId, int state) {
            changes.add(new Change(pair.now(), pathId, state));
        }

        @Override
        public void onClosed(Connection connection, CloseReason reason) {
            closed = reason;
        }

        long firstTime(int pathId, int state, long after) {
            return changes.stream().filter(c -> c.pathId == pathId && c.state == state && c.atNanos >= after)
                    .mapToLong(Change::atNanos).min().orElse(-1);
        }
    }

    /**
     * Steady traffic: a 64 KB WRITE every 100 us into one of 32 slots, each slot's bytes fresh from
     * the seed and checked at the peer when its WRITE completes (so every byte arrived intact, and
     * exactly the bytes of that WRITE).
     */
    private static final class Traffic {
        static final int SLOT = 64 * 1024;
        static final int SLOTS = 32;
        final Pair pair;
        final MemoryRegion src;
        final MemoryRegion dst;
        final boolean[] busy = new boolean[SLOTS];
        final SplittableRandom random;
        long posted;
        long completed;
        long failed;
        long corrupt;
        long next;

        Traffic(Pair pair, long seed) {
            this.pair = pair;
            this.random = new SplittableRandom(seed);
            this.src = TestMemory.region(pair.client(), (long) SLOT * SLOTS, Access.ALL, 0);
            this.dst = TestMemory.region(pair.server(), (long) SLOT * SLOTS, Access.ALL, 0);
            pair.onClientCompletion((c, s, wrId, op, status, bytes, imm, hasImm) -> {
                int slot = (int) wrId;
                busy[slot] = false;
                if (status != CompletionStatus.SUCCESS) {
                    failed++;
                    return;
                }
                completed++;
                MemorySegment sent = src.segment().asSlice((long) slot * SLOT, SLOT);
                MemorySegment got = dst.segment().asSlice((long) slot * SLOT, SLOT);
                if (sent.mismatch(got) != -1) {
                    corrupt++;
                }
            });
        }

        /** Posts the next WRITE if its slot is free. */
        void postOne() {
            int slot = (int) (next++ % SLOTS);
            if (busy[slot]) {
                return;
            }
            byte[] bytes = new byte[SLOT];
            random.nextBytes(bytes);
            MemorySegment.copy(bytes, 0, src.segment(), ValueLayout.JAVA_BYTE, (long) slot * SLOT, SLOT);
            int r = pair.clientConnection().postWrite(0, slot, src, (long) slot * SLOT, SLOT, dst.remoteKey(),
                    (long) slot * SLOT);
            assertThat(r).isEqualTo(PostResult.OK);
            busy[slot] = true;
            posted++;
        }

        /** Posts a WRITE every 100 us until {@code untilNanos}. */
        void runUntil(long untilNanos) {
            while (pair.now() < untilNanos && pair.clientConnection().state() == ConnectionState.ESTABLISHED) {
                postOne();
                pair.advance(100_000L);
            }
        }

        /** Keeps every slot busy (a WRITE posted as soon as one completes) until {@code untilNanos}. */
        void saturateUntil(long untilNanos) {
            while (pair.now() < untilNanos && pair.clientConnection().state() == ConnectionState.ESTABLISHED) {
                for (int i = 0; i < SLOTS; i++) {
                    postOne();
                }
                pair.advance(10_000L);
            }
        }

        boolean idle() {
            for (boolean b : busy) {
                if (b) {
                    return false;
                }
            }
            return true;
        }
    }

    private static long[] packetsPerPath(Connection c, int paths) {
        PathStats stats = new PathStats();
        long[] out = new long[paths];
        for (int i = 0; i < paths; i++) {
            c.readPathStats(i, stats);
            out[i] = stats.packetsSent;
        }
        return out;
    }

    // =====================================================================================
    // Congestion is not failure
    // =====================================================================================

    @ParameterizedTest(name = "CE marks {0} on path 0, seed {1}")
    @CsvSource({"0.5, 31", "0.7, 32", "0.9, 33"})
    void aHeavilyMarkedPathStaysActiveAndCarriesLessWithoutAnyLoss(double marks, long seed) {
        String where = "seed " + seed + ", marks " + marks;
        System.out.println("PathHealthTest congestion: " + where);
        Events events = new Events();
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 0)
                        .withCeMarkingOnPaths(marks, 1L), EngineConfig.defaults(), AimdController::new,
                AimdController::new)
                .onClientEvents(events);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        // Every slot kept busy: the paths are window-limited, so the windows decide the shares.
        traffic.saturateUntil(pair.now() + 10 * MS);
        pair.driveUntil(traffic::idle, 100 * MS, "traffic drains, " + where);

        Connection c = pair.clientConnection();
        PathStats stats = new PathStats();
        long[] packets = packetsPerPath(c, 4);
        long total = packets[0] + packets[1] + packets[2] + packets[3];
        assertThat(events.changes).as("no path ever left ACTIVE (%s)", where).isEmpty();
        for (int path = 0; path < 4; path++) {
            assertThat(c.readPathStats(path, stats)).isTrue();
            assertThat(stats.state).as("path %d (%s)", path, where).isEqualTo(PathState.ACTIVE);
            assertThat(stats.losses).as("path %d lost nothing (%s)", path, where).isZero();
            assertThat(stats.retransmissions).as("path %d retransmitted nothing (%s)", path, where).isZero();
            assertThat(stats.timeouts).as("path %d (%s)", path, where).isZero();
        }
        c.readPathStats(0, stats);
        assertThat(stats.ecnFraction()).as("path 0 was marked (%s)", where).isBetween(marks - 0.1, marks + 0.1);
        double share = (double) packets[0] / total;
        System.out.printf("PathHealthTest congestion %s: packets per path %d %d %d %d, marked path's share %.3f%n",
                where, packets[0], packets[1], packets[2], packets[3], share);
        assertThat(share).as("the marked path carries less than an even quarter, but something (%s)", where)
                .isGreaterThan(0.0).isLessThan(0.2);
        assertThat(traffic.failed).as(where).isZero();
        assertThat(traffic.corrupt).as(where).isZero();
        assertThat(traffic.completed).as(where).isEqualTo(traffic.posted).isGreaterThan(400);
        assertThat(c.stats().retransmissions()).as(where).isZero();
    }

    // =====================================================================================
    // Failure is not congestion
    // =====================================================================================

    /**
     * [SPEC-PATH-11]: random loss on every path makes timeouts on all of them; the failure threshold
     * grows with the loss the other paths see, so working paths are almost never taken out of
     * service, whereas the fixed threshold of three ({@code pathFailureConfidenceBits} 0) fails them
     * over and over.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {44, 45})
    void randomLossOnEveryPathTakesNoPathOutOfServiceButAFixedThresholdWould(long seed) {
        long adaptive = failuresUnderRandomLoss(seed, EngineConfig.defaults());
        long fixed = failuresUnderRandomLoss(seed, EngineConfig.builder().pathFailureConfidenceBits(0).build());
        System.out.printf("PathHealthTest random loss seed %d: %d failures with the adaptive threshold, %d with 3%n",
                seed, adaptive, fixed);
        // Runs as long as the raised threshold still happen by chance, rarely (2^-10 per run of
        // timeouts); the fixed threshold of three fails working paths dozens of times (37 and 52
        // with fresh-evidence counting [SPEC-PATH-14] and spurious-loss floors [SPEC-LOSS-9]).
        // Since the receiver repeats its ACKs on a path it sees losing more than 15%
        // [SPEC-SACK-14], fewer lost ACKs read as losses, so the sender's loss estimate, and the
        // threshold drawn from it, are lower; with timeouts that resend only the oldest
        // transmission [SPEC-LOSS-10] as well, 4 and 1 failures against 54 and 45 (3 and 0 against
        // 57 and 51 at the start of session 7). Two causes,
        // both fixed: the runs that failed were runs of unanswered probes, each lost with its
        // PROBE_ACK unrepeated (1 - 0.75^2 = 0.44 against 0.30 for a repeated answer), and each
        // was judged at every timeout against a threshold drawn afresh from the others' noisy
        // estimate (from 5 to 12 within one run), so it failed at the lowest draw. With PROBE_ACKs
        // repeated as the path's ACKs are and a run kept to the highest threshold drawn during it
        // [SPEC-PATH-11]: 0 and 0 against 43 and 42 (each fix alone, seeds 44 to 47: 0, 0, 1, 0
        // and 1, 0, 0, 0; neither: 3, 0, 0, 3).
        assertThat(fixed).as("the fixed threshold fails working paths, seed %d", seed).isGreaterThan(20);
        assertThat(adaptive).as("paths failed under uniform random loss, seed %d", seed)
                .isLessThanOrEqualTo(fixed / 20);
    }

    /**
     * [SPEC-PATH-11]: a run of timeouts is judged against the highest failure threshold drawn
     * during it. The other paths' loss estimates move with each of their verdicts; drawn afresh at
     * every timeout, a run would fail at the lowest draw. Here the others' loss falls from 0.3 to
     * 0.1 after the run's first timeout (threshold 11, then 5): the path fails at its eleventh
     * timeout, not its fifth. After progress the next run draws afresh and fails at five.
     */
    @Test
    void aRunOfTimeoutsKeepsTheHighestFailureThresholdDrawnDuringIt() {
        EngineConfig config = EngineConfig.defaults();
        Paths paths = new Paths(3);
        for (int i = 0; i < 3; i++) {
            paths.open(new Path(i, i, null, config));
        }
        PathHealth health = new PathHealth(config, paths, new AimdController(config));
        Path judged = paths.get(0);
        io.metaroce.core.sack.ScoreboardListener ignored = new io.metaroce.core.sack.ScoreboardListener() {
            @Override
            public void onTransmissionAcked(int pathId, long pathSequence, long csn, int bytes, long sentAtNanos) {
            }

            @Override
            public void onTransmissionLost(int pathId, long pathSequence, long csn, int bytes, boolean byTimeout) {
            }
        };
        othersLose(paths, 0.3);
        int high = health.failureThreshold(judged);
        othersLose(paths, 0.1);
        int low = health.failureThreshold(judged);
        assertThat(high).as("threshold at 30%% loss on the others").isEqualTo(11);
        assertThat(low).as("threshold at 10%% loss on the others").isEqualTo(5);

        long now = 1_000_000;
        othersLose(paths, 0.3);
        health.onTimeout(judged, 0, Long.MAX_VALUE, now, ignored);
        assertThat(judged.state).isEqualTo(PathState.SUSPECT);
        othersLose(paths, 0.1);
        for (int k = 2; k < high; k++) {
            health.onTimeout(judged, 0, Long.MAX_VALUE, now += 250_000, ignored);
            assertThat(judged.state).as("after %d timeouts", k).isEqualTo(PathState.SUSPECT);
        }
        health.onTimeout(judged, 0, Long.MAX_VALUE, now += 250_000, ignored);
        assertThat(judged.state).as("after %d timeouts", high).isEqualTo(PathState.FAILED);

        health.onProgress(judged, now += 1_000_000);
        assertThat(judged.state).isEqualTo(PathState.ACTIVE);
        for (int k = 1; k < low; k++) {
            health.onTimeout(judged, 0, Long.MAX_VALUE, now += 250_000, ignored);
            assertThat(judged.state).as("second run, after %d timeouts", k).isEqualTo(PathState.SUSPECT);
        }
        health.onTimeout(judged, 0, Long.MAX_VALUE, now + 250_000, ignored);
        assertThat(judged.state).as("second run, after %d timeouts", low).isEqualTo(PathState.FAILED);
    }

    private static void othersLose(Paths paths, double loss) {
        for (int i = 1; i < paths.count(); i++) {
            paths.get(i).lossFraction = loss;
        }
    }

    /**
     * [SPEC-SACK-14] for health probes: a PATH_PROBE on a path whose receiver sees half its
     * sequence numbers skipped is answered three times, as that path's ACKs are (a PROBE_ACK, like
     * an ACK that nothing follows, is the only word of its probe; a run of unanswered probes is
     * what fails a path, [SPEC-PATH-11]); on a path that loses nothing, once. Path 1 loses every
     * other DATA packet from the client (or none), then everything the server sends on it, so the
     * client keeps probing it; each PROBE_ACK is counted as the server sends it.
     */
    @ParameterizedTest(name = "seed {0}, lossy {1}")
    @CsvSource({"71, true", "72, true", "73, false"})
    void aProbeIsAnsweredAsOftenAsTheAcksOfItsPath(long seed, boolean lossy) {
        int probed = 1;
        String where = "seed " + seed + (lossy ? ", half the DATA lost" : ", no DATA lost");
        io.metaroce.core.wire.PacketCodec codec = new io.metaroce.core.wire.PacketCodec();
        io.metaroce.core.wire.Packet packet = new io.metaroce.core.wire.Packet();
        long[] hole = {Long.MAX_VALUE};
        long[] data = {0};
        java.util.Map<Long, Integer> answers = new java.util.TreeMap<>();
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000),
                        EngineConfig.defaults(), AimdController::new, AimdController::new)
                .lossModel((fromClient, pathId, datagram, length, now) -> {
                    if (pathId != probed) {
                        return false;
                    }
                    boolean decoded = codec.decode(datagram, 0, length, packet) == io.metaroce.core.wire.DecodeError.OK;
                    if (fromClient) {
                        return lossy && decoded && packet.type == io.metaroce.core.wire.PacketType.DATA
                                && (data[0]++ & 1) == 1;
                    }
                    if (now < hole[0]) {
                        return false;
                    }
                    if (decoded && packet.type == io.metaroce.core.wire.PacketType.PROBE_ACK) {
                        answers.merge(packet.probeId, 1, Integer::sum);
                    }
                    return true;
                });
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        traffic.saturateUntil(pair.now() + 5 * MS);
        hole[0] = pair.now();
        traffic.saturateUntil(hole[0] + 5 * MS);
        System.out.printf("PathHealthTest probe answers %s: %s%n", where, answers);
        assertThat(answers).as("probes were answered while the path was cut (%s)", where).hasSizeGreaterThan(1);
        assertThat(answers.values()).as("copies of each PROBE_ACK (%s)", where).containsOnly(lossy ? 3 : 1);
    }

    private static long failuresUnderRandomLoss(long seed, EngineConfig given) {
        // The halving AIMD these counts were measured with: a loss halves the window and there is no
        // slow start, so the windows (hence the runs of timeouts) stay small under 25% loss.
        EngineConfig config = given.toBuilder().aimdLossCutScaledByAlpha(false).aimdSlowStart(false).build();
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000).withLoss(0.25),
                config, config, AimdController::new, AimdController::new).connect();
        Traffic traffic = new Traffic(pair, seed);
        traffic.saturateUntil(pair.now() + 300 * MS);
        pair.driveUntil(traffic::idle, 500 * MS, "traffic drains, seed " + seed);
        assertThat(traffic.failed).as("no WRITE failed, seed %d", seed).isZero();
        assertThat(traffic.corrupt).as("every WRITE arrived intact, seed %d", seed).isZero();
        assertThat(traffic.completed).isEqualTo(traffic.posted).isGreaterThan(100);
        Connection c = pair.clientConnection();
        assertThat(c.stats().overdue() + c.stats().timeouts()).as("loss made timeouts, seed %d", seed).isPositive();
        PathStats stats = new PathStats();
        long failures = 0;
        for (int i = 0; i < c.pathCount(); i++) {
            c.readPathStats(i, stats);
            failures += stats.failures;
        }
        return failures;
    }

    /**
     * [SPEC-PATH-14]: a short burst that loses everything on one path (both ways) for less than an
     * overdue wait leaves a window of transmissions on it that go overdue one after the other. The
     * first makes the path SUSPECT; the others were in flight at that verdict, so they repeat it
     * and do not count toward failure: the path is probed back to ACTIVE without ever being FAILED,
     * and the other paths never change state.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {61, 62, 63})
    void aShortBurstOfLossMakesAPathSuspectButNeverFailed(long seed) {
        int bursty = (int) (seed % 4);
        String where = "seed " + seed + ", burst on path " + bursty;
        EngineConfig config = EngineConfig.defaults();
        Events events = new Events();
        long[] burst = {Long.MAX_VALUE, Long.MAX_VALUE};
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), config,
                        AimdController::new, AimdController::new)
                .onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> pathId == bursty && now >= burst[0]
                        && now < burst[1]);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        traffic.saturateUntil(pair.now() + 5 * MS);
        burst[0] = pair.now();
        burst[1] = burst[0] + config.overdueFloorNanos() * 3 / 4;
        traffic.saturateUntil(burst[0] + 20 * MS);
        pair.driveUntil(traffic::idle, 100 * MS, "traffic drains, " + where);

        Connection c = pair.clientConnection();
        PathStats stats = new PathStats();
        c.readPathStats(bursty, stats);
        System.out.printf("PathHealthTest burst %s: %d overdue, changes %s%n", where, stats.overdue, events.changes);
        assertThat(stats.overdue).as("the burst's transmissions went overdue, more than one (%s)", where)
                .isGreaterThan(1);
        assertThat(events.firstTime(bursty, PathState.SUSPECT, burst[0])).as("SUSPECT (%s)", where).isPositive();
        assertThat(stats.failures).as("never FAILED (%s)", where).isZero();
        assertThat(c.pathState(bursty)).as(where).isEqualTo(PathState.ACTIVE);
        assertThat(events.changes).as("only the bursty path changes state (%s)", where)
                .allMatch(ch -> ch.pathId == bursty && ch.state != PathState.FAILED);
        assertThat(traffic.failed).as(where).isZero();
        assertThat(traffic.corrupt).as(where).isZero();
        assertThat(traffic.completed).as(where).isEqualTo(traffic.posted);
    }

    @ParameterizedTest(name = "AIMD {0}, seed {1}")
    @CsvSource({"true, 41", "false, 42", "true, 43"})
    void aBlackHoledPathFailsEverythingCompletesElsewhereAndItIsProbedBack(boolean aimd, long seed) {
        int blackHoled = (int) (seed % 4);
        String where = "seed " + seed + ", black hole on path " + blackHoled + ", AIMD " + aimd;
        System.out.println("PathHealthTest failure: " + where);
        EngineConfig config = EngineConfig.defaults();
        Events events = new Events();
        long[] hole = {Long.MAX_VALUE, Long.MAX_VALUE};
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), config,
                        aimd ? AimdController::new : FixedWindowController::new,
                        aimd ? AimdController::new : FixedWindowController::new)
                .onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> pathId == blackHoled && now >= hole[0]
                        && now < hole[1]);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        long start = pair.now();
        traffic.runUntil(start + 5 * MS);
        hole[0] = pair.now();
        hole[1] = hole[0] + 40 * MS;
        traffic.runUntil(hole[1]);
        Connection c = pair.clientConnection();
        long[] duringHole = packetsPerPath(c, 4);
        traffic.runUntil(hole[1] + 150 * MS);
        pair.driveUntil(traffic::idle, 100 * MS, "traffic drains, " + where);
        long[] after = packetsPerPath(c, 4);

        System.out.println("PathHealthTest failure " + where + ": changes " + events.changes);
        long suspect = events.firstTime(blackHoled, PathState.SUSPECT, hole[0]);
        long failed = events.firstTime(blackHoled, PathState.FAILED, hole[0]);
        long back = events.firstTime(blackHoled, PathState.ACTIVE, hole[1]);
        System.out.printf("PathHealthTest failure %s: SUSPECT %.2f ms and FAILED %.2f ms after the hole began, "
                + "ACTIVE again %.2f ms after it ended%n", where, (suspect - hole[0]) / 1e6, (failed - hole[0]) / 1e6,
                (back - hole[1]) / 1e6);
        assertThat(suspect).as("path becomes SUSPECT (%s)", where).isGreaterThan(hole[0]);
        // The other paths deliver what was sent after the hole's first victim, so it is overdue
        // [SPEC-LOSS-7] within a few round trips, long before the 1 ms minimum RTO.
        assertThat(suspect - hole[0]).as("SUSPECT once overdue, before the minimum RTO (%s)", where)
                .isLessThan(config.minRtoNanos() / 2);
        assertThat(failed).as("then FAILED (%s)", where).isGreaterThanOrEqualTo(suspect);
        // min RTO 1 ms, backed off: 1 + 2 + 4 ms of timeouts after the first packet lost, plus slack.
        assertThat(failed - hole[0]).as("FAILED within a bounded time (%s)", where).isLessThan(12 * MS);
        assertThat(events.changes).as("only the black-holed path changes state (%s)", where)
                .allMatch(ch -> ch.pathId == blackHoled);
        // After the hole ends, the next probe (the interval doubles from 1 ms to at most 100 ms) brings it back.
        assertThat(back).as("probed back to ACTIVE after the hole (%s)", where).isPositive();
        assertThat(back - hole[1]).as("within one probe interval ceiling (%s)", where)
                .isLessThanOrEqualTo(config.pathProbeMaxIntervalNanos() + 5 * MS);
        assertThat(c.pathState(blackHoled)).as(where).isEqualTo(PathState.ACTIVE);
        assertThat(after[blackHoled] - duringHole[blackHoled]).as("it carries traffic again (%s)", where)
                .isGreaterThan(100);
        PathStats stats = new PathStats();
        c.readPathStats(blackHoled, stats);
        assertThat(stats.failures).as(where).isEqualTo(1);
        assertThat(stats.overdue).as("the black hole was found overdue (%s)", where).isPositive();
        assertThat(stats.probesSent).as(where).isPositive();

        assertThat(c.state()).as("the connection never failed (%s)", where).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(events.closed).as(where).isNull();
        assertThat(traffic.failed).as("no WRITE failed (%s)", where).isZero();
        assertThat(traffic.corrupt).as("every WRITE's bytes arrived intact (%s)", where).isZero();
        assertThat(traffic.completed).as(where).isEqualTo(traffic.posted).isGreaterThan(1500);
    }

    /**
     * A fixed-window pair with {@code paths} paths and steady traffic: 5 ms of it, then
     * {@code blackHoled} loses everything both ways for good while the traffic goes on for
     * {@code holeNanos}.
     */
    private static Traffic blackHoleAfterWarmUp(long seed, int paths, int blackHoled, EngineConfig clientConfig,
            EngineConfig serverConfig, Events events, long holeNanos) {
        long[] holeFrom = {Long.MAX_VALUE};
        Pair pair = Pair.create(seed, paths, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), clientConfig,
                        serverConfig, FixedWindowController::new, FixedWindowController::new)
                .onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> pathId == blackHoled && now >= holeFrom[0]);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        traffic.runUntil(pair.now() + 5 * MS);
        holeFrom[0] = pair.now();
        traffic.runUntil(holeFrom[0] + holeNanos);
        return traffic;
    }

    /**
     * [SPEC-PATH-12]: while the other paths deliver, a PROBING path's probe waits only until it is
     * overdue, not the path's whole RTO (here 20 ms, twenty times the probe interval), and two
     * probes are still never closer than the probe interval, which doubles from one to the next.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {47, 48})
    void aProbeOfAFailedPathWaitsOnlyUntilOverdueWhileTheOtherPathsDeliver(long seed) {
        int blackHoled = (int) (seed % 4);
        String where = "seed " + seed + ", black hole on path " + blackHoled;
        EngineConfig config = EngineConfig.builder().minRtoNanos(20 * MS).build();
        Events events = new Events();
        Traffic traffic = blackHoleAfterWarmUp(seed, 4, blackHoled, config, config, events, 200 * MS);
        Pair pair = traffic.pair;

        List<Long> probingFrom = new ArrayList<>();
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < events.changes.size(); i++) {
            Change ch = events.changes.get(i);
            if (ch.pathId != blackHoled || ch.state != PathState.PROBING) {
                continue;
            }
            probingFrom.add(ch.atNanos);
            for (int j = i + 1; j < events.changes.size(); j++) {
                Change next = events.changes.get(j);
                if (next.pathId == blackHoled) {
                    assertThat(next.state).as("an unanswered probe leaves the path FAILED (%s)", where)
                            .isEqualTo(PathState.FAILED);
                    waits.add(next.atNanos - ch.atNanos);
                    break;
                }
            }
        }
        System.out.printf("PathHealthTest probing %s: probes at %s, waits %s ns%n", where, probingFrom, waits);
        assertThat(waits).as("the failed path was probed several times (%s)", where).hasSizeGreaterThanOrEqualTo(4);
        assertThat(waits).as("each probe waited until overdue, far less than the 20 ms RTO (%s)", where)
                .allMatch(w -> w < config.minRtoNanos() / 4);
        long interval = config.pathProbeIntervalNanos();
        for (int i = 1; i < probingFrom.size(); i++) {
            long gap = probingFrom.get(i) - probingFrom.get(i - 1);
            assertThat(gap).as("probe %d came at least its doubled interval after the one before (%s)", i, where)
                    .isGreaterThanOrEqualTo(Math.min(interval << i, config.pathProbeMaxIntervalNanos()));
        }
        assertThat(traffic.failed).as(where).isZero();
        assertThat(pair.clientConnection().state()).as(where).isEqualTo(ConnectionState.ESTABLISHED);
    }

    /**
     * [SPEC-STATE-9]: a FAILED path's health probes do not count as sending, so a connection whose
     * working path falls idle still sends its keep-alives there, hears their PROBE_ACKs and
     * outlives its idle timeout many times over, while the dead path is probed more often than
     * the keep-alive interval (counted as sending, its probes would hold every keep-alive back and,
     * with a peer that sends no keep-alive of its own, the client would hear nothing until its
     * idle timeout ended the connection).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {49, 50})
    void aFailedPathsProbesDoNotHoldBackTheKeepAliveOfAnIdleConnection(long seed) {
        int blackHoled = 1;
        String where = "seed " + seed;
        EngineConfig config = EngineConfig.builder().keepAliveNanos(20 * MS).idleTimeoutNanos(60 * MS)
                .pathProbeMaxIntervalNanos(8 * MS).build();
        // The peer sends no keep-alive of its own, so only the client's keep the connection alive.
        EngineConfig peerConfig = config.toBuilder().keepAliveNanos(0).idleTimeoutNanos(10_000 * MS).build();
        Events events = new Events();
        Traffic traffic = blackHoleAfterWarmUp(seed, 2, blackHoled, config, peerConfig, events, 20 * MS);
        Pair pair = traffic.pair;
        pair.driveUntil(traffic::idle, 20 * MS, "traffic drains, " + where);
        Connection c = pair.clientConnection();
        assertThat(c.pathState(blackHoled)).as("the black-holed path is out of service (%s)", where)
                .isIn(PathState.FAILED, PathState.PROBING);
        PathStats stats = new PathStats();
        c.readPathStats(blackHoled, stats);
        long probesBefore = stats.probesSent;
        long idleFrom = pair.now();

        pair.advance(10 * config.idleTimeoutNanos());

        c.readPathStats(blackHoled, stats);
        System.out.printf("PathHealthTest keep-alive %s: %d probes of the dead path while idle%n", where,
                stats.probesSent - probesBefore);
        assertThat(stats.probesSent - probesBefore).as("the dead path was probed more often than the keep-alive "
                + "interval while idle (%s)", where).isGreaterThan((pair.now() - idleFrom) / config.keepAliveNanos());
        assertThat(events.closed).as("the client's connection was not closed (%s)", where).isNull();
        assertThat(c.state()).as(where).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(pair.serverConnection().state()).as(where).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(c.pathState(0)).as("the working path stayed ACTIVE (%s)", where).isEqualTo(PathState.ACTIVE);
    }

    /**
     * [SPEC-CC-25] during a failover: the controller hears that a black-holed path takes no new
     * data before it hears of the losses the verdict that makes the path SUSPECT declares, so
     * none of the black hole's losses after that verdict counts as random loss (the controller
     * leaves the losses of such a path out of its compensation of the hint,
     * AimdControllerTest#lossesOnAPathInDoubtOrFailedDoNotRaiseTheRateAboveTheHint).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {44, 45, 46})
    void aBlackHolesLossesReachTheControllerAfterItHearsThePathTakesNoNewData(long seed) {
        int blackHoled = (int) (seed % 4);
        String where = "seed " + seed + ", black hole on path " + blackHoled;
        System.out.println("PathHealthTest black hole losses: " + where);
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdLossCutScaledByAlpha(true).build();
        List<long[]> losses = new ArrayList<>(); // {time, path, 1 if the path takes new data as the controller knows}
        boolean[] takes = {true, true, true, true};
        Events events = new Events();
        long[] hole = {Long.MAX_VALUE};
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), config,
                        c -> new RecordingController(new AimdController(c), takes, losses, events), AimdController::new)
                .onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> pathId == blackHoled && now >= hole[0]);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        traffic.runUntil(pair.now() + 5 * MS);
        hole[0] = pair.now();
        traffic.runUntil(hole[0] + 20 * MS);
        long suspect = events.firstTime(blackHoled, PathState.SUSPECT, hole[0]);
        assertThat(suspect).as("the black-holed path turned SUSPECT (%s)", where).isPositive();
        List<long[]> afterVerdict = losses.stream().filter(l -> l[1] == blackHoled && l[0] >= suspect).toList();
        assertThat(afterVerdict).as("the verdict declared the black hole's packets lost (%s)", where).isNotEmpty();
        assertThat(afterVerdict).as("each after the controller heard the path takes no new data (%s)", where)
                .allMatch(l -> l[2] == 0);
    }

    /**
     * [SPEC-CC-25] when no path is ACTIVE: every path black-holed at once turns SUSPECT (none takes
     * new data from the others, none is "beside an ACTIVE one"), and the first to fail declares its
     * flight lost. The controller hears of the failure before those losses, so they do not count as
     * random loss either.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {47, 48})
    void aFailureWithNoPathActiveReachesTheControllerBeforeItsLosses(long seed) {
        String where = "seed " + seed + ", every path black-holed";
        // The fixed failure threshold: the adaptive one ([SPEC-PATH-11]) rises with the other
        // paths' losses, and with every path losing all, it reaches the connection's own limit.
        // Every timeout counts: with [SPEC-PATH-15] a silence of every path fails none of them, and
        // a failure beside no ACTIVE path needs an answer that left its own path SUSPECT (random
        // loss on it), which this fixed case does not make.
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdLossCutScaledByAlpha(true)
                .pathFailureConfidenceBits(0).pathFailureNeedsAnswer(false).build();
        List<long[]> losses = new ArrayList<>(); // {time, path, 1 if the path takes new data as the controller knows}
        boolean[] takes = {true, true, true, true};
        Events events = new Events();
        long[] hole = {Long.MAX_VALUE, Long.MAX_VALUE};
        Pair pair = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), config,
                        c -> new RecordingController(new AimdController(c), takes, losses, events), AimdController::new)
                .onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> now >= hole[0] && now < hole[1]);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        traffic.runUntil(pair.now() + 5 * MS);
        hole[0] = pair.now();
        hole[1] = hole[0] + 15 * MS;
        traffic.runUntil(hole[1] + 30 * MS);
        int failedPath = -1;
        long failedAt = Long.MAX_VALUE;
        for (int id = 0; id < 4; id++) {
            long t = events.firstTime(id, PathState.FAILED, hole[0]);
            if (t >= 0 && t < failedAt) {
                failedAt = t;
                failedPath = id;
            }
        }
        assertThat(failedPath).as("a path failed while every path was black-holed (%s)", where).isNotNegative();
        int path = failedPath;
        long at = failedAt;
        List<long[]> atFailure = losses.stream().filter(l -> l[1] == path && l[0] == at).toList();
        assertThat(atFailure).as("the failure declared path %d's flight lost (%s)", path, where).isNotEmpty();
        assertThat(atFailure).as("each after the controller heard of the failure (%s)", where)
                .allMatch(l -> l[2] == 0);
    }

    /** Forwards to an AIMD controller and records each loss with what it was told of its path. */
    private static final class RecordingController extends io.metaroce.core.cc.ForwardingController {
        private final boolean[] takes;
        private final List<long[]> losses;
        private final Events events;

        RecordingController(AimdController inner, boolean[] takes, List<long[]> losses, Events events) {
            super(inner);
            this.takes = takes;
            this.losses = losses;
            this.events = events;
        }

        @Override
        public void onPacketLost(int pathId, int bytes, long nowNanos) {
            losses.add(new long[] {events.pair.now(), pathId, takes[pathId] ? 1 : 0});
            inner.onPacketLost(pathId, bytes, nowNanos);
        }

        @Override
        public void onPathFailed(int pathId, long nowNanos) {
            takes[pathId] = false;
            inner.onPathFailed(pathId, nowNanos);
        }

        @Override
        public void onPathRestored(int pathId, long nowNanos) {
            takes[pathId] = true;
            inner.onPathRestored(pathId, nowNanos);
        }

        @Override
        public void onPathNewData(int pathId, boolean takesNewData, long nowNanos) {
            takes[pathId] = takesNewData;
            inner.onPathNewData(pathId, takesNewData, nowNanos);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {51, 52})
    void theConnectionFailsOnlyWhenEveryPathIsDead(long seed) {
        String where = "seed " + seed;
        System.out.println("PathHealthTest all paths dead: " + where);
        EngineConfig config = EngineConfig.builder().maxConsecutiveTimeouts(6).maxRtoNanos(20 * MS).build();
        Events events = new Events();
        boolean[] dead = new boolean[3];
        Pair pair = Pair.create(seed, 3, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), config)
                .onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> dead[pathId]);
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        Connection c = pair.clientConnection();
        traffic.runUntil(pair.now() + 5 * MS);
        dead[0] = true;
        dead[1] = true;
        long twoDead = pair.now();
        traffic.runUntil(twoDead + 60 * MS);
        assertThat(c.state()).as("one path left: still up (%s)", where).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(c.pathState(0)).as(where).isIn(PathState.FAILED, PathState.PROBING);
        assertThat(c.pathState(1)).as(where).isIn(PathState.FAILED, PathState.PROBING);
        assertThat(c.pathState(2)).as(where).isEqualTo(PathState.ACTIVE);
        pair.driveUntil(traffic::idle, 100 * MS, "traffic drains over path 2, " + where);
        assertThat(traffic.failed).as(where).isZero();
        assertThat(traffic.corrupt).as(where).isZero();
        assertThat(traffic.completed).as(where).isEqualTo(traffic.posted);

        dead[2] = true;
        long allDead = pair.now();
        traffic.postOne();
        pair.driveUntil(() -> c.state() == ConnectionState.CLOSED, 2_000 * MS, "connection gives up, " + where);
        System.out.println("PathHealthTest all paths dead " + where + ": changes " + events.changes
                + ", closed after " + (pair.now() - allDead) / 1e6 + " ms");
        assertThat(events.closed).as(where).isEqualTo(CloseReason.PEER_UNREACHABLE);
        assertThat(traffic.failed).as("the last WRITE failed with the connection (%s)", where).isEqualTo(1);
        PathStats stats = new PathStats();
        c.readPathStats(2, stats);
        assertThat(stats.consecutiveTimeouts).as("the last path ran out its timeouts (%s)", where)
                .isEqualTo(config.maxConsecutiveTimeouts());
        assertThat(stats.failures).as("the last path in service is never failed (%s)", where).isZero();
    }

    @Test
    void aFailedPathRepathedToANewSocketIsProbedAtOnceAndThePeerFollows() {
        long seed = 65;
        int newSocket = 5;
        Events events = new Events();
        boolean[] blackHoled = {false};
        Pair[] holder = new Pair[1];
        // The fabric drops path 1's packets only while they use its original source port (socket 1).
        Pair pair = Pair.create(seed, 2, NetworkConditions.perfect().withDelay(10_000, 2_000, 0),
                        EngineConfig.defaults())
                .onClientEvents(new ConnectionListener() {
                    @Override
                    public void onPathStateChanged(Connection connection, int pathId, int state) {
                        events.onPathStateChanged(connection, pathId, state);
                        if (pathId == 1 && state == PathState.FAILED && connection.pathState(1) == PathState.FAILED) {
                            connection.repath(1, newSocket);
                        }
                    }
                })
                .lossModel((fromClient, pathId, datagram, length, now) -> pathId == 1 && blackHoled[0]
                        && holder[0].clientConnection().readPathStats(1, new PathStats())
                        && socketOf(holder[0].clientConnection(), 1) != newSocket);
        holder[0] = pair;
        events.pair = pair;
        pair.connect();
        Traffic traffic = new Traffic(pair, seed);
        Connection c = pair.clientConnection();
        traffic.runUntil(pair.now() + 2 * MS);
        blackHoled[0] = true;
        long hole = pair.now();
        traffic.runUntil(hole + 30 * MS);
        pair.driveUntil(traffic::idle, 100 * MS, "traffic drains, seed " + seed);

        long failed = events.firstTime(1, PathState.FAILED, hole);
        long back = events.firstTime(1, PathState.ACTIVE, failed);
        System.out.println("PathHealthTest repath seed " + seed + ": changes " + events.changes);
        assertThat(failed).as("path 1 failed on its old port, seed %d", seed).isPositive();
        assertThat(back - failed).as("probed from the new port at once: back within one RTT or so, seed %d", seed)
                .isBetween(0L, 1 * MS);
        assertThat(socketOf(c, 1)).isEqualTo(newSocket);
        PathStats server = new PathStats();
        pair.serverConnection().readPathStats(1, server);
        assertThat(server.remoteAddress).as("the peer rebound path 1 to the new source port")
                .isEqualTo(Pair.clientAddress(newSocket));
        assertThat(traffic.failed).isZero();
        assertThat(traffic.corrupt).isZero();
        assertThat(traffic.completed).isEqualTo(traffic.posted);
        assertThatThrownBy(() -> c.repath(7, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("path 7");
    }

    private static int socketOf(Connection c, int pathId) {
        PathStats stats = new PathStats();
        c.readPathStats(pathId, stats);
        return stats.localSocket;
    }

    @Test
    void aSinglePathConnectionStillEndsAfterMaxConsecutiveTimeouts() {
        long seed = 61;
        EngineConfig config = EngineConfig.builder().maxConsecutiveTimeouts(4).maxRtoNanos(20 * MS).build();
        Events events = new Events();
        boolean[] dead = {false};
        Pair pair = Pair.create(seed, 1, NetworkConditions.perfect(), config).onClientEvents(events)
                .lossModel((fromClient, pathId, datagram, length, now) -> dead[0] && !fromClient);
        events.pair = pair;
        pair.connect();
        dead[0] = true;
        Traffic traffic = new Traffic(pair, seed);
        traffic.postOne();
        Connection c = pair.clientConnection();
        pair.driveUntil(() -> c.state() == ConnectionState.CLOSED, 1_000 * MS, "seed " + seed);
        assertThat(events.closed).isEqualTo(CloseReason.PEER_UNREACHABLE);
        assertThat(c.stats().timeouts()).isEqualTo(4);
        assertThat(events.changes).extracting(Change::state).containsExactly(PathState.SUSPECT);
    }
}
