package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.sack.PacketTable;
import io.metaroce.core.stream.Segmentation;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;

/**
 * Packetization: turns the send side's work requests into DATA and READ_REQUEST packets. Lost
 * packets go first, each on the path that lost it; then a new packet of the work request the
 * {@link SendScheduler} picks, with a new CSN, on the next path (round-robin) that its
 * scoreboard and the congestion controller let send now. The peer's sequence window bounds the
 * CSNs in flight.
 *
 * <p>Not thread-safe; owned by its connection's {@link Sender}.
 */
final class DataWriter {
    /**
     * Above this lost fraction on a path, every DATA packet asks for an immediate ACK: when a
     * quarter or more of the ACKs are lost too, each one more that leaves shortens the wait for a
     * verdict [SPEC-SACK-12].
     */
    static final double ACK_EVERY_PACKET_ABOVE_LOSS = 0.15;
    private final ConnectionStats stats;
    private final Paths paths;
    private final CongestionController congestion;
    /** The path choice's reading of which paths take new data. */
    private final NewDataPaths newData;
    private final PacketEmitter emitter;
    private final WorkRequests work;
    private final PacketTable packets;
    private final SendScheduler scheduler;
    private final int payloadBytes;
    /** [SPEC-MSG-3]: cut messages into packets of one length. */
    private final boolean equalLength;
    private final boolean idleResend;
    private final int idleResendMaxCopies;
    private final long maxAckDelayNanos;
    private int peerPayloadBytes;
    private int peerWindow;
    /** Whether the controller was told the length of the connection's first packet [SPEC-CC-16]. */
    private boolean firstLengthTold;
    /** A work request found with its source region deregistered, for the send side to fail; else NONE. */
    private int unusableSource = StreamTable.NONE;
    /**
     * Set when a {@link #write} that sent nothing still changed what the connection's timers and
     * pacing are computed from (a retransmission queue, the scheduler's streams, a failed work
     * request), so that the connection knows its cached next timeout is stale; see {@link #takeTouched}.
     */
    private boolean touched;
    /**
     * The idle resend's wait kept per path [SPEC-LOSS-8]: entry {@code i} is path {@code i}'s
     * share of {@link #resendWaitNanos} (its smoothed RTT plus the receiver's ACK delay where that
     * applies) if it may take new data, else {@link #NOT_WAITING}; {@link #resendWait} is their
     * maximum. Valid while {@link #waitGeneration} equals the paths' membership generation; a
     * path's RTT or loss average changing updates its entry ({@link #pathWaitInputsChanged}).
     * Every next-timeout query of a sender with its windows full asks for the wait, which read
     * two objects of every path; it changes only with an ACK or a path's state.
     */
    private final long[] pathWait;
    private long resendWait = Long.MAX_VALUE;
    private int waitGeneration;
    private boolean waitKnown;
    private static final long NOT_WAITING = Long.MIN_VALUE;

    DataWriter(EngineConfig config, ConnectionStats stats, Paths paths, CongestionController congestion,
            PacketEmitter emitter, WorkRequests work, PacketTable packets, SendScheduler scheduler) {
        this.stats = stats;
        this.paths = paths;
        this.congestion = congestion;
        this.newData = new NewDataPaths(congestion);
        this.emitter = emitter;
        this.work = work;
        this.packets = packets;
        this.scheduler = scheduler;
        this.payloadBytes = EngineConfig.payloadBytesFor(config.maxDatagramBytes());
        this.equalLength = config.equalLengthPackets();
        this.idleResend = config.idleResend();
        this.idleResendMaxCopies = config.idleResendMaxCopies();
        this.maxAckDelayNanos = config.maxAckDelayNanos();
        this.peerPayloadBytes = payloadBytes;
        this.peerWindow = config.sequenceWindow();
        this.pathWait = new long[paths.count()];
    }

    /** Takes the peer's payload size and sequence window, already bounded by this side's own. */
    void adoptPeerLimits(int peerPayloadBytes, int peerWindow) {
        this.peerPayloadBytes = peerPayloadBytes;
        this.peerWindow = peerWindow;
    }

    int payloadBytesPerPacket() {
        return Math.min(payloadBytes, peerPayloadBytes);
    }

    /** Whether the work request that packet {@code csn} belongs to still waits for it. */
    boolean ownerLive(long csn) {
        int w = packets.owner(csn);
        return work.generation[w] == packets.ownerGeneration(csn) && !work.done[w];
    }

    /** The work request whose source region was found unusable by the last {@link #write}, or NONE; clears it. */
    int takeUnusableSource() {
        int w = unusableSource;
        unusableSource = StreamTable.NONE;
        return w;
    }

    /** Whether a {@link #write} since the last call changed send state without sending; clears it. */
    boolean takeTouched() {
        boolean t = touched;
        touched = false;
        return t;
    }

    /** Whether new data, a READ response or a queued retransmission waits to be sent. */
    boolean hasWaitingWork() {
        return scheduler.hasWork() || paths.queuedRetransmissions() > 0;
    }

    /**
     * The datagram bytes waiting for the paced wake-up's batch [SPEC-CC-38], at least, counted up
     * to the controller's cap ({@code CongestionController#pacedWakeReadyBytesCap}; 0: not
     * counted): 0 while a retransmission is queued (it goes first, and a hole's repair waits for
     * no batch), else the scheduler's lower bound on the first transmissions waiting.
     */
    long readyBytesForPacedWake(long nowNanos) {
        long cap = congestion.pacedWakeReadyBytesCap();
        return cap <= 0 || paths.queuedRetransmissions() > 0 ? 0 : scheduler.unsentDatagramBytesAtLeast(nowNanos, cap);
    }

    /**
     * {@link #tellFirstPacketBytes} and then {@link #readyBytesForPacedWake}: the two questions the
     * next-timeout query asks while work waits, in one call (that query's bytecode is held under
     * C2's hot inlining limit, HotMethodSizeTest).
     */
    long tellFirstPacketBytesAndReadyBytes(long nowNanos) {
        tellFirstPacketBytes(nowNanos);
        return readyBytesForPacedWake(nowNanos);
    }

    /**
     * Before the congestion controller is first asked for a send time: tells it the datagram
     * length of the packet that will go first, once [SPEC-CC-16]; nothing while there is no work.
     */
    void tellFirstPacketBytes(long nowNanos) {
        if (firstLengthTold) {
            return;
        }
        int w = scheduler.peekWork(nowNanos);
        if (w == StreamTable.NONE) {
            return;
        }
        firstLengthTold = true;
        congestion.onFirstPacketBytes(nextDatagramBytes(w), nowNanos);
    }

    /**
     * The payload of every packet of work request {@code w}'s message under equal-length packets
     * ({@link Segmentation#packetPayload}, two 64-bit divisions), taken from the packet issued last
     * when that packet is {@code w}'s: every packet of a message has that one length, the payload
     * size being fixed before any data leaves (by the handshake). The packet issued last is still
     * in the table while it is at or above the floor.
     */
    private int equalPacketPayload(int w) {
        long last = packets.next() - 1;
        if (last >= packets.floor() && packets.owner(last) == w
                && packets.ownerGeneration(last) == work.generation[w]) {
            return packets.payloadLength(last);
        }
        return Segmentation.packetPayload(work.length[w], payloadBytesPerPacket());
    }

    /** The datagram length of work request {@code w}'s next packet, cut as {@link #write} cuts it. */
    private int nextDatagramBytes(int w) {
        if (work.kind[w] == WorkRequests.READ) {
            return WireConstants.READ_REQUEST_BYTES;
        }
        int length = equalLength ? Segmentation.packetPayload(work.length[w], payloadBytesPerPacket())
                : (int) Math.min(payloadBytesPerPacket(), work.length[w] - work.sendOffset[w]);
        return length + WireConstants.DATA_OVERHEAD_BYTES;
    }

    /**
     * Writes the next DATA or READ_REQUEST packet, retransmissions first; false if none may go now.
     * {@code fullWindowAboveLossPercent} is the configuration's, passed in by the send side, which
     * keeps it: a field here would grow every idle connection by 8 bytes, past its footprint goal.
     */
    boolean write(long nowNanos, Transmit out, Packet p, PacketCodec codec, int fullWindowAboveLossPercent) {
        // Retransmissions first, each on the path that lost it (R-SACK-2). With none queued, the
        // paths' queues are not read.
        for (int i = 0; i < paths.count() && paths.queuedRetransmissions() > 0; i++) {
            Path path = paths.get(i);
            if (path == null) {
                continue;
            }
            while (!path.retransmitQueue.isEmpty()) {
                long csn = path.retransmitQueue.peekLong();
                if (packets.state(csn) != PacketTable.OUTSTANDING) {
                    paths.pollRetransmission(path);
                    touched = true;
                    continue;
                }
                if (!ownerLive(csn)) {
                    paths.pollRetransmission(path);
                    touched = true;
                    packets.finish(csn, PacketTable.ABANDONED);
                    continue;
                }
                if (!canSendOn(path, nowNanos)) {
                    if (path.timeoutCredits == 0 || !path.scoreboard.hasRoom()) {
                        break;
                    }
                    path.timeoutCredits--;
                }
                paths.pollRetransmission(path);
                packets.queued(csn, false);
                path.retransmissions++;
                stats.retransmissions++;
                return writeReliable(nowNanos, path, csn, true, out, p, codec);
            }
        }
        if (!scheduler.hasWork() && (!idleResend || packets.floor() == packets.next())) {
            // Nothing to send, nor to resend: do not ask the controller for a send time. The first
            // ask starts the first flight's spread and the clock under the first hint
            // ([SPEC-CC-16], [SPEC-CC-28]); asked at every poll after the handshake, an application
            // that posts later would find that spread long past and its clock started before it.
            return false;
        }
        tellFirstPacketBytes(nowNanos);
        // The round-robin cursor over the paths moves only when a packet leaves: a poll that picks
        // a path and then sends nothing (no resend due, no work the scheduler may send) puts it
        // back, so which path a connection sends on next does not depend on how often its
        // endpoint polls it (every call, as a walk of every connection did, or only when it may
        // have work, as the ready set does).
        int cursor = paths.nextForData();
        if (!packets.canIssue(peerWindow)) {
            stats.sequenceWindowStalls++;
            return idleResend && sentOrCursorBack(cursor,
                    writeIdleResend(nowNanos, pickPathForNewData(nowNanos), out, p, codec));
        }
        Path path = pickPathForNewData(nowNanos);
        if (path == null) {
            // Every window full: on a lossy path they are full of packets lost but not yet judged,
            // and a copy of the oldest is what brings the verdicts sooner [SPEC-LOSS-11].
            Path full = idleResend ? pickWindowFullLossyPath(nowNanos, fullWindowAboveLossPercent) : null;
            return full != null && writeIdleResend(nowNanos, full, out, p, codec);
        }
        if (scheduler.hasWork()) {
            touched = true; // the scheduler may drop or pause streams even when it finds nothing
        }
        int w = scheduler.nextWorkToSend(nowNanos);
        if (w == StreamTable.NONE) {
            return sentOrCursorBack(cursor, writeIdleResend(nowNanos, path, out, p, codec));
        }
        // [SPEC-MSG-3]: packets of one length, the last overlapping its predecessor; without
        // equalLengthPackets, full packets and a shorter last one.
        long sent = work.sendOffset[w];
        int length = 0;
        long offset = 0;
        if (work.kind[w] != WorkRequests.READ) {
            length = equalLength ? equalPacketPayload(w)
                    : (int) Math.min(payloadBytesPerPacket(), work.length[w] - sent);
            offset = equalLength ? Segmentation.packetOffset(work.length[w], length, sent) : sent;
        }
        long csn = packets.issue(w, work.generation[w], offset, length);
        work.sendOffset[w] = sent + length;
        work.undelivered[w]++;
        if (work.kind[w] == WorkRequests.READ || work.sendOffset[w] >= work.length[w]) {
            work.allSent[w] = true;
            scheduler.advanceCursor(w);
        }
        return writeReliable(nowNanos, path, csn, false, out, p, codec);
    }

    /**
     * Whether a write with nothing new to send still picks a path for an idle resend (the rule is
     * on and packets are outstanding), for tests of the path cursor.
     */
    boolean idleResendsConsideredForTest() {
        return idleResend && packets.floor() != packets.next();
    }

    /** {@code sent}, after putting the path cursor back to {@code cursor} if nothing was sent. */
    private boolean sentOrCursorBack(int cursor, boolean sent) {
        if (!sent) {
            paths.nextForData(cursor);
        }
        return sent;
    }

    /**
     * Nothing new may be sent: resends, on the next path that may take new data [SPEC-LOSS-8], the
     * oldest outstanding CSN whose latest transmission has waited about a round trip (see
     * {@link #resendWaitNanos}) while fewer than {@code idleResendMaxCopies} of its transmissions
     * await their verdicts (a CSN queued for retransmission on a path that cannot send yet
     * included). No earlier transmission is declared lost (no verdict, no window cut, no health
     * judgement): the copy turns the NIC's idle time into another chance for a packet a message
     * waits for, and, once acknowledged, into the evidence that lets the overdue rule judge the
     * others. Under heavy loss the idle time comes from every message slot waiting for its last
     * packets, and the earlier copies of those are lost as often as the first.
     */
    private boolean writeIdleResend(long nowNanos, Path path, Transmit out, Packet p, PacketCodec codec) {
        if (!idleResend || path == null || packets.floor() == packets.next()) {
            return false; // (nothing outstanding: no candidate, and the wait reads every path's RTT)
        }
        long wait = resendWaitNanos();
        if (wait == Long.MAX_VALUE) {
            return false;
        }
        long csn = oldestResendCandidate(nowNanos - wait);
        if (csn < 0) {
            return false;
        }
        path.retransmissions++;
        stats.retransmissions++;
        stats.idleResends++;
        return writeReliable(nowNanos, path, csn, true, out, p, codec);
    }

    /**
     * When an idle resend [SPEC-LOSS-8] next becomes due: the latest transmission time of the
     * oldest-sent candidate plus the wait; {@link Long#MAX_VALUE} if none or the rule is off.
     */
    long idleResendDueNanos() {
        return idleResendDueBelow(idleResendEarliestSentNanos(), Long.MAX_VALUE);
    }

    /**
     * The latest transmission time of the oldest-sent idle-resend candidate, {@link Long#MAX_VALUE}
     * if none or the rule is off: {@link #idleResendDueNanos} without the wait, which is the part
     * that reads every path.
     */
    long idleResendEarliestSentNanos() {
        if (!idleResend) {
            return Long.MAX_VALUE;
        }
        long earliest = Long.MAX_VALUE;
        for (long c = packets.floor(); c < packets.next(); c++) {
            // Nothing from c on left before c's first transmission: the scan, once over the CSNs
            // delivered or resent ahead of the oldest in flight, stops there instead of walking
            // the whole sequence window at every next-timeout query.
            if (earliest != Long.MAX_VALUE && packets.sentNoEarlierThanFrom(c) >= earliest) {
                break;
            }
            if (resendCandidate(c)) {
                earliest = Math.min(earliest, packets.lastSentNanos(c));
            }
        }
        return earliest;
    }

    /**
     * {@link #idleResendDueNanos} from its candidate's send time {@code earliest} (as
     * {@link #idleResendEarliestSentNanos} gave it) when that due time is below {@code bound};
     * otherwise some time at or above {@code bound}, found without reading the remaining paths:
     * the wait is a maximum over the paths, so once part of it puts the due time at or past
     * {@code bound}, the rest cannot bring it back. A sender asking when its next packet may go
     * only needs the due time when it comes before its next paced send time, which is rarely:
     * the oldest candidate left about a round trip ago and waits about another, while the next
     * paced send is a packet interval away.
     */
    long idleResendDueBelow(long earliest, long bound) {
        if (earliest == Long.MAX_VALUE) {
            return Long.MAX_VALUE; // the wait, which reads every path's RTT, is not needed (a receiving side)
        }
        long wait = resendWaitNanos(earliest, bound);
        return wait == Long.MAX_VALUE ? Long.MAX_VALUE : earliest + wait;
    }

    /** The lowest candidate CSN whose latest transmission left at or before {@code sentBy}, or -1. */
    private long oldestResendCandidate(long sentBy) {
        for (long c = packets.floor(); c < packets.next(); c++) {
            if (packets.sentNoEarlierThanFrom(c) > sentBy) {
                return -1; // nothing from c on left at or before sentBy
            }
            if (resendCandidate(c) && packets.lastSentNanos(c) <= sentBy) {
                return c;
            }
        }
        return -1;
    }

    /** {@link #idleResendDueNanos} by a scan of the whole sequence window: for tests of the shortcut. */
    long idleResendDueNanosByFullScan() {
        if (!idleResend) {
            return Long.MAX_VALUE;
        }
        long wait = resendWaitNanos();
        if (wait == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long earliest = Long.MAX_VALUE;
        for (long c = packets.floor(); c < packets.next(); c++) {
            if (resendCandidate(c)) {
                earliest = Math.min(earliest, packets.lastSentNanos(c));
            }
        }
        return earliest == Long.MAX_VALUE ? Long.MAX_VALUE : earliest + wait;
    }

    /** {@link #oldestResendCandidate} by a scan of the whole sequence window: for tests of the shortcut. */
    long oldestResendCandidateByFullScan(long sentBy) {
        for (long c = packets.floor(); c < packets.next(); c++) {
            if (resendCandidate(c) && packets.lastSentNanos(c) <= sentBy) {
                return c;
            }
        }
        return -1;
    }

    /** {@link #oldestResendCandidate}, for tests of the shortcut. */
    long oldestResendCandidateForTest(long sentBy) {
        return oldestResendCandidate(sentBy);
    }

    /** Whether idle resends are on, for tests. */
    boolean idleResendOn() {
        return idleResend;
    }

    /** Times worth asking {@link #oldestResendCandidate} about, for tests: every send time on record and a few around {@code nowNanos}. */
    long[] sendTimesForTest(long nowNanos) {
        long from = packets.floor();
        int n = (int) (packets.next() - from);
        long[] times = new long[n + 4];
        for (int i = 0; i < n; i++) {
            times[i] = packets.lastSentNanos(from + i);
        }
        times[n] = nowNanos;
        times[n + 1] = nowNanos - 10_000;
        times[n + 2] = nowNanos - 1_000_000;
        times[n + 3] = Long.MAX_VALUE;
        return times;
    }

    /** Outstanding and sent, still wanted, with fewer than {@code idleResendMaxCopies} transmissions awaiting their verdicts. */
    private boolean resendCandidate(long csn) {
        if (packets.state(csn) != PacketTable.OUTSTANDING || packets.lastSentNanos(csn) == Long.MIN_VALUE) {
            return false;
        }
        return packets.copies(csn) < idleResendMaxCopies && ownerLive(csn) && !heldBackByPeer(csn);
    }

    /**
     * Whether the stream of {@code csn} was paused by a receiver-not-ready NAK after the packet's
     * latest transmission [SPEC-NAK-4]: the packet is held back until the pause ends, when it is
     * queued again for an ordinary retransmission; an idle resend must not send it sooner. (Only
     * SENDs and WRITEs are refused as not ready, and their streams pause; a READ response is not.)
     */
    private boolean heldBackByPeer(long csn) {
        int w = packets.owner(csn);
        return work.kind[w] != WorkRequests.READ_RESPONSE && scheduler.pausedSince(work.stream[w], packets.lastSentNanos(csn));
    }

    /**
     * How long a transmission waits before an idle resend: the largest, over the paths that may
     * take new data, of the path's smoothed round trip plus the ACK delay its packets allow the
     * receiver ({@code maxAckDelay}, or none on a path losing more than
     * {@link #ACK_EVERY_PACKET_ABOVE_LOSS}, whose packets all ask for an immediate ACK): when the
     * acknowledgement would be due, a copy sent sooner being a duplicate for sure; or
     * {@link Long#MAX_VALUE} if no path may take new data.
     */
    private long resendWaitNanos() {
        if (!waitKnown || waitGeneration != paths.membershipGeneration()) {
            rebuildResendWait();
        }
        return resendWait;
    }

    /**
     * {@link #resendWaitNanos}, for callers that need it only when {@code from} plus it comes
     * before {@code bound}: the whole wait if it is kept, else (the paths' states changed since)
     * the maximum of the paths read until {@code from} plus it reached {@code bound}, no larger
     * than the whole and then also at or past {@code bound}; the caller cannot tell the two apart.
     * {@code bound} {@link Long#MAX_VALUE} reads every path and keeps the result, and so does a
     * walk that reads every path before reaching {@code bound}.
     */
    private long resendWaitNanos(long from, long bound) {
        if ((waitKnown && waitGeneration == paths.membershipGeneration()) || bound == Long.MAX_VALUE) {
            return resendWaitNanos();
        }
        return walkResendWait(from, bound, true);
    }

    /**
     * The maximum of the wait of the paths that may take new data ({@link Long#MAX_VALUE} if none),
     * read path by path until {@code from} plus it reaches {@code bound} (never, for
     * {@code bound} {@link Long#MAX_VALUE}). With {@code keep}, each path's share read goes to
     * {@link #pathWait}, and a walk that read every path keeps the whole, as current.
     */
    private long walkResendWait(long from, long bound, boolean keep) {
        long wait = Long.MAX_VALUE;
        for (int i = 0; i < pathWait.length; i++) {
            Path path = paths.get(i);
            long share = path != null && paths.usableForNewData(path) ? waitOf(path) : NOT_WAITING;
            if (keep) {
                pathWait[i] = share;
            }
            if (share != NOT_WAITING) {
                wait = wait == Long.MAX_VALUE ? share : Math.max(wait, share);
                if (bound != Long.MAX_VALUE && from + wait >= bound) {
                    return wait;
                }
            }
        }
        if (keep) {
            waitGeneration = paths.membershipGeneration();
            waitKnown = true;
            resendWait = wait;
        }
        return wait;
    }

    /** One path's share of the wait: its smoothed RTT, and the ACK delay unless every packet asks for an ACK. */
    private long waitOf(Path path) {
        return path.rtt.smoothedNanos() + (path.lossFraction > ACK_EVERY_PACKET_ABOVE_LOSS ? 0 : maxAckDelayNanos);
    }

    /** Reads every path's share of the wait again (a path opened, went or changed state). */
    private void rebuildResendWait() {
        walkResendWait(0, Long.MAX_VALUE, true);
    }

    private long maxPathWait() {
        long wait = NOT_WAITING;
        for (long w : pathWait) {
            wait = Math.max(wait, w);
        }
        return wait == NOT_WAITING ? Long.MAX_VALUE : wait;
    }

    /**
     * Path {@code path}'s smoothed RTT or loss average changed: its share of the idle resend's wait
     * is read again (nothing to do while the kept wait is stale anyway).
     */
    void pathWaitInputsChanged(Path path) {
        if (!waitKnown || waitGeneration != paths.membershipGeneration() || path.id >= pathWait.length) {
            return;
        }
        long before = pathWait[path.id];
        if (before == NOT_WAITING) {
            return; // not usable for new data: no share, until its state changes
        }
        long now = waitOf(path);
        pathWait[path.id] = now;
        if (now >= resendWait) {
            resendWait = now;
        } else if (before == resendWait) {
            resendWait = maxPathWait();
        }
    }

    /** {@link #resendWaitNanos} read from every path, without the kept wait: for tests of it. */
    long resendWaitNanosByWalkForTest() {
        return walkResendWait(0, Long.MAX_VALUE, false);
    }

    /** {@link #resendWaitNanos}, kept, for tests. */
    long resendWaitNanosForTest() {
        return resendWaitNanos();
    }

    private boolean canSendOn(Path path, long nowNanos) {
        return path.scoreboard.hasRoom()
                && congestion.sendAllowanceBytes(path.id, nowNanos) > 0
                && congestion.nextSendTimeNanos(path.id, nowNanos) <= nowNanos;
    }

    /**
     * When no path may take new data [SPEC-LOSS-11]: the next path (round-robin) that may take new
     * data but for its full congestion window, whose pacing lets it send now and whose lost
     * fraction is above {@code fullWindowAboveLossPercent}; null if one of the paths that may take
     * new data has congestion allowance left (it only waits for its pacing, so the windows are not
     * all full), or none fits. Every path considered has room in its sequence window.
     */
    private Path pickWindowFullLossyPath(long nowNanos, int fullWindowAboveLossPercent) {
        int count = paths.count();
        Path found = null;
        newData.begin();
        for (int i = 0; i < count; i++) {
            int id = (paths.nextForData() + i) % count;
            Path path = paths.get(id);
            if (path == null || !paths.usableForNewData(path)) {
                continue;
            }
            if (!path.scoreboard.hasRoom()) {
                continue;
            }
            if (newData.carries(path.id, nowNanos) && congestion.sendAllowanceBytes(path.id, nowNanos) > 0) {
                return null; // a path with room waits for its pacing: not every window is full
            }
            if (found == null && lossyEnoughForAFullWindowResend(path, fullWindowAboveLossPercent)
                    && congestion.nextSendTimeNanos(path.id, nowNanos) <= nowNanos) {
                found = path;
            }
        }
        return found;
    }

    /**
     * When a path {@link #pickWindowFullLossyPath} could choose, but for its pacing, may next send:
     * the earliest such time after {@code afterNanos}, or {@link Long#MAX_VALUE}. Asked by the
     * next-timeout query while an idle resend is due and every path's window is full, so that the
     * copy leaves when the lossy path's pacing allows it, not at the next ACK or timeout.
     */
    long windowFullLossyPathSendTimeNanos(long afterNanos, int fullWindowAboveLossPercent) {
        if (!idleResend) {
            return Long.MAX_VALUE;
        }
        long t = Long.MAX_VALUE;
        for (int i = 0; i < paths.count(); i++) {
            Path path = paths.get(i);
            if (path != null && paths.usableForNewData(path) && path.scoreboard.hasRoom()
                    && lossyEnoughForAFullWindowResend(path, fullWindowAboveLossPercent)) {
                long next = congestion.nextSendTimeNanos(path.id, afterNanos);
                if (next > afterNanos) {
                    t = Math.min(t, next);
                }
            }
        }
        return t;
    }

    private static boolean lossyEnoughForAFullWindowResend(Path path, int fullWindowAboveLossPercent) {
        return path.lossFraction > fullWindowAboveLossPercent / 100.0;
    }

    private Path pickPathForNewData(long nowNanos) {
        int count = paths.count();
        // Round robin without a division per packet: (start + i) mod count by one wrap.
        int start = paths.nextForData();
        if (start >= count && count > 0) {
            start %= count;
        }
        newData.begin();
        for (int i = 0; i < count; i++) {
            int id = start + i;
            if (id >= count) {
                id -= count;
            }
            // Open, usable for new data and with room, mostly told without reading the path's
            // objects (Paths keeps a path at the index of its id); then the controller's: one
            // of the paths it gives new data to [SPEC-CC-42], and canSendOn's questions.
            if (paths.usableForNewDataWithRoom(id) && newData.carries(id, nowNanos)
                    && congestion.sendAllowanceBytes(id, nowNanos) > 0
                    && congestion.nextSendTimeNanos(id, nowNanos) <= nowNanos) {
                paths.nextForData(id + 1 == count ? 0 : id + 1);
                return paths.get(id);
            }
        }
        return null;
    }

    private boolean writeReliable(long nowNanos, Path path, long csn, boolean retransmission, Transmit out, Packet p,
            PacketCodec codec) {
        int w = packets.owner(csn);
        byte kind = work.kind[w];
        long offset = packets.messageOffset(csn);
        int length = packets.payloadLength(csn);
        MemoryRegion source = work.region[w];
        if (kind != WorkRequests.READ && !source.isUsable()) {
            // A region was deregistered (or its memory freed) while work still used it. The peer
            // cannot be told which message will never come, so, like a verbs queue pair going to
            // the error state, the connection is aborted: the work request completes with
            // LOCAL_PROTECTION_ERROR, everything else with CONNECTION_CLOSED. The send side and the
            // connection do that, told by takeUnusableSource.
            stats.localProtectionErrors++;
            unusableSource = w;
            touched = true;
            return false;
        }
        if (kind == WorkRequests.READ) {
            writeReadRequest(nowNanos, path, csn, retransmission, w, out, p, codec);
        } else {
            writeDataPacket(nowNanos, path, csn, retransmission, w, kind, offset, length, source, out, p, codec);
        }
        path.scoreboard.onSent(csn, out.length, nowNanos);
        paths.sentOn(path.id);
        packets.sent(csn, nowNanos);
        congestion.onPacketSent(path.id, out.length, nowNanos);
        path.countSent(out.length, nowNanos);
        stats.dataPacketsSent++;
        return true;
    }

    /** A READ_REQUEST of work request {@code w}. */
    private void writeReadRequest(long nowNanos, Path path, long csn, boolean retransmission, int w, Transmit out,
            Packet p, PacketCodec codec) {
        // A READ's slot is freed without a DATA packet replacing the template: forgotten here, so
        // that 2^32 READs through one slot cannot bring a DATA template's key back (see writeDataPacket).
        codec.forgetDataTemplate();
        emitter.reliableHeader(p, PacketType.READ_REQUEST, path.id);
        p.connectionSequence = csn;
        p.sequenceFloor = packets.floor();
        p.timestampNanos = nowNanos;
        p.streamId = work.stream[w];
        p.messageSequence = work.messageSequence[w];
        p.messageLength = work.length[w];
        if (retransmission) {
            p.flags |= WireConstants.FLAG_RETRANSMISSION | WireConstants.FLAG_ACK_NOW;
        }
        p.remoteKey = work.remoteKey[w];
        p.remoteOffset = work.remoteOffset[w];
        p.pathSequence = path.scoreboard.nextPathSequence();
        emitter.emit(out, p, codec, path, 2, null, 0, nowNanos);
    }

    /**
     * A DATA packet of work request {@code w}. Consecutive packets of one message differ in a few
     * header fields only, so while the codec's header template holds this message's (keyed by the
     * slot and its generation, which changes whenever the slot is reused, with the emitter as the
     * owner), only those fields are set and patched into it; otherwise the whole header is set and
     * becomes the template. The datagram's bytes are the same either way. A key comes back only
     * after 2^32 reuses of one slot; every reuse that sends DATA replaces the template with its own
     * first packet, and a READ forgets it, so the template cannot survive that long.
     */
    private void writeDataPacket(long nowNanos, Path path, long csn, boolean retransmission, int w, byte kind,
            long offset, int length, MemoryRegion source, Transmit out, Packet p, PacketCodec codec) {
        long key = ((long) work.generation[w] << 32) | (w & 0xFFFF_FFFFL);
        boolean templated = codec.holdsDataTemplate(emitter, key, emitter.destinationId());
        if (!templated) {
            emitter.reliableHeader(p, PacketType.DATA, path.id);
            p.streamId = work.stream[w];
            p.messageSequence = work.messageSequence[w];
            p.messageLength = work.length[w];
            p.opcode = switch (kind) {
                case WorkRequests.SEND -> DataOpcode.SEND;
                case WorkRequests.WRITE -> DataOpcode.WRITE;
                case WorkRequests.WRITE_WITH_IMM -> DataOpcode.WRITE_WITH_IMM;
                default -> DataOpcode.READ_RESPONSE;
            };
            p.receiveSequence = work.receiveSequence[w];
            p.remoteKey = work.remoteKey[w];
            p.remoteOffset = work.remoteOffset[w];
            if (work.hasImmediate[w]) {
                p.dataFlags = WireConstants.DATA_FLAG_HAS_IMMEDIATE;
                p.immediate = work.immediate[w];
            }
        } else {
            // The template holds type, destination and the message's fields; p's may be stale.
            p.type = PacketType.DATA;
            p.pathId = path.id;
        }
        int flags = retransmission ? WireConstants.FLAG_RETRANSMISSION | WireConstants.FLAG_ACK_NOW : 0;
        if (offset + length >= work.length[w] || path.lossFraction > ACK_EVERY_PACKET_ABOVE_LOSS) {
            flags |= WireConstants.FLAG_ACK_NOW;
        }
        p.flags = flags;
        p.connectionSequence = csn;
        p.sequenceFloor = packets.floor();
        p.timestampNanos = nowNanos;
        p.payloadMessageOffset = offset;
        p.payloadLength = length;
        p.pathSequence = path.scoreboard.nextPathSequence();
        // Encoded here rather than in the emitter: one call less per packet (the emitter's frame did
        // not inline into this one).
        ByteBuffer payload = source.buffer();
        int payloadIndex = (int) (work.localOffset[w] + offset);
        out.length = templated ? codec.encodeDataFromTemplate(p, out.buffer, 0, payload, payloadIndex)
                : codec.encodeData(p, emitter, key, out.buffer, 0, payload, payloadIndex);
        emitter.sent(out, path, 2, nowNanos);
    }
}
