package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathState;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.sack.ScoreboardListener;

/**
 * Tells failure from congestion on each path of a connection and acts on failure (R-PATH-4,
 * [SPEC-PATH-9] to [SPEC-PATH-13]). Only timeouts without progress count against a path: an
 * RTO, or a health probe left unanswered. ECN marks and a longer RTT never do; they are the
 * congestion controller's business and only slow a path down.
 *
 * <ul>
 *   <li>ACTIVE to SUSPECT at the first timeout: the path keeps retransmitting what it lost (on the
 *       same path, R-SACK-2) but gets no new data while an ACTIVE path exists; with nothing left in
 *       flight it is tested by a PATH_PROBE.
 *   <li>SUSPECT to FAILED after {@code min(pathFailureTimeouts, maxConsecutiveTimeouts)} timeouts
 *       in a row, but only while another path is in service: everything in flight on it is
 *       declared lost and, with its queued retransmissions, resent on paths in service (the CSN
 *       names the content, so the receiver still admits each CSN once).
 *   <li>FAILED paths are probed after {@code pathProbeIntervalNanos}, doubling up to
 *       {@code pathProbeMaxIntervalNanos}; a probe out is PROBING; its answer makes the path ACTIVE
 *       with a fresh (small) congestion window.
 *   <li>The connection ends only when its last path in service reaches
 *       {@code maxConsecutiveTimeouts}: every other path has failed by then.
 *   <li>Only fresh evidence counts: a path in doubt whose transmission goes overdue counts a
 *       timeout only if that transmission was sent after its latest counted timeout
 *       ({@link #onOverdue}, [SPEC-PATH-14]).
 *   <li>A stall is not a path failure: a path fails only once the peer has answered something
 *       sent after the path fell silent; a silence of the whole connection ends it instead, at
 *       {@code maxConsecutiveTimeouts} ([SPEC-PATH-15]).
 * </ul>
 *
 * <p>Holds no reference to the endpoint or the connection; losses are reported to the listener
 * passed in. Not thread-safe; owned by its connection.
 */
final class PathHealth {
    // Primitives copied from the configuration, so a connection's own state reaches no shared object.
    private static final double LN_2 = Math.log(2);

    private final Paths paths;
    private final CongestionController congestion;
    // Bytes (validated: at most 62 and 30) leave room for latestAnsweredSentNanos within the
    // connection's footprint budget (StateFootprintTest).
    private final byte failureTimeouts;
    private final byte confidenceBits;
    private final byte maxConsecutiveTimeouts;
    private final long probeIntervalNanos;
    private final long probeMaxIntervalNanos;
    private final long maxAckDelayNanos;
    private final long minRtoNanos;
    private final long overdueFloorNanos;
    private final long maxRtoNanos;
    /**
     * Send time of the newest thing the peer answered on any path: a transmission acknowledged or
     * refused by a NAK (it arrived), or a probe or keep-alive whose PROBE_ACK came back. A path's
     * timeouts count toward its failure only once this passes the start of its silence [SPEC-PATH-15].
     */
    private long latestAnsweredSentNanos = Long.MIN_VALUE;
    /**
     * Whether some path may be in a run of timeouts none of which counted yet (set when a timeout
     * leaves one so, cleared when {@link #onPeerAnswered} finds none): almost every ACK moves
     * {@link #latestAnsweredSentNanos}, and without this each would walk the paths for nothing.
     */
    private boolean unansweredRunPossible;

    PathHealth(EngineConfig config, Paths paths, CongestionController congestion) {
        this.paths = paths;
        this.congestion = congestion;
        this.maxConsecutiveTimeouts = (byte) config.maxConsecutiveTimeouts();
        this.failureTimeouts = (byte) Math.min(config.pathFailureTimeouts(), config.maxConsecutiveTimeouts());
        this.confidenceBits = (byte) config.pathFailureConfidenceBits();
        this.probeIntervalNanos = config.pathProbeIntervalNanos();
        this.probeMaxIntervalNanos = config.pathProbeMaxIntervalNanos();
        this.maxAckDelayNanos = config.maxAckDelayNanos();
        this.minRtoNanos = config.minRtoNanos();
        this.overdueFloorNanos = Math.min(config.overdueFloorNanos(), config.minRtoNanos());
        this.maxRtoNanos = config.maxRtoNanos();
    }

    private long rtoNanos(Path p, int backoff) {
        return p.rtt.rtoNanos(maxAckDelayNanos, minRtoNanos, maxRtoNanos, backoff);
    }

    private long overdueNanos(Path p) {
        return p.rtt.rtoNanos(maxAckDelayNanos, overdueFloorNanos, maxRtoNanos, 0);
    }

    /**
     * The path made progress: an ACK newly acknowledged a transmission on it, or the PROBE_ACK of
     * its latest probe arrived. It is ACTIVE from now on.
     */
    void onProgress(Path p, long nowNanos) {
        p.consecutiveTimeouts = 0;
        p.answeredTimeouts = 0;
        p.runFailureThreshold = 0;
        p.timeoutCredits = 0;
        if (p.state == PathState.ACTIVE) {
            return;
        }
        boolean wasOutOfService = !PathState.inService(p.state);
        paths.state(p, PathState.ACTIVE);
        p.probeDeadlineNanos = Long.MAX_VALUE;
        p.nextProbeNanos = Long.MAX_VALUE;
        if (wasOutOfService) {
            congestion.onPathRestored(p.id, nowNanos);
        }
    }

    /**
     * A timeout without progress on {@code p}: its RTO fired, or its probe went unanswered while
     * SUSPECT. May fail the path (its losses go to {@code lost}).
     *
     * @param judgedSentNanos send time of what timed out: the oldest transmission in flight on
     *     {@code p}, or its probe; the first timeout of a run marks where the run's silence began
     * @param answerEvidenceNanos send time of the newest thing the peer answered on any path of the
     *     connection: a transmission acknowledged or NAKed, or a probe or keep-alive ([SPEC-PATH-15]);
     *     {@link Long#MAX_VALUE} counts every timeout (without {@code pathFailureNeedsAnswer})
     * @return whether the connection must end: {@code p} has reached {@code maxConsecutiveTimeouts}
     *     and is the last path in service, or the peer answered nothing during its run
     */
    boolean onTimeout(Path p, long judgedSentNanos, long answerEvidenceNanos, long nowNanos, ScoreboardListener lost) {
        if (p.consecutiveTimeouts == 0) {
            p.runSilentSinceNanos = Math.min(judgedSentNanos, nowNanos);
        }
        p.consecutiveTimeouts++;
        p.lastTimeoutNanos = nowNanos;
        if (p.state == PathState.ACTIVE) {
            paths.state(p, PathState.SUSPECT);
        }
        boolean others = paths.inServiceCount() - (PathState.inService(p.state) ? 1 : 0) > 0;
        // The run is judged against the highest threshold drawn during it: the other paths' loss
        // estimate moves with each of their verdicts, and a run compared with it afresh at every
        // timeout would fail at the lowest of those draws, so the noise, not the path, would decide.
        p.runFailureThreshold = (byte) Math.max(p.runFailureThreshold, failureThreshold(p));
        // A path fails for being silent while the peer answers: a timeout counts toward failure
        // only once the peer has answered something sent since the path fell silent. Before, the
        // peer or this host may have stalled, every path is as silent, and moving the path's data
        // elsewhere would help nothing [SPEC-PATH-15].
        if (answerEvidenceNanos >= p.runSilentSinceNanos && p.answeredTimeouts < Byte.MAX_VALUE) {
            p.answeredTimeouts++;
        }
        if (p.answeredTimeouts == 0) {
            unansweredRunPossible = true;
        }
        boolean outOfTimeouts = p.consecutiveTimeouts >= maxConsecutiveTimeouts;
        if (others && p.state == PathState.SUSPECT
                && (p.answeredTimeouts >= p.runFailureThreshold || outOfTimeouts && p.answeredTimeouts > 0)) {
            fail(p, nowNanos, lost);
            return false;
        }
        // Out of timeouts with no answer from the peer at all: it is unreachable on every path.
        return outOfTimeouts && (!others || p.answeredTimeouts == 0);
    }

    /** See {@link #latestAnsweredSentNanos}. */
    long latestAnsweredSentNanos() {
        return latestAnsweredSentNanos;
    }

    /**
     * The peer answered, at {@code nowNanos}, something sent at {@code answeredSentNanos}
     * [SPEC-PATH-15]; with {@code needsAnswer} ({@code pathFailureNeedsAnswer}) the newest answer
     * may count a path's latest timeout. A path whose run of
     * timeouts has no answer yet, silent since at or before then, has its latest timeout counted
     * after all if the answer came within the path's overdue interval of it: the peer answered
     * promptly what was sent at that timeout (what it resent on another path), the silence was the
     * path's. Without this a path that carried all the traffic would fail one doubled RTO later
     * than without the rule: its first timeout finds no answer yet, the answer to its resend comes
     * microseconds after. An answer that comes later (a peer that stalled, then answers what was
     * sent after it resumed) counts no earlier timeout.
     */
    void onPeerAnswered(long answeredSentNanos, long nowNanos, boolean needsAnswer) {
        if (answeredSentNanos <= latestAnsweredSentNanos) {
            return;
        }
        latestAnsweredSentNanos = answeredSentNanos;
        if (!needsAnswer || !unansweredRunPossible) {
            return;
        }
        boolean stillUnanswered = false;
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p != null && p.consecutiveTimeouts > 0 && p.answeredTimeouts == 0) {
                if (answeredSentNanos >= p.runSilentSinceNanos
                        && nowNanos - p.lastTimeoutNanos <= overdueNanos(p)) {
                    p.answeredTimeouts = 1;
                } else {
                    stillUnanswered = true;
                }
            }
        }
        unansweredRunPossible = stillUnanswered;
    }

    /**
     * The oldest transmission in flight on {@code p}, sent at {@code oldestSentNanos}, is overdue
     * [SPEC-LOSS-7]. It counts as a timeout ({@link #onTimeout}) unless the path is already in
     * doubt and that transmission was sent before the path's latest counted timeout: it was in
     * flight when that verdict was reached, so it repeats the evidence (one burst of random loss,
     * or one lost ACK covering several transmissions) rather than adding to it [SPEC-PATH-14].
     *
     * @return whether the connection must end, as {@link #onTimeout}
     */
    boolean onOverdue(Path p, long oldestSentNanos, long answerEvidenceNanos, long nowNanos, ScoreboardListener lost) {
        if (p.state != PathState.ACTIVE && oldestSentNanos < p.lastTimeoutNanos) {
            return false;
        }
        return onTimeout(p, oldestSentNanos, answerEvidenceNanos, nowNanos, lost);
    }

    /**
     * Timeouts in a row that fail {@code p}: {@code pathFailureTimeouts}, or more where the other
     * paths in service lose packets too, so that a run that long is less likely than
     * {@code 2^-pathFailureConfidenceBits} on a path that works as well as they do; at most
     * {@code maxConsecutiveTimeouts}. A timeout is a lost round trip: the probe or the
     * retransmission, or its acknowledgement, with probability {@code 1 - (1 - loss)^2}.
     */
    int failureThreshold(Path p) {
        if (confidenceBits == 0 || failureTimeouts >= maxConsecutiveTimeouts) {
            return failureTimeouts;
        }
        double loss = 0;
        int n = 0;
        for (int i = 0; i < paths.count(); i++) {
            Path o = paths.get(i);
            if (o != null && o != p && PathState.inService(o.state)) {
                loss += o.lossFraction;
                n++;
            }
        }
        if (n == 0) {
            return failureTimeouts;
        }
        double kept = 1 - loss / n;
        double roundTripLost = 1 - kept * kept;
        if (roundTripLost <= 0) {
            return failureTimeouts;
        }
        double runs = Math.ceil(confidenceBits * LN_2 / -Math.log(roundTripLost));
        return (int) Math.clamp(runs, failureTimeouts, maxConsecutiveTimeouts);
    }

    private void fail(Path p, long nowNanos, ScoreboardListener lost) {
        paths.state(p, PathState.FAILED);
        p.failures++;
        p.probeDeadlineNanos = Long.MAX_VALUE;
        p.probeIntervalNanos = probeIntervalNanos;
        p.nextProbeNanos = nowNanos + p.probeIntervalNanos;
        // The controller hears of the failure first: the flight declared lost next is the failure's,
        // not random loss, even when no path was ACTIVE to say so [SPEC-CC-25].
        congestion.onPathFailed(p.id, nowNanos);
        // Everything still in flight on the path is lost; the send side requeues each CSN on a
        // path in service because this one is FAILED now.
        p.scoreboard.onTimeout(Long.MAX_VALUE, false, lost);
        while (!p.retransmitQueue.isEmpty()) {
            paths.queueRetransmission(paths.retransmitPathFor(p), paths.pollRetransmission(p));
        }
    }

    /** Whether a health PATH_PROBE should go out on {@code p} now. */
    boolean probeDue(Path p, long nowNanos) {
        return switch (p.state) {
            // A SUSPECT path with nothing in flight has no RTO left to test it: a probe does.
            case PathState.SUSPECT -> p.probeDeadlineNanos == Long.MAX_VALUE && p.scoreboard.packetsInFlight() == 0
                    && p.retransmitQueue.isEmpty();
            case PathState.FAILED -> nowNanos >= p.nextProbeNanos;
            default -> false;
        };
    }

    /** A health probe with {@code probeId} went out on {@code p}. */
    void probeSent(Path p, long probeId, long nowNanos) {
        p.probeId = probeId;
        p.probesSent++;
        p.probeSentAtNanos = nowNanos;
        if (p.state == PathState.FAILED) {
            paths.state(p, PathState.PROBING);
            p.nextProbeNanos = Long.MAX_VALUE;
            p.probeDeadlineNanos = nowNanos + rtoNanos(p, 0);
        } else {
            p.probeDeadlineNanos = nowNanos + rtoNanos(p, p.consecutiveTimeouts);
        }
    }

    /** A PROBE_ACK for {@code probeId} came back on {@code p}. */
    void onProbeAck(Path p, long probeId, long nowNanos) {
        if (p.state != PathState.ACTIVE && probeId == p.probeId && p.probeId != 0) {
            onProgress(p, nowNanos);
        }
    }

    /**
     * The next time {@link #onProbeTimeout} or a probe is due on {@code p}, or {@link Long#MAX_VALUE};
     * {@code latestAckedSentNanos} as in {@link #probeDeadlineNanos}.
     */
    long nextTimeoutNanos(Path p, long latestAckedSentNanos) {
        return Math.min(probeDeadlineNanos(p, latestAckedSentNanos), p.nextProbeNanos);
    }

    /**
     * When the probe out on {@code p} times out: its deadline (the path's RTO with back-off), or,
     * once a transmission sent after the probe has been acknowledged on another path
     * ({@code latestAckedSentNanos} is later than the probe), its overdue time: the peer answers
     * others, so waiting longer only keeps the path idle [SPEC-LOSS-7].
     */
    private long probeDeadlineNanos(Path p, long latestAckedSentNanos) {
        if (p.probeDeadlineNanos == Long.MAX_VALUE || latestAckedSentNanos <= p.probeSentAtNanos) {
            return p.probeDeadlineNanos;
        }
        return Math.min(p.probeDeadlineNanos, p.probeSentAtNanos + overdueNanos(p));
    }

    /** When the probe out on {@code p} is overdue, as {@link #probeDeadlineNanos} uses it. */
    long probeOverdueAtNanos(Path p) {
        return p.probeSentAtNanos + overdueNanos(p);
    }

    /**
     * Runs {@code p}'s probe deadline if it is due: a PROBING path goes back to FAILED with a
     * doubled probe interval; a SUSPECT path counts a timeout ({@link #onTimeout}).
     *
     * @param answerEvidenceNanos as in {@link #onTimeout}
     * @return whether the connection must end
     */
    boolean onProbeTimeout(Path p, long nowNanos, long latestAckedSentNanos, long answerEvidenceNanos,
            ScoreboardListener lost) {
        if (nowNanos < probeDeadlineNanos(p, latestAckedSentNanos)) {
            return false;
        }
        p.probeDeadlineNanos = Long.MAX_VALUE;
        if (p.state == PathState.PROBING) {
            paths.state(p, PathState.FAILED);
            p.probeIntervalNanos = Math.min(p.probeIntervalNanos * 2, probeMaxIntervalNanos);
            p.nextProbeNanos = nowNanos + p.probeIntervalNanos;
            return false;
        }
        if (p.state == PathState.SUSPECT) {
            return onTimeout(p, p.probeSentAtNanos, answerEvidenceNanos, nowNanos, lost);
        }
        return false;
    }
}
