package io.metaroce.core;

import io.metaroce.core.wire.WireConstants;

/**
 * Every tunable constant of the protocol engine, with its default, in one validated record.
 * The same names and defaults are normative in {@code docs/spec.md}, section "Constants".
 *
 * <p>Immutable and thread-safe. Build one with {@link #defaults()} and the {@code withX} methods,
 * or {@link #builder()}.
 *
 * @param maxDatagramBytes largest datagram this endpoint sends or accepts (the MTU), bytes
 * @param sequenceWindow connection-sequence window: at most this many packets beyond the lowest
 *     unacknowledged one may be outstanding; a power of two
 * @param pathWindowPackets capacity of each path's send scoreboard (packets in flight per path); a
 *     power of two
 * @param maxPaths largest number of paths per connection
 * @param maxStreams stream ids run from 0 to {@code maxStreams - 1}
 * @param maxWorkRequests outstanding send-side work requests per connection (posted, not completed)
 * @param maxPostedReceives outstanding posted receives per connection
 * @param completionQueueCapacity completions an endpoint buffers before the application polls
 * @param maxConnections connections an endpoint holds at once
 * @param ackEveryPackets a receiver acknowledges a path after this many new packets on it
 * @param maxAckDelayNanos longest a receiver holds back an acknowledgement
 * @param reorderAllowancePackets gaps within a path up to this many packets below the highest
 *     acknowledged one are not yet counted as loss (0 for fabrics that keep order per path)
 * @param initialRttNanos round-trip estimate before the first sample
 * @param minRtoNanos lower bound of the retransmission timeout
 * @param maxRtoNanos upper bound of the retransmission timeout (after back-off)
 * @param overdueFloorNanos least wait before a path's oldest transmission is declared overdue
 *     (lost without waiting for the retransmission timeout) once a transmission sent after it on
 *     another path has been acknowledged; the wait is the path's RTO without back-off and with
 *     this floor (or {@code minRtoNanos} if lower) instead of {@code minRtoNanos} ([SPEC-LOSS-7])
 * @param maxConsecutiveTimeouts timeouts in a row without progress after which the peer is
 *     declared unreachable
 * @param rnrRetryDelayNanos delay a receiver asks for when no receive is posted
 * @param congestionWindowBytes connection window of the fixed-window congestion controller (an
 *     explicit choice: congestion control off; the default controller is AIMD)
 * @param handshakeRetryNanos first CONNECT retransmission interval (doubles each time)
 * @param handshakeTimeoutNanos a connection attempt fails after this long
 * @param cookieLifetimeNanos a CHALLENGE cookie is valid for this long
 * @param idleTimeoutNanos a connection that hears nothing from its peer for this long is closed
 * @param keepAliveNanos a connection that has sent nothing for this long sends a PATH_PROBE (0: off)
 * @param idleShrinkNanos with {@code keepAliveNanos} 0, a connection that has sent nothing for this
 *     long is at its idle point, where the tables a burst grew shrink (0: a third of
 *     {@code idleTimeoutNanos}, at least 1 ns; see {@link #idleShrinkIntervalNanos})
 * @param closeRetryNanos interval between CLOSE retransmissions
 * @param closeRetries CLOSE retransmissions before a closing connection gives up
 * @param aimdInitialWindowBytes each path's first congestion window under the AIMD controller
 *     ({@code io.metaroce.core.cc.AimdController}, the default controller)
 * @param aimdMinWindowBytes floor of a path's AIMD congestion window
 * @param aimdMaxWindowBytes ceiling of a path's AIMD congestion window
 * @param aimdEcnGainShift the AIMD controller's ECN gain is {@code 1 / 2^aimdEcnGainShift}: the
 *     weight of each ECN feedback in the moving average {@code alpha} of the marked fraction
 * @param pathFailureTimeouts timeouts in a row without progress after which a path is taken out of
 *     service (FAILED) while another path of the connection is in service; the last path in
 *     service is never failed, the connection ends after {@code maxConsecutiveTimeouts} instead
 *     (the effective threshold is {@code min(pathFailureTimeouts, maxConsecutiveTimeouts)})
 * @param pathFailureConfidenceBits where the connection's other paths lose packets too (random
 *     loss), a run of timeouts is evidence of failure only once a run that long would happen by
 *     chance less than once in {@code 2^pathFailureConfidenceBits} at their loss rate: the failure
 *     threshold grows to that length, at most {@code maxConsecutiveTimeouts}; 0 keeps it at
 *     {@code pathFailureTimeouts} ([SPEC-PATH-11])
 * @param pathProbeIntervalNanos first interval between the PATH_PROBEs of a FAILED path; doubles
 *     after each unanswered probe
 * @param pathProbeMaxIntervalNanos ceiling of that interval
 * @param shortAcks send an ACK in its short form (84 bytes instead of 124: one 64-bit SACK word)
 *     whenever its SACK has one, that is when every sequence number of the 256-bit window more
 *     than 63 below the highest was received ([SPEC-SACK-16], [SPEC-WIRE-31]); false: every ACK is
 *     124 bytes (for a peer that predates the short form). On by default, as in the simulator.
 *     Receivers take both forms whatever this says
 * @param pathRateWindowNanos the window of each path's send rate ({@code PathStats.sendRateBytesPerSecond}):
 *     the bytes sent in the current aligned interval of this length plus the previous interval's,
 *     prorated by its part still inside the window ending at the read; a power of two, so that a
 *     sent packet finds its interval with a shift ([SPEC-PATH-8])
 * @param receiveCapacityBytesPerSecond capacity this endpoint divides max-min fairly among the
 *     connections sending to it, in datagram bytes per second, announced in every ACK as the
 *     sender's rate hint; 0 turns the allocator off (every hint 0: no limit)
 * @param fairSharePeriodNanos how often the receiver's fair shares are recomputed, and the window
 *     over which each sender's arrival rate is measured
 * @param aimdPacingGainPercent the AIMD controller paces each path at
 *     {@code aimdPacingGainPercent / 100 * window / smoothed RTT}, capped by the rate hint
 * @param pacingBurstBytes bytes a path may send back to back once it has been idle, or its
 *     event loop woke late, before pacing spaces its packets
 * @param pacingWakeQuantumBytes bytes a path that waits only for its pacing lets accrue before the
 *     connection asks to be woken ({@code pollTimeoutNanos}), at most {@code pacingBurstBytes}
 *     less one datagram and a quarter of the path's window: the wake-up sends them in one go (one
 *     GSO send) instead of a datagram or two per wake-up; 0: woken when the next packet may leave
 *     ([SPEC-CC-38])
 * @param aimdDelayThresholdNanos on a path whose packets the peer never reports ECN-capable (ECN
 *     cannot be read on that route), an RTT sample more than this above the path's least RTT counts
 *     as a congestion mark for AIMD; 0: no delay signal
 * @param aimdSharedMarkCutPercent percent of the AIMD ECN cut that the marks every path of the
 *     connection shares still take ([SPEC-CC-29]): a path's cut is
 *     {@code window * (alpha - (1 - percent / 100) * least alpha of the paths in service) / 2}, so
 *     the marks only some paths see still cut those paths in full (steering new data away from
 *     them), while the marks all of them see, the whole fabric busy rather than one route, cut
 *     less; 100: every mark cuts in full (DCTCP's {@code alpha / 2}), as on one path
 * @param aimdLossCutScaledByAlpha false: a loss halves the path's AIMD window; true: a loss cuts
 *     it like an ECN mark, to {@code window * (1 - alpha / 2)}, so a path whose packets are not
 *     marked (random loss, not congestion) keeps its window while a marked, congested one halves;
 *     true also turns on [SPEC-CC-24] (where ECN is read, a loss with no mark on its path for a
 *     round trip does not cut at all) and [SPEC-CC-25] (the rate hint raised by at most a third
 *     for such unmarked losses, which never reach the receiver)
 * @param aimdFirstFlightBytes bytes an AIMD connection may have in flight, over all its paths,
 *     until the first ACK brings the receiver's rate hint; 0: no such cap (only the windows), so a
 *     connection into a busy receiver does not send a window per path blind
 * @param aimdFirstFlightSpreadNanos an AIMD controller given a seeded random source delays its
 *     connection's first packet by a random time below this, so connections that start together
 *     (an incast) do not all land their first flight in the same instant; 0: no delay
 * @param aimdAnnouncedSpreadIntervals with a fresh share announced in ACCEPT ([SPEC-CC-28]), the
 *     first packet's delay is drawn below this many intervals of that share (one first flight's
 *     bytes at the share), instead of below {@code aimdFirstFlightSpreadNanos}; 0: the announcement
 *     is not used
 * @param acceptReannouncePercent a server sends a connection it accepted its ACCEPT again, with the
 *     share it gives it now and the next announcement sequence, while the client has sent nothing
 *     and is counted as a sender in advance, once that share is below this percent of the share
 *     the connection was last told ([SPEC-CONN-17]): the connections accepted first of many were
 *     told the share of a receiver with fewer senders; 0: never
 * @param idleResend when nothing new may be sent, resend the oldest outstanding packet whose
 *     latest transmission has waited a smoothed round trip (plus {@code maxAckDelayNanos} on a
 *     path losing little), as a duplicate (a tail-loss probe: no loss is declared) ([SPEC-LOSS-8]);
 *     false: such a packet waits for a verdict, its retransmission or its timeout
 * @param idleResendMaxCopies with {@code idleResend}, the most transmissions of one packet an idle
 *     resend may leave awaiting their verdicts at once, the first included: an idle sender resends a
 *     packet again, about a round trip after its latest copy, until that many are in flight
 *     ([SPEC-LOSS-8]); 1 would allow none, so at least 2
 * @param ackRepeatAboveLossPercent a receiver sends each ACK of a path twice while its estimate of
 *     the path's loss (the fraction of path sequence numbers skipped, a moving average) is above
 *     this percent, three times while it is above twice this percent ([SPEC-SACK-14]): on a path
 *     that loses that much, an ACK that nothing follows soon is the only word of the packets it
 *     covers; 100: never
 * @param fullWindowAboveLossPercent above this percent of random loss, a path whose window is
 *     full gives its pacing share of the rate hint to the paths with room (the AIMD controller's
 *     moving average of unmarked losses, with {@code aimdLossCutScaledByAlpha}, [SPEC-CC-35]), and
 *     while every window is full an idle resend may leave on a path that loses more than this
 *     percent though its window is full (with {@code idleResend}, [SPEC-LOSS-11]): the windows are
 *     then full of packets that are lost but not yet judged; 100: never
 * @param ackEachPacketAfterGap once a receiver has seen a path's sequence numbers skip (a packet
 *     lost on it, or overtaken), it acknowledges every later packet of that path at once instead of
 *     every {@code ackEveryPackets} ([SPEC-SACK-15]): on a lossy path the sender then learns of each
 *     arrival without the delayed-ACK wait, and a lost ACK is covered by the next packet's;
 *     false: {@code ackEveryPackets} and {@code maxAckDelayNanos} alone
 * @param aimdLossCompensationPercent with {@code aimdLossCutScaledByAlpha}, the percent of its
 *     unmarked-loss average {@code u} by which an AIMD sender raises the receiver's rate hint: it
 *     may send {@code hint / (1 - u * percent / 100)}, the raise capped at a third of the hint
 *     ([SPEC-CC-25]); 50 compensates half of {@code u} (the sender's verdicts count lost ACKs of
 *     packets that arrived as losses too), 100 all of it (the marked paths' losses are not counted
 *     in {@code u} at all); 0: the hint as it is
 * @param aimdLossAverageOnUnmarkedPaths with {@code aimdLossCutScaledByAlpha}, the unmarked-loss
 *     average {@code u} of [SPEC-CC-25] moves toward 0 only on acknowledgements of paths that had
 *     no mark for a round trip, the paths whose losses move it toward 1 ([SPEC-CC-37]): it is then
 *     the loss rate of those paths, where otherwise the acknowledgements of marked paths dilute it
 *     by the share of marked paths; false: every acknowledgement moves it toward 0
 * @param bundleAcks when an ACK is due and a DATA packet for the same path is ready, send the ACK
 *     ahead of it in one datagram ([SPEC-SACK-13]); false: every ACK is a datagram of its own
 * @param equalLengthPackets cut every message into packets of one length, the last overlapping
 *     its predecessor ([SPEC-MSG-3]), so messages of one length leave as datagrams of one length
 *     and a segmentation-offload send carries several; false: packets of the full payload size and
 *     a shorter last one. Not negotiated: both ends of a connection MUST use the same value
 * @param timeoutProbes a retransmission timeout declares only its path's oldest transmission in
 *     flight lost, a probe, and leaves the rest to the probe's acknowledgement ([SPEC-LOSS-1]) or
 *     the next, backed-off expiry ([SPEC-LOSS-5]): a timeout has no evidence that anything after
 *     the oldest was lost, and a peer that only stalled (a descheduled receiver) would otherwise
 *     be sent the whole flight again; false: every transmission sent at or before now − rto is
 *     declared lost
 * @param aimdSlowStart each path of an AIMD controller starts in slow start: its window grows by
 *     the bytes acknowledged (doubling every round trip) until its first cut, loss or mark, and
 *     only then by one datagram per window ([SPEC-CC-31]); false: additive increase from the start
 * @param aimdBalancedIncrease the AIMD controller's additive increase is shared out among the
 *     paths in service BALIA-style ([SPEC-CC-32]): the connection still grows by one datagram per
 *     path and round trip in all, but most of it goes to the paths with the highest rates
 *     (window / srtt), so a connection with clear paths leaves its congested ones to connections
 *     that have no other way; false: each path grows by one datagram per window acknowledged
 * @param aimdAlphaRoundTripGainShift 0: the AIMD controller's {@code alpha} moves on every ECN
 *     feedback with gain {@code 1 / 2^aimdEcnGainShift} ([SPEC-CC-7]); 1 to 16: it moves once per
 *     round trip of the path (a window's worth of resolved bytes), toward the fraction of the
 *     packets reported in that round trip that were marked, with gain
 *     {@code 1 / 2^aimdAlphaRoundTripGainShift}, as DCTCP does ([SPEC-CC-36])
 * @param aimdBalancedIncreaseMaxDatagrams 0: with {@code aimdBalancedIncrease}, the connection
 *     grows by one datagram per path in service and round trip ([SPEC-CC-32]); 1 to 1024: by at
 *     most this many datagrams per round trip however many paths it has, so a connection spread
 *     over more paths splits its traffic more finely without growing faster ([SPEC-CC-39])
 * @param aimdSharedMarkByMeanAlpha with {@code aimdSharedMarkCutPercent} below 100, the part of a
 *     path's {@code alpha} taken as the marks every path shares is the connection's mean
 *     {@code alpha} (weighted by the paths' windows, at most the path's own) rather than its least
 *     ([SPEC-CC-40]): a path marked more than its connection's average still cuts for the excess
 *     in full, and the connection as a whole cuts by its own marked fraction's configured percent;
 *     false: the least {@code alpha} of the paths in service ([SPEC-CC-29])
 * @param aimdPathsForShareMin 0: an AIMD connection sends new data on every path it has in service;
 *     1 to 64: under a receiver's rate hint it sends new data on the first
 *     {@code max(aimdPathsForShareMin, ceil(hint x rtt / maxDatagramBytes))} of its paths in
 *     service only (the share's bandwidth-delay product in datagrams, one per path), the others
 *     kept in service but idle, so a connection whose share is a datagram or two per round trip
 *     does not spread it over paths that each carry a packet every few round trips
 *     ([SPEC-CC-42])
 * @param aimdAnnouncedFirstRoundTrip an AIMD controller with a seeded random source whose
 *     connection first asks to send while a share announced in ACCEPT is fresh ([SPEC-CC-28])
 *     paces its first round trip at that share, from its first packet, with a first flight of up
 *     to the share's bandwidth-delay product ({@code initialRttNanos}) instead of
 *     {@code aimdFirstFlightBytes} ([SPEC-CC-43]); false: one first flight, then the first
 *     hint
 * @param aimdAnnouncedFirstFlightPercent with {@code aimdAnnouncedFirstRoundTrip}, the percent of
 *     the announced share's bandwidth-delay product ({@code initialRttNanos}) the first round trip
 *     may hold in flight before the first hint, 1 to 100 (at least {@code aimdFirstFlightBytes}
 *     still) ([SPEC-CC-44])
 * @param aimdInitialAlphaPercent the {@code alpha} a path of an AIMD controller starts with, in
 *     percent, 0 to 100 ([SPEC-CC-7]; 100: 1, DCTCP's conservative start)
 * @param aimdAlphaWarmupSamples {@code w} above 0: the first ECN feedbacks of a path move its
 *     {@code alpha} by {@code 1 / (w + n + 1)}, {@code n} the feedbacks before, while that is more
 *     than the gain {@code 1 / 2^aimdEcnGainShift}: {@code alpha} is the mean of the reported
 *     fractions with the start value weighed as {@code w} of them ([SPEC-CC-45]); 0: the gain from
 *     the first feedback on. Not used with {@code aimdAlphaRoundTripGainShift} above 0, whose
 *     {@code alpha} moves once per round trip ([SPEC-CC-36])
 * @param aimdFullWindowHandoff true: under a hint, the share of the hint of a path whose window is
 *     full goes to the paths in service with room, whatever the random loss ([SPEC-CC-46]); false:
 *     only above {@code fullWindowAboveLossPercent} of random loss ([SPEC-CC-35])
 * @param pathFailureNeedsAnswer a path's timeouts fail it ([SPEC-PATH-11]) only once the peer has
 *     answered during its run of timeouts: something sent on the connection after the run began
 *     was acknowledged. Until then the silence may be the whole connection's (the peer or this
 *     host stalled), and moving the path's data to another path as silent helps nothing; the
 *     path stays SUSPECT and, with no answer by {@code maxConsecutiveTimeouts}, the connection
 *     ends ([SPEC-PATH-15]); false: timeouts fail a path whatever the other paths hear
 */
public record EngineConfig(
        int maxDatagramBytes,
        int sequenceWindow,
        int pathWindowPackets,
        int maxPaths,
        int maxStreams,
        int maxWorkRequests,
        int maxPostedReceives,
        int completionQueueCapacity,
        int maxConnections,
        int ackEveryPackets,
        long maxAckDelayNanos,
        int reorderAllowancePackets,
        long initialRttNanos,
        long minRtoNanos,
        long maxRtoNanos,
        long overdueFloorNanos,
        int maxConsecutiveTimeouts,
        long rnrRetryDelayNanos,
        long congestionWindowBytes,
        long handshakeRetryNanos,
        long handshakeTimeoutNanos,
        long cookieLifetimeNanos,
        long idleTimeoutNanos,
        long keepAliveNanos,
        long idleShrinkNanos,
        long closeRetryNanos,
        int closeRetries,
        long aimdInitialWindowBytes,
        long aimdMinWindowBytes,
        long aimdMaxWindowBytes,
        int aimdEcnGainShift,
        int pathFailureTimeouts,
        int pathFailureConfidenceBits,
        long pathProbeIntervalNanos,
        long pathProbeMaxIntervalNanos,
        long receiveCapacityBytesPerSecond,
        long fairSharePeriodNanos,
        int aimdPacingGainPercent,
        long pacingBurstBytes,
        boolean aimdLossCutScaledByAlpha,
        long aimdDelayThresholdNanos,
        int aimdSharedMarkCutPercent,
        long aimdFirstFlightBytes,
        long aimdFirstFlightSpreadNanos,
        int aimdAnnouncedSpreadIntervals,
        int acceptReannouncePercent,
        boolean idleResend,
        int idleResendMaxCopies,
        int ackRepeatAboveLossPercent,
        int fullWindowAboveLossPercent,
        boolean ackEachPacketAfterGap,
        int aimdLossCompensationPercent,
        boolean aimdLossAverageOnUnmarkedPaths,
        boolean bundleAcks,
        boolean equalLengthPackets,
        boolean timeoutProbes,
        boolean aimdSlowStart,
        boolean aimdBalancedIncrease,
        int aimdAlphaRoundTripGainShift,
        int aimdBalancedIncreaseMaxDatagrams,
        boolean aimdSharedMarkByMeanAlpha,
        boolean pathFailureNeedsAnswer,
        long pathRateWindowNanos,
        boolean shortAcks,
        long pacingWakeQuantumBytes,
        int aimdPathsForShareMin,
        boolean aimdAnnouncedFirstRoundTrip,
        int aimdAnnouncedFirstFlightPercent,
        int aimdInitialAlphaPercent,
        int aimdAlphaWarmupSamples,
        boolean aimdFullWindowHandoff) {

    /** Smallest datagram size: what CONNECT and ACCEPT may advertise, and room for 128 payload bytes. */
    public static final int MIN_DATAGRAM_BYTES = Math.max(256, WireConstants.DATA_OVERHEAD_BYTES + 128);
    /** Largest datagram size: the UDP payload limit over IPv4. */
    public static final int MAX_DATAGRAM_BYTES = 65_507;
    /** Largest {@code aimdMaxWindowBytes}: 2^40 bytes (keeps the controller's fixed-point arithmetic exact). */
    public static final long MAX_AIMD_WINDOW_BYTES = 1L << 40;
    /** Largest {@code receiveCapacityBytesPerSecond}: 2^38 bytes/s (about 2.2 Tbit/s), so shares sum exactly. */
    public static final long MAX_RECEIVE_CAPACITY_BYTES_PER_SECOND = 1L << 38;
    /** Smallest {@code pathRateWindowNanos}: 2^10 ns (about 1 us). */
    public static final long MIN_PATH_RATE_WINDOW_NANOS = 1L << 10;
    /** Largest {@code pathRateWindowNanos}: 2^34 ns (about 17 s). */
    public static final long MAX_PATH_RATE_WINDOW_NANOS = 1L << 34;

    /** Validates every field; throws {@link IllegalArgumentException} naming the field and the rule. */
    public EngineConfig {
        range("maxDatagramBytes", maxDatagramBytes, MIN_DATAGRAM_BYTES, MAX_DATAGRAM_BYTES);
        range("idleResendMaxCopies", idleResendMaxCopies, 2, 64);
        range("ackRepeatAboveLossPercent", ackRepeatAboveLossPercent, 1, 100);
        range("fullWindowAboveLossPercent", fullWindowAboveLossPercent, 1, 100);
        range("aimdLossCompensationPercent", aimdLossCompensationPercent, 0, 100);
        powerOfTwo("sequenceWindow", sequenceWindow, 64, 1 << 24);
        powerOfTwo("pathWindowPackets", pathWindowPackets, 64, 1 << 20);
        range("maxPaths", maxPaths, 1, 65_535);
        range("maxStreams", maxStreams, 1, Integer.MAX_VALUE);
        range("maxWorkRequests", maxWorkRequests, 1, 1 << 24);
        range("maxPostedReceives", maxPostedReceives, 1, 1 << 24);
        range("completionQueueCapacity", completionQueueCapacity, 16, 1 << 24);
        range("maxConnections", maxConnections, 1, 1 << 24);
        range("ackEveryPackets", ackEveryPackets, 1, 256);
        positive("maxAckDelayNanos", maxAckDelayNanos);
        range("reorderAllowancePackets", reorderAllowancePackets, 0, 128);
        positive("initialRttNanos", initialRttNanos);
        positive("minRtoNanos", minRtoNanos);
        positive("overdueFloorNanos", overdueFloorNanos);
        if (maxRtoNanos < minRtoNanos) {
            throw new IllegalArgumentException("maxRtoNanos (" + maxRtoNanos + ") must be >= minRtoNanos (" + minRtoNanos + ")");
        }
        range("maxConsecutiveTimeouts", maxConsecutiveTimeouts, 1, 62);
        positive("rnrRetryDelayNanos", rnrRetryDelayNanos);
        if (congestionWindowBytes < maxDatagramBytes) {
            throw new IllegalArgumentException("congestionWindowBytes (" + congestionWindowBytes
                    + ") must hold at least one datagram (maxDatagramBytes " + maxDatagramBytes + ")");
        }
        positive("handshakeRetryNanos", handshakeRetryNanos);
        positive("handshakeTimeoutNanos", handshakeTimeoutNanos);
        positive("cookieLifetimeNanos", cookieLifetimeNanos);
        positive("idleTimeoutNanos", idleTimeoutNanos);
        if (keepAliveNanos < 0 || (keepAliveNanos > 0 && keepAliveNanos >= idleTimeoutNanos)) {
            throw new IllegalArgumentException("keepAliveNanos (" + keepAliveNanos
                    + ") must be 0 (off) or positive and below idleTimeoutNanos (" + idleTimeoutNanos + ")");
        }
        if (idleShrinkNanos < 0 || (idleShrinkNanos > 0 && idleShrinkNanos >= idleTimeoutNanos)) {
            throw new IllegalArgumentException("idleShrinkNanos (" + idleShrinkNanos + ") must be 0 (a third of"
                    + " idleTimeoutNanos) or positive and below idleTimeoutNanos (" + idleTimeoutNanos + ")");
        }
        positive("closeRetryNanos", closeRetryNanos);
        range("closeRetries", closeRetries, 0, 100);
        positive("aimdMinWindowBytes", aimdMinWindowBytes);
        if (aimdInitialWindowBytes < aimdMinWindowBytes) {
            throw new IllegalArgumentException("aimdInitialWindowBytes (" + aimdInitialWindowBytes
                    + ") must be >= aimdMinWindowBytes (" + aimdMinWindowBytes + ")");
        }
        if (aimdMaxWindowBytes < aimdInitialWindowBytes || aimdMaxWindowBytes > MAX_AIMD_WINDOW_BYTES) {
            throw new IllegalArgumentException("aimdMaxWindowBytes (" + aimdMaxWindowBytes
                    + ") must be >= aimdInitialWindowBytes (" + aimdInitialWindowBytes + ") and <= "
                    + MAX_AIMD_WINDOW_BYTES);
        }
        range("aimdEcnGainShift", aimdEcnGainShift, 1, 16);
        range("aimdAlphaRoundTripGainShift", aimdAlphaRoundTripGainShift, 0, 16);
        range("aimdBalancedIncreaseMaxDatagrams", aimdBalancedIncreaseMaxDatagrams, 0, 1024);
        range("pathFailureTimeouts", pathFailureTimeouts, 1, 62);
        range("pathFailureConfidenceBits", pathFailureConfidenceBits, 0, 30);
        positive("pathProbeIntervalNanos", pathProbeIntervalNanos);
        if (pathRateWindowNanos < MIN_PATH_RATE_WINDOW_NANOS || pathRateWindowNanos > MAX_PATH_RATE_WINDOW_NANOS
                || Long.bitCount(pathRateWindowNanos) != 1) {
            throw new IllegalArgumentException("pathRateWindowNanos is " + pathRateWindowNanos
                    + " but must be a power of two in [" + MIN_PATH_RATE_WINDOW_NANOS + ", " + MAX_PATH_RATE_WINDOW_NANOS + "]");
        }
        if (pathProbeMaxIntervalNanos < pathProbeIntervalNanos) {
            throw new IllegalArgumentException("pathProbeMaxIntervalNanos (" + pathProbeMaxIntervalNanos
                    + ") must be >= pathProbeIntervalNanos (" + pathProbeIntervalNanos + ")");
        }
        range("receiveCapacityBytesPerSecond", receiveCapacityBytesPerSecond, 0, MAX_RECEIVE_CAPACITY_BYTES_PER_SECOND);
        positive("fairSharePeriodNanos", fairSharePeriodNanos);
        range("aimdPacingGainPercent", aimdPacingGainPercent, 100, 1000);
        range("pacingBurstBytes", pacingBurstBytes, 0, MAX_AIMD_WINDOW_BYTES);
        range("pacingWakeQuantumBytes", pacingWakeQuantumBytes, 0, MAX_AIMD_WINDOW_BYTES);
        range("aimdDelayThresholdNanos", aimdDelayThresholdNanos, 0, 10_000_000_000L);
        range("aimdSharedMarkCutPercent", aimdSharedMarkCutPercent, 0, 100);
        range("aimdFirstFlightBytes", aimdFirstFlightBytes, 0, MAX_AIMD_WINDOW_BYTES);
        range("aimdFirstFlightSpreadNanos", aimdFirstFlightSpreadNanos, 0, 10_000_000_000L);
        range("aimdAnnouncedSpreadIntervals", aimdAnnouncedSpreadIntervals, 0, 64);
        range("acceptReannouncePercent", acceptReannouncePercent, 0, 99);
        range("aimdPathsForShareMin", aimdPathsForShareMin, 0, 64);
        range("aimdAnnouncedFirstFlightPercent", aimdAnnouncedFirstFlightPercent, 1, 100);
        range("aimdInitialAlphaPercent", aimdInitialAlphaPercent, 0, 100);
        range("aimdAlphaWarmupSamples", aimdAlphaWarmupSamples, 0, 65_536);
    }

    /** The defaults, tuned for a data-centre fabric with round trips of tens of microseconds. */
    public static EngineConfig defaults() {
        return new EngineConfig(
                4096, // maxDatagramBytes
                1 << 16, // sequenceWindow
                1 << 13, // pathWindowPackets
                64, // maxPaths
                4096, // maxStreams
                1 << 14, // maxWorkRequests
                1 << 14, // maxPostedReceives
                1 << 16, // completionQueueCapacity
                1 << 16, // maxConnections
                4, // ackEveryPackets
                20_000L, // maxAckDelayNanos: 20 us
                0, // reorderAllowancePackets
                100_000L, // initialRttNanos: 100 us
                1_000_000L, // minRtoNanos: 1 ms
                1_000_000_000L, // maxRtoNanos: 1 s
                250_000L, // overdueFloorNanos: 250 us, a quarter of the minimum RTO
                12, // maxConsecutiveTimeouts
                200_000L, // rnrRetryDelayNanos: 200 us
                16L << 20, // congestionWindowBytes: 16 MiB
                5_000_000L, // handshakeRetryNanos: 5 ms
                5_000_000_000L, // handshakeTimeoutNanos: 5 s
                10_000_000_000L, // cookieLifetimeNanos: 10 s
                15_000_000_000L, // idleTimeoutNanos: 15 s
                5_000_000_000L, // keepAliveNanos: 5 s
                0L, // idleShrinkNanos: a third of idleTimeoutNanos (5 s on the defaults)
                5_000_000L, // closeRetryNanos: 5 ms
                5, // closeRetries
                64L << 10, // aimdInitialWindowBytes: 64 KiB
                8L << 10, // aimdMinWindowBytes: 8 KiB (two default datagrams)
                16L << 20, // aimdMaxWindowBytes: 16 MiB (the fixed window's default)
                4, // aimdEcnGainShift: g = 1/16
                3, // pathFailureTimeouts
                10, // pathFailureConfidenceBits: a failing run must be below 2^-10 likely under random loss
                1_000_000L, // pathProbeIntervalNanos: 1 ms
                100_000_000L, // pathProbeMaxIntervalNanos: 100 ms
                0L, // receiveCapacityBytesPerSecond: allocator off
                100_000L, // fairSharePeriodNanos: 100 us
                125, // aimdPacingGainPercent: 1.25 windows per RTT
                56L << 10, // pacingBurstBytes: 56 KiB; a late wake-up catches up that much, one GSO send with the datagram past it
                false, // aimdLossCutScaledByAlpha: a loss halves the window (a fabric may drop without marking)
                500_000L, // aimdDelayThresholdNanos: 500 us of queueing counts as a mark where ECN is unreadable
                100, // aimdSharedMarkCutPercent: every mark cuts in full, as DCTCP
                0L, // aimdFirstFlightBytes: no cap before the first hint
                0L, // aimdFirstFlightSpreadNanos: the first packet leaves at once
                1, // aimdAnnouncedSpreadIntervals: one interval of the share announced in ACCEPT
                90, // acceptReannouncePercent: ACCEPT again once the share is below 90% of the one announced
                false, // idleResend: off, a packet awaiting its verdict waits for it or its timer
                4, // idleResendMaxCopies: up to 4 copies of a packet in flight from an idle sender
                15, // ackRepeatAboveLossPercent: ACKs twice above 15% loss, three times above 30%
                2, // fullWindowAboveLossPercent: above 2% random loss a full window's share goes to the others
                false, // ackEachPacketAfterGap: ackEveryPackets on every path, lossy or not
                50, // aimdLossCompensationPercent: half of the unmarked-loss average raises the hint
                false, // aimdLossAverageOnUnmarkedPaths: every acknowledgement dilutes the unmarked-loss average
                true, // bundleAcks: an ACK rides ahead of ready DATA on its path
                true, // equalLengthPackets: one packet length per message, the last overlapping
                true, // timeoutProbes: a retransmission timeout resends the oldest transmission only
                true, // aimdSlowStart: each AIMD path doubles its window per round trip until its first cut
                false, // aimdBalancedIncrease: each AIMD path grows by one datagram per window acknowledged
                0, // aimdAlphaRoundTripGainShift: alpha moves on every ECN feedback
                0, // aimdBalancedIncreaseMaxDatagrams: the balanced increase is a datagram per path in service
                false, // aimdSharedMarkByMeanAlpha: the shared marks are the least alpha of the paths
                true, // pathFailureNeedsAnswer: a path fails only once the peer answered during its run
                1L << 20, // pathRateWindowNanos: 2^20 ns (about 1 ms), the window of a path's send rate
                true, // shortAcks: an ACK without a hole older than 64 packets in the 84-byte form
                32L << 10, // pacingWakeQuantumBytes: 32 KiB, about 11 datagrams of an 8 KiB message's cut a paced wake-up
                0, // aimdPathsForShareMin: every path in service takes new data, whatever the share
                false, // aimdAnnouncedFirstRoundTrip: one first flight, then the first hint
                100, // aimdAnnouncedFirstFlightPercent: the announced share's whole bandwidth-delay product
                100, // aimdInitialAlphaPercent: a path's alpha starts at 1
                0, // aimdAlphaWarmupSamples: alpha moves by its gain from the first feedback on
                false); // aimdFullWindowHandoff: a full window's share goes to the others only under random loss
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder(defaults());
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * With {@code keepAliveNanos} 0, how long a connection sends nothing before its idle point
     * [SPEC-CONN-18]: {@code idleShrinkNanos}, or when that is 0 a third of
     * {@code idleTimeoutNanos} (the default keep-alive's share of the default idle timeout), at
     * least 1 ns.
     */
    public long idleShrinkIntervalNanos() {
        return idleShrinkNanos > 0 ? idleShrinkNanos : Math.max(1, idleTimeoutNanos / 3);
    }

    /** Largest DATA payload a packet of {@code datagramBytes} can carry. */
    public static int payloadBytesFor(int datagramBytes) {
        return datagramBytes - WireConstants.DATA_OVERHEAD_BYTES;
    }

    private static void range(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " is " + value + " but must be in [" + min + ", " + max + "]");
        }
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " is " + value + " but must be > 0");
        }
    }

    private static void powerOfTwo(String name, int value, int min, int max) {
        range(name, value, min, max);
        if (Integer.bitCount(value) != 1) {
            throw new IllegalArgumentException(name + " is " + value + " but must be a power of two");
        }
    }

    /** Mutable builder; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private int maxDatagramBytes;
        private int sequenceWindow;
        private int pathWindowPackets;
        private int maxPaths;
        private int maxStreams;
        private int maxWorkRequests;
        private int maxPostedReceives;
        private int completionQueueCapacity;
        private int maxConnections;
        private int ackEveryPackets;
        private long maxAckDelayNanos;
        private int reorderAllowancePackets;
        private long initialRttNanos;
        private long minRtoNanos;
        private long maxRtoNanos;
        private long overdueFloorNanos;
        private int maxConsecutiveTimeouts;
        private long rnrRetryDelayNanos;
        private long congestionWindowBytes;
        private long handshakeRetryNanos;
        private long handshakeTimeoutNanos;
        private long cookieLifetimeNanos;
        private long idleTimeoutNanos;
        private long keepAliveNanos;
        private long idleShrinkNanos;
        private long closeRetryNanos;
        private int closeRetries;
        private long aimdInitialWindowBytes;
        private long aimdMinWindowBytes;
        private long aimdMaxWindowBytes;
        private int aimdEcnGainShift;
        private int pathFailureTimeouts;
        private int pathFailureConfidenceBits;
        private long pathProbeIntervalNanos;
        private long pathProbeMaxIntervalNanos;
        private long receiveCapacityBytesPerSecond;
        private long fairSharePeriodNanos;
        private int aimdPacingGainPercent;
        private long pacingBurstBytes;
        private long pathRateWindowNanos;
        private boolean shortAcks;
        private long pacingWakeQuantumBytes;
        private int aimdPathsForShareMin;
        private boolean aimdLossCutScaledByAlpha;
        private long aimdDelayThresholdNanos;
        private int aimdSharedMarkCutPercent;
        private long aimdFirstFlightBytes;
        private long aimdFirstFlightSpreadNanos;
        private int aimdAnnouncedSpreadIntervals;
        private int acceptReannouncePercent;
        private boolean idleResend;
        private int idleResendMaxCopies;
        private int ackRepeatAboveLossPercent;
        private int fullWindowAboveLossPercent;
        private boolean ackEachPacketAfterGap;
        private int aimdLossCompensationPercent;
        private boolean aimdLossAverageOnUnmarkedPaths;
        private boolean bundleAcks;
        private boolean equalLengthPackets;
        private boolean timeoutProbes;
        private boolean pathFailureNeedsAnswer;
        private boolean aimdSlowStart;
        private boolean aimdBalancedIncrease;
        private int aimdAlphaRoundTripGainShift;
        private int aimdBalancedIncreaseMaxDatagrams;
        private boolean aimdSharedMarkByMeanAlpha;
        private boolean aimdAnnouncedFirstRoundTrip;
        private int aimdAnnouncedFirstFlightPercent;
        private int aimdInitialAlphaPercent;
        private int aimdAlphaWarmupSamples;
        private boolean aimdFullWindowHandoff;

        private Builder(EngineConfig c) {
            maxDatagramBytes = c.maxDatagramBytes;
            sequenceWindow = c.sequenceWindow;
            pathWindowPackets = c.pathWindowPackets;
            maxPaths = c.maxPaths;
            maxStreams = c.maxStreams;
            maxWorkRequests = c.maxWorkRequests;
            maxPostedReceives = c.maxPostedReceives;
            completionQueueCapacity = c.completionQueueCapacity;
            maxConnections = c.maxConnections;
            ackEveryPackets = c.ackEveryPackets;
            maxAckDelayNanos = c.maxAckDelayNanos;
            reorderAllowancePackets = c.reorderAllowancePackets;
            initialRttNanos = c.initialRttNanos;
            minRtoNanos = c.minRtoNanos;
            maxRtoNanos = c.maxRtoNanos;
            overdueFloorNanos = c.overdueFloorNanos;
            maxConsecutiveTimeouts = c.maxConsecutiveTimeouts;
            rnrRetryDelayNanos = c.rnrRetryDelayNanos;
            congestionWindowBytes = c.congestionWindowBytes;
            handshakeRetryNanos = c.handshakeRetryNanos;
            handshakeTimeoutNanos = c.handshakeTimeoutNanos;
            cookieLifetimeNanos = c.cookieLifetimeNanos;
            idleTimeoutNanos = c.idleTimeoutNanos;
            keepAliveNanos = c.keepAliveNanos;
            idleShrinkNanos = c.idleShrinkNanos;
            closeRetryNanos = c.closeRetryNanos;
            closeRetries = c.closeRetries;
            aimdInitialWindowBytes = c.aimdInitialWindowBytes;
            aimdMinWindowBytes = c.aimdMinWindowBytes;
            aimdMaxWindowBytes = c.aimdMaxWindowBytes;
            aimdEcnGainShift = c.aimdEcnGainShift;
            pathFailureTimeouts = c.pathFailureTimeouts;
            pathFailureConfidenceBits = c.pathFailureConfidenceBits;
            pathProbeIntervalNanos = c.pathProbeIntervalNanos;
            pathProbeMaxIntervalNanos = c.pathProbeMaxIntervalNanos;
            receiveCapacityBytesPerSecond = c.receiveCapacityBytesPerSecond;
            fairSharePeriodNanos = c.fairSharePeriodNanos;
            aimdPacingGainPercent = c.aimdPacingGainPercent;
            pacingBurstBytes = c.pacingBurstBytes;
            pathRateWindowNanos = c.pathRateWindowNanos;
            shortAcks = c.shortAcks;
            pacingWakeQuantumBytes = c.pacingWakeQuantumBytes;
            aimdPathsForShareMin = c.aimdPathsForShareMin;
            aimdLossCutScaledByAlpha = c.aimdLossCutScaledByAlpha;
            aimdDelayThresholdNanos = c.aimdDelayThresholdNanos;
            aimdSharedMarkCutPercent = c.aimdSharedMarkCutPercent;
            aimdFirstFlightBytes = c.aimdFirstFlightBytes;
            aimdFirstFlightSpreadNanos = c.aimdFirstFlightSpreadNanos;
            aimdAnnouncedSpreadIntervals = c.aimdAnnouncedSpreadIntervals;
            acceptReannouncePercent = c.acceptReannouncePercent;
            idleResend = c.idleResend;
            idleResendMaxCopies = c.idleResendMaxCopies;
            ackRepeatAboveLossPercent = c.ackRepeatAboveLossPercent;
            fullWindowAboveLossPercent = c.fullWindowAboveLossPercent;
            ackEachPacketAfterGap = c.ackEachPacketAfterGap;
            aimdLossCompensationPercent = c.aimdLossCompensationPercent;
            aimdLossAverageOnUnmarkedPaths = c.aimdLossAverageOnUnmarkedPaths;
            bundleAcks = c.bundleAcks;
            equalLengthPackets = c.equalLengthPackets;
            timeoutProbes = c.timeoutProbes;
            pathFailureNeedsAnswer = c.pathFailureNeedsAnswer;
            aimdSlowStart = c.aimdSlowStart;
            aimdBalancedIncrease = c.aimdBalancedIncrease;
            aimdAlphaRoundTripGainShift = c.aimdAlphaRoundTripGainShift;
            aimdBalancedIncreaseMaxDatagrams = c.aimdBalancedIncreaseMaxDatagrams;
            aimdSharedMarkByMeanAlpha = c.aimdSharedMarkByMeanAlpha;
            aimdAnnouncedFirstRoundTrip = c.aimdAnnouncedFirstRoundTrip;
            aimdAnnouncedFirstFlightPercent = c.aimdAnnouncedFirstFlightPercent;
            aimdInitialAlphaPercent = c.aimdInitialAlphaPercent;
            aimdAlphaWarmupSamples = c.aimdAlphaWarmupSamples;
            aimdFullWindowHandoff = c.aimdFullWindowHandoff;
        }

        public Builder maxDatagramBytes(int v) { maxDatagramBytes = v; return this; }
        public Builder sequenceWindow(int v) { sequenceWindow = v; return this; }
        public Builder pathWindowPackets(int v) { pathWindowPackets = v; return this; }
        public Builder maxPaths(int v) { maxPaths = v; return this; }
        public Builder maxStreams(int v) { maxStreams = v; return this; }
        public Builder maxWorkRequests(int v) { maxWorkRequests = v; return this; }
        public Builder maxPostedReceives(int v) { maxPostedReceives = v; return this; }
        public Builder completionQueueCapacity(int v) { completionQueueCapacity = v; return this; }
        public Builder maxConnections(int v) { maxConnections = v; return this; }
        public Builder ackEveryPackets(int v) { ackEveryPackets = v; return this; }
        public Builder maxAckDelayNanos(long v) { maxAckDelayNanos = v; return this; }
        public Builder reorderAllowancePackets(int v) { reorderAllowancePackets = v; return this; }
        public Builder initialRttNanos(long v) { initialRttNanos = v; return this; }
        public Builder minRtoNanos(long v) { minRtoNanos = v; return this; }
        public Builder maxRtoNanos(long v) { maxRtoNanos = v; return this; }
        /** Sets {@link EngineConfig#overdueFloorNanos}. */
        public Builder overdueFloorNanos(long v) { overdueFloorNanos = v; return this; }
        public Builder maxConsecutiveTimeouts(int v) { maxConsecutiveTimeouts = v; return this; }
        public Builder rnrRetryDelayNanos(long v) { rnrRetryDelayNanos = v; return this; }
        public Builder congestionWindowBytes(long v) { congestionWindowBytes = v; return this; }
        public Builder handshakeRetryNanos(long v) { handshakeRetryNanos = v; return this; }
        public Builder handshakeTimeoutNanos(long v) { handshakeTimeoutNanos = v; return this; }
        public Builder cookieLifetimeNanos(long v) { cookieLifetimeNanos = v; return this; }
        public Builder idleTimeoutNanos(long v) { idleTimeoutNanos = v; return this; }
        public Builder keepAliveNanos(long v) { keepAliveNanos = v; return this; }
        public Builder idleShrinkNanos(long v) { idleShrinkNanos = v; return this; }
        public Builder closeRetryNanos(long v) { closeRetryNanos = v; return this; }
        public Builder closeRetries(int v) { closeRetries = v; return this; }
        public Builder aimdInitialWindowBytes(long v) { aimdInitialWindowBytes = v; return this; }
        public Builder aimdMinWindowBytes(long v) { aimdMinWindowBytes = v; return this; }
        public Builder aimdMaxWindowBytes(long v) { aimdMaxWindowBytes = v; return this; }
        public Builder aimdEcnGainShift(int v) { aimdEcnGainShift = v; return this; }
        public Builder pathFailureTimeouts(int v) { pathFailureTimeouts = v; return this; }
        /** Sets {@link EngineConfig#pathFailureConfidenceBits}. */
        public Builder pathFailureConfidenceBits(int v) { pathFailureConfidenceBits = v; return this; }
        public Builder pathProbeIntervalNanos(long v) { pathProbeIntervalNanos = v; return this; }
        public Builder pathProbeMaxIntervalNanos(long v) { pathProbeMaxIntervalNanos = v; return this; }
        public Builder receiveCapacityBytesPerSecond(long v) { receiveCapacityBytesPerSecond = v; return this; }
        public Builder fairSharePeriodNanos(long v) { fairSharePeriodNanos = v; return this; }
        public Builder aimdPacingGainPercent(int v) { aimdPacingGainPercent = v; return this; }
        public Builder pacingBurstBytes(long v) { pacingBurstBytes = v; return this; }
        /** Sets {@link EngineConfig#pathRateWindowNanos}. */
        public Builder pathRateWindowNanos(long v) { pathRateWindowNanos = v; return this; }
        /** Sets {@link EngineConfig#shortAcks}. */
        public Builder shortAcks(boolean v) { shortAcks = v; return this; }
        /** Sets {@link EngineConfig#pacingWakeQuantumBytes}. */
        public Builder pacingWakeQuantumBytes(long v) { pacingWakeQuantumBytes = v; return this; }
        /** Sets {@link EngineConfig#aimdPathsForShareMin}. */
        public Builder aimdPathsForShareMin(int v) { aimdPathsForShareMin = v; return this; }
        /** Sets {@link EngineConfig#aimdLossCutScaledByAlpha}. */
        public Builder aimdLossCutScaledByAlpha(boolean v) { aimdLossCutScaledByAlpha = v; return this; }
        /** Sets {@link EngineConfig#aimdDelayThresholdNanos}. */
        public Builder aimdDelayThresholdNanos(long v) { aimdDelayThresholdNanos = v; return this; }
        /** Sets {@link EngineConfig#aimdSharedMarkCutPercent}. */
        public Builder aimdSharedMarkCutPercent(int v) { aimdSharedMarkCutPercent = v; return this; }
        /** Sets {@link EngineConfig#aimdFirstFlightBytes}. */
        public Builder aimdFirstFlightBytes(long v) { aimdFirstFlightBytes = v; return this; }
        /** Sets {@link EngineConfig#aimdFirstFlightSpreadNanos}. */
        public Builder aimdFirstFlightSpreadNanos(long v) { aimdFirstFlightSpreadNanos = v; return this; }
        /** Sets {@link EngineConfig#aimdAnnouncedSpreadIntervals}. */
        public Builder aimdAnnouncedSpreadIntervals(int v) { aimdAnnouncedSpreadIntervals = v; return this; }
        /** Sets {@link EngineConfig#acceptReannouncePercent}. */
        public Builder acceptReannouncePercent(int v) { acceptReannouncePercent = v; return this; }
        /** Sets {@link EngineConfig#idleResend}. */
        public Builder idleResend(boolean v) { idleResend = v; return this; }
        /** Sets {@link EngineConfig#idleResendMaxCopies}. */
        public Builder idleResendMaxCopies(int v) { idleResendMaxCopies = v; return this; }
        /** Sets {@link EngineConfig#ackRepeatAboveLossPercent}. */
        public Builder ackRepeatAboveLossPercent(int v) { ackRepeatAboveLossPercent = v; return this; }
        /** Sets {@link EngineConfig#fullWindowAboveLossPercent}. */
        public Builder fullWindowAboveLossPercent(int v) { fullWindowAboveLossPercent = v; return this; }
        /** Sets {@link EngineConfig#ackEachPacketAfterGap}. */
        public Builder ackEachPacketAfterGap(boolean v) { ackEachPacketAfterGap = v; return this; }
        /** Sets {@link EngineConfig#aimdLossCompensationPercent}. */
        public Builder aimdLossCompensationPercent(int v) { aimdLossCompensationPercent = v; return this; }
        /** Sets {@link EngineConfig#aimdLossAverageOnUnmarkedPaths}. */
        public Builder aimdLossAverageOnUnmarkedPaths(boolean v) { aimdLossAverageOnUnmarkedPaths = v; return this; }
        /** Sets {@link EngineConfig#bundleAcks}. */
        public Builder bundleAcks(boolean v) { bundleAcks = v; return this; }
        /** Sets {@link EngineConfig#equalLengthPackets}. */
        public Builder equalLengthPackets(boolean v) { equalLengthPackets = v; return this; }
        /** Sets {@link EngineConfig#timeoutProbes}. */
        public Builder timeoutProbes(boolean v) { timeoutProbes = v; return this; }
        /** Sets {@link EngineConfig#pathFailureNeedsAnswer}. */
        public Builder pathFailureNeedsAnswer(boolean v) { pathFailureNeedsAnswer = v; return this; }
        /** Sets {@link EngineConfig#aimdSlowStart}. */
        public Builder aimdSlowStart(boolean v) { aimdSlowStart = v; return this; }
        /** Sets {@link EngineConfig#aimdBalancedIncrease}. */
        public Builder aimdBalancedIncrease(boolean v) { aimdBalancedIncrease = v; return this; }
        /** Sets {@link EngineConfig#aimdAlphaRoundTripGainShift}. */
        public Builder aimdAlphaRoundTripGainShift(int v) { aimdAlphaRoundTripGainShift = v; return this; }
        /** Sets {@link EngineConfig#aimdBalancedIncreaseMaxDatagrams}. */
        public Builder aimdBalancedIncreaseMaxDatagrams(int v) { aimdBalancedIncreaseMaxDatagrams = v; return this; }
        /** Sets {@link EngineConfig#aimdSharedMarkByMeanAlpha}. */
        public Builder aimdSharedMarkByMeanAlpha(boolean v) { aimdSharedMarkByMeanAlpha = v; return this; }
        /** Sets {@link EngineConfig#aimdAnnouncedFirstRoundTrip}. */
        public Builder aimdAnnouncedFirstRoundTrip(boolean v) { aimdAnnouncedFirstRoundTrip = v; return this; }
        /** Sets {@link EngineConfig#aimdAnnouncedFirstFlightPercent}. */
        public Builder aimdAnnouncedFirstFlightPercent(int v) { aimdAnnouncedFirstFlightPercent = v; return this; }
        /** Sets {@link EngineConfig#aimdInitialAlphaPercent}. */
        public Builder aimdInitialAlphaPercent(int v) { aimdInitialAlphaPercent = v; return this; }
        /** Sets {@link EngineConfig#aimdAlphaWarmupSamples}. */
        public Builder aimdAlphaWarmupSamples(int v) { aimdAlphaWarmupSamples = v; return this; }
        /** Sets {@link EngineConfig#aimdFullWindowHandoff}. */
        public Builder aimdFullWindowHandoff(boolean v) { aimdFullWindowHandoff = v; return this; }

        /** Validates and returns the configuration. */
        public EngineConfig build() {
            return new EngineConfig(maxDatagramBytes, sequenceWindow, pathWindowPackets, maxPaths, maxStreams,
                    maxWorkRequests, maxPostedReceives, completionQueueCapacity, maxConnections, ackEveryPackets,
                    maxAckDelayNanos, reorderAllowancePackets, initialRttNanos, minRtoNanos, maxRtoNanos,
                    overdueFloorNanos,
                    maxConsecutiveTimeouts, rnrRetryDelayNanos, congestionWindowBytes, handshakeRetryNanos,
                    handshakeTimeoutNanos, cookieLifetimeNanos, idleTimeoutNanos, keepAliveNanos, idleShrinkNanos,
                    closeRetryNanos, closeRetries, aimdInitialWindowBytes, aimdMinWindowBytes, aimdMaxWindowBytes, aimdEcnGainShift,
                    pathFailureTimeouts, pathFailureConfidenceBits, pathProbeIntervalNanos, pathProbeMaxIntervalNanos,
                    receiveCapacityBytesPerSecond, fairSharePeriodNanos, aimdPacingGainPercent, pacingBurstBytes,
                    aimdLossCutScaledByAlpha, aimdDelayThresholdNanos, aimdSharedMarkCutPercent, aimdFirstFlightBytes,
                    aimdFirstFlightSpreadNanos, aimdAnnouncedSpreadIntervals, acceptReannouncePercent, idleResend,
                    idleResendMaxCopies, ackRepeatAboveLossPercent, fullWindowAboveLossPercent, ackEachPacketAfterGap,
                    aimdLossCompensationPercent, aimdLossAverageOnUnmarkedPaths, bundleAcks, equalLengthPackets, timeoutProbes,
                    aimdSlowStart, aimdBalancedIncrease, aimdAlphaRoundTripGainShift, aimdBalancedIncreaseMaxDatagrams,
                    aimdSharedMarkByMeanAlpha, pathFailureNeedsAnswer,
                    pathRateWindowNanos, shortAcks,
                    pacingWakeQuantumBytes, aimdPathsForShareMin, aimdAnnouncedFirstRoundTrip,
                    aimdAnnouncedFirstFlightPercent, aimdInitialAlphaPercent, aimdAlphaWarmupSamples,
                    aimdFullWindowHandoff);
        }
    }
}
