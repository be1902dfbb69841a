package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathState;
import io.metaroce.core.path.RttEstimator;
import io.metaroce.core.sack.PathReceiveTracker;
import io.metaroce.core.sack.SendScoreboard;
import org.agrona.collections.LongArrayQueue;

/**
 * One path of a connection: its own sequence space in each direction, the scoreboard of what is
 * in flight on it, the receive tracker that its ACKs are made from, its RTT and its counters.
 * A path is an id plus the driver's local socket (the UDP source port that gives it its route
 * through ECMP) and the peer address it talks to.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class Path {
    final int id;
    int localSocket;
    Object remoteAddress;
    final PathReceiveTracker receiveTracker;
    final SendScoreboard scoreboard;
    final RttEstimator rtt;
    /** This path's losses that a later ACK may prove spurious, and the timer floor they teach [SPEC-LOSS-9]. */
    final SpuriousLossDetector spurious;
    /**
     * CSNs lost on this path, to be retransmitted on it. Added to and taken from only through
     * {@link Paths#queueRetransmission} and {@link Paths#pollRetransmission}, which keep the count
     * of the connection's queued retransmissions. Replaced by a small one at the connection's idle
     * point once a burst grew it ({@code Sender#shrinkIdleTables}).
     */
    LongArrayQueue retransmitQueue = new LongArrayQueue(Sender.QUEUE_INITIAL, -1L);
    int consecutiveTimeouts;
    /**
     * The failure threshold of the current run of timeouts: the highest drawn during the run, at
     * most {@code maxConsecutiveTimeouts} (62; a byte, like {@link #answeredTimeouts}, keeps the
     * path's footprint).
     */
    byte runFailureThreshold;
    /** Health, a {@link PathState} value; changed only by {@link PathHealth}. */
    int state = PathState.ACTIVE;
    /** The state last reported to the application ({@code ConnectionListener.onPathStateChanged}). */
    int reportedState = PathState.ACTIVE;
    /** Id of the last health PATH_PROBE sent on this path (0: none yet); its PROBE_ACK is progress. */
    long probeId;
    /** Highest probe id answered on this path (0: none): a PROBE_ACK at or below it is no RTT sample. */
    long lastProbeAckId;
    /** When the outstanding health probe counts as unanswered, or {@link Long#MAX_VALUE}. */
    long probeDeadlineNanos = Long.MAX_VALUE;
    /**
     * Retransmissions the path may send past its congestion window and pacing: one after each
     * retransmission timeout, so that what timed out is resent even when the window, cut by the
     * losses, is still full of packets sent after it [SPEC-LOSS-5].
     */
    int timeoutCredits;
    /**
     * When the path's latest counted timeout happened ({@link Long#MIN_VALUE}: none yet): an
     * overdue transmission sent before it was already in flight at that verdict, so it is no new
     * evidence against the path [SPEC-PATH-14].
     */
    long lastTimeoutNanos = Long.MIN_VALUE;
    /**
     * Send time of what the first timeout of the current run judged (the path's oldest transmission
     * then, or its probe): the path fails only once the peer answers something sent after it
     * [SPEC-PATH-15].
     */
    long runSilentSinceNanos = Long.MIN_VALUE;
    /**
     * Timeouts of the current run counted after the peer answered something sent since
     * {@link #runSilentSinceNanos}: the ones that count toward the path's failure [SPEC-PATH-15];
     * at most {@code maxConsecutiveTimeouts} (62).
     */
    byte answeredTimeouts;
    /** Whether the congestion controller was last told this path takes new data [SPEC-PATH-14]. */
    boolean reportedTakesNewData = true;
    /** When the latest health probe went out. */
    long probeSentAtNanos = Long.MIN_VALUE;
    /** FAILED: when the next probe goes out, or {@link Long#MAX_VALUE}. */
    long nextProbeNanos = Long.MAX_VALUE;
    /** FAILED: the current interval between probes (doubles up to the configured ceiling). */
    long probeIntervalNanos;
    /** Times this path was declared FAILED. */
    long failures;
    /** Health probes sent on this path. */
    long probesSent;
    /*
     * Send rate [SPEC-PATH-8]: time is cut into intervals of 2^rateWindowShift ns aligned on 0; the
     * path keeps the bytes sent in the latest interval it sent in and in the interval before that
     * one. Three longs and a byte (in the object's padding), and a shift per packet, whatever the
     * traffic: no ring of samples.
     */
    /** Index ({@code nowNanos >> rateWindowShift}) of the latest interval the path sent in. */
    private long rateInterval = Long.MIN_VALUE;
    /** Bytes sent in interval {@link #rateInterval}. */
    private long rateIntervalBytes;
    /** Bytes sent in interval {@code rateInterval - 1}. */
    private long ratePreviousIntervalBytes;
    /** log2 of {@code EngineConfig.pathRateWindowNanos}. */
    private final byte rateWindowShift;
    long reportedEctCount;
    long reportedCeCount;

    long packetsSent;
    long bytesSent;
    long packetsReceived;
    long bytesReceived;
    long retransmissions;
    long losses;
    long timeouts;
    /**
     * Moving average (gain 1/16) of the fraction of the path's transmissions declared lost, of
     * those resolved: how lossy the path is while it works, for judging other paths' timeouts.
     */
    double lossFraction;
    /** Times the overdue rule declared its oldest transmissions lost [SPEC-LOSS-7]. */
    long overdue;

    Path(int id, int localSocket, Object remoteAddress, EngineConfig config) {
        this.id = id;
        this.localSocket = localSocket;
        this.remoteAddress = remoteAddress;
        this.scoreboard = new SendScoreboard(id, config.pathWindowPackets());
        this.rtt = new RttEstimator(config.initialRttNanos());
        this.spurious = new SpuriousLossDetector();
        this.receiveTracker = new PathReceiveTracker(config.ackRepeatAboveLossPercent(), config.ackEachPacketAfterGap());
        this.rateWindowShift = (byte) Long.numberOfTrailingZeros(config.pathRateWindowNanos());
    }

    /** Accounts a datagram of {@code datagramBytes} sent on the path at {@code nowNanos}. */
    void countSent(int datagramBytes, long nowNanos) {
        packetsSent++;
        bytesSent += datagramBytes;
        long interval = nowNanos >> rateWindowShift;
        if (interval > rateInterval) {
            ratePreviousIntervalBytes = interval == rateInterval + 1 ? rateIntervalBytes : 0;
            rateInterval = interval;
            rateIntervalBytes = 0;
        }
        // A time before the latest interval (a driver's clock is not monotonic) counts in the latest.
        rateIntervalBytes += datagramBytes;
    }

    /**
     * The path's send rate at {@code nowNanos}, datagram bytes per second [SPEC-PATH-8]: with W the
     * window, the bytes sent in the current W-aligned interval, plus those of the interval before,
     * prorated by the part of it inside the W ending at {@code nowNanos}, over W. It falls to 0 two
     * windows after the path last sent. A time before the latest interval the path sent in reads
     * as the start of that interval.
     */
    long sendRateBytesPerSecond(long nowNanos) {
        long interval = nowNanos >> rateWindowShift;
        long current;
        long previous;
        long into;
        if (interval <= rateInterval) {
            current = rateIntervalBytes;
            previous = ratePreviousIntervalBytes;
            into = Math.max(0, nowNanos - (rateInterval << rateWindowShift));
        } else if (interval == rateInterval + 1) {
            current = 0;
            previous = rateIntervalBytes;
            into = nowNanos - (interval << rateWindowShift);
        } else {
            return 0;
        }
        long window = 1L << rateWindowShift;
        double bytes = current + (double) previous * (window - into) / window;
        return (long) (bytes * 1e9 / window);
    }

    long rtoNanos(EngineConfig config) {
        return rtt.rtoNanos(config.maxAckDelayNanos(), config.minRtoNanos(), config.maxRtoNanos(), consecutiveTimeouts);
    }

    /**
     * When the oldest packet in flight times out, or {@link Long#MAX_VALUE}; during a run of
     * timeouts no sooner than the RTO without back-off after the latest of them [SPEC-LOSS-4].
     * On time and below the {@code maxRtoNanos} cap the next expiry of a run is that far from the
     * previous one anyway (the oldest send time only moves forward and the back-off at least doubles
     * the RTO; at the cap the floor delays it by at most that RTO). Below the cap it binds only when
     * the driver ran the timer late, after a stall of its loop during which the ACKs may have come:
     * without it every packet of a flight older than the capped RTO expired at one late call, one
     * expiry per call with no input read between them, and a stall of the local loop, not the
     * peer, reached {@code maxConsecutiveTimeouts}.
     */
    long rtoDeadlineNanos(EngineConfig config) {
        long oldest = scoreboard.oldestSentAtNanos();
        if (oldest == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long deadline = oldest + rtoNanos(config);
        if (consecutiveTimeouts > 0) {
            long restart = lastTimeoutNanos
                    + rtt.rtoNanos(config.maxAckDelayNanos(), config.minRtoNanos(), config.maxRtoNanos(), 0);
            deadline = Math.max(deadline, restart);
        }
        return deadline;
    }

    /**
     * How long the oldest transmission may wait, once something sent after it has arrived, before
     * it is overdue [SPEC-LOSS-7]: the RTO without back-off, floored at {@code overdueFloorNanos}
     * (or {@code minRtoNanos} if lower) rather than at {@code minRtoNanos}, or higher, up to
     * {@code minRtoNanos}, after spurious losses [SPEC-LOSS-9].
     */
    long overdueNanos(EngineConfig config) {
        // Raised by spurious losses [SPEC-LOSS-9], but never above the RTO's own floor: a real loss
        // then waits no longer than the retransmission timer would make it wait.
        long floor = Math.min(config.minRtoNanos(),
                Math.max(Math.min(config.overdueFloorNanos(), config.minRtoNanos()), spurious.timerFloorNanos()));
        return rtt.rtoNanos(config.maxAckDelayNanos(), floor, config.maxRtoNanos(), 0);
    }

    /**
     * When the oldest packet in flight is overdue, or {@link Long#MAX_VALUE}: only if it was sent
     * before {@code latestAckedSentNanos}, the send time of the newest transmission the connection
     * has had acknowledged on any path (the evidence that the peer and the fabric deliver).
     */
    long overdueDeadlineNanos(EngineConfig config, long latestAckedSentNanos) {
        long oldest = scoreboard.oldestSentAtNanos();
        return oldest >= latestAckedSentNanos ? Long.MAX_VALUE : oldest + overdueNanos(config);
    }
}
