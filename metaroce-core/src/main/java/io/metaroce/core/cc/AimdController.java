package io.metaroce.core.cc;

import io.metaroce.core.EngineConfig;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Sender-driven AIMD on ECN marks with a congestion window per path (R-CC-1, spec [SPEC-CC-5] to
 * [SPEC-CC-9]): one controller per connection keeps a window for each of the connection's paths,
 * and the connection's window is their sum. A CE mark trims only the path that saw it, so the
 * round-robin path choice ({@code DataWriter}) steers the next packets toward the paths that still
 * have room: the clear ones.
 *
 * <p>Per path:
 * <ul>
 *   <li>the window starts at {@link EngineConfig#aimdInitialWindowBytes()} and stays within
 *       [{@link EngineConfig#aimdMinWindowBytes()}, {@link EngineConfig#aimdMaxWindowBytes()}];
 *   <li>slow start ([SPEC-CC-31], with {@link EngineConfig#aimdSlowStart()}): until the path's
 *       first congestion cut (an ECN or delay-mark cut, or a loss cut that counts as congestion),
 *       every acknowledged byte grows the window by a byte, doubling it every round trip, so a
 *       sender on a host whose round trips are milliseconds reaches its share in a few of them
 *       rather than climbing a datagram per round trip;
 *   <li>additive increase: one {@link EngineConfig#maxDatagramBytes()} per window's worth of
 *       acknowledged bytes; with {@link EngineConfig#aimdBalancedIncrease()} and two or more paths
 *       in service, that datagram is shared out BALIA-style ([SPEC-CC-32]): path {@code p} grows
 *       by {@code n * g(p) / sum(g)} datagrams, {@code g(p)} proportional to {@code (x(p) + M) * (4 x(p) + M)}, with
 *       {@code x = window / srtt}, {@code M} the largest {@code x} and {@code n} the paths in
 *       service, so the connection grows as much as before, mostly on its fastest paths (with
 *       {@link EngineConfig#aimdBalancedIncreaseMaxDatagrams()} above 0, {@code n} is at most
 *       that many datagrams, [SPEC-CC-39]);
 *   <li>{@code alpha}, a moving average of the fraction of packets the peer reports CE-marked, is
 *       updated on every ECN feedback: {@code alpha += g * (newlyCe / newlyEct - alpha)} with
 *       {@code g = 1 / 2^aimdEcnGainShift}; it starts at {@link EngineConfig#aimdInitialAlphaPercent()}
 *       (100 by default: 1, conservative, as in DCTCP, RFC 8257; [SPEC-CC-45]);
 *       with {@link EngineConfig#aimdAlphaRoundTripGainShift()} above 0, it moves once per round
 *       trip of the path instead, toward that round trip's marked fraction ([SPEC-CC-36]);
 *   <li>ECN decrease, DCTCP-style: feedback reporting new CE marks cuts the window to
 *       {@code window * (1 - alpha / 2)}, at most once per round trip; with
 *       {@link EngineConfig#aimdSharedMarkCutPercent} below 100 and two or more paths in service,
 *       the part of {@code alpha} that every path shares (the least {@code alpha} of the paths in
 *       service) counts only that percent ([SPEC-CC-29]): marks on some paths steer data away
 *       from them in full, marks on all of them (a busy fabric, no clearer path to steer to) cut
 *       the connection less;
 *   <li>loss decrease: a lost packet halves the window, at most once per round trip; with
 *       {@link EngineConfig#aimdLossCutScaledByAlpha()} it cuts it as a mark would, to
 *       {@code window * (1 - alpha / 2)}: on a fabric with ECN, a loss on a path whose packets
 *       are not marked is not congestion (random loss, corruption), so it should not cost the
 *       path half its window, while a loss on a marked, congested path still halves it; and
 *       where the path's ECN is read, a loss with no mark on the path for a round trip does not
 *       cut at all ([SPEC-CC-24]);
 *   <li>a round trip is measured in bytes: after a cut, the next cut of the same kind waits until
 *       the path has acknowledged as many bytes as it had in flight at the cut, or as the new
 *       window if that is larger (the first cut of each kind is allowed at once); a loss cut also
 *       waits for a round trip after an ECN cut and an ECN cut for a round trip after a loss cut: one
 *       congestion cut per round trip ([SPEC-CC-30]);
 *   <li>{@code sendAllowanceBytes(path) = window(path) - bytesInFlight(path)}.
 *   <li>where ECN cannot be read (the peer never reports the path's packets ECN-capable, as over a
 *       datapath blind to the IP header), delay stands in for marks: each RTT sample more than
 *       {@link EngineConfig#aimdDelayThresholdNanos()} above the path's least RTT counts as a marked
 *       packet, the others as unmarked, feeding {@code alpha} and the ECN cut ([SPEC-CC-15]).
 * </ul>
 *
 * <p>Rate (R-CC-2, R-CC-3, [SPEC-CC-13]): each path is paced at
 * {@code rate(p) = aimdPacingGainPercent / 100 * window(p) / srtt(p)}, where {@code srtt(p)} is a
 * moving average (gain 1/8) of the send-to-acknowledgement times {@link #onPacketAcked} reports
 * ({@code initialRttNanos} before the first). When the receiver's rate hint is non-zero and the
 * paths' rates add up to more, every path's rate is scaled down in proportion so that they add up
 * to the hint: the sender's rate is the smaller of its own and the hint (with
 * {@link EngineConfig#aimdLossCutScaledByAlpha()}, the hint raised by at most a third for the
 * unmarked losses the sender sees, which never reach the receiver, [SPEC-CC-25]). Packets on a path leave
 * {@code bytes / rate(p)} apart; a path that was idle may first send {@code pacingBurstBytes} back
 * to back. While the hint is what limits the rate, windows do not grow (the window is not the
 * bottleneck, so growing it would only build a standing queue once the hint rises), unless a
 * path's window held a packet back since its last increase: under loss, transmissions awaiting
 * their verdict fill a window whose rate on paper is above the hint ([SPEC-CC-21]).
 *
 * <p>Under the hint ([SPEC-CC-13], [SPEC-CC-16] to [SPEC-CC-18], [SPEC-CC-22]): the connection also
 * keeps one pacing clock across its paths, so the paths' burst allowances do not add up; until the
 * first ACK it has at most {@link EngineConfig#aimdFirstFlightBytes()} in flight (it knows nothing
 * of the receiver's other senders yet); the first non-zero hint sizes the windows to its
 * bandwidth-delay product; and the senders' shares already add up to less than the receiver's
 * port, so while the hint limits the rate ECN marks do not cut it (64 senders each cutting on
 * marks made 64 loops that swung the aggregate by ±25%): they mean the senders' packets arrive
 * bunched, and a marked connection moves its pacing clock later by a random time below g of an
 * interval, at most once per round trip. Given a seeded random source, the controller starts its
 * first packet at a random time, and its connection clock under the first hint one interval after
 * its first packet, at a random point of the following interval, so connections that start
 * together do not send in lockstep and their first paced packets do not land on the first flights.
 * A share the server announced in ACCEPT shortly before ([SPEC-CC-28]) sets that random start's span
 * to {@link EngineConfig#aimdAnnouncedSpreadIntervals()} intervals of the share (a newer
 * announcement, [SPEC-CONN-17], rescales the same draw), and the clock then counts from the
 * connection's first request to send, at the first packet's phase, rather than from its first
 * packet at a second random point. Both the spread and the clock's first interval count in
 * packets of the length the connection told before its first request ({@link #onFirstPacketBytes},
 * full datagrams if it told none), so equal-length packets shorter than a datagram keep the
 * senders' phases uniform over the interval they are paced at [SPEC-CC-16].
 *
 * <p>Paths are small ints below {@link EngineConfig#maxPaths()}; the per-path arrays grow to the
 * highest path id seen (doubling, capped at {@code maxPaths}), so nothing is allocated per call
 * once every path has been seen. Called on the connection's thread only; not thread-safe.
 */
public final class AimdController implements CongestionController {
    /**
     * The per-round-trip counts of a controller that moves alpha on every feedback: shared and
     * never grown, so that controller's footprint does not carry them [SPEC-CC-36].
     */
    private static final long[] NO_ROUNDS = new long[0];
    /** Fixed-point scale of {@code alpha}: {@code ALPHA_ONE} is 1.0. */
    private static final int ALPHA_BITS = 20;
    private static final long ALPHA_ONE = 1L << ALPHA_BITS;

    /**
     * 1/2: the unmarked loss rate taken into account at most (so, halved, the sender sends at most
     * 4/3 of its hint) [SPEC-CC-25]: beyond it the loss estimate is mostly the lost ACKs.
     */
    private static final long MAX_COMPENSATED_LOSS = ALPHA_ONE >> 1;
    /**
     * {@code fullWindowAboveLossPercent}: the unmarked-loss average, in percent, from which a full
     * window's share of the hint goes to the paths with room [SPEC-CC-35] (1 to 100: a byte, which
     * fits the object's padding, so the idle connection's footprint stays within its goal).
     */
    private final byte handoffAboveLossPercent;
    /** {@code aimdFullWindowHandoff}: a full window's share of the hint goes to the paths with room whatever the loss [SPEC-CC-46]. */
    private final boolean fullWindowHandoff;
    /** Percent of the unmarked-loss average that raises the hint [SPEC-CC-25]. */
    private final byte lossCompensationPercent;
    /** Whether only the acknowledgements of unmarked paths move the unmarked-loss average toward 0 [SPEC-CC-37]. */
    private final boolean lossAverageOnUnmarkedPaths;

    /** Whether a fresh announced share paces the first round trip [SPEC-CC-43]. */
    private final boolean announcedFirstRoundTrip;
    /** Percent of the announced share's bandwidth-delay product the first round trip holds at most [SPEC-CC-44]. */
    private final byte announcedFirstFlightPercent;
    /**
     * The connection's bytes in flight until the first ACK [SPEC-CC-16]: {@code aimdFirstFlightBytes},
     * or the announced share's bandwidth-delay product when that paces the first round trip
     * [SPEC-CC-43].
     */
    private long firstFlightCap;
    /** Whether the announced share paces the connection until the first hint [SPEC-CC-43]. */
    private boolean pacedByAnnouncement;

    private final int maxPaths;
    private final long datagramBytes;
    private final long initialWindow;
    private final long minWindow;
    private final long maxWindow;
    private final int gainShift;
    private final long initialRtt;
    /** {@code aimdPacingGainPercent / 100}, worked out once rather than on every rate query. */
    private final double pacingGain;
    private final long pacingBurstBytes;
    /**
     * Bytes a paced path lets accrue before its wake-up ({@link #pacedWakeNanos}): the configured
     * quantum, at most the burst allowance less one datagram, so that all of it may leave at once,
     * and at most 2^31 − 1 (an int: JOL lays the controller out in 352 bytes with no padding at
     * its end, so a long here would make each AIMD connection's controller 8 bytes larger).
     */
    private final int wakeQuantumBytes;
    private final boolean lossCutScaledByAlpha;
    private final boolean slowStartEnabled;
    /** Whether the additive increase is shared out among the paths by their rates [SPEC-CC-32]. */
    private final boolean balancedIncrease;
    /** 0: alpha moves on every ECN feedback; else its gain shift, applied once per round trip [SPEC-CC-36]. */
    private final int roundTripGainShift;
    /**
     * Datagrams the balanced increase grows the connection by per round trip at most (0: one per
     * path) [SPEC-CC-39]; 0 to 1024, a short so that it fits the object's padding like the bytes above.
     */
    private final short balancedIncreaseMaxDatagrams;
    /** Percent of the marks every path shares that still cut [SPEC-CC-29] (100: all, DCTCP). */
    private final int sharedMarkCutPercent;
    /** Whether the shared marks are the connection's window-weighted mean alpha, not its least [SPEC-CC-40]. */
    private final boolean sharedMarkByMeanAlpha;
    private final long firstFlightBytes;
    /** {@code aimdPathsForShareMin}: 0, every path in service takes new data; else the fewest that do under a hint [SPEC-CC-42]. */
    private final byte pathsForShareMin;
    /** The alpha a path starts with, fixed point ({@code ALPHA_ONE}: 1) [SPEC-CC-7], [SPEC-CC-45]. */
    private final long initialAlpha;
    /** {@code aimdAlphaWarmupSamples}: the weight of the start value while alpha is a mean of the first feedbacks (0: off) [SPEC-CC-45]. */
    private final int alphaWarmupSamples;
    /**
     * Where this connection's paths that take new data start, counted over its paths in service
     * [SPEC-CC-42]: bits of the first packet's random delay, so that no draw is added to
     * the random source's sequence (0 until that draw); without that draw, bits of a hash of the
     * connection's id ({@link #onConnectionId}).
     */
    private short shareOffset;
    /**
     * When the announcement's freshness is judged for the paths before the first ACK
     * [SPEC-CC-42]: the connection's first question (MIN_VALUE: none yet, no announcement counts).
     * Judged once, so those answers do not change with time alone ({@link #pacingAnswersReusable});
     * a newer announcement is fresh from its arrival on.
     */
    private long shareJudgedAt = Long.MIN_VALUE;
    /**
     * The most paths that took new data under the current hint [SPEC-CC-42]: the count does not
     * shrink again until the hint changes (0: none yet).
     */
    private byte sharePathsFloor;
    private final long firstFlightSpread;
    /** Intervals of the announced share the first flight spreads over (0: the announcement is not used) [SPEC-CC-28]. */
    private final int announcedSpreadIntervals;
    /** How long an announced share stays fresh enough to size the first flight's spread [SPEC-CC-28]. */
    private final long announcementLifetime;
    /** The share the server announced in ACCEPT, bytes per second (0: none) [SPEC-CC-28]. */
    private long announcedShare;
    /** When the announcement arrived. */
    private long announcedAt;
    /** Whether an announcement arrived, even of a share of 0 ({@link #firstQuestionTimeCounts}). */
    private boolean announcementSeen;
    /**
     * When the connection first asked to send, if a fresh announcement sized its first flight's
     * spread (MIN_VALUE otherwise): the origin of its clock under the first hint [SPEC-CC-22].
     */
    private long announcedOrigin = Long.MIN_VALUE;
    /** Seeded source of the start phases (null: none, everything starts at once). */
    private final RandomGenerator random;
    /** The earliest time of the connection's first packet (MIN_VALUE: not drawn yet) [SPEC-CC-16]. */
    private long firstSendAt = Long.MIN_VALUE;
    /** When the connection first asked to send (MIN_VALUE: not yet). */
    private long firstAskAt = Long.MIN_VALUE;
    /**
     * The datagram length of the connection's first packet, as told before its first request to
     * send (0: not told, a full datagram is assumed) [SPEC-CC-16]: the first flight's spread and
     * the clock's first interval are counted in packets of that length.
     */
    private long firstPacketBytes;
    /** The span the first packet's delay was drawn from, and the delay drawn (rescaled by a newer announcement) [SPEC-CONN-17]. */
    private long firstSpan;
    private long firstDraw;

    private long[] window = new long[0];
    private long[] inFlight = new long[0];
    private long[] alpha = new long[0];
    /** Per path, the ECN feedbacks alpha has averaged while warming up [SPEC-CC-45]; only with {@code aimdAlphaWarmupSamples}. */
    private int[] alphaFeedbacks = new int[0];
    /** Bytes acknowledged since the last additive increase. */
    private long[] ackedSinceIncrease = new long[0];
    /** Bytes still to be acknowledged before the next ECN cut may happen (the round-trip proxy). */
    private long[] ecnCutCredit = new long[0];
    /** Bytes still to be acknowledged before the next loss cut may happen. */
    private long[] lossCutCredit = new long[0];
    /** The window before the latest loss cut, until that cut is undone or proven right (0: none). */
    private long[] windowBeforeLossCut = new long[0];
    /** Whether the path is in slow start: no congestion cut yet [SPEC-CC-31]. */
    private boolean[] slowStart = new boolean[0];
    /** Whether the latest loss cut ended the path's slow start (undone with the cut, [SPEC-CC-27]). */
    private boolean[] slowStartBeforeLossCut = new boolean[0];
    /** Per path: the largest flight it has carried, which bounds slow start's growth [SPEC-CC-31]. */
    private long[] largestFlight = new long[0];
    /**
     * Bytes still to be acknowledged before the path's latest congestion mark (CE, or delay where
     * ECN is unreadable) is a round trip old: while positive, a loss comes with marks [SPEC-CC-24].
     */
    private long[] markCredit = new long[0];
    /** Per path: ECN-capable packets reported in the current round trip [SPEC-CC-36]. */
    private long[] roundEct = NO_ROUNDS;
    /** Per path: CE-marked packets reported in the current round trip [SPEC-CC-36]. */
    private long[] roundCe = NO_ROUNDS;
    /** Per path: bytes still to be resolved before the current round trip ends [SPEC-CC-36]. */
    private long[] roundCredit = NO_ROUNDS;
    /** Moving average of the send-to-acknowledgement time, ns (0: no sample yet). */
    private long[] srtt = new long[0];
    /** Pacing: the earliest time the path's next packet may leave. */
    private long[] nextSend = new long[0];
    /** Paths out of service (FAILED): left out of the hint's division. */
    private boolean[] failed = new boolean[0];
    /** Paths in service that take no new data (SUSPECT beside an ACTIVE path): no share of the hint [SPEC-PATH-14]. */
    private boolean[] noNewData = new boolean[0];
    /**
     * Whether a packet was ever sent on the path: ids below {@code pathsSeen} include paths the
     * controller never heard of (the arrays grow to the highest id told), which the balanced
     * increase must not count as in service [SPEC-CC-32].
     */
    private boolean[] opened = new boolean[0];
    /**
     * Whether the path's window, not pacing, held a packet back since its window last grew: then
     * the window grows even while the hint limits the rate ([SPEC-CC-21]).
     */
    private boolean[] windowBlocked = new boolean[0];
    /** Whether the peer has ever reported a packet of the path ECN-capable: then marks, not delay, signal congestion. */
    private boolean[] ecnSeen = new boolean[0];
    /** The path's least RTT sample (0: none yet), the base its queueing delay is measured from. */
    private long[] minRtt = new long[0];
    /** The receiver's latest rate hint, bytes per second (0: none). */
    private long rateHint;
    /** Whether an ACK (hence a hint, possibly 0) has arrived: ends the first-flight cap [SPEC-CC-16]. */
    private boolean hintSeen;
    /** Whether a packet was declared lost before the first hint: its clock then starts no earlier than the hint [SPEC-CC-22]. */
    private boolean lostBeforeHint;
    /** Whether the windows were already scaled to the first non-zero hint [SPEC-CC-17]. */
    private boolean hintScaled;
    /** The window a path not seen yet starts with: the initial window, or the hint-scaled one. */
    private long startWindow;
    /** Bytes to acknowledge before marks may shift the connection's pacing phase again [SPEC-CC-18]. */
    private long phaseShiftCredit;
    /** When the connection's first packet left (MIN_VALUE: not yet): where its clock under the first hint starts. */
    private long firstSentAt = Long.MIN_VALUE;
    /**
     * Moving average (gain g) of the fraction of the connection's resolved transmissions lost
     * without a congestion mark on their path for a round trip [SPEC-CC-25].
     */
    private long unmarkedLoss;
    /** Connection-wide pacing clock under a hint: the earliest time the next packet may leave [SPEC-CC-13]. */
    private long connectionNext = Long.MIN_VALUE;
    private final long delayThreshold;
    private long totalInFlight;
    /** One more than the highest path id seen. */
    private int pathsSeen;

    /** A controller with the AIMD settings of {@code config}; usable as {@code AimdController::new}. */
    public AimdController(EngineConfig config) {
        this(config, null);
    }

    /**
     * A controller with the AIMD settings of {@code config} that draws its start phases from
     * {@code random} (seeded by the caller; null: none): its first packet waits a random time below
     * {@link EngineConfig#aimdFirstFlightSpreadNanos()}, its pacing clock under the first hint
     * starts one interval after its first packet, at a random point of the following interval, and
     * marks under the hint move that clock by a random fraction of an interval, so connections that
     * start in the same instant do not send in lockstep [SPEC-CC-16], [SPEC-CC-18], [SPEC-CC-22].
     */
    public AimdController(EngineConfig config, RandomGenerator random) {
        this.random = random;
        this.firstFlightSpread = config.aimdFirstFlightSpreadNanos();
        this.announcedSpreadIntervals = config.aimdAnnouncedSpreadIntervals();
        this.announcementLifetime = 2 * config.fairSharePeriodNanos();
        this.maxPaths = config.maxPaths();
        this.datagramBytes = config.maxDatagramBytes();
        this.initialWindow = config.aimdInitialWindowBytes();
        this.minWindow = config.aimdMinWindowBytes();
        this.maxWindow = config.aimdMaxWindowBytes();
        this.gainShift = config.aimdEcnGainShift();
        this.handoffAboveLossPercent = (byte) config.fullWindowAboveLossPercent();
        this.fullWindowHandoff = config.aimdFullWindowHandoff();
        this.lossCompensationPercent = (byte) config.aimdLossCompensationPercent();
        this.lossAverageOnUnmarkedPaths = config.aimdLossAverageOnUnmarkedPaths();
        this.initialRtt = config.initialRttNanos();
        this.pacingGain = config.aimdPacingGainPercent() / 100.0;
        this.pacingBurstBytes = config.pacingBurstBytes();
        this.wakeQuantumBytes = (int) Math.max(0, Math.min(Integer.MAX_VALUE, Math.min(config.pacingWakeQuantumBytes(),
                config.pacingBurstBytes() - config.maxDatagramBytes())));
        this.lossCutScaledByAlpha = config.aimdLossCutScaledByAlpha();
        this.slowStartEnabled = config.aimdSlowStart();
        this.sharedMarkCutPercent = config.aimdSharedMarkCutPercent();
        this.sharedMarkByMeanAlpha = config.aimdSharedMarkByMeanAlpha();
        this.balancedIncrease = config.aimdBalancedIncrease();
        this.roundTripGainShift = config.aimdAlphaRoundTripGainShift();
        this.balancedIncreaseMaxDatagrams = (short) config.aimdBalancedIncreaseMaxDatagrams();
        this.delayThreshold = config.aimdDelayThresholdNanos();
        this.firstFlightBytes = config.aimdFirstFlightBytes();
        this.firstFlightCap = firstFlightBytes;
        this.announcedFirstRoundTrip = config.aimdAnnouncedFirstRoundTrip();
        this.announcedFirstFlightPercent = (byte) config.aimdAnnouncedFirstFlightPercent();
        this.startWindow = initialWindow;
        this.pathsForShareMin = (byte) config.aimdPathsForShareMin();
        this.initialAlpha = ALPHA_ONE * config.aimdInitialAlphaPercent() / 100;
        this.alphaWarmupSamples = config.aimdAlphaWarmupSamples();
    }

    // ---- CongestionController ----

    @Override
    public long sendAllowanceBytes(int pathId, long nowNanos) {
        ensure(pathId);
        long allowance = window[pathId] - inFlight[pathId];
        if (allowance <= 0 && nextSend[pathId] <= nowNanos) {
            windowBlocked[pathId] = true;
        }
        if (!hintSeen && firstFlightBytes > 0) {
            // Blind until the receiver has spoken: the whole connection sends one small flight of
            // whole datagrams [SPEC-CC-16]. Once something is in flight, a packet leaves only if a
            // full datagram still fits: an allowance merely above 0 would let a second 3.3 KB
            // packet of an equal-length cut ([SPEC-MSG-3]) follow the first past a 4 KiB cap.
            long room = firstFlightCap - totalInFlight;
            allowance = Math.min(allowance, totalInFlight == 0 ? room : room - datagramBytes + 1);
        }
        return allowance;
    }

    /**
     * [SPEC-CC-42]: with {@code aimdPathsForShareMin} above 0, whether the path is one of the
     * {@link #pathsForShare} that take new data; the others stay in service for their own
     * retransmissions, which their windows alone allow ({@link #sendAllowanceBytes}).
     */
    @Override
    public boolean carriesNewData(int pathId, long nowNanos) {
        if (pathsForShareMin == 0) {
            return true;
        }
        ensure(pathId);
        judgeShareAt(nowNanos);
        return takesShareData(pathId, pathsForShare());
    }

    /**
     * The paths seen, but none until the connection's first pacing question before its first ACK
     * (it draws {@link #shareOffset}): asking about a path not seen yet grows {@link #pathsSeen},
     * which moves the others' ranks [SPEC-CC-42].
     */
    @Override
    public long newDataPathsAnswered() {
        if (pathsForShareMin == 0) {
            return -1L;
        }
        if (!hintSeen && random != null && firstFlightSpread > 0 && firstSendAt == Long.MIN_VALUE) {
            return 0;
        }
        return pathsSeen >= Long.SIZE ? -1L : (1L << pathsSeen) - 1;
    }

    /**
     * {@link #carriesNewData} of every path seen in one walk: the share counted once and each
     * path's rank as the walk passes it, as {@link #takesShareData} counts them for one path.
     */
    @Override
    public long newDataPathsMask(long nowNanos) {
        if (pathsForShareMin == 0) {
            return -1L;
        }
        judgeShareAt(nowNanos);
        int share = pathsForShare();
        if (share >= pathsSeen) {
            return -1L;
        }
        int inService = pathsInService();
        if (share >= inService) {
            return -1L;
        }
        long mask = 0;
        int rank = 0;
        int n = Math.min(pathsSeen, Long.SIZE);
        for (int i = 0; i < n; i++) {
            if (failed[i] || noNewData[i] || rankTakesShareData(rank++, share, inService)) {
                mask |= 1L << i;
            }
        }
        return mask;
    }

    /** The connection's first question before the first ACK fixes when the announcement's freshness is judged [SPEC-CC-42]. */
    private void judgeShareAt(long nowNanos) {
        if (shareJudgedAt == Long.MIN_VALUE && !hintSeen) {
            shareJudgedAt = nowNanos;
        }
    }

    /**
     * Without a random source, or a first-flight spread to draw, the share's offset comes from a
     * hash of the connection's id, so that connections do not all start at path 0 [SPEC-CC-42].
     * With one it stays 0 until the first packet's draw, as in the simulator's figures.
     */
    @Override
    public void onConnectionId(long connectionId) {
        if (random == null || firstFlightSpread <= 0) {
            shareOffset = shareOffsetOf(connectionId);
        }
    }

    /** 15 bits of a Fibonacci hash of {@code bits}: the share's offset [SPEC-CC-42]. */
    private static short shareOffsetOf(long bits) {
        return (short) ((bits * 0x9E3779B97F4A7C15L) >>> 49);
    }

    /** True: the allowance is the window less the flight, the next send time a stored clock. */
    @Override
    public boolean pacingAnswersReusable() {
        return true;
    }

    /**
     * The only thing {@link #sendAllowanceBytes} changes is the path's {@code windowBlocked} flag,
     * which it sets while the window is used up: nothing more to change once the flag is set, or
     * while the window has room (neither changes until an {@code on...} call).
     */
    @Override
    public boolean allowanceQuestionSettled(int pathId, long nowNanos) {
        if (firstQuestionTimeCounts()) {
            return false;
        }
        return pathId < pathsSeen && (windowBlocked[pathId] || window[pathId] - inFlight[pathId] > 0);
    }

    /**
     * Whether the time of a later question can still change an answer [SPEC-CC-42]: before the
     * first hint, with paths for the share on, the first question fixes when the announced share's
     * freshness is judged ({@link #judgeShareAt}), and which paths take the first flight follows
     * from it. While it does, no question is counted as settled and the connection is asked at
     * every chance, as a walk of every connection would. Not before an announcement: a client is
     * told the server's (even a share of 0) in the ACCEPT that establishes it, before it can ask
     * anything, and a server is told none, so its answers are those of the rule off whenever it
     * asks. Not once judged: the answers before the hint then follow from the judgement and the
     * announcements, which arrive as inputs. Asking every connection at every chance until its
     * first ACK made every call of a server's endpoint read all its connections, whose controllers
     * hear no hint and are never judged (docs/benchmarks.md, "Plane scaling cost round").
     */
    private boolean firstQuestionTimeCounts() {
        return !hintSeen && pathsForShareMin > 0 && announcementSeen && shareJudgedAt == Long.MIN_VALUE;
    }

    /**
     * The path's pacing time while its window is used up and not yet noted as holding it back:
     * {@link #sendAllowanceBytes} notes it from then on. Never while the flag is set or the window
     * has room (neither changes until an {@code on...} call), nor for a path not yet seen (its
     * first question finds the start window, with room).
     */
    @Override
    public long allowanceQuestionChangesNanos(int pathId) {
        if (firstQuestionTimeCounts()) {
            return Long.MIN_VALUE;
        }
        if (pathId >= pathsSeen || windowBlocked[pathId] || window[pathId] - inFlight[pathId] > 0) {
            return Long.MAX_VALUE;
        }
        return nextSend[pathId];
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        ensure(pathId);
        long next = Math.max(nextSend[pathId], nowNanos);
        judgeShareAt(nowNanos);
        if (!hintSeen && random != null && firstFlightSpread > 0) {
            if (firstSendAt == Long.MIN_VALUE) {
                firstAskAt = nowNanos;
                firstSpan = firstFlightSpread(nowNanos);
                firstDraw = random.nextLong(firstSpan);
                shareOffset = shareOffsetOf(firstDraw); // [SPEC-CC-42]
                firstSendAt = nowNanos + firstDraw;
                if (announcementFresh(nowNanos)) {
                    announcedOrigin = nowNanos;
                    if (announcedFirstRoundTrip) {
                        paceFirstRoundTripAtAnnouncedShare();
                    }
                }
            }
            next = Math.max(next, firstSendAt);
        }
        return rateHint > 0 ? Math.max(next, connectionNext) : next;
    }

    /**
     * [SPEC-CC-38]: the pacing clock's time plus the time the path's rate takes to let
     * {@link #wakeQuantumBytes} more accrue (at most a quarter of its window, and at most
     * {@code readyBytes} less one datagram), so a driver woken then sends that much in one go (one
     * GSO send) instead of one datagram a wake-up; what accrued may leave at once because it is
     * within the burst allowance. The bound by what waits keeps a short tail (a message's last
     * packets, one datagram) from waiting for a batch that will never come: with one datagram or
     * less waiting the wake-up is the pacing time itself, and with more, never later than the
     * pacing time of the last datagram waiting. Only once the receiver has spoken without a hint:
     * a hinted connection's packets keep their exact spacing (the receiver's allocator shares a
     * port by it), and the first flight keeps its drawn start.
     */
    @Override
    public long pacedWakeNanos(int pathId, long nowNanos, long readyBytes) {
        long next = nextSendTimeNanos(pathId, nowNanos);
        if (next <= nowNanos || wakeQuantumBytes == 0 || !hintSeen || rateHint > 0) {
            return next;
        }
        long quantum = Math.min(Math.min(wakeQuantumBytes, window[pathId] >> 2), readyBytes - datagramBytes);
        if (quantum <= 0) {
            return next;
        }
        return next + (long) (quantum * 1e9 / pacingRateBytesPerSecond(pathId));
    }

    /** Beyond the quantum and the datagram it is counted less of, what waits changes no wake-up. */
    @Override
    public long pacedWakeReadyBytesCap() {
        return wakeQuantumBytes == 0 ? 0 : wakeQuantumBytes + datagramBytes;
    }

    @Override
    public void onPacketSent(int pathId, int bytes, long nowNanos) {
        ensure(pathId);
        opened[pathId] = true;
        inFlight[pathId] += bytes;
        totalInFlight += bytes;
        largestFlight[pathId] = Math.max(largestFlight[pathId], inFlight[pathId]);
        if (firstSentAt == Long.MIN_VALUE) {
            firstSentAt = nowNanos;
        }
        double rate = pacingRateBytesPerSecond(pathId);
        long interval = (long) (bytes * 1e9 / rate);
        nextSend[pathId] = pacedStart(nextSend[pathId], rate, nowNanos, pacingBurstBytes) + interval;
        if (rateHint > 0) {
            // One clock for the whole connection at min(own, hint): the paths' burst allowances do
            // not add up to paths x pacingBurstBytes back to back into a shared receiver [SPEC-CC-13].
            double connectionRate = connectionRate();
            long connectionInterval = (long) (bytes * 1e9 / connectionRate);
            // With a random source the clock was started at the first hint [SPEC-CC-22]; without
            // one it starts here, with a burst allowance.
            connectionNext = pacedStart(connectionNext, connectionRate, nowNanos, pacingBurstBytes) + connectionInterval;
        }
    }

    /**
     * Where a pacing clock at {@code next} ({@link Long#MIN_VALUE} before its first packet) starts
     * the interval of a packet sent at {@code nowNanos}: at {@code next}, but no earlier than the
     * burst allowance ({@code pacingBurstBytes} at {@code rate}) before now. The allowance costs a
     * division, so it is worked out only when it can matter: a positive rate gives a credit of at
     * least 0, so a clock at or after now starts at {@code next} whatever the credit (the same
     * answer as {@code max(next, now - credit)}, which the other cases still compute; a negative
     * now is left to them too, since {@code now - credit} may wrap around there).
     */
    static long pacedStart(long next, double rate, long nowNanos, long pacingBurstBytes) {
        if (next >= nowNanos && nowNanos >= 0 && rate > 0) {
            return next;
        }
        long credit = (long) (pacingBurstBytes * 1e9 / rate);
        return next == Long.MIN_VALUE ? nowNanos - credit : Math.max(next, nowNanos - credit);
    }

    @Override
    public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
        ensure(pathId);
        leaveFlight(pathId, bytes);
        if (rttNanos > 0) {
            long s = srtt[pathId];
            srtt[pathId] = s == 0 ? rttNanos : s + ((rttNanos - s) >> 3);
            raiseSharePathsFloor();
            long m = minRtt[pathId];
            minRtt[pathId] = m == 0 ? rttNanos : Math.min(m, rttNanos);
            if (delayThreshold > 0 && !ecnSeen[pathId]) {
                // No ECN on this route: queueing delay stands in for the marks [SPEC-CC-15].
                reactToMarks(pathId, 1, rttNanos - minRtt[pathId] > delayThreshold ? 1 : 0);
            }
        }
        ecnCutCredit[pathId] -= bytes;
        lossCutCredit[pathId] -= bytes;
        phaseShiftCredit -= bytes;
        markCredit[pathId] -= bytes;
        if (!lossAverageOnUnmarkedPaths || unmarkedLossCounts(pathId)) {
            // With the average kept over the unmarked paths alone, an acknowledgement on a marked
            // path says nothing of their loss: counted, it would dilute the average by the share
            // of marked paths, which ECMP collisions can make most of them [SPEC-CC-37].
            unmarkedLoss -= unmarkedLoss >> gainShift;
        }
        if (roundTripGainShift > 0) {
            endRoundTrip(pathId, bytes);
        }
        long acked = ackedSinceIncrease[pathId] + bytes;
        long w = window[pathId];
        boolean grow = windowBlocked[pathId] || !hintLimited();
        // Slow start grows a window only up to twice the largest flight the path has carried (or
        // while a packet is held back for want of room), as Linux's cwnd validation does: a sender
        // with one request in flight at a time must not build a 16 MiB window it would later spend
        // at once [SPEC-CC-31].
        boolean used = windowBlocked[pathId] || w < 2 * largestFlight[pathId];
        if (slowStart[pathId] && grow && used) {
            // Slow start [SPEC-CC-31]: a byte of window per byte acknowledged.
            w = Math.min(maxWindow, w + bytes);
            windowBlocked[pathId] = false;
            acked = 0;
        }
        while (acked >= w) {
            acked -= w;
            if (grow) {
                w = Math.min(maxWindow, w + increaseBytes(pathId));
                windowBlocked[pathId] = false;
            }
        }
        window[pathId] = w;
        ackedSinceIncrease[pathId] = acked;
    }

    @Override
    public void onPacketLost(int pathId, int bytes, long nowNanos) {
        ensure(pathId);
        leaveFlight(pathId, bytes);
        if (roundTripGainShift > 0) {
            endRoundTrip(pathId, bytes); // resolved, if not acknowledged: the round trip ends all the same
        }
        if (!hintSeen) {
            lostBeforeHint = true;
        }
        if (lossCutScaledByAlpha && ecnSeen[pathId] && markCredit[pathId] <= 0) {
            // ECN is read on this path and nothing was marked for a round trip: the loss is not
            // congestion (random loss, corruption), which marks would have signalled before any
            // tail drop; the window is left alone [SPEC-CC-24], and the loss counts toward the
            // compensation of the hint [SPEC-CC-25], unless the path is in doubt or failed: a
            // black hole's losses say nothing of the loss on the paths that carry the data.
            if (unmarkedLossCounts(pathId)) {
                unmarkedLoss += (ALPHA_ONE - unmarkedLoss + (1L << gainShift) - 1) >> gainShift;
            }
            return;
        }
        if (lossCutCredit[pathId] <= 0 && ecnCutCredit[pathId] <= 0) {
            // One congestion cut per round trip: a loss within a round trip of an ECN cut is the
            // same congestion the marks already cut for (RFC 3168, 6.1.2), or random loss on a
            // path marked under the hint [SPEC-CC-30].
            long w = window[pathId];
            long cut = lossCutScaledByAlpha ? (w * alpha[pathId]) >> (ALPHA_BITS + 1) : w >> 1;
            window[pathId] = Math.max(minWindow, w - cut);
            windowBeforeLossCut[pathId] = w;
            // A loss is congestion, and ends slow start, unless the cut is scaled by alpha and the
            // path saw no mark for a round trip (random loss) [SPEC-CC-31].
            boolean congestion = !lossCutScaledByAlpha || markCredit[pathId] > 0;
            slowStartBeforeLossCut[pathId] = slowStart[pathId] && congestion;
            if (congestion) {
                slowStart[pathId] = false;
            }
            lossCutCredit[pathId] = roundTripBytes(pathId);
            ackedSinceIncrease[pathId] = 0;
        }
    }

    /**
     * Undoes the latest loss cut of the path [SPEC-CC-27]: the window goes back to what it was
     * before the cut, if it has not grown past it since. One undo per cut: a second spurious loss
     * of the same round trip finds nothing to undo (its cut was never taken, the credit held it).
     */
    @Override
    public void onSpuriousLoss(int pathId, int bytes, long nowNanos) {
        ensure(pathId);
        long before = windowBeforeLossCut[pathId];
        if (before > window[pathId]) {
            window[pathId] = before;
            if (slowStartBeforeLossCut[pathId]) {
                slowStart[pathId] = true; // the cut that ended it was not congestion [SPEC-CC-31]
            }
        }
        windowBeforeLossCut[pathId] = 0;
        slowStartBeforeLossCut[pathId] = false;
    }

    @Override
    public void onPacketDiscarded(int pathId, int bytes, long nowNanos) {
        ensure(pathId);
        leaveFlight(pathId, bytes);
        if (roundTripGainShift > 0) {
            endRoundTrip(pathId, bytes);
        }
    }

    @Override
    public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
        ensure(pathId);
        long ce = Math.max(0, newlyCe);
        long ect = Math.max(Math.max(0, newlyEct), ce);
        if (ect == 0) {
            return;
        }
        ecnSeen[pathId] = true;
        reactToMarks(pathId, ect, ce);
        if (ce > 0) {
            shiftPhaseUnderHint(nowNanos);
        }
    }

    /**
     * Marks while the hint limits the rate [SPEC-CC-18]: the receiver's queue is above the marking
     * threshold because packets of its senders arrive bunched, not because they send too much (their
     * shares add up to less than the receiver's port). The connection keeps its rate and delays its
     * pacing clock by a random part of one interval, at most once per round trip, so the bunch
     * spreads out; a seeded random source is needed (without one, marks under the hint do nothing).
     */
    private void shiftPhaseUnderHint(long nowNanos) {
        if (random == null || connectionNext == Long.MIN_VALUE || phaseShiftCredit > 0 || !hintLimited()) {
            return;
        }
        long interval = (long) (datagramBytes * 1e9 / connectionRate());
        connectionNext = Math.max(connectionNext, nowNanos) + random.nextLong(Math.max(1, interval >> gainShift)) + 1;
        phaseShiftCredit = Math.max(totalInFlight, datagramBytes);
    }

    /** Updates alpha with {@code ce} marked of {@code ect} packets and cuts on marks [SPEC-CC-7], [SPEC-CC-8]. */
    private void reactToMarks(int pathId, long ect, long ce) {
        if (roundTripGainShift > 0) {
            // Counted now, averaged in when the round trip ends [SPEC-CC-36].
            roundEct[pathId] += ect;
            roundCe[pathId] += ce;
        } else if (alphaWarmupSamples > 0) {
            warmUpAlpha(pathId, ect, ce);
        } else {
            moveAlpha(pathId, ect, ce, gainShift);
        }
        if (ce > 0) {
            markCredit[pathId] = roundTripBytes(pathId);
            // A mark ends slow start even when no cut follows (within a round trip of a loss cut):
            // the path is queueing already [SPEC-CC-31].
            slowStart[pathId] = false;
            slowStartBeforeLossCut[pathId] = false;
        }
        // One congestion cut per round trip [SPEC-CC-30]: not within a round trip of a loss cut either.
        if (ce > 0 && ecnCutCredit[pathId] <= 0 && lossCutCredit[pathId] <= 0) {
            long w = window[pathId];
            window[pathId] = Math.max(minWindow, w - ((w * cutAlpha(pathId)) >> (ALPHA_BITS + 1)));
            windowBeforeLossCut[pathId] = 0; // a congestion mark: a slow packet undoes no cut now
            slowStartBeforeLossCut[pathId] = false;
            slowStart[pathId] = false; // the first congestion cut ends slow start [SPEC-CC-31]
            ecnCutCredit[pathId] = roundTripBytes(pathId);
            ackedSinceIncrease[pathId] = 0;
        }
    }

    /**
     * [SPEC-CC-45]: while the path has had fewer ECN feedbacks than {@code 2^aimdEcnGainShift - w - 1}
     * ({@code w = aimdAlphaWarmupSamples}), alpha moves toward the reported fraction by
     * {@code 1 / (w + n + 1)}, {@code n} the feedbacks before: it is the mean of the fractions
     * reported so far with the start value counted as {@code w} of them, not an average that
     * forgets its start value of 1 at {@code 1 / 2^shift} per feedback (with the simulator's 1/64,
     * several hundred microseconds of cuts deeper than the path's marks call for). After that, the
     * gain of [SPEC-CC-7].
     */
    private void warmUpAlpha(int pathId, long ect, long ce) {
        int n = alphaFeedbacks[pathId];
        long weight = alphaWarmupSamples + (long) n + 1;
        if (weight >= 1L << gainShift) {
            moveAlpha(pathId, ect, ce, gainShift);
            return;
        }
        alphaFeedbacks[pathId] = n + 1;
        long fraction = (ce << ALPHA_BITS) / ect;
        long a = alpha[pathId];
        alpha[pathId] = Math.clamp(a + (fraction - a) / weight, 0, ALPHA_ONE);
    }

    /** Moves path {@code pathId}'s alpha toward the fraction {@code ce / ect} with gain {@code 1 / 2^shift} [SPEC-CC-7]. */
    private void moveAlpha(int pathId, long ect, long ce, int shift) {
        long fraction = (ce << ALPHA_BITS) / ect;
        long a = alpha[pathId];
        // Round the step away from zero so alpha reaches 0 and 1 exactly rather than stalling below.
        long step = fraction - a;
        step = step >= 0 ? (step + (1L << shift) - 1) >> shift : -((-step + (1L << shift) - 1) >> shift);
        alpha[pathId] = Math.clamp(a + step, 0, ALPHA_ONE);
    }

    /**
     * Counts {@code bytes} of path {@code pathId} resolved (acknowledged, declared lost or
     * discarded) toward the end of its round trip [SPEC-CC-36]: once as many bytes as the
     * path had in flight (or its window, if larger) when the round trip began are resolved, and
     * ECN feedback came in it, alpha moves once
     * toward the fraction of that round trip's reported packets that were marked, as DCTCP's
     * per-window estimate does (RFC 8257, 3.3). A round trip weighs the same however many ACKs it
     * took, so the average spans a number of round trips, not of ACKs. Lost bytes count too: under
     * heavy random loss, counting only acknowledged ones stretched the round trips and held alpha
     * near its start value of 1, so the loss cuts scaled by it ([SPEC-CC-9]) stayed deep.
     */
    private void endRoundTrip(int pathId, int bytes) {
        roundCredit[pathId] -= bytes;
        if (roundCredit[pathId] > 0 || roundEct[pathId] == 0) {
            return;
        }
        moveAlpha(pathId, roundEct[pathId], roundCe[pathId], roundTripGainShift);
        roundEct[pathId] = 0;
        roundCe[pathId] = 0;
        roundCredit[pathId] = roundTripBytes(pathId);
    }

    /**
     * The additive increase of path {@code pathId} for a window's worth of acknowledged bytes
     * [SPEC-CC-6], [SPEC-CC-32]: one datagram; with {@link EngineConfig#aimdBalancedIncrease()} and
     * two or more paths in service, the path's part of {@code n} datagrams (one per path in
     * service), shared out by BALIA's weights (Peng, Walid, Hwang and Low, "Multipath TCP: Analysis,
     * Design, and Implementation", IEEE/ACM ToN 2016): path {@code i}'s per-round-trip increase is
     * proportional to {@code x_i^2 (1 + a_i) (4 + a_i)}, {@code x_i = window_i / srtt_i} and
     * {@code a_i = M / x_i} with {@code M} the largest {@code x} (that is, to
     * {@code (x_i + M) (4 x_i + M)}): the fastest path gets ten times the share of a path near zero.
     * Scaled so the connection grows by {@code n} datagrams per round trip, as with uncoupled paths
     * (BALIA's own scale, about one datagram for the whole connection, is MPTCP's LIA's, and LIA
     * held the simulator's permutation at 0.63 of its bisection): the coupling moves the increase,
     * not the total, to the paths that carry the most, so a connection with a clear path lets its
     * path through a busy link shrink under the marks there, leaving that link to the connections
     * whose every path crosses it. With {@link EngineConfig#aimdBalancedIncreaseMaxDatagrams()}
     * {@code c} above 0 the total is {@code min(n, c)} datagrams per round trip instead of
     * {@code n}, shared out by the same weights [SPEC-CC-39]: more paths split the traffic more
     * finely without making the connection grow faster.
     */
    private long increaseBytes(int pathId) {
        if (!balancedIncrease || failed[pathId] || noNewData[pathId]) {
            return datagramBytes;
        }
        double largest = 0;
        int inService = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (takesNewData(i)) {
                inService++;
                largest = Math.max(largest, pathRate(i));
            }
        }
        if (inService < 2 || largest <= 0) {
            return datagramBytes;
        }
        double sum = 0;
        double own = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (takesNewData(i)) {
                double x = pathRate(i);
                double a = largest / x;
                double g = x * x * (1 + a) / 2 * (4 + a) / 5;
                sum += g;
                if (i == pathId) {
                    own = g;
                }
            }
        }
        // [SPEC-CC-39]: more paths split the connection's traffic more finely; they need not make
        // it grow faster too (16 paths growing by 16 datagrams a round trip marked and dropped
        // more on the simulator's fully subscribed edge links than 8 growing by 8).
        int datagrams = balancedIncreaseMaxDatagrams > 0 ? Math.min(inService, balancedIncreaseMaxDatagrams) : inService;
        return Math.max(1, (long) (datagramBytes * datagrams * own / sum));
    }

    /**
     * Whether path {@code pathId} counts as taking new data for the balanced increase: a packet
     * was sent on it, and it is neither failed nor told to take no new data.
     */
    private boolean takesNewData(int pathId) {
        return opened[pathId] && !failed[pathId] && !noNewData[pathId];
    }

    /**
     * Whether a loss on path {@code pathId} now would move the unmarked-loss average toward 1
     * [SPEC-CC-25]: ECN is read on it, it had no mark for a round trip, and it carries new data
     * (neither failed nor in doubt: a black hole's losses say nothing of the random loss).
     */
    private boolean unmarkedLossCounts(int pathId) {
        return ecnSeen[pathId] && markCredit[pathId] <= 0 && !failed[pathId] && !noNewData[pathId];
    }

    /** Window over smoothed RTT ({@code initialRttNanos} before a sample): BALIA's {@code x}, bytes per ns. */
    private double pathRate(int pathId) {
        long rtt = srtt[pathId] > 0 ? srtt[pathId] : initialRtt;
        return (double) window[pathId] / rtt;
    }

    /**
     * The span the first packet's start is drawn from [SPEC-CC-16], [SPEC-CC-28]: the configured
     * spread, or, with a fresh share announced in ACCEPT, that many intervals of the share (one
     * first flight per interval of every sender's share fills the receiver's port at most to its
     * rate), whichever is shorter.
     */
    private long firstFlightSpread(long nowNanos) {
        if (!announcementFresh(nowNanos) || firstFlightBytes <= 0) {
            return firstFlightSpread; // no first-flight cap: no first flight to size from the share
        }
        long interval = (long) (firstFlightBytesOfPackets() * 1e9 / announcedShare);
        // Not capped by the configured spread: the k-th of n first flights must spread over n of
        // the server's intervals, or they arrive faster than its port drains. At most the time
        // the announcement stays fresh (a share read off the wire may be tiny: no wrap either).
        long span = interval > announcementLifetime / announcedSpreadIntervals ? announcementLifetime
                : announcedSpreadIntervals * interval;
        return Math.max(1, span);
    }

    /** The length of the connection's packets as far as its first flight and clock go: the first packet's, else a datagram. */
    private long packetBytes() {
        return firstPacketBytes > 0 ? firstPacketBytes : datagramBytes;
    }

    /**
     * The bytes of the first flight [SPEC-CC-16] in packets of the first packet's length {@code b}:
     * the first, and one more for every {@code b} that leaves a whole datagram of room under the
     * cap, {@code b (1 + floor((F - D) / b))}; the cap {@code F} itself if the length was not told.
     */
    private long firstFlightBytesOfPackets() {
        if (firstPacketBytes <= 0) {
            return firstFlightBytes;
        }
        long more = firstFlightBytes > datagramBytes ? (firstFlightBytes - datagramBytes) / firstPacketBytes : 0;
        return firstPacketBytes * (1 + more);
    }

    @Override
    public void onFirstPacketBytes(int bytes, long nowNanos) {
        if (firstAskAt == Long.MIN_VALUE && bytes > 0) {
            // Only before the first request to send: the first packet's delay is drawn then.
            firstPacketBytes = Math.min(bytes, datagramBytes);
        }
    }

    /**
     * Whether a share announced in ACCEPT is used: non-zero, and at most two fair-share periods old
     * (the server counts a connection it accepted as an active sender for that long, [SPEC-CC-11]).
     */
    private boolean announcementFresh(long nowNanos) {
        return announcedShare > 0 && announcedSpreadIntervals > 0 && nowNanos - announcedAt <= announcementLifetime;
    }

    /**
     * [SPEC-CC-43]: until the first hint the connection is paced at the fresh announced
     * share, its clock starting at the first packet's drawn time (the phase [SPEC-CC-22] would
     * give the clock one interval later), and its first flight may hold the share's
     * bandwidth-delay product ({@code initialRttNanos}). The share is the receiver's own word for
     * what it gives this sender now ([SPEC-CC-28], kept within 1/0.9 of it by [SPEC-CONN-17]),
     * so sending it from the first packet fills the first round trip that one small flight and a
     * wait for the hint left idle, without sending the receiver more than it allotted. Only
     * before the first hint: {@code rateHint} holds the share until then, and the first hint
     * replaces it (and sizes the windows, [SPEC-CC-17]); the clock keeps running.
     */
    private void paceFirstRoundTripAtAnnouncedShare() {
        pacedByAnnouncement = true;
        rateHint = announcedShare;
        connectionNext = firstSendAt;
        // [SPEC-CC-44]: a part of that product only.
        firstFlightCap = Math.max(firstFlightBytes,
                (long) (announcedShare * (initialRtt / 1e9) * (announcedFirstFlightPercent / 100.0)));
    }

    @Override
    public void onAnnouncedShare(long bytesPerSecond, long nowNanos) {
        if (hintSeen) {
            return; // the receiver's hints say more than any announcement
        }
        announcedShare = Math.max(0, bytesPerSecond);
        announcedAt = nowNanos;
        announcementSeen = true;
        if (firstAskAt != Long.MIN_VALUE && firstSentAt == Long.MIN_VALUE && announcementFresh(nowNanos)) {
            // A newer announcement before the first packet left [SPEC-CONN-17]: the same draw, as a
            // fraction of the span the new share gives, from the same ask; the clock counts from it.
            long span = firstFlightSpread(nowNanos);
            firstDraw = (long) ((double) firstDraw * span / firstSpan);
            firstSpan = span;
            firstSendAt = firstAskAt + firstDraw;
            announcedOrigin = firstAskAt;
            if (announcedFirstRoundTrip) {
                paceFirstRoundTripAtAnnouncedShare();
            }
        }
    }

    /**
     * The {@code alpha} an ECN cut of path {@code pathId} uses [SPEC-CC-29]: the path's own, less
     * {@code (100 - aimdSharedMarkCutPercent)%} of the least {@code alpha} of the connection's paths
     * in service (those that take new data: sent on, neither failed nor told to take none, as
     * {@link #takesNewData} says), when there are two or more of them. The marks every
     * path sees say the fabric is busy wherever this connection can go (in the simulator's k=8
     * permutation, every edge uplink and downlink at 0.9 to 0.98 of its line): cutting each path in
     * full for them lowered the connection's rate below its hint, with no clearer path for the
     * steering to find. The marks above that floor, which only some paths see, still cut in full,
     * so new data moves off a congested route (or a degraded plane) as before.
     */
    private long cutAlpha(int pathId) {
        long own = alpha[pathId];
        if (sharedMarkCutPercent >= 100) {
            return own;
        }
        long least = own;
        int inService = 0;
        double windows = 0;
        double weighted = 0;
        for (int i = 0; i < pathsSeen; i++) {
            // The paths that take new data as the balanced increase counts them: a path only
            // asked about, that never sent, has its initial alpha (1) and window, and is not one.
            if (takesNewData(i)) {
                inService++;
                least = Math.min(least, alpha[i]);
                windows += window[i];
                weighted += (double) window[i] * alpha[i];
            }
        }
        if (inService < 2) {
            return own; // one path: nothing to compare its marks with
        }
        // [SPEC-CC-40]: the connection's own marked fraction (its paths' alphas weighted by their
        // windows, about by the bytes they carry) as the shared part: a path marked above its
        // connection's average cuts for the excess in full and steers, the connection as a whole
        // cuts by the configured percent of what it sees, not of what its clearest path sees.
        long shared = sharedMarkByMeanAlpha && windows > 0 ? Math.min(own, (long) (weighted / windows)) : least;
        return own - shared * (100 - sharedMarkCutPercent) / 100;
    }

    @Override
    public void onRateHint(long bytesPerSecond, long nowNanos) {
        if (hintSeen && Math.max(0, bytesPerSecond) != rateHint) {
            sharePathsFloor = 0;
        }
        rateHint = Math.max(0, bytesPerSecond);
        hintSeen = true;
        raiseSharePathsFloor();
        if (rateHint > 0 && !hintScaled) {
            scaleToHint();
            if (pacedByAnnouncement) {
                // The clock ran at the announced share [SPEC-CC-43]; from here the hint paces
                // it, and the next packet is at most one of the hint's intervals away (a share read
                // off the wire may have been tiny).
                connectionNext = Math.min(connectionNext, nowNanos + (long) (packetBytes() * 1e9 / connectionRate()));
            }
            if (random != null && connectionNext == Long.MIN_VALUE) {
                // The clock starts one interval after the first flight left, at a random point of
                // the next interval: the senders' first paced packets do not land on the first
                // flights of the others, and are spread over a whole interval. A start already past
                // at the ACK (a round trip longer than the interval) is kept: the packets due since
                // then leave at once, within the burst allowance. Not after a first flight lost
                // before the hint: its resend's ACK comes a timeout late, when the other senders'
                // resends arrive too, so the clock starts no earlier than now [SPEC-CC-22].
                // With a fresh announced share the clock counts from when the connection first
                // asked to send (below) [SPEC-CC-28].
                // In packets of the length the first one has: with equal-length packets shorter
                // than a datagram, an interval of full datagrams would fold the phases, the
                // senders drawn late in theirs landing on the early ones' next packets [SPEC-CC-22].
                long interval = (long) (packetBytes() * 1e9 / connectionRate());
                if (announcedOrigin != Long.MIN_VALUE && !lostBeforeHint) {
                    // The first packet left at the fraction v of its span after the ask: the clock
                    // keeps that phase, one interval of the hint later, at ask + I + v * I. With
                    // the span one interval of a share the server announced fresh, the senders'
                    // phases stay as uniform over an interval as their first flights were, and
                    // the first flight is the first packet of that pattern [SPEC-CC-22], [SPEC-CC-28].
                    connectionNext = announcedOrigin + interval + (long) ((double) firstDraw / firstSpan * interval);
                } else {
                    long origin = announcedOrigin != Long.MIN_VALUE ? announcedOrigin : firstSentAt;
                    long anchor = origin == Long.MIN_VALUE ? nowNanos : origin + interval;
                    if (lostBeforeHint) {
                        anchor = Math.max(anchor, nowNanos);
                    }
                    connectionNext = anchor + random.nextLong(Math.max(1, interval));
                }
            }
        }
    }

    /**
     * The first non-zero hint sizes the windows [SPEC-CC-17]: together the paths in service get
     * the hint's bandwidth-delay product (hint x the first RTT sample, {@code initialRttNanos}
     * before one), so an uncontended sender starts at its share instead of climbing to it by
     * additive increase, and a sender into a busy receiver keeps the small window it has.
     */
    private void scaleToHint() {
        hintScaled = true;
        long rtt = 0;
        int inService = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (!failed[i]) {
                inService++;
                rtt = Math.max(rtt, srtt[i]);
            }
        }
        if (rtt == 0) {
            rtt = initialRtt;
        }
        long bdp = (long) Math.min((double) maxWindow * Math.max(1, inService), rateHint * (rtt / 1e9));
        long perPath = Math.clamp(bdp / Math.max(1, inService), minWindow, maxWindow);
        startWindow = Math.max(initialWindow, perPath);
        for (int i = 0; i < pathsSeen; i++) {
            if (!failed[i] && window[i] < startWindow) {
                window[i] = startWindow;
                ackedSinceIncrease[i] = 0;
            }
        }
    }

    @Override
    public void onPathFailed(int pathId, long nowNanos) {
        ensure(pathId);
        // Everything in flight was reported lost already; forget any rounding left over.
        totalInFlight -= inFlight[pathId];
        inFlight[pathId] = 0;
        failed[pathId] = true;
    }

    @Override
    public void onPathRestored(int pathId, long nowNanos) {
        ensure(pathId);
        // Back from a failure: start small and let additive increase find the path's room again.
        window[pathId] = minWindow;
        windowBeforeLossCut[pathId] = 0;
        slowStart[pathId] = false; // back from a failure: additive increase only [SPEC-CC-31]
        slowStartBeforeLossCut[pathId] = false;
        failed[pathId] = false;
        ackedSinceIncrease[pathId] = 0;
        ecnCutCredit[pathId] = 0;
        lossCutCredit[pathId] = 0;
        markCredit[pathId] = 0; // a mark from before the failure says nothing of the path now
        minRtt[pathId] = 0; // it may be on another route now: measure its base RTT afresh
        if (roundTripGainShift > 0) {
            roundEct[pathId] = 0; // feedback from before the failure: not this route's round trip
            roundCe[pathId] = 0;
            roundCredit[pathId] = 0;
        }
    }

    @Override
    public void onPathNewData(int pathId, boolean takesNewData, long nowNanos) {
        ensure(pathId);
        noNewData[pathId] = !takesNewData;
    }

    // ---- read-only view for tests and telemetry ----

    /** Path {@code pathId}'s congestion window, bytes (the initial window for a path not seen yet). */
    public long windowBytes(int pathId) {
        checkPath(pathId);
        return pathId < window.length ? window[pathId] : startWindow;
    }

    /** Whether path {@code pathId} is in slow start: no congestion cut yet [SPEC-CC-31]. */
    public boolean inSlowStart(int pathId) {
        checkPath(pathId);
        return pathId < slowStart.length ? slowStart[pathId] : slowStartEnabled;
    }

    /**
     * Path {@code pathId}'s moving average of the CE-marked fraction, 0 to 1 (before any feedback, the
     * start value {@link EngineConfig#aimdInitialAlphaPercent()}: 1 by default).
     */
    public double alpha(int pathId) {
        checkPath(pathId);
        return pathId < alpha.length ? (double) alpha[pathId] / ALPHA_ONE : (double) initialAlpha / ALPHA_ONE;
    }

    /** Bytes in flight on path {@code pathId}. */
    public long bytesInFlight(int pathId) {
        checkPath(pathId);
        return pathId < inFlight.length ? inFlight[pathId] : 0;
    }

    /** The connection's window: the sum of the windows of paths 0 to the highest path id seen. */
    public long windowBytes() {
        long sum = 0;
        for (int i = 0; i < pathsSeen; i++) {
            sum += window[i];
        }
        return sum;
    }

    /** Bytes in flight across all paths. */
    public long bytesInFlight() {
        return totalInFlight;
    }

    /** The latest rate hint from the receiver, bytes per second (0: none, also while an announced share paces the first round trip). */
    public long rateHintBytesPerSecond() {
        return hintSeen ? rateHint : 0;
    }

    /** Path {@code pathId}'s moving average of send-to-acknowledgement times, ns (0 before a sample). */
    public long smoothedRttNanos(int pathId) {
        checkPath(pathId);
        return pathId < srtt.length ? srtt[pathId] : 0;
    }

    /**
     * Path {@code pathId}'s pacing rate now, bytes per second: {@code gain * window / srtt}, scaled
     * down with every other path's when their sum exceeds the receiver's rate hint (raised for
     * random loss, [SPEC-CC-25]); under random loss above {@code fullWindowAboveLossPercent}, the
     * paths whose windows are full are left out of that sum ([SPEC-CC-35]), and with
     * {@code aimdFullWindowHandoff} whatever the loss ([SPEC-CC-46]).
     */
    public double pacingRateBytesPerSecond(int pathId) {
        checkPath(pathId);
        if (pathId >= window.length) {
            return ownRate(startWindow, 0);
        }
        double own = ownRate(window[pathId], srtt[pathId]);
        if (rateHint == 0) {
            return own;
        }
        double total = totalOwnRate();
        double hint = effectiveHint();
        if (total <= hint) {
            return own;
        }
        if (fullWindowHandoff || handoffAboveLossPercent < 100 && unmarkedLoss > ALPHA_ONE * handoffAboveLossPercent / 100) {
            // Random loss: a window full of packets lost but not yet judged leaves its share of the
            // hint unused; the paths with room take it, the connection's clock still bounding the
            // total [SPEC-CC-35]. A window full while its rate on paper has room (a path of a
            // busy fabric with a few datagrams of window) leaves it unused too: with
            // aimdFullWindowHandoff the others take it whatever the loss [SPEC-CC-46].
            total = ownRateOfPathsWithRoom(pathId);
            if (total <= hint) {
                return own;
            }
        }
        return own * hint / total;
    }

    /**
     * The own rates added up over the paths in service whose windows have room, and path
     * {@code pathId} whatever its window [SPEC-CC-35].
     */
    private double ownRateOfPathsWithRoom(int pathId) {
        double total = 0;
        int share = pathsForShareMin > 0 ? pathsForShare() : Integer.MAX_VALUE;
        int inService = share >= pathsSeen ? 0 : pathsInService(); // 0: every path takes new data
        int rank = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (!failed[i] && !noNewData[i]) {
                // Only the paths that take new data share the hint [SPEC-CC-42].
                boolean takes = share >= inService || rankTakesShareData(rank, share, inService);
                rank++;
                if (takes && (i == pathId || window[i] - inFlight[i] > 0)) {
                    total += ownRate(window[i], srtt[i]);
                }
            }
        }
        return total;
    }

    private double ownRate(long windowBytes, long smoothedRtt) {
        long rtt = smoothedRtt > 0 ? smoothedRtt : initialRtt;
        return windowBytes * pacingGain * 1e9 / rtt;
    }

    private double totalOwnRate() {
        double total = 0;
        int share = pathsForShareMin > 0 ? pathsForShare() : Integer.MAX_VALUE;
        int inService = share >= pathsSeen ? 0 : pathsInService(); // 0: every path takes new data
        int rank = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (!failed[i] && !noNewData[i]) {
                if (share >= inService || rankTakesShareData(rank, share, inService)) {
                    total += ownRate(window[i], srtt[i]);
                }
                rank++;
            }
        }
        return total;
    }

    /** Paths seen that are in service: neither failed nor told to take no new data. */
    private int pathsInService() {
        int n = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (!failed[i] && !noNewData[i]) {
                n++;
            }
        }
        return n;
    }

    /** Whether the path of rank {@code rank} among {@code inService} paths in service is one of the {@code share} from the offset on. */
    private boolean rankTakesShareData(int rank, int share, int inService) {
        return Math.floorMod(rank - shareOffset, inService) < share;
    }

    /**
     * How many paths take new data with the rule on [SPEC-CC-42]: all
     * ({@link Integer#MAX_VALUE}) when the receiver gives no hint after its first ACK, or before it
     * without a fresh announced share; before the first ACK, the announced share's datagrams per
     * {@code initialRttNanos} (at least the minimum); under a hint {@code H}, the hint's bandwidth-delay
     * product in datagrams, {@code ceil(H * rtt / maxDatagramBytes)} with {@code rtt} the largest
     * smoothed RTT of the paths that sent ({@code initialRttNanos} before a sample), at least
     * {@code aimdPathsForShareMin}: a path per datagram the share keeps in flight, so each path
     * still carries about a datagram a round trip, with its ACK clock and loss detection, instead
     * of one every few round trips.
     */
    private int pathsForShare() {
        if (!hintSeen) {
            // Before the first ACK: the share announced in ACCEPT, if fresh, over initialRttNanos;
            // without one, every path, as without the rule [SPEC-CC-28].
            if (shareJudgedAt == Long.MIN_VALUE || !announcementFresh(shareJudgedAt)) {
                return Integer.MAX_VALUE;
            }
            double announced = (double) announcedShare * initialRtt / 1e9 / datagramBytes;
            return (int) Math.min(Integer.MAX_VALUE - 1, Math.max(pathsForShareMin, Math.ceil(announced)));
        }
        if (rateHint == 0) {
            return Integer.MAX_VALUE;
        }
        // Datagrams per ns of round trip; once one path's srtt gives a datagram per path seen, every
        // path takes new data whatever the others' (a large share: no need to read them all).
        double perNanos = effectiveHint() / 1e9 / datagramBytes;
        long rtt = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (opened[i] && !failed[i] && srtt[i] > rtt) {
                rtt = srtt[i];
                if (perNanos * rtt >= pathsSeen) {
                    return Integer.MAX_VALUE;
                }
            }
        }
        double bdpDatagrams = perNanos * (rtt > 0 ? rtt : initialRtt);
        return (int) Math.min(Integer.MAX_VALUE - 1, Math.max(Math.max(pathsForShareMin, sharePathsFloor), Math.ceil(bdpDatagrams)));
    }

    /**
     * Under a hint, the count of paths for the share reached now stands until the hint changes
     * [SPEC-CC-42]. Raised only here, on the calls that move the count (an RTT sample, a hint), so
     * that the answers to questions never depend on how often they were asked.
     */
    private void raiseSharePathsFloor() {
        if (pathsForShareMin == 0 || !hintSeen || rateHint == 0) {
            return;
        }
        int count = pathsForShare();
        if (count > sharePathsFloor && count < pathsSeen) {
            sharePathsFloor = (byte) count;
        }
    }

    /**
     * Whether path {@code pathId} is one of the {@code share} paths that take new data
     * [SPEC-CC-42]: of the paths in service (neither failed nor told to take none), counted
     * in id order, the {@code share} from this connection's random offset on, wrapping. A path out
     * of service is left to the rules that already keep new data off it. The offset differs from
     * connection to connection, so the connections of a host whose path ids map to the same planes
     * or routes (the simulator puts path {@code i} of every connection on one plane) do not all
     * use the same few.
     */
    private boolean takesShareData(int pathId, int share) {
        if (share >= pathsSeen || failed[pathId] || noNewData[pathId]) {
            return true;
        }
        int inService = 0;
        int rank = 0;
        for (int i = 0; i < pathsSeen; i++) {
            if (!failed[i] && !noNewData[i]) {
                if (i < pathId) {
                    rank++;
                }
                inService++;
            }
        }
        return share >= inService || rankTakesShareData(rank, share, inService);
    }

    /**
     * The connection's pacing rate under a non-zero hint: min(own, hint), the hint before any path
     * is seen (the hint raised for random loss, [SPEC-CC-25]).
     */
    private double connectionRate() {
        double own = totalOwnRate();
        double hint = effectiveHint();
        return own > 0 ? Math.min(hint, own) : hint;
    }

    /** Whether the receiver's hint, not the windows, is what limits the sender's rate. */
    private boolean hintLimited() {
        return rateHint > 0 && totalOwnRate() > effectiveHint();
    }

    /** The rate the connection allows itself under the hint: the hint, raised for random loss [SPEC-CC-25]. */
    private double effectiveHint() {
        return rateHint * lossCompensation();
    }

    /**
     * The hint is what the receiver can take in, and packets the fabric loses at random never reach
     * it: the sender may send {@code 1 / (1 - loss * p)} times the hint, where {@code loss} is its
     * moving average of unmarked losses and {@code p} {@code aimdLossCompensationPercent / 100},
     * {@code loss * p} at most half of {@link #MAX_COMPENSATED_LOSS} (a third above the hint)
     * [SPEC-CC-25]. The engine's default is half: the sender's verdicts count lost ACKs of packets
     * that arrived as losses too (session 4, 1% loss per link in the simulator: 0.936 of the
     * lossless goodput with all of it, 0.953 with half, 0.950 with none). The simulator takes all
     * of it (session 10): the losses of paths marked within a round trip are not in {@code loss}
     * at all, and on its fabric most paths are marked every few round trips.
     */
    private double lossCompensation() {
        // With 50 this is min(u, 1/2) / 2 exactly (as before the field): the cap is a third of the hint.
        long compensated = Math.min(unmarkedLoss * lossCompensationPercent / 100, MAX_COMPENSATED_LOSS >> 1);
        return (double) ALPHA_ONE / (ALPHA_ONE - compensated);
    }

    // ---- internals ----

    /**
     * Bytes to acknowledge on the path before the next cut of the same kind: what was in flight
     * when the cut was made (packets sent before the reaction), or the new window if larger.
     */
    private long roundTripBytes(int pathId) {
        return Math.max(window[pathId], inFlight[pathId]);
    }

    private void leaveFlight(int pathId, int bytes) {
        long left = Math.min(bytes, inFlight[pathId]);
        inFlight[pathId] -= left;
        totalInFlight -= left;
    }

    private void checkPath(int pathId) {
        if (pathId < 0 || pathId >= maxPaths) {
            throw new IllegalArgumentException("pathId " + pathId + " must be in [0, maxPaths " + maxPaths + ")");
        }
    }

    /**
     * Makes path {@code pathId}'s state exist. Every question and event calls it, so it stays a
     * few bytes of bytecode that the JIT inlines; the growth is {@link #see}. As one method (347
     * bytes) it was over C2's limit for inlining hot methods (325), so every
     * {@link #sendAllowanceBytes} and {@link #nextSendTimeNanos} of the next-timeout query made
     * a call, after which the compiled code reads the controller's fields again.
     */
    private void ensure(int pathId) {
        if (pathId >= pathsSeen) {
            see(pathId);
        }
    }

    /** The rare part of {@link #ensure}: a path seen for the first time, growing the arrays if needed. */
    private void see(int pathId) {
        if (pathId < window.length) {
            pathsSeen = pathId + 1;
            return;
        }
        checkPath(pathId);
        int old = window.length;
        int size = Math.min(maxPaths, Math.max(pathId + 1, old * 2));
        window = Arrays.copyOf(window, size);
        inFlight = Arrays.copyOf(inFlight, size);
        alpha = Arrays.copyOf(alpha, size);
        if (alphaWarmupSamples > 0) {
            alphaFeedbacks = Arrays.copyOf(alphaFeedbacks, size);
        }
        ackedSinceIncrease = Arrays.copyOf(ackedSinceIncrease, size);
        ecnCutCredit = Arrays.copyOf(ecnCutCredit, size);
        ecnSeen = Arrays.copyOf(ecnSeen, size);
        minRtt = Arrays.copyOf(minRtt, size);
        lossCutCredit = Arrays.copyOf(lossCutCredit, size);
        windowBeforeLossCut = Arrays.copyOf(windowBeforeLossCut, size);
        slowStart = Arrays.copyOf(slowStart, size);
        slowStartBeforeLossCut = Arrays.copyOf(slowStartBeforeLossCut, size);
        largestFlight = Arrays.copyOf(largestFlight, size);
        markCredit = Arrays.copyOf(markCredit, size);
        srtt = Arrays.copyOf(srtt, size);
        nextSend = Arrays.copyOf(nextSend, size);
        windowBlocked = Arrays.copyOf(windowBlocked, size);
        failed = Arrays.copyOf(failed, size);
        noNewData = Arrays.copyOf(noNewData, size);
        opened = Arrays.copyOf(opened, size);
        if (roundTripGainShift > 0) {
            roundEct = Arrays.copyOf(roundEct, size);
            roundCe = Arrays.copyOf(roundCe, size);
            roundCredit = Arrays.copyOf(roundCredit, size);
        }
        for (int i = old; i < size; i++) {
            window[i] = startWindow;
            slowStart[i] = slowStartEnabled;
            nextSend[i] = Long.MIN_VALUE;
            alpha[i] = initialAlpha; // credits stay 0: the first cut of each kind may happen at once
        }
        pathsSeen = pathId + 1;
    }
}
