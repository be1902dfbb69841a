package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.sack.PacketTable;
import io.metaroce.core.sack.ScoreboardListener;
import io.metaroce.core.sack.SendScoreboard;
import io.metaroce.core.stream.Segmentation;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import java.nio.ByteBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayQueue;

/**
 * The send side of a connection: the work requests posted on it (SEND, WRITE, WRITE_WITH_IMM,
 * READ) and the READ responses it serves, cut into packets, each packet numbered with a CSN in the
 * {@link PacketTable} until the peer acknowledges it; losses retransmitted on the path that lost
 * them; NAKs acted on; send-side completions delivered in posting order per stream.
 *
 * <p>The endpoint is passed to each method that may complete work rather than held, so that a
 * connection's own state reaches no object it shares with the endpoint (which is how
 * {@code StateFootprintTest} measures it). For the same reason the connection, not this class,
 * is the {@link ScoreboardListener}: it forwards the callbacks here with the endpoint. After any
 * call that may complete work the connection checks whether a pending close can proceed.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class Sender {
    private static final long READ_KEY_SHIFT = 32;
    /** Gain of each path's moving average of its lost fraction ({@link Path#lossFraction}). */
    private static final double LOSS_FRACTION_GAIN = 1.0 / 16;

    private final long localId;
    private final ConnectionStats stats;
    private final Paths paths;
    private final StreamTable streams;
    private final CongestionController congestion;
    private final PathHealth health;
    private final int reorderAllowancePackets;
    private final long rnrRetryDelayNanos;
    private final long maxRtoNanos;
    /**
     * {@code fullWindowAboveLossPercent} (1 to 100), for the packetizer's idle resend on a full
     * window [SPEC-LOSS-11]: kept here, in a byte that fits this object's padding, so the idle
     * connection's footprint stays within its goal.
     */
    private final byte fullWindowAboveLossPercent;

    private final WorkRequests work;
    private final PacketTable packets;
    private final SendScheduler scheduler;
    private final DataWriter writer;
    /**
     * Paths (bit {@code i}: path {@code i}) the last {@link #nextPacedSendNanos} found in service
     * with room but no congestion allowance, less those whose question the controller says is
     * settled ({@code CongestionController#allowanceQuestionSettled}); see
     * {@link #repeatExhaustedAllowanceQueries}.
     */
    private long exhaustedPaths;
    /** The pacing walk's reading of which paths take new data. */
    private final NewDataPaths newData;
    /**
     * The earliest pacing time after its {@code afterNanos} the last {@link #nextPacedSendNanos}
     * found on a path allowed to send ({@link Long#MAX_VALUE}: none): a packet may leave from then
     * on, though the wake-up it reports can be later, to send a batch at once [SPEC-CC-38].
     */
    private long pacedGateNanos = Long.MAX_VALUE;
    /** (stream, msn) of a READ this side posted, to the work request slot waiting for its response. */
    private final Long2LongHashMap pendingReads = new Long2LongHashMap(8, 0.65f, -1L);
    /** Capacity of an empty {@link #pendingReads}, to which {@link #shrinkIdleTables} compacts it. */
    private static final int IDLE_MAP_CAPACITY = new Long2LongHashMap(8, 0.65f, -1L).capacity();
    /**
     * CSNs refused as receiver-not-ready, with the time each may be retried (replaced by small ones
     * at the idle point once a burst grew them: {@link #shrinkIdleTables}).
     */
    private LongArrayQueue deferredSequences = new LongArrayQueue(QUEUE_INITIAL, -1L);
    private LongArrayQueue deferredUntil = new LongArrayQueue(QUEUE_INITIAL, -1L);

    /** {@link #grownCheckedAtNext} before any walk, and after an idle shrink. */
    private static final long NOT_CHECKED = Long.MIN_VALUE;
    /** The CSN ring's next CSN when {@link #tablesGrown} was last walked (see {@link #idleShrinkable}). */
    private long grownCheckedAtNext = NOT_CHECKED;
    /** What that walk found. */
    private boolean grownWhenChecked;
    /** Initial capacity of the deferral queues and of each path's retransmission queue. */
    static final int QUEUE_INITIAL = 8;

    /**
     * The send time the ACK being applied echoes: that of the newest transmission the peer had
     * received on the path. Only that transmission yields an RTT sample for the controller; see
     * {@link #acked}, which clears it once the sample is given, so an ACK yields at most one.
     */
    private long ackEchoNanos = Long.MIN_VALUE;

    /** Posted work requests (not READ responses) not yet completed. */
    private int outstanding;
    /** Set when a packet's source region was found deregistered: the connection must abort. */
    private boolean localProtectionFault;

    Sender(EngineConfig config, long localId, ConnectionStats stats, Paths paths, StreamTable streams,
            CongestionController congestion, PathHealth health, PacketEmitter emitter) {
        this.localId = localId;
        this.health = health;
        this.stats = stats;
        this.paths = paths;
        this.streams = streams;
        this.congestion = congestion;
        this.newData = new NewDataPaths(congestion);
        this.reorderAllowancePackets = config.reorderAllowancePackets();
        this.rnrRetryDelayNanos = config.rnrRetryDelayNanos();
        this.maxRtoNanos = config.maxRtoNanos();
        this.fullWindowAboveLossPercent = (byte) config.fullWindowAboveLossPercent();
        this.work = new WorkRequests(config.maxWorkRequests());
        this.packets = new PacketTable(config.sequenceWindow());
        this.scheduler = new SendScheduler(streams, work);
        this.writer = new DataWriter(config, stats, paths, congestion, emitter, work, packets, scheduler);
    }

    /** The payload size P both ends cut messages with ([SPEC-CONN-14]: the smaller of the two). */
    int packetPayloadLimit() {
        return writer.payloadBytesPerPacket();
    }

    /** Takes the peer's payload size and sequence window, already bounded by this side's own. */
    void adoptPeerLimits(int peerPayloadBytes, int peerWindow) {
        writer.adoptPeerLimits(peerPayloadBytes, peerWindow);
    }

    int payloadBytesPerPacket() {
        return writer.payloadBytesPerPacket();
    }

    int outstanding() {
        return outstanding;
    }

    /** Whether no work request, posted or served, is in progress. */
    boolean idle() {
        return work.used() == 0;
    }

    /**
     * The idle point of the connection (its keep-alive is due: nothing sent for
     * {@code keepAliveNanos}): the tables a burst grew go back to their initial size, each that is
     * empty, and the stream pause column goes once every pause has passed [SPEC-CONN-18].
     * Nothing while a packet is outstanding: its CSN names a work request slot, and a pause is
     * compared with its send time. Allocates when it shrinks; never on the datapath.
     */
    void shrinkIdleTables(long nowNanos) {
        if (packets.floor() != packets.next()) {
            return;
        }
        grownCheckedAtNext = NOT_CHECKED; // what is left grown is walked anew
        packets.shrinkIfEmpty();
        work.shrinkIfIdle();
        scheduler.shrinkIfIdle();
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p != null) {
                p.scoreboard.shrinkIfEmpty();
                p.retransmitQueue = small(p.retransmitQueue);
            }
        }
        deferredSequences = small(deferredSequences);
        deferredUntil = small(deferredUntil);
        streams.forgetPausesBefore(nowNanos);
        if (pendingReads.isEmpty() && pendingReads.capacity() > IDLE_MAP_CAPACITY) {
            pendingReads.compact();
        }
    }

    /**
     * Whether {@link #shrinkIdleTables} may shrink something now: no CSN is outstanding (else it
     * shrinks nothing) and a burst left some table above its initial size or the pause column
     * allocated. Called only for connections without keep-alive, when their timers are computed
     * (see {@code Connection#idleShrinkPending}); cheap there: two field reads while a CSN is
     * outstanding, and the walk of {@link #tablesGrown} (a few fields per path) at most once per
     * CSN issued and per idle shrink, since the tables grow only with the work that issues CSNs
     * (posted work, READ responses) [SPEC-CONN-18].
     */
    boolean idleShrinkable() {
        long next = packets.next();
        if (packets.floor() != next) {
            return false;
        }
        if (grownCheckedAtNext != next) {
            grownCheckedAtNext = next;
            grownWhenChecked = tablesGrown();
        }
        return grownWhenChecked;
    }

    /**
     * Whether a burst left any of the tables {@link #shrinkIdleTables} shrinks above its initial
     * size, or the stream pause column allocated. Reads a few fields per path.
     */
    private boolean tablesGrown() {
        if (packets.grown() || work.grown() || scheduler.grown() || deferredSequences.capacity() > QUEUE_INITIAL
                || deferredUntil.capacity() > QUEUE_INITIAL || streams.holdsPauses()
                || pendingReads.capacity() > IDLE_MAP_CAPACITY) {
            return true;
        }
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p != null && (p.scoreboard.grown() || p.retransmitQueue.capacity() > QUEUE_INITIAL)) {
                return true;
            }
        }
        return false;
    }

    /** {@code q}, or a small queue in its place if it is empty and a burst grew it (agrona's queues do not shrink). */
    private static LongArrayQueue small(LongArrayQueue q) {
        return q.isEmpty() && q.capacity() > QUEUE_INITIAL ? new LongArrayQueue(QUEUE_INITIAL, -1L) : q;
    }

    /** Whether the packet refused as unsafe should make the connection abort; clears the flag. */
    boolean takeLocalProtectionFault() {
        boolean fault = localProtectionFault;
        localProtectionFault = false;
        return fault;
    }

    // ---- posting ----

    /** Queues a validated work request; {@link PostResult} OK or QUEUE_FULL. */
    int post(byte kind, int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int remoteKey, long remoteOffset, int immediate, boolean hasImmediate) {
        if (!work.hasRoom()) {
            return PostResult.QUEUE_FULL;
        }
        streams.ensure(streamId);
        int w = work.take();
        work.kind[w] = kind;
        work.stream[w] = streamId;
        work.workRequestId[w] = workRequestId;
        work.region[w] = region;
        work.localOffset[w] = offset;
        work.length[w] = length;
        work.remoteKey[w] = remoteKey;
        work.remoteOffset[w] = remoteOffset;
        work.immediate[w] = immediate;
        work.hasImmediate[w] = hasImmediate;
        work.messageSequence[w] = streams.takeSendMessageSequence(streamId);
        if (kind == WorkRequests.SEND || kind == WorkRequests.WRITE_WITH_IMM) {
            work.receiveSequence[w] = streams.takeSendReceiveSequence(streamId);
        }
        if (kind == WorkRequests.READ) {
            pendingReads.put(readKey(streamId, work.messageSequence[w]), w);
        }
        int tail = streams.workTail(streamId);
        if (tail == StreamTable.NONE) {
            streams.workHead(streamId, w);
        } else {
            work.next[tail] = w;
        }
        streams.workTail(streamId, w);
        if (streams.sendCursor(streamId) == StreamTable.NONE) {
            streams.sendCursor(streamId, w);
        }
        scheduler.schedule(streamId);
        outstanding++;
        return PostResult.OK;
    }

    /** Whether a work request slot is free, to serve a READ of the peer's with. */
    boolean hasWorkRoom() {
        return work.hasRoom();
    }

    /**
     * Takes a work request slot (there must be room) to serve the peer's READ of {@code length}
     * bytes of {@code region}. It is sent once {@link #queueResponse} queues it.
     */
    int takeReadResponse(int streamId, long messageSequence, MemoryRegion region, long offset, long length) {
        int w = work.take();
        work.kind[w] = WorkRequests.READ_RESPONSE;
        work.stream[w] = streamId;
        work.messageSequence[w] = messageSequence;
        work.region[w] = region;
        work.localOffset[w] = offset;
        work.length[w] = length;
        return w;
    }

    void queueResponse(int w) {
        scheduler.queueResponse(w);
    }

    private static long readKey(int streamId, long msn) {
        return ((long) streamId << READ_KEY_SHIFT) | (msn & 0xffff_ffffL);
    }

    // ---- input: ACK, NAK, READ response ----

    /**
     * Handles an ACK; {@code listener} (the connection) hears of each packet acknowledged or lost.
     *
     * @return false if the ACK names no open path (and was ignored)
     */
    boolean onAck(long nowNanos, Packet p, ScoreboardListener listener) {
        Path path = paths.get(p.pathId);
        if (path == null) {
            stats.unknownPathPackets++;
            return false;
        }
        stats.acksReceived++;
        long highestBefore = path.scoreboard.highestAcked();
        int acked;
        ackEchoNanos = p.echoTimestampNanos;
        try {
            acked = path.scoreboard.onAck(p, reorderAllowancePackets, listener);
        } finally {
            // Whatever way the walk ends: a stale echo must not give a later acknowledgement (a timer's) a sample.
            ackEchoNanos = Long.MIN_VALUE;
        }
        if (acked > 0) {
            health.onProgress(path, nowNanos);
            if (path.scoreboard.highestAcked() > highestBefore) {
                path.rtt.update(nowNanos - p.echoTimestampNanos - p.ackDelayNanos);
                writer.pathWaitInputsChanged(path);
            }
        }
        long newEct = p.ectCount - path.reportedEctCount;
        long newCe = p.ceCount - path.reportedCeCount;
        if (newEct > 0 || newCe > 0) {
            path.reportedEctCount = p.ectCount;
            path.reportedCeCount = p.ceCount;
            congestion.onEcnFeedback(path.id, Math.max(0, newEct), Math.max(0, newCe), nowNanos);
        }
        congestion.onRateHint(p.rateHintBytesPerSecond, nowNanos);
        return true;
    }

    /**
     * {@link ScoreboardListener#onTransmissionAcked}, at {@code nowNanos}: one transmission, as
     * {@link #onTransmissionsAcked} handles each of a run. The scoreboard reports runs, so this is
     * reached only through a listener's per-transmission expansion of a run.
     */
    void onTransmissionAcked(int pathId, long csn, int bytes, long sentAtNanos, long nowNanos, Endpoint endpoint) {
        Path path = paths.get(pathId);
        path.lossFraction = acked(pathId, csn, bytes, sentAtNanos, nowNanos, endpoint, path.lossFraction);
        writer.pathWaitInputsChanged(path);
    }

    /**
     * {@link ScoreboardListener#onTransmissionsAcked}: {@link #onTransmissionAcked} for each
     * transmission of the run in turn, with the path looked up once and its loss average kept in a
     * local until the end (nothing the run calls reads it; the same arithmetic in the same order).
     *
     * @return the latest send time among the run's transmissions
     */
    long onTransmissionsAcked(int pathId, SendScoreboard scoreboard, long fromPsn, long toPsn, long nowNanos,
            Endpoint endpoint) {
        Path path = paths.get(pathId);
        double lossFraction = path.lossFraction;
        long latestSent = Long.MIN_VALUE;
        for (long psn = fromPsn; psn < toPsn; psn++) {
            long sentAtNanos = scoreboard.sentAtNanosOf(psn);
            latestSent = Math.max(latestSent, sentAtNanos);
            lossFraction = acked(pathId, scoreboard.connectionSequenceOf(psn), scoreboard.bytesOf(psn), sentAtNanos,
                    nowNanos, endpoint, lossFraction);
        }
        path.lossFraction = lossFraction;
        writer.pathWaitInputsChanged(path);
        return latestSent;
    }

    /**
     * One transmission acknowledged; returns the path's loss average {@code lossFraction} after it.
     * The controller gets an RTT sample (its time from sending to this acknowledgement, the peer's
     * ACK delay included, since that is how long the window waits for it) only with the
     * transmission whose send time the ACK echoes [SPEC-CC-19]: any other transmission the ACK
     * covers may have been acknowledged late because earlier ACKs were lost, and its
     * send-to-acknowledgement time would count that wait as queueing (slowing pacing and, without
     * ECN, reading as congestion). A burst sent in one drive shares one clock reading, so several
     * transmissions may have the echoed send time: the first of them the walk reaches (the lowest
     * path sequence number) takes the sample and the echo is cleared, so one ACK gives the
     * controller at most one sample.
     */
    private double acked(int pathId, long csn, int bytes, long sentAtNanos, long nowNanos, Endpoint endpoint,
            double lossFraction) {
        boolean outstanding = packets.transmissionResolvedOutstanding(csn);
        long rtt = -1;
        if (sentAtNanos == ackEchoNanos) {
            rtt = nowNanos - sentAtNanos;
            ackEchoNanos = Long.MIN_VALUE; // one sample per ACK, however many share the send time [SPEC-CC-19]
        }
        congestion.onPacketAcked(pathId, bytes, rtt > 0 ? rtt : -1, nowNanos);
        if (outstanding) {
            delivered(csn, endpoint);
        }
        return lossFraction - lossFraction * LOSS_FRACTION_GAIN;
    }

    /**
     * {@link ScoreboardListener#onTransmissionLost}, at {@code nowNanos}: retransmit on the same
     * path, or on a path in service if that one has failed [SPEC-LOSS-3], [SPEC-PATH-11].
     */
    void onTransmissionLost(int pathId, long csn, int bytes, long nowNanos) {
        Path path = paths.get(pathId);
        packets.transmissionResolved(csn);
        path.losses++;
        path.lossFraction += (1 - path.lossFraction) * LOSS_FRACTION_GAIN;
        writer.pathWaitInputsChanged(path);
        stats.losses++;
        congestion.onPacketLost(pathId, bytes, nowNanos);
        if (packets.state(csn) == PacketTable.OUTSTANDING && !writer.ownerLive(csn)) {
            packets.finish(csn, PacketTable.ABANDONED);
        } else if (packets.state(csn) == PacketTable.OUTSTANDING && !packets.queued(csn)) {
            packets.queued(csn, true);
            paths.queueRetransmission(paths.retransmitPathFor(path), csn);
        }
    }

    /**
     * The transmission of {@code csn} declared lost on {@code pathId} arrived after all
     * [SPEC-LOSS-9]: the packet is delivered if it still awaited that, so a retransmission still
     * queued is dropped unsent ({@link DataWriter#write} skips a CSN no longer outstanding), and the
     * path's loss average takes the loss back (the inverse of the step {@link #onTransmissionLost}
     * made; later steps in between make it approximate, so it stops at 0).
     */
    void onLossProvenSpurious(int pathId, long csn, Endpoint endpoint) {
        Path path = paths.get(pathId);
        path.lossFraction = Math.max(0, (path.lossFraction - LOSS_FRACTION_GAIN) / (1 - LOSS_FRACTION_GAIN));
        writer.pathWaitInputsChanged(path);
        if (packets.state(csn) == PacketTable.OUTSTANDING) {
            delivered(csn, endpoint);
        }
    }

    private void delivered(long csn, Endpoint endpoint) {
        int w = packets.owner(csn);
        boolean live = work.generation[w] == packets.ownerGeneration(csn) && !work.done[w];
        packets.finishOutstanding(csn, PacketTable.DELIVERED); // both callers saw it OUTSTANDING
        if (!live) {
            return;
        }
        work.undelivered[w]--;
        if (work.undelivered[w] == 0 && work.allSent[w] && work.kind[w] != WorkRequests.READ) {
            markDone(w, CompletionStatus.SUCCESS, endpoint);
        }
    }

    /**
     * A NAK refused a transmission.
     *
     * @return the send time of the transmission it cancelled (it arrived: the peer answered it
     *     [SPEC-PATH-15]), or {@link Long#MIN_VALUE} if none was in flight
     */
    long onNak(long nowNanos, Packet p, Endpoint endpoint) {
        stats.naksReceived++;
        Path path = paths.get(p.pathId);
        if (path == null) {
            stats.unknownPathPackets++;
        }
        long csn = p.refusedConnectionSequence;
        long answeredSentNanos = Long.MIN_VALUE;
        if (path != null) {
            int bytes = path.scoreboard.cancel(p.refusedPathSequence, csn);
            if (bytes >= 0) {
                answeredSentNanos = path.scoreboard.sentAtNanosOf(p.refusedPathSequence);
                packets.transmissionResolved(csn);
                congestion.onPacketDiscarded(path.id, bytes, nowNanos);
            }
        }
        if (packets.state(csn) != PacketTable.OUTSTANDING) {
            return answeredSentNanos;
        }
        int w = packets.owner(csn);
        if (work.generation[w] != packets.ownerGeneration(csn) || work.done[w]) {
            return answeredSentNanos;
        }
        switch (p.nakCode) {
            case NakCode.RECEIVER_NOT_READY -> {
                stats.receiverNotReadyNaks++;
                long delay = p.retryAfterNanos > 0 ? Math.min(p.retryAfterNanos, maxRtoNanos) : rnrRetryDelayNanos;
                if (!packets.queued(csn)) {
                    packets.queued(csn, true);
                    deferredSequences.addLong(csn);
                    deferredUntil.addLong(nowNanos + delay);
                }
                int s = work.stream[w];
                if (work.kind[w] != WorkRequests.READ_RESPONSE && streams.pausedUntilNanos(s) < nowNanos + delay) {
                    streams.pausedUntilNanos(s, nowNanos + delay);
                }
            }
            case NakCode.REMOTE_ACCESS_ERROR -> abandon(w, CompletionStatus.REMOTE_ACCESS_ERROR, endpoint);
            default -> abandon(w, CompletionStatus.REMOTE_INVALID_REQUEST, endpoint);
        }
        return answeredSentNanos;
    }

    /**
     * Places a READ_RESPONSE packet into the region of the READ this side posted. Always accepted
     * (0): a response to a READ that already finished, or a malformed one, is dropped, not resent.
     */
    int onReadResponse(Packet p, ByteBuffer datagram, Endpoint endpoint) {
        long v = pendingReads.get(readKey(p.streamId, p.messageSequence));
        if (v == -1L) {
            // The READ already finished or was flushed; nothing to place. Accept so it is not resent.
            stats.staleResponses++;
            return 0;
        }
        int w = (int) v;
        if (p.payloadMessageOffset + p.payloadLength > work.length[w] || p.messageLength != work.length[w]) {
            stats.invalidRequests++;
            return 0;
        }
        MemoryRegion target = work.region[w];
        if (!target.isUsable()) {
            abandon(w, CompletionStatus.LOCAL_PROTECTION_ERROR, endpoint);
            return 0;
        }
        if (p.payloadLength > 0) {
            target.place(work.localOffset[w] + p.payloadMessageOffset, datagram, p.payloadOffset, p.payloadLength);
        }
        // Credited bytes, not payload bytes: a response's last packet may repeat bytes [SPEC-MSG-3].
        work.readReceived[w] += Segmentation.creditedBytes(work.length[w], p.payloadMessageOffset, p.payloadLength, writer.payloadBytesPerPacket());
        if (work.readReceived[w] >= work.length[w]) {
            pendingReads.remove(readKey(p.streamId, p.messageSequence));
            markDone(w, CompletionStatus.SUCCESS, endpoint);
        }
        return 0;
    }

    // ---- completions ----

    private void markDone(int w, int status, Endpoint endpoint) {
        work.done[w] = true;
        work.status[w] = status;
        if (work.kind[w] == WorkRequests.READ_RESPONSE) {
            work.free(w);
            return;
        }
        completeInOrder(work.stream[w], endpoint);
    }

    /** Delivers the send-side completions of stream {@code s} that are next in posting order. */
    private void completeInOrder(int s, Endpoint endpoint) {
        int w = streams.workHead(s);
        while (w != StreamTable.NONE && work.done[w]) {
            int next = work.next[w];
            endpoint.complete(localId, s, work.workRequestId[w], completionOpcode(work.kind[w]), work.status[w],
                    work.length[w], work.immediate[w], work.hasImmediate[w]);
            if (streams.sendCursor(s) == w) {
                streams.sendCursor(s, next);
            }
            work.free(w);
            outstanding--;
            endpoint.workFinished();
            w = next;
        }
        streams.workHead(s, w);
        if (w == StreamTable.NONE) {
            streams.workTail(s, StreamTable.NONE);
        }
    }

    private static int completionOpcode(byte kind) {
        return switch (kind) {
            case WorkRequests.SEND -> WorkOpcode.SEND;
            case WorkRequests.WRITE -> WorkOpcode.WRITE;
            case WorkRequests.WRITE_WITH_IMM -> WorkOpcode.WRITE_WITH_IMM;
            default -> WorkOpcode.READ;
        };
    }

    /** Gives up on work request {@code w}: its packets are abandoned and it completes with {@code status}. */
    private void abandon(int w, int status, Endpoint endpoint) {
        abandonPackets(w);
        work.allSent[w] = true;
        work.undelivered[w] = 0;
        scheduler.advanceCursor(w);
        if (work.kind[w] == WorkRequests.READ) {
            pendingReads.remove(readKey(work.stream[w], work.messageSequence[w]));
        }
        markDone(w, status, endpoint);
    }

    private void abandonPackets(int w) {
        int generation = work.generation[w];
        for (long c = packets.floor(); c < packets.next(); c++) {
            if (packets.state(c) == PacketTable.OUTSTANDING && packets.owner(c) == w
                    && packets.ownerGeneration(c) == generation) {
                packets.finish(c, PacketTable.ABANDONED);
            }
        }
    }

    /** Completes every work request of stream {@code s} with {@code status} (the connection is ending). */
    void flushStream(int s, int status, Endpoint endpoint) {
        for (int w = streams.workHead(s); w != StreamTable.NONE; w = work.next[w]) {
            if (!work.done[w]) {
                abandonPackets(w);
                work.done[w] = true;
                work.allSent[w] = true;
                work.status[w] = status;
            }
        }
        completeInOrder(s, endpoint);
        streams.sendCursor(s, StreamTable.NONE);
    }

    /** After {@link #flushStream} of every stream: drops the READ responses and every packet left. */
    void flushResponses() {
        scheduler.dropResponses();
        // Responses already fully sent but not yet acknowledged.
        for (long c = packets.floor(); c < packets.next(); c++) {
            if (packets.state(c) == PacketTable.OUTSTANDING) {
                int w = packets.owner(c);
                packets.finish(c, PacketTable.ABANDONED);
                if (work.generation[w] == packets.ownerGeneration(c) && !work.done[w]
                        && work.kind[w] == WorkRequests.READ_RESPONSE) {
                    work.done[w] = true;
                    work.free(w);
                }
            }
        }
        pendingReads.clear();
    }

    // ---- timers ----

    /** When a deferred packet or a paused stream may be retried, or {@link Long#MAX_VALUE}. */
    long nextRetryNanos() {
        long t = deferredUntil.isEmpty() ? Long.MAX_VALUE : deferredUntil.peekLong();
        return Math.min(t, scheduler.nextResumeNanos());
    }

    /**
     * When pacing next lets a packet leave on a path that may send, if packets wait to be sent:
     * the earliest such time after {@code afterNanos}, or {@link Long#MAX_VALUE}.
     */
    long nextPacedSendNanos(long afterNanos) {
        startPacedWalk();
        boolean waiting = writer.hasWaitingWork();
        // The next idle resend [SPEC-LOSS-8]: due with nothing to send, and also while work waits
        // that cannot leave (a full sequence window, a retransmission held on a path without room
        // while another path is free). If it is due already, it waits for a path that may send,
        // as new data would.
        long earliest = writer.idleResendEarliestSentNanos();
        long due = Long.MAX_VALUE;
        if (!waiting) {
            due = writer.idleResendDueBelow(earliest, Long.MAX_VALUE);
            if (due > afterNanos) {
                return due;
            }
        }
        // Before the controller's first send time [SPEC-CC-16]; with nothing new waiting (an idle
        // resend), 0 bytes wait for a batch: wake at the pacing time [SPEC-CC-38].
        long ready = waiting ? writer.tellFirstPacketBytesAndReadyBytes(afterNanos) : 0;
        long t = Long.MAX_VALUE;
        boolean anyAllowance = false;
        for (int i = 0; i < paths.count(); i++) {
            // Path i (its id: Paths keeps a path at the index of its id) open, in service and with
            // room, mostly told without reading the path's objects (a cache miss each per path).
            if (!paths.inServiceWithRoom(i)) {
                continue;
            }
            if (hasNothingToSend(i, afterNanos)) {
                continue;
            }
            if (congestion.sendAllowanceBytes(i, afterNanos) <= 0) {
                if (!congestion.allowanceQuestionSettled(i, afterNanos)) {
                    exhaustedPaths |= 1L << i; // i < 64 whenever the caller reuses the result
                }
                continue;
            }
            anyAllowance = true;
            long next = congestion.pacedWakeNanos(i, afterNanos, ready); // [SPEC-CC-38]
            if (next > afterNanos) {
                t = Math.min(t, next);
                notePacedGate(i, afterNanos);
            }
        }
        if (waiting) {
            // The due time (read after the paths' allowances: neither changes the other) matters
            // only where it comes before t, or, with every window full, where it has come. With a
            // path allowed to send, t is after afterNanos or MAX_VALUE, so a due time at or past t
            // gives t either way and its wait need not read every path.
            due = writer.idleResendDueBelow(earliest, anyAllowance ? t : Long.MAX_VALUE);
            if (!anyAllowance && due <= afterNanos) {
                // Every window full and the resend due: it may leave on a full lossy path as soon as
                // that path's pacing allows [SPEC-LOSS-11]; wake then.
                t = Math.min(t, writer.windowFullLossyPathSendTimeNanos(afterNanos, fullWindowAboveLossPercent));
            }
        } else if (!anyAllowance) {
            notePacedGateOfFullWindowResend(afterNanos);
        }
        return due > afterNanos ? Math.min(t, due) : t;
    }

    /**
     * {@link #nextPacedSendNanos} for tests, leaving the repeat mask it sets as it was (the
     * connection's reused pacing term goes with the mask of the query that computed it).
     */
    long nextPacedSendNanosForTest(long afterNanos) {
        long saved = exhaustedPaths;
        long savedGate = pacedGateNanos;
        try {
            return nextPacedSendNanos(afterNanos);
        } finally {
            exhaustedPaths = saved;
            pacedGateNanos = savedGate;
        }
    }

    /** What {@link #nextPacedSendNanos} notes from scratch; out of line for C2's hot inlining limit. */
    private void startPacedWalk() {
        exhaustedPaths = 0;
        pacedGateNanos = Long.MAX_VALUE;
        newData.begin();
    }

    /**
     * Whether path {@code i} takes no new data and has no retransmission of its own queued: it
     * sends only its own retransmissions [SPEC-CC-42]. Out of line to keep
     * {@link #nextPacedSendNanos} under C2's hot inlining limit.
     */
    private boolean hasNothingToSend(int i, long afterNanos) {
        return !newData.carries(i, afterNanos) && !paths.hasQueuedRetransmission(i);
    }

    /** Path {@code i}'s pacing time, after {@code afterNanos} since its wake-up is, into {@link #pacedGateNanos}. */
    private void notePacedGate(int i, long afterNanos) {
        long gate = congestion.nextSendTimeNanos(i, afterNanos);
        if (gate < pacedGateNanos) {
            pacedGateNanos = gate;
        }
    }

    /**
     * Nothing waits, the idle resend is due and every window is full: a poll sends the copy on a
     * lossy path once its pacing allows [SPEC-LOSS-11], a time no wake-up is reported for (the
     * walk of every connection found it at the next input): into {@link #pacedGateNanos}.
     */
    private void notePacedGateOfFullWindowResend(long afterNanos) {
        long gate = writer.windowFullLossyPathSendTimeNanos(afterNanos, fullWindowAboveLossPercent);
        if (gate < pacedGateNanos) {
            pacedGateNanos = gate;
        }
    }

    /** See {@link #pacedGateNanos}. */
    long pacedGateNanos() {
        return pacedGateNanos;
    }

    /**
     * {@link #nextPacedSendNanos} as it was before its idle-resend wait stopped early: the due
     * time computed in full, before the paths' allowances, for tests that compare the two. Asks
     * the controller the same questions, so calling both at one time gives each the same answers.
     */
    long nextPacedSendNanosWithFullWaitForTest(long afterNanos) {
        boolean waiting = writer.hasWaitingWork();
        long due = writer.idleResendDueNanos();
        if (!waiting && due > afterNanos) {
            return due;
        }
        long ready = waiting ? writer.tellFirstPacketBytesAndReadyBytes(afterNanos) : 0;
        long t = Long.MAX_VALUE;
        boolean anyAllowance = false;
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p == null || !PathState.inService(p.state) || !p.scoreboard.hasRoom()
                    || !congestion.carriesNewData(p.id, afterNanos) && p.retransmitQueue.isEmpty()
                    || congestion.sendAllowanceBytes(p.id, afterNanos) <= 0) {
                continue;
            }
            anyAllowance = true;
            long next = congestion.pacedWakeNanos(p.id, afterNanos, ready); // [SPEC-CC-38]
            if (next > afterNanos) {
                t = Math.min(t, next);
            }
        }
        if (waiting && !anyAllowance && due <= afterNanos) {
            t = Math.min(t, writer.windowFullLossyPathSendTimeNanos(afterNanos, fullWindowAboveLossPercent));
        }
        return due > afterNanos ? Math.min(t, due) : t;
    }

    /**
     * Asks the congestion controller again, at {@code afterNanos}, for the allowance of every path
     * the last {@link #nextPacedSendNanos} found with its allowance used up: for a connection that
     * reuses that result while its state is unchanged. The question is not idle: the controller
     * notes there that a window holds the path back, which its window growth depends on.
     */
    void repeatExhaustedAllowanceQueries(long afterNanos) {
        // Bit i is path i (Paths keeps a path at the index of its id): the path objects need not be
        // read. A path whose question is settled now is not asked again until the next recompute.
        for (long m = exhaustedPaths; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            congestion.sendAllowanceBytes(i, afterNanos);
            if (congestion.allowanceQuestionSettled(i, afterNanos)) {
                exhaustedPaths &= ~(1L << i);
            }
        }
    }

    /** Path {@code path}'s smoothed RTT or loss average changed (the idle resend's wait reads them). */
    void pathWaitInputsChanged(Path path) {
        writer.pathWaitInputsChanged(path);
    }

    /** The packetizer, for tests. */
    DataWriter writerForTest() {
        return writer;
    }

    /** Whether the packetizer changed send state in a write that sent nothing, since the last call. */
    boolean takeWriterTouched() {
        return writer.takeTouched();
    }

    /** Queues again the packets and resumes the streams whose receiver-not-ready delay is over. */
    void releaseDeferred(long nowNanos) {
        while (!deferredUntil.isEmpty() && deferredUntil.peekLong() <= nowNanos) {
            deferredUntil.pollLong();
            long csn = deferredSequences.pollLong();
            if (packets.state(csn) == PacketTable.OUTSTANDING) {
                packets.queued(csn, false);
                retransmitSoon(csn);
            }
        }
        scheduler.resumePaused(nowNanos);
    }

    private void retransmitSoon(long csn) {
        // Deferred packets go out on the next path that may take new data, which is the path they
        // were refused on when the connection has one path; any open path if none may.
        int count = paths.count();
        Path path = null;
        for (int i = 0; i < count && path == null; i++) {
            Path candidate = paths.get((paths.nextForData() + i) % count);
            if (candidate != null && paths.usableForNewData(candidate)) {
                path = candidate;
            }
        }
        if (path == null) {
            path = paths.firstInService();
        }
        if (path != null) {
            packets.queued(csn, true);
            paths.queueRetransmission(path, csn);
        }
    }

    // ---- output ----

    /**
     * Writes the next DATA or READ_REQUEST packet, retransmissions first; false if none may go now,
     * or if the packet's source region was found deregistered (see {@link #takeLocalProtectionFault}).
     */
    boolean writeData(long nowNanos, Transmit out, Packet p, PacketCodec codec, Endpoint endpoint) {
        if (writer.write(nowNanos, out, p, codec, fullWindowAboveLossPercent)) {
            return true;
        }
        int w = writer.takeUnusableSource();
        if (w != StreamTable.NONE) {
            if (work.kind[w] != WorkRequests.READ_RESPONSE) {
                abandon(w, CompletionStatus.LOCAL_PROTECTION_ERROR, endpoint);
            }
            localProtectionFault = true;
        }
        return false;
    }
}
