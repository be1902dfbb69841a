package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.memory.ProtectionDomain;
import io.metaroce.core.sack.ScoreboardListener;
import io.metaroce.core.sack.SendScoreboard;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import io.metaroce.core.wire.CloseCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;

/**
 * One MetaRoCE connection: many ordered streams above, many paths below, one congestion
 * controller, as a sans-IO state machine driven by its {@link Endpoint}.
 *
 * <p>Work is posted with the {@code postX} methods; the endpoint feeds packets in, polls
 * datagrams out and runs timers. Completions go to the endpoint's completion queue. Every call
 * must come from the endpoint's thread: a connection is not thread-safe, and takes no locks.
 *
 * <p>Reliability in brief (normative text in {@code docs/spec.md}): every reliable packet has a
 * connection sequence number (CSN) that a retransmission keeps, and a path sequence number (PSN)
 * that each transmission gets anew on its path. ACKs carry a 256-bit window of PSNs per path; a
 * hole below an acknowledged PSN is loss on that path, retransmitted at once on that path. The
 * receiver admits each CSN once, so duplicates are harmless; refused packets (no receive posted,
 * access violations) are answered by a NAK and not acknowledged.
 */
public final class Connection implements ScoreboardListener {
    private final Endpoint endpoint;
    private final EngineConfig config;
    private final CongestionController congestion;
    private final ProtectionDomain protectionDomain;
    private final long localId;
    private final boolean client;
    private final ConnectionStats stats = new ConnectionStats();

    private long peerId;
    private ConnectionState state;
    /** Set once outstanding work was flushed (abort, peer close, failure): inbound data is ignored from then on. */
    private boolean workFlushed;
    private CloseReason closeReason;
    private final Paths paths;
    private final StreamTable streams;

    // The parts, each one concept (see their class comments). They hold no reference to the
    // endpoint, the protection domain or this connection; those are passed in where needed.
    private final PacketEmitter emitter;
    private final Sender sender;
    private final Receiver receiver;
    private final ControlQueue control;
    private final ControlWriter controlWriter;
    private final PathHealth health;

    private boolean keepAliveDue;
    /**
     * When the idle point last shrank the tables; without keep-alive, the next idle check is an
     * idle interval after it or after the last send, whichever is later [SPEC-CONN-18].
     */
    private long idleShrinkAtNanos = Long.MIN_VALUE;
    /** Time of the input being handled, for the scoreboard callbacks, which do not carry it. */
    private long inputNanos;
    private long createdAtNanos;
    private long lastReceiveNanos;
    private long handshakeNextNanos;
    private long handshakeIntervalNanos;
    private final byte[] cookie = new byte[WireConstants.COOKIE_BYTES];
    private boolean hasCookie;
    private boolean acceptDue;
    /**
     * Server: ACCEPTs sent so far (the next one's announcement sequence, mod 2^16). Client: the
     * announcement sequence of the newest ACCEPT taken [SPEC-CONN-17].
     */
    private int announcementSequence;
    /** Client: the share the newest ACCEPT announced (0: none). */
    private long announcedShareBytesPerSecond;
    /** While a timer declares losses: how long what it declares lost has waited at least (0: not a timer). */
    private long lossWaitNanos;
    /** An ACK was due while the DATA written ahead of it could not carry it: the next poll sends ACKs first. */
    private boolean ackAloneNext;
    /** Largest datagram both sides take: the bound of an ACK-and-DATA bundle [SPEC-SACK-13]. */
    private int bundleLimitBytes = EngineConfig.MIN_DATAGRAM_BYTES;
    private int closeCodeToSend;
    private boolean closeReplyDue;
    private long closeNextNanos = Long.MAX_VALUE;
    private int closeRetriesLeft;
    /** Interval before the next CLOSE retransmission; doubles after each, like a retransmission timeout. */
    private long closeIntervalNanos;
    private long drainUntilNanos = Long.MAX_VALUE;
    /**
     * {@link #nextTimeoutNanos}'s result without its pacing term, valid while
     * {@link #deadlinesStale} is false. Drivers ask for the next timeout after every input, and
     * recomputing it walks every path; but it only changes when this connection's state does,
     * which only its own entry points do, and each of them marks it stale when it may have
     * changed something (a transmit poll that sends nothing and a timer pass with nothing due
     * usually have not; see {@link #pollTransmit} and {@link #handleTimeout}).
     */
    private long cachedDeadlineNanos;
    private boolean deadlinesStale = true;
    /**
     * The per-path part of {@link #cachedDeadlineNanos}: an input that touched one path marks that
     * path (and {@link #pathTouched}) rather than the whole cache stale, and the next query reads
     * only that path's objects again. {@link #deadlinesStale} marks every path.
     */
    private final PathDeadlines pathDeadlines = new PathDeadlines();
    /** Some paths of {@link #pathDeadlines} were marked since the deadlines were last computed. */
    private boolean pathTouched;
    /**
     * The pacing term of {@link #nextTimeoutNanos} as last computed ({@link #pacedSendNanos}, asked
     * at {@link #pacedSendAskedNanos}), valid while {@link #pacingKnown}: that is, until the
     * connection's state next changes (the same stale mark as the deadlines clears it). The
     * answer holds for any later time before it, because the controller's answers depend on the
     * time only through {@code max(T, now)} ({@code CongestionController#pacingAnswersReusable}).
     */
    private long pacedSendNanos;
    private long pacedSendAskedNanos;
    private boolean pacingKnown;
    /**
     * False once a transmit poll found no path with anything to acknowledge, until the next packet
     * arrives (only an arriving packet gives a path something to acknowledge): a connection that
     * only sends then skips looking at its paths' receive trackers on every poll.
     */
    private boolean acksMayBeDue = true;
    /**
     * Send time of the newest transmission acknowledged on any path: a path whose oldest
     * transmission in flight is older than this is judged by the overdue rule [SPEC-LOSS-7].
     */
    private long latestAckedSentNanos = Long.MIN_VALUE;

    /** Receiver fair share (R-CC-2): what arrives from the peer, and the share the endpoint gives it. */
    private final InboundShare inbound = new InboundShare();
    /** The latest rate hint the peer sent in an ACK (0: none). */
    private long peerRateHintBytesPerSecond;
    /** This connection's slot in its endpoint's schedule (-1: not registered yet). */
    private int scheduleSlot = -1;
    /**
     * Set while the endpoint's schedule has this connection both ready and dirty, so that the
     * endpoint marks it once per run of datagrams or polls (the endpoint's field, kept here).
     */
    boolean scheduledChange;

    Connection(Endpoint endpoint, long localId, boolean client, int pathCount, long nowNanos) {
        this.endpoint = endpoint;
        this.config = endpoint.config();
        this.protectionDomain = endpoint.protectionDomain();
        this.congestion = endpoint.congestionControllerFactory().apply(config);
        congestion.onConnectionId(localId);
        this.localId = localId;
        this.client = client;
        this.paths = new Paths(pathCount);
        this.streams = new StreamTable(config.maxStreams());
        this.emitter = new PacketEmitter(stats, nowNanos);
        this.health = new PathHealth(config, paths, congestion);
        this.sender = new Sender(config, localId, stats, paths, streams, congestion, health, emitter);
        this.control = new ControlQueue(config, stats, paths, emitter);
        this.controlWriter = new ControlWriter(config, localId, stats, paths, emitter);
        this.receiver = new Receiver(config, localId, stats, streams, sender, control);
        this.state = client ? ConnectionState.CONNECTING : ConnectionState.ESTABLISHED;
        this.createdAtNanos = nowNanos;
        this.lastReceiveNanos = nowNanos;
        this.handshakeNextNanos = nowNanos;
        this.handshakeIntervalNanos = config.handshakeRetryNanos();
        if (!client) {
            // The server opens path 0 now and the others as packets arrive on them: until then the
            // controller must not count them among the paths in service, or it could give its new
            // data to paths that are not open and none to those that are [SPEC-CC-42].
            for (int i = 1; i < pathCount; i++) {
                congestion.onPathNewData(i, false, nowNanos);
            }
        }
    }

    /**
     * {@link Paths#forInbound}, telling the controller of a path it opens: in service and taking
     * new data like any new path (the server's paths after the first open so, [SPEC-CC-42]).
     */
    private Path inboundPath(int pathId, int localSocket, Object remoteAddress, long nowNanos) {
        boolean opens = pathId < paths.count() && paths.get(pathId) == null;
        Path path = paths.forInbound(pathId, localSocket, remoteAddress, config);
        if (opens && path != null) {
            congestion.onPathNewData(pathId, true, nowNanos);
        }
        return path;
    }

    // =====================================================================================
    // Getters
    // =====================================================================================

    /** This side's connection id: the id the peer puts in every packet it sends here. */
    public long localId() {
        return localId;
    }

    /** The peer's connection id (0 until the handshake finishes on a client). */
    public long peerId() {
        return peerId;
    }

    /** Whether this side opened the connection. */
    public boolean isClient() {
        return client;
    }

    /** Current state. */
    public ConnectionState state() {
        return state;
    }

    /** Why it closed, or null while open. */
    public CloseReason closeReason() {
        return closeReason;
    }

    /** Number of paths negotiated. */
    public int pathCount() {
        return paths.count();
    }

    /** Live counters of this connection. */
    public ConnectionStats stats() {
        return stats;
    }

    /** The protection domain memory must be registered in to be used on this connection. */
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    /** Largest payload this side puts in one DATA packet. */
    public int payloadBytesPerPacket() {
        return sender.payloadBytesPerPacket();
    }

    /** Smoothed RTT of path {@code pathId} in nanoseconds, or -1 if the path is not open. */
    public long smoothedRttNanos(int pathId) {
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        return p == null ? -1 : p.rtt.smoothedNanos();
    }

    /** Packets sent on path {@code pathId} (first transmissions and retransmissions), or -1. */
    public long pathPacketsSent(int pathId) {
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        return p == null ? -1 : p.packetsSent;
    }

    /** Retransmissions sent on path {@code pathId}, or -1. */
    public long pathRetransmissions(int pathId) {
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        return p == null ? -1 : p.retransmissions;
    }

    /** Losses detected on path {@code pathId}, or -1. */
    public long pathLosses(int pathId) {
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        return p == null ? -1 : p.losses;
    }

    /**
     * Copies path {@code pathId}'s counters and telemetry into {@code out}, the send rate as of the
     * latest time the endpoint was given (the last {@code nowNanos} of its {@code handleDatagram},
     * {@code handleTimeout} or {@code pollTransmit}). While nothing happens that time does not move,
     * so a driver that reads an idle connection passes its clock to
     * {@link #readPathStats(int, io.metaroce.core.api.PathStats, long)} instead.
     *
     * @return false (and {@code out} untouched) if the path is not open
     */
    public boolean readPathStats(int pathId, io.metaroce.core.api.PathStats out) {
        return readPathStats(pathId, out, endpoint.latestNanos());
    }

    /**
     * Copies path {@code pathId}'s counters and telemetry into {@code out}, the send rate
     * ({@code sendRateBytesPerSecond}) measured over the {@code EngineConfig.pathRateWindowNanos}
     * ending at {@code nowNanos} [SPEC-PATH-8].
     *
     * @return false (and {@code out} untouched) if the path is not open
     */
    public boolean readPathStats(int pathId, io.metaroce.core.api.PathStats out, long nowNanos) {
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        if (p == null) {
            return false;
        }
        out.pathId = p.id;
        out.localSocket = p.localSocket;
        out.remoteAddress = p.remoteAddress;
        out.packetsSent = p.packetsSent;
        out.bytesSent = p.bytesSent;
        out.packetsReceived = p.packetsReceived;
        out.bytesReceived = p.bytesReceived;
        out.retransmissions = p.retransmissions;
        out.losses = p.losses;
        out.timeouts = p.timeouts;
        out.overdue = p.overdue;
        out.smoothedRttNanos = p.rtt.smoothedNanos();
        out.rttVarianceNanos = p.rtt.varianceNanos();
        out.minRttNanos = p.rtt.minNanos();
        out.bytesInFlight = p.scoreboard.bytesInFlight();
        out.ectReported = p.reportedEctCount;
        out.ceReported = p.reportedCeCount;
        out.state = p.state;
        out.consecutiveTimeouts = p.consecutiveTimeouts;
        out.failures = p.failures;
        out.probesSent = p.probesSent;
        out.sendRateBytesPerSecond = p.sendRateBytesPerSecond(nowNanos);
        return true;
    }

    /** The owner this connection's DATA packets give the endpoint codec's header template. */
    Object dataTemplateOwner() {
        return emitter;
    }

    /** Path {@code pathId}'s health, a {@link PathState} value, or -1 if the path is not open. */
    public int pathState(int pathId) {
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        return p == null ? -1 : p.state;
    }

    /**
     * Moves path {@code pathId} to another local socket (a new UDP source port, hence another
     * ECMP route): everything sent on the path from now on leaves from {@code localSocket}; the
     * peer follows by rebinding [SPEC-PATH-2]. A FAILED path is probed at once from its new
     * socket. A driver typically calls this from {@link io.metaroce.core.api.ConnectionListener#onPathStateChanged}
     * when a path fails [SPEC-PATH-13].
     *
     * @throws IllegalArgumentException if the path is not open
     */
    public void repath(int pathId, int localSocket) {
        deadlinesStale = true;
        endpoint.scheduleChanged(this);
        Path p = pathId >= 0 ? paths.get(pathId) : null;
        if (p == null) {
            throw new IllegalArgumentException("path " + pathId + " is not open on this connection (paths 0 to "
                    + (paths.count() - 1) + "); repath only paths that exist");
        }
        p.localSocket = localSocket;
        if (p.state == PathState.FAILED) {
            p.nextProbeNanos = Long.MIN_VALUE;
            p.probeIntervalNanos = config.pathProbeIntervalNanos();
        }
    }

    /**
     * The rate, in datagram bytes per second, this side's fair-share allocator gives the peer and
     * writes into every ACK as the rate hint (0: the allocator is off, no limit) [SPEC-CC-11].
     */
    public long fairShareBytesPerSecond() {
        return inbound.shareBytesPerSecond;
    }

    /**
     * Client: the share the server announced in its newest ACCEPT, datagram bytes per second (0:
     * none, or not a client) [SPEC-CC-28], [SPEC-CONN-17]; it sizes the spread of the first flight.
     */
    public long announcedShareBytesPerSecond() {
        return announcedShareBytesPerSecond;
    }

    /** The latest rate hint the peer's ACKs carried, datagram bytes per second (0: no limit). */
    public long peerRateHintBytesPerSecond() {
        return peerRateHintBytesPerSecond;
    }

    /** This connection's side of the endpoint's fair-share allocator. */
    InboundShare inbound() {
        return inbound;
    }

    /** Work requests posted on this connection and not yet completed (sends and receives). */
    public int outstandingWork() {
        return sender.outstanding() + receiver.outstanding();
    }

    // =====================================================================================
    // Commands: posting work (R-CONN-3)
    // =====================================================================================

    /** Posts a SEND of {@code length} bytes at {@code offset} of {@code region} on {@code streamId}. */
    public int postSend(int streamId, long workRequestId, MemoryRegion region, long offset, long length) {
        return postOutbound(WorkRequests.SEND, streamId, workRequestId, region, offset, length, 0, 0, 0, false);
    }

    /** Posts a SEND that also carries 32 bits of immediate data. */
    public int postSendWithImmediate(int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int immediate) {
        return postOutbound(WorkRequests.SEND, streamId, workRequestId, region, offset, length, 0, 0, immediate, true);
    }

    /** Posts a WRITE of local bytes into the peer's region {@code remoteKey} at {@code remoteOffset}. */
    public int postWrite(int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int remoteKey, long remoteOffset) {
        return postOutbound(WorkRequests.WRITE, streamId, workRequestId, region, offset, length, remoteKey,
                remoteOffset, 0, false);
    }

    /** Posts a WRITE_WITH_IMM: a WRITE that also consumes a receive at the peer and hands it {@code immediate}. */
    public int postWriteWithImmediate(int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int remoteKey, long remoteOffset, int immediate) {
        return postOutbound(WorkRequests.WRITE_WITH_IMM, streamId, workRequestId, region, offset, length, remoteKey,
                remoteOffset, immediate, true);
    }

    /** Posts a READ of the peer's region {@code remoteKey} at {@code remoteOffset} into the local region. */
    public int postRead(int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int remoteKey, long remoteOffset) {
        return postOutbound(WorkRequests.READ, streamId, workRequestId, region, offset, length, remoteKey,
                remoteOffset, 0, false);
    }

    /**
     * Posts a receive buffer on {@code streamId}. The n-th SEND (or WRITE_WITH_IMM) the peer posts
     * on the stream lands in the n-th receive posted here.
     */
    public int postRecv(int streamId, long workRequestId, MemoryRegion region, long offset, long length) {
        pathTouched = true; // the receive side's streams, no path's timers
        endpoint.scheduleChanged(this);
        PostArguments.checkStream(streams, config, streamId);
        PostArguments.checkLocal(protectionDomain, region, offset, length, Access.LOCAL_WRITE, "postRecv");
        int gate = postGate();
        if (gate != PostResult.OK) {
            return gate;
        }
        int result = receiver.postRecv(streamId, workRequestId, region, offset, length);
        if (result == PostResult.OK) {
            endpoint.workPosted();
        }
        return result;
    }

    private int postOutbound(byte kind, int streamId, long workRequestId, MemoryRegion region, long offset,
            long length, int remoteKey, long remoteOffset, int immediate, boolean hasImmediate) {
        pathTouched = true; // the send side's queues and the pacing term, no path's timers
        endpoint.scheduleChanged(this);
        PostArguments.checkStream(streams, config, streamId);
        PostArguments.checkLocal(protectionDomain, region, offset, length,
                kind == WorkRequests.READ ? Access.LOCAL_WRITE : 0, PostArguments.opName(kind));
        PostArguments.checkRemoteOffset(remoteOffset, kind);
        int gate = postGate();
        if (gate != PostResult.OK) {
            return gate;
        }
        int result = sender.post(kind, streamId, workRequestId, region, offset, length, remoteKey, remoteOffset,
                immediate, hasImmediate);
        if (result == PostResult.OK) {
            endpoint.workPosted();
        }
        return result;
    }

    private int postGate() {
        if (state == ConnectionState.CONNECTING) {
            return PostResult.NOT_CONNECTED;
        }
        if (state != ConnectionState.ESTABLISHED) {
            return PostResult.CLOSED;
        }
        if (!endpoint.hasCompletionRoom()) {
            return PostResult.QUEUE_FULL;
        }
        return PostResult.OK;
    }

    /**
     * Closes gracefully: no new work is accepted; work already posted finishes; then CLOSE is
     * exchanged. Posted receives that no SEND consumed complete with CONNECTION_CLOSED.
     */
    public void close() {
        deadlinesStale = true;
        endpoint.scheduleChanged(this);
        if (state == ConnectionState.ESTABLISHED) {
            state = ConnectionState.CLOSE_PENDING;
            maybeFinishClosePending();
        } else if (state == ConnectionState.CONNECTING) {
            finish(CloseReason.LOCAL_CLOSE, CompletionStatus.CONNECTION_CLOSED);
        }
    }

    /** Aborts at once: outstanding work completes with CONNECTION_CLOSED and the peer is told. */
    public void abort() {
        deadlinesStale = true;
        endpoint.scheduleChanged(this);
        if (state == ConnectionState.CONNECTING) {
            finish(CloseReason.LOCAL_ABORT, CompletionStatus.CONNECTION_CLOSED);
            return;
        }
        if (state == ConnectionState.ESTABLISHED || state == ConnectionState.CLOSE_PENDING) {
            flushAllWork(CompletionStatus.CONNECTION_CLOSED);
            startClosing(CloseCode.APPLICATION_ABORT);
            closeReason = CloseReason.LOCAL_ABORT;
        }
    }

    private void startClosing(int code) {
        state = ConnectionState.CLOSING;
        closeCodeToSend = code;
        closeRetriesLeft = config.closeRetries();
        closeNextNanos = Long.MIN_VALUE;
        closeIntervalNanos = config.closeRetryNanos();
    }

    // =====================================================================================
    // Handshake (driven by the endpoint)
    // =====================================================================================

    void addPath(int pathId, int localSocket, Object remoteAddress) {
        deadlinesStale = true;
        paths.open(new Path(pathId, localSocket, remoteAddress, config));
    }

    void acceptFrom(long clientId, int peerMaxDatagram, int window) {
        deadlinesStale = true;
        peerId(clientId);
        adoptPeerLimits(peerMaxDatagram, window);
        this.acceptDue = true;
    }

    /** Whether an ACCEPT's announcement sequence is after the newest taken (serial arithmetic, 16 bits). */
    private boolean newerAnnouncement(int sequence) {
        int ahead = (sequence - announcementSequence) & 0xFFFF;
        return ahead != 0 && ahead < 0x8000;
    }

    private void peerId(long id) {
        this.peerId = id;
        emitter.destinationId(id);
    }

    /** Takes the peer's datagram size and sequence window (u32 on the wire) within this side's own limits. */
    private void adoptPeerLimits(int peerMaxDatagram, int window) {
        long datagram = Math.min(Integer.toUnsignedLong(peerMaxDatagram), config.maxDatagramBytes());
        bundleLimitBytes = (int) Math.max(datagram, EngineConfig.MIN_DATAGRAM_BYTES);
        int peerPayloadBytes = EngineConfig.payloadBytesFor((int) Math.max(datagram, EngineConfig.MIN_DATAGRAM_BYTES));
        int peerWindow = (int) Math.min(Integer.toUnsignedLong(window), config.sequenceWindow());
        sender.adoptPeerLimits(peerPayloadBytes, peerWindow);
    }

    void resendAccept() {
        deadlinesStale = true;
        endpoint.scheduleChanged(this);
        acceptDue = true;
    }

    boolean matchesPeer(Object remoteAddress) {
        Path p0 = paths.get(0);
        return p0 != null && p0.remoteAddress.equals(remoteAddress);
    }

    private void onChallenge(Packet p, long nowNanos) {
        if (state != ConnectionState.CONNECTING) {
            stats.unexpectedPackets++;
            return;
        }
        System.arraycopy(p.cookie, 0, cookie, 0, cookie.length);
        hasCookie = true;
        handshakeNextNanos = nowNanos;
    }

    private void onAccept(Packet p, long nowNanos) {
        if (state != ConnectionState.CONNECTING) {
            if (client && state == ConnectionState.ESTABLISHED && p.sourceConnectionId == peerId
                    && newerAnnouncement(p.announcementSequence)) {
                // The server's share for this side fell since it accepted, before this side sent
                // anything: the newer announcement sizes the first flight's spread [SPEC-CONN-17].
                announcementSequence = p.announcementSequence;
                announcedShareBytesPerSecond = p.rateHintBytesPerSecond;
                congestion.onAnnouncedShare(p.rateHintBytesPerSecond, nowNanos);
                return;
            }
            // A repeated ACCEPT (our CONNECT was resent) is harmless; anything else is noise.
            stats.unexpectedPackets++;
            return;
        }
        announcementSequence = p.announcementSequence;
        peerId(p.sourceConnectionId);
        adoptPeerLimits(p.maxDatagramBytes, p.sequenceWindow);
        if (p.pathCount < paths.count()) {
            // The server granted fewer paths than asked: use only those [SPEC-CONN-15].
            paths.limitTo(p.pathCount);
            for (int i = p.pathCount; i < paths.count(); i++) {
                congestion.onPathNewData(i, false, nowNanos); // not granted: not in service [SPEC-CC-42]
            }
        }
        state = ConnectionState.ESTABLISHED;
        lastReceiveNanos = nowNanos;
        // The server's share for this side, announced before any data: it sizes the spread of the
        // first flight [SPEC-CC-28].
        announcedShareBytesPerSecond = p.rateHintBytesPerSecond;
        congestion.onAnnouncedShare(p.rateHintBytesPerSecond, nowNanos);
        endpoint.connectionEstablished(this);
    }

    // =====================================================================================
    // Input
    // =====================================================================================

    /** Handles one decoded packet addressed to this connection. */
    void handlePacket(long nowNanos, Packet p, ByteBuffer datagram, int localSocket, Object remoteAddress, int ecn) {
        // The endpoint's mark, here rather than in its dispatch (the only caller), which then
        // compiles small enough for a driver's loop to inline the endpoint's receive.
        endpoint.scheduleChanged(this);
        if (p.type == PacketType.DATA || p.type == PacketType.READ_REQUEST || p.type == PacketType.ACK) {
            // The per-path timer inputs these change are those of the packet's own path: its
            // receive tracker (DATA), or its scoreboard, RTT, loss detector and health (ACK).
            touchPath(p.pathId);
        } else {
            deadlinesStale = true;
        }
        acksMayBeDue = true;
        if (state == ConnectionState.CLOSED) {
            return;
        }
        if (state != ConnectionState.CONNECTING && nowNanos - lastReceiveNanos >= config.idleTimeoutNanos()) {
            // The idle deadline passed before this packet came: the connection has ended
            // [SPEC-STATE-8] whether or not the driver ran its timer first, so a late wake-up
            // that hands in a datagram before the timer cannot revive it.
            finish(CloseReason.IDLE_TIMEOUT, CompletionStatus.PEER_UNREACHABLE);
            return;
        }
        lastReceiveNanos = nowNanos;
        switch (p.type) {
            case PacketType.DATA, PacketType.READ_REQUEST -> onReliable(nowNanos, p, datagram, localSocket, remoteAddress, ecn);
            case PacketType.ACK -> onAck(nowNanos, p);
            case PacketType.NAK -> onNak(nowNanos, p);
            case PacketType.CHALLENGE -> onChallenge(p, nowNanos);
            case PacketType.ACCEPT -> onAccept(p, nowNanos);
            case PacketType.CLOSE -> onClose(nowNanos, p);
            case PacketType.PATH_PROBE -> {
                // Before ACCEPT the paths granted are not known yet: nothing to answer on [SPEC-STATE-9].
                if (state != ConnectionState.CONNECTING) {
                    queueProbeAck(p.pathId, p.probeId, p.timestampNanos, localSocket, remoteAddress, nowNanos);
                }
            }
            case PacketType.PROBE_ACK -> onProbeAck(nowNanos, p);
            default -> stats.unexpectedPackets++;
        }
    }

    private void onReliable(long nowNanos, Packet p, ByteBuffer datagram, int localSocket, Object remoteAddress, int ecn) {
        // Arrivals, admitted or not, are what the peer's sending costs this receiver [SPEC-CC-11].
        inbound.onArrival(p, nowNanos);
        if (!inbound.active && inbound.shareBytesPerSecond > 0) {
            // A sender that starts (or resumes after a pause) changes everybody's share now [SPEC-CC-11].
            endpoint.senderBecameActive(nowNanos);
        }
        if (state == ConnectionState.CONNECTING || workFlushed) {
            // Before ACCEPT there is nothing to place into; after a flush every receive has
            // completed already, so nothing may be placed or completed any more.
            return;
        }
        Path path = inboundPath(p.pathId, localSocket, remoteAddress, nowNanos);
        if (path == null) {
            stats.unknownPathPackets++;
            return;
        }
        receiver.onReliable(nowNanos, p, datagram, path, ecn, protectionDomain, endpoint);
        // A READ response may have completed the last work a pending close waited for.
        maybeFinishClosePending();
    }

    private void onAck(long nowNanos, Packet p) {
        inputNanos = nowNanos;
        peerRateHintBytesPerSecond = p.rateHintBytesPerSecond;
        Path path = paths.get(p.pathId);
        if (path != null) {
            int spurious = path.spurious.onAck(p, path.scoreboard.nextPathSequence(), nowNanos);
            if (spurious > 0) {
                onSpuriousLosses(path.id, spurious, path.spurious.foundBytes());
            }
        }
        if (sender.onAck(nowNanos, p, this)) {
            maybeFinishClosePending();
        }
        reportPathStates(nowNanos);
    }

    @Override
    public void onTransmissionAcked(int pathId, long pathSequence, long csn, int bytes, long sentAtNanos) {
        if (sentAtNanos > latestAckedSentNanos) {
            latestAckedSentNanos = sentAtNanos;
        }
        peerAnswered(sentAtNanos, inputNanos);
        sender.onTransmissionAcked(pathId, csn, bytes, sentAtNanos, inputNanos, endpoint);
    }

    @Override
    public void onTransmissionsAcked(int pathId, SendScoreboard scoreboard, long fromPsn, long toPsn) {
        long latestSent = sender.onTransmissionsAcked(pathId, scoreboard, fromPsn, toPsn, inputNanos, endpoint);
        if (latestSent > latestAckedSentNanos) {
            latestAckedSentNanos = latestSent;
        }
        peerAnswered(latestSent, inputNanos);
    }

    /** The peer answered, at {@code nowNanos}, something this side sent at {@code sentAtNanos} [SPEC-PATH-15]. */
    private void peerAnswered(long sentAtNanos, long nowNanos) {
        health.onPeerAnswered(sentAtNanos, nowNanos, config.pathFailureNeedsAnswer());
    }

    @Override
    public void onTransmissionLost(int pathId, long pathSequence, long csn, int bytes, boolean byTimeout) {
        paths.get(pathId).spurious.onLost(pathSequence, csn, bytes,
                lossWaitNanos > 0 ? inputNanos - lossWaitNanos : Long.MIN_VALUE);
        sender.onTransmissionLost(pathId, csn, bytes, inputNanos);
    }

    /**
     * An ACK shows that the original transmissions of {@code count} packets ({@code bytes} in all)
     * declared lost on {@code pathId} arrived [SPEC-LOSS-9]: counted, each packet delivered if it
     * still awaited that (a retransmission still queued is then not sent), the path's loss average
     * takes the losses back, and the congestion controller may undo its cut [SPEC-CC-27] (told
     * once per ACK).
     */
    private void onSpuriousLosses(int pathId, int count, long bytes) {
        stats.spuriousLosses += count;
        SpuriousLossDetector detector = paths.get(pathId).spurious;
        for (int i = 0; i < count; i++) {
            sender.onLossProvenSpurious(pathId, detector.foundConnectionSequence(i), endpoint);
        }
        congestion.onSpuriousLoss(pathId, (int) Math.min(Integer.MAX_VALUE, bytes), inputNanos);
    }

    private void onNak(long nowNanos, Packet p) {
        // A refused transmission arrived: the peer answers, whatever it thought of it [SPEC-PATH-15].
        peerAnswered(sender.onNak(nowNanos, p, endpoint), nowNanos);
        maybeFinishClosePending();
    }

    private void onClose(long nowNanos, Packet p) {
        if (p.closeReply) {
            if (state == ConnectionState.CLOSING) {
                finish(closeReason == null ? CloseReason.LOCAL_CLOSE : closeReason, CompletionStatus.CONNECTION_CLOSED);
            }
            return;
        }
        closeReplyDue = true;
        if (state == ConnectionState.DRAINING) {
            return;
        }
        if (state == ConnectionState.CLOSING) {
            // Both sides closed at once: the peer's CLOSE answers ours.
            finish(closeReason == null ? CloseReason.LOCAL_CLOSE : closeReason, CompletionStatus.CONNECTION_CLOSED);
            return;
        }
        flushAllWork(CompletionStatus.CONNECTION_CLOSED);
        closeReason = p.closeCode == CloseCode.NO_ERROR ? CloseReason.PEER_CLOSE
                : p.closeCode == CloseCode.APPLICATION_ABORT ? CloseReason.PEER_ABORT : CloseReason.PROTOCOL_VIOLATION;
        state = ConnectionState.DRAINING;
        drainUntilNanos = nowNanos + drainPeriodNanos(config);
    }

    private void onProbeAck(long nowNanos, Packet p) {
        Path path = paths.get(p.pathId);
        if (path == null) {
            stats.unknownPathPackets++;
            return;
        }
        if (p.probeId > path.lastProbeAckId) {
            // Probe ids grow: an id at or below the newest answered on this path is a copy of an
            // answer already taken ([SPEC-SACK-14]) or a late answer to an older probe, no sample.
            path.lastProbeAckId = p.probeId;
            path.rtt.update(nowNanos - p.timestampNanos);
            sender.pathWaitInputsChanged(path);
        }
        // The echoed send time of a probe or keep-alive: never later than now, whatever the peer wrote.
        peerAnswered(Math.min(p.timestampNanos, nowNanos), nowNanos);
        health.onProbeAck(path, p.probeId, nowNanos);
        reportPathStates(nowNanos);
    }

    /** Tells the endpoint of every path whose state differs from the one last reported. */
    private void reportPathStates(long nowNanos) {
        if (!paths.takeStateChanged()) {
            return;
        }
        for (int i = 0; i < paths.count(); i++) {
            Path path = paths.get(i);
            if (path == null) {
                continue;
            }
            if (path.state != path.reportedState) {
                path.reportedState = path.state;
                endpoint.pathStateChanged(this, path.id, path.state);
            }
        }
        reportTakesNewData(nowNanos);
    }

    /**
     * Tells the controller of every path that stopped or resumed taking new data. A SUSPECT path
     * beside an ACTIVE one carries no new data: it gets no share of the rate either
     * [SPEC-PATH-14], and its losses do not count as random loss [SPEC-CC-25]. FAILED paths are
     * the controller's own business.
     */
    private void reportTakesNewData(long nowNanos) {
        for (int i = 0; i < paths.count(); i++) {
            Path path = paths.get(i);
            if (path == null) {
                continue;
            }
            boolean takes = !PathState.inService(path.state) || paths.usableForNewData(path);
            if (takes != path.reportedTakesNewData) {
                path.reportedTakesNewData = takes;
                congestion.onPathNewData(path.id, takes, nowNanos);
            }
        }
    }

    private void queueProbeAck(int pathId, long probeId, long timestampNanos, int localSocket, Object remoteAddress,
            long nowNanos) {
        if (pathId >= paths.count()) {
            stats.unknownPathPackets++;
            return;
        }
        Path path = inboundPath(pathId, localSocket, remoteAddress, nowNanos);
        control.queueProbeAck(pathId, probeId, timestampNanos, path.receiveTracker.answerCopies());
    }

    // =====================================================================================
    // Ending
    // =====================================================================================

    /** Completes every outstanding work request and posted receive with {@code status}, stream by stream. */
    private void flushAllWork(int status) {
        workFlushed = true;
        receiver.forgetMessagesInProgress();
        for (int s = 0; s < streams.capacity(); s++) {
            sender.flushStream(s, status, endpoint);
            receiver.flushStream(s, status, endpoint);
        }
        sender.flushResponses();
    }

    private void maybeFinishClosePending() {
        if (state == ConnectionState.CLOSE_PENDING && sender.idle()) {
            startClosing(CloseCode.NO_ERROR);
        }
    }

    /** Ends the connection: every outstanding work request completes with {@code status}. */
    void finish(CloseReason reason, int status) {
        deadlinesStale = true;
        if (state == ConnectionState.CLOSED) {
            return;
        }
        flushAllWork(status);
        if (closeReason == null) {
            closeReason = reason;
        }
        state = ConnectionState.CLOSED;
        endpoint.connectionClosed(this);
    }

    // =====================================================================================
    // Timers
    // =====================================================================================

    /**
     * The earliest time {@link #handleTimeout} (or, for paced data, {@link #pollTransmit}) has
     * something to do, or {@link Long#MAX_VALUE}; {@code latestNanos} is the time of the last
     * input or transmit call: a pacing time at or before it is not a wake-up (nothing else could
     * go then either).
     */
    long nextTimeoutNanos(long latestNanos) {
        if (deadlinesStale || pathTouched) {
            if (deadlinesStale) {
                pathDeadlines.markAll();
            }
            cachedDeadlineNanos = cachedDeadlinesNanos();
            deadlinesStale = false;
            pathTouched = false;
            pacingKnown = false;
        }
        if (state == ConnectionState.ESTABLISHED || state == ConnectionState.CLOSE_PENDING) {
            // Paced data: the driver must wake up when the next packet may leave [SPEC-CC-13].
            return Math.min(cachedDeadlineNanos, pacedSendNanos(latestNanos));
        }
        return cachedDeadlineNanos;
    }

    /**
     * {@link Sender#nextPacedSendNanos}, reused while nothing changed: the earliest paced send
     * time after {@code t0} is also the earliest after any later {@code t} before it.
     */
    private long pacedSendNanos(long afterNanos) {
        if (pacingKnown && afterNanos >= pacedSendAskedNanos && pacedSendNanos > afterNanos) {
            sender.repeatExhaustedAllowanceQueries(afterNanos);
            return pacedSendNanos;
        }
        pacedSendNanos = sender.nextPacedSendNanos(afterNanos);
        pacedSendAskedNanos = afterNanos;
        pacingKnown = paths.count() <= Long.SIZE && congestion.pacingAnswersReusable();
        return pacedSendNanos;
    }

    /**
     * {@link #nextTimeoutNanos} recomputed from scratch, without the cache: for tests that check
     * the cache is never stale.
     */
    long nextTimeoutNanosUncached(long latestNanos) {
        long t = deadlinesNanos();
        if (state == ConnectionState.ESTABLISHED || state == ConnectionState.CLOSE_PENDING) {
            t = Math.min(t, sender.nextPacedSendNanos(latestNanos));
        }
        return t;
    }

    /** Whether the cached deadlines of {@link #nextTimeoutNanos} hold: nothing changed them since it last ran. */
    boolean deadlinesFresh() {
        return !deadlinesStale && !pathTouched;
    }

    /**
     * For a connection whose {@link #nextTimeoutNanos} has just answered a time at or before the
     * latest call (a due ACK waiting for the driver's transmit poll; the pacing term is always
     * later): the earliest time at which, with nothing changed and no transmit poll, asking it
     * again (for its next timeout, or to run its timers) could do something, or {@link
     * Long#MIN_VALUE} if at every call. Before then {@link #nextTimeoutNanos} answers the same from
     * its cache (only its pacing term moves with time, and that is later) and {@link
     * #handleTimeout} returns at its first test; the controller questions a reuse repeats are
     * {@link #recheckNanos}'s. So: the pacing term (asked again then), and the timers' earliest
     * deadline (the paths' ACK deadlines aside: a timer pass acts on none); at every call in a
     * state whose timer pass has no such test, or while the pacing term is not reused.
     */
    long overdueRecheckNanos() {
        if (state != ConnectionState.ESTABLISHED || deadlinesStale || pathTouched || !pacingKnown) {
            return Long.MIN_VALUE;
        }
        return Math.min(pacedSendNanos, cachedTimerDeadlineNanos());
    }

    /** The earliest of the paths' ACK deadlines ({@link Long#MAX_VALUE}: none). */
    long ackDeadlinesNanos() {
        long t = Long.MAX_VALUE;
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p != null) {
                t = Math.min(t, p.receiveTracker.ackDeadlineNanos());
            }
        }
        return t;
    }

    /** The connection's paths, for tests. */
    Paths pathsForTest() {
        return paths;
    }

    /** The send side, for tests. */
    Sender senderForTest() {
        return sender;
    }

    /** The send side's packetizer, for tests. */
    DataWriter dataWriterForTest() {
        return sender.writerForTest();
    }

    /**
     * Forgets the cached deadlines and pacing term, as any change of state does: for tests that
     * make {@link #handleTimeout} run its checks in full.
     */
    void forgetCachedTimeouts() {
        deadlinesStale = true;
        endpoint.scheduleChanged(this);
    }

    /** This connection's slot in its endpoint's schedule (-1: not registered yet). */
    int scheduleSlot() {
        return scheduleSlot;
    }

    void scheduleSlot(int slot) {
        scheduleSlot = slot;
    }

    /**
     * The earliest time at which a transmit poll or a next-timeout query, with nothing else
     * changed, could do something that is not a wake-up of the driver ({@link #nextTimeoutNanos}),
     * or {@link Long#MAX_VALUE}. The endpoint asks the connection again at its first call at or
     * after this time, which is when a walk of every connection on every call would have:
     * <ul>
     *   <li>while draining, an ACK due (the drain's deadlines leave the paths' out, so a due ACK
     *       waits for the next input or timer, of any connection);</li>
     *   <li>with data to send, the pacing time of a path allowed to send, where the wake-up
     *       reported is later to send a batch at once [SPEC-CC-38]: a call between the two sends;
     *       likewise a lossy full window's pacing time for a due idle resend [SPEC-LOSS-11];</li>
     *   <li>a retransmission queued on a path out of service: its pacing is no wake-up, so it is
     *       asked at every call ({@link Long#MIN_VALUE}), as by the walk;</li>
     *   <li>with data to send, the allowance question on a path whose window is used up: both ask
     *       it, and it is not idle (the controller notes that the window holds the path back).
     *       {@link Long#MIN_VALUE}: at every call (a controller whose answers are not reusable,
     *       or more paths than the pacing cache's mask).</li>
     * </ul>
     */
    long recheckNanos() {
        if (state == ConnectionState.DRAINING) {
            return ackDeadlinesNanos();
        }
        if (state != ConnectionState.ESTABLISHED && state != ConnectionState.CLOSE_PENDING) {
            return Long.MAX_VALUE; // no poll in other states reaches the packetizer
        }
        if (paths.count() > Long.SIZE || !congestion.pacingAnswersReusable()) {
            return Long.MIN_VALUE;
        }
        // A pacing time at or before the latest call has been served: a poll came at or after it.
        long gate = sender.pacedGateNanos();
        long t = gate > endpoint.latestNanos() ? gate : Long.MAX_VALUE;
        boolean retransmissions = paths.queuedRetransmissions() > 0;
        for (int i = 0; i < paths.count(); i++) {
            if (retransmissions) {
                Path p = paths.get(i);
                if (p != null && !PathState.inService(p.state) && !p.retransmitQueue.isEmpty()) {
                    return Long.MIN_VALUE;
                }
            }
            long at = congestion.allowanceQuestionChangesNanos(i);
            if (at < t) {
                // Only a path with room is asked, and only in service or with a retransmission queued.
                Path p = paths.get(i);
                if (p != null && p.scoreboard.hasRoom()
                        && (PathState.inService(p.state) || !p.retransmitQueue.isEmpty())) {
                    t = at;
                }
            }
        }
        return t;
    }

    /** Only path {@code pathId}'s timer inputs may have changed (with the connection's own). */
    private void touchPath(int pathId) {
        pathDeadlines.mark(pathId);
        pathTouched = true;
    }

    /** {@link #deadlinesNanos} with the per-path deadlines from {@link #pathDeadlines}. */
    private long cachedDeadlinesNanos() {
        long t = connectionDeadlinesNanos();
        if (!watchesPaths()) {
            return t;
        }
        boolean probing = state == ConnectionState.ESTABLISHED || state == ConnectionState.CLOSE_PENDING;
        t = Math.min(t, pathDeadlines.earliestNanos(paths, config, health, latestAckedSentNanos, probing));
        return Math.min(t, sender.nextRetryNanos());
    }

    /**
     * {@link #cachedDeadlinesNanos} without the paths' ACK deadlines, from the entries it last
     * read (valid while they are fresh, in ESTABLISHED): the earliest time a timer pass has
     * something to do. A due ACK is the transmit poll's work, and a receiving connection's delayed
     * ACK made every timer pass of its endpoint a full one (every path's retransmission, overdue
     * and probe deadlines read, then every cached deadline recomputed).
     */
    private long cachedTimerDeadlineNanos() {
        long t = Math.min(connectionDeadlinesNanos(), sender.nextRetryNanos());
        return Math.min(t, pathDeadlines.timerEarliestNanos(latestAckedSentNanos, true));
    }

    /**
     * What the shortcut of {@link #handleTimeout} reads ({@link #cachedTimerDeadlineNanos}) while
     * the cache is fresh, or {@link Long#MIN_VALUE} while it is not (the shortcut is not taken
     * then); for tests that compare it with {@link #timerDeadlinesNanosUncached}.
     */
    long cachedTimerDeadlineNanosForTest() {
        return deadlinesStale || pathTouched ? Long.MIN_VALUE : cachedTimerDeadlineNanos();
    }

    /**
     * {@link #deadlinesNanos} without the paths' ACK deadlines, computed from scratch: the earliest
     * time a timer pass ({@link #handleTimeout}) has something to do, for tests of its shortcut.
     */
    long timerDeadlinesNanosUncached() {
        return deadlinesNanos(false);
    }

    /** Whether the paths' timers run in this state (not before ACCEPT, nor while draining or closed). */
    private boolean watchesPaths() {
        return state != ConnectionState.CLOSED && state != ConnectionState.CONNECTING
                && state != ConnectionState.DRAINING;
    }

    /**
     * The deadlines that are not a path's: the idle, handshake, close, drain and keep-alive
     * timers; for a connection that has paths to watch (ESTABLISHED, CLOSE_PENDING, CLOSING) the
     * idle, close and keep-alive ones, to which the paths' deadlines are added.
     */
    private long connectionDeadlinesNanos() {
        if (state == ConnectionState.CLOSED) {
            return Long.MAX_VALUE;
        }
        long t = lastReceiveNanos + config.idleTimeoutNanos();
        if (state == ConnectionState.CONNECTING) {
            return Math.min(handshakeNextNanos, createdAtNanos + config.handshakeTimeoutNanos());
        }
        if (state == ConnectionState.CLOSING) {
            t = Math.min(t, closeNextNanos);
        }
        if (state == ConnectionState.DRAINING) {
            return Math.min(t, drainUntilNanos);
        }
        if (config.keepAliveNanos() > 0) {
            t = Math.min(t, emitter.lastSendNanos() + config.keepAliveNanos());
        } else if (idleShrinkPending()) {
            t = Math.min(t, idleShrinkDueNanos());
        }
        return t;
    }

    /**
     * Without keep-alive, the time with nothing sent after which the connection is at its idle
     * point [SPEC-CONN-18] ({@link EngineConfig#idleShrinkIntervalNanos}).
     */
    private long idleShrinkNanos() {
        return config.idleShrinkIntervalNanos();
    }

    /**
     * Without keep-alive: whether the idle check is armed, that is, a burst left some table above
     * its initial size (or the NAK ring or the pause column allocated) and it can shrink now (the
     * sender's while no CSN is outstanding, the receiver's while nothing is held in it). A
     * connection whose tables are all small, or in use (receives kept posted, a packet always
     * outstanding), does not wake for it [SPEC-CONN-18].
     */
    private boolean idleShrinkPending() {
        return sender.idleShrinkable() || receiver.idleShrinkable() || control.nakRingShrinkable();
    }

    /**
     * Without keep-alive, when the idle check is due: an idle interval after the last send or
     * after the last idle shrink, whichever is later, so that tables the last one could not
     * shrink (still in use) are tried once per interval, not on every timer pass.
     */
    private long idleShrinkDueNanos() {
        return Math.max(emitter.lastSendNanos(), idleShrinkAtNanos) + idleShrinkNanos();
    }

    /** The idle point: every table a burst grew and that is empty goes back to its initial size [SPEC-CONN-18]. */
    private void shrinkIdleTables(long nowNanos) {
        idleShrinkAtNanos = nowNanos;
        sender.shrinkIdleTables(nowNanos);
        receiver.shrinkIdleTables();
        control.shrinkIdle();
    }

    /**
     * Every deadline of this connection's timers: {@link #nextTimeoutNanos} but for pacing,
     * computed from scratch (the reference for {@link #cachedDeadlinesNanos}).
     */
    private long deadlinesNanos() {
        return deadlinesNanos(true);
    }

    /** {@link #deadlinesNanos}, with or without the paths' ACK deadlines, from scratch. */
    private long deadlinesNanos(boolean acks) {
        long t = connectionDeadlinesNanos();
        if (!watchesPaths()) {
            return t;
        }
        boolean probing = state == ConnectionState.ESTABLISHED || state == ConnectionState.CLOSE_PENDING;
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p != null) {
                if (acks) {
                    t = Math.min(t, p.receiveTracker.ackDeadlineNanos());
                }
                t = Math.min(t, p.rtoDeadlineNanos(config));
                t = Math.min(t, p.overdueDeadlineNanos(config, latestAckedSentNanos));
                if (probing) {
                    t = Math.min(t, health.nextTimeoutNanos(p, latestAckedSentNanos));
                }
            }
        }
        return Math.min(t, sender.nextRetryNanos());
    }

    /** Runs every timer due at {@code nowNanos}. A call with nothing due does nothing. */
    void handleTimeout(long nowNanos) {
        if (!deadlinesStale && !pathTouched && state == ConnectionState.ESTABLISHED
                && (cachedDeadlineNanos > nowNanos || cachedTimerDeadlineNanos() > nowNanos)) {
            // Nothing is due: every timer below is one of the cached deadlines (the paths' ACK
            // deadlines aside, which no timer acts on: the transmit poll sends a due ACK), none has
            // come, and nothing has changed since they were computed. An endpoint runs the timers
            // of every connection that changed since it last read their deadlines, due or not.
            return;
        }
        deadlinesStale = true;
        if (state == ConnectionState.CLOSED) {
            return;
        }
        if (state == ConnectionState.CONNECTING) {
            if (nowNanos - createdAtNanos >= config.handshakeTimeoutNanos()) {
                finish(CloseReason.HANDSHAKE_TIMEOUT, CompletionStatus.PEER_UNREACHABLE);
            }
            return;
        }
        if (nowNanos - lastReceiveNanos >= config.idleTimeoutNanos()) {
            finish(CloseReason.IDLE_TIMEOUT, CompletionStatus.PEER_UNREACHABLE);
            return;
        }
        if (state == ConnectionState.DRAINING) {
            if (nowNanos >= drainUntilNanos) {
                finish(closeReason, CompletionStatus.CONNECTION_CLOSED);
            }
            return;
        }
        if (state == ConnectionState.CLOSING && nowNanos >= closeNextNanos && closeRetriesLeft < 0) {
            // Nobody answered our CLOSE: the peer is gone, whatever we meant to do.
            finish(closeReason == null ? CloseReason.PEER_UNREACHABLE : closeReason, CompletionStatus.CONNECTION_CLOSED);
            return;
        }
        if (config.keepAliveNanos() > 0 && nowNanos - emitter.lastSendNanos() >= config.keepAliveNanos()) {
            keepAliveDue = true;
            // Nothing sent for a keep-alive interval: the idle point at which a burst's tables
            // shrink [SPEC-CONN-18]; never on the datapath.
            shrinkIdleTables(nowNanos);
        } else if (config.keepAliveNanos() == 0 && nowNanos >= idleShrinkDueNanos() && idleShrinkPending()) {
            // Without keep-alive, the same idle point, checked only while a table is grown.
            shrinkIdleTables(nowNanos);
        }
        inputNanos = nowNanos;
        for (int i = 0; i < paths.count(); i++) {
            Path p = paths.get(i);
            if (p == null) {
                continue;
            }
            boolean unreachable = false;
            boolean timedOut = nowNanos >= p.rtoDeadlineNanos(config);
            if (timedOut || nowNanos >= p.overdueDeadlineNanos(config, latestAckedSentNanos)) {
                long wait;
                if (timedOut) {
                    wait = p.rtoNanos(config);
                    p.timeouts++;
                    stats.timeouts++;
                } else {
                    wait = p.overdueNanos(config);
                    p.overdue++;
                    stats.overdue++;
                }
                // Health first: the path turns SUSPECT (or FAILED) before what timed out is queued,
                // so that it is resent on an ACTIVE path if one exists, on the path itself
                // otherwise [SPEC-LOSS-5], [SPEC-LOSS-7], [SPEC-PATH-10].
                long oldestSent = p.scoreboard.oldestSentAtNanos();
                unreachable = timedOut ? health.onTimeout(p, oldestSent, answerEvidenceNanos(), nowNanos, this)
                        : health.onOverdue(p, oldestSent, answerEvidenceNanos(), nowNanos, this);
                // The controller learns that the path takes no new data before it hears of the
                // losses the verdict declares: a black hole's are not random loss [SPEC-CC-25].
                reportTakesNewData(nowNanos);
                if (p.scoreboard.packetsInFlight() > 0) {
                    lossWaitNanos = wait;
                    // A timeout without evidence (the path is not overdue too): with timeoutProbes
                    // only the oldest transmission is declared lost, and its copy's ACK judges the
                    // rest as holes [SPEC-LOSS-1]; a peer that only stalled then costs one resend,
                    // not the whole flight [SPEC-LOSS-10]. With evidence all are declared.
                    boolean probe = timedOut && config.timeoutProbes()
                            && nowNanos < p.overdueDeadlineNanos(config, latestAckedSentNanos);
                    long sentBefore = probe ? Long.MIN_VALUE : nowNanos - wait;
                    p.scoreboard.onTimeout(sentBefore, true, this);
                    lossWaitNanos = 0;
                }
                if (timedOut) {
                    p.timeoutCredits = 1;
                }
            }
            unreachable |= health.onProbeTimeout(p, nowNanos, latestAckedSentNanos, answerEvidenceNanos(), this);
            if (unreachable) {
                // The last path in service gave up: every path has failed [SPEC-LOSS-6].
                finish(CloseReason.PEER_UNREACHABLE, CompletionStatus.PEER_UNREACHABLE);
                return;
            }
        }
        reportPathStates(nowNanos);
        sender.releaseDeferred(nowNanos);
    }

    /**
     * What a path's failure takes as the peer's answer [SPEC-PATH-15]: the send time of the newest
     * thing the peer answered on any path (acknowledged, NAKed, or a probe's PROBE_ACK), or
     * {@link Long#MAX_VALUE} without {@code pathFailureNeedsAnswer}: every timeout counts.
     */
    private long answerEvidenceNanos() {
        return config.pathFailureNeedsAnswer() ? health.latestAnsweredSentNanos() : Long.MAX_VALUE;
    }

    // =====================================================================================
    // Output
    // =====================================================================================

    /**
     * Writes the next datagram this connection wants to send into {@code out}, if any.
     *
     * @return whether a datagram was written
     */
    boolean pollTransmit(long nowNanos, Transmit out, Packet p, PacketCodec codec) {
        // A call that finds nothing to send changes nothing the next timeout is computed from,
        // unless something was due (a deferred packet, a control packet) or the packetizer moved
        // its queues; an endpoint asks every connection after each of its inputs.
        boolean quiet = state == ConnectionState.ESTABLISHED && !acceptDue && !inbound.reannounceDue && !closeReplyDue && !keepAliveDue
                && !control.hasNak() && !control.hasProbeAck() && sender.nextRetryNanos() > nowNanos;
        boolean sent = transmit(nowNanos, out, p, codec);
        boolean writerTouched = sender.takeWriterTouched();
        if (!quiet) {
            deadlinesStale = true;
        } else if (sent) {
            // A quiet poll sends DATA, an ACK (alone or ahead of DATA) or a health probe, all on
            // one path, and changes the timer inputs of that path only (its scoreboard, receive
            // tracker or probe) besides the connection's own.
            touchPath(out.pathId);
        } else if (writerTouched) {
            // The packetizer moved its queues (retransmission queues, streams): no path's timer
            // inputs, but the connection's own (the streams' resume times, the pacing term).
            pathTouched = true;
        }
        return sent;
    }

    private boolean transmit(long nowNanos, Transmit out, Packet p, PacketCodec codec) {
        if (state == ConnectionState.CLOSED) {
            return false;
        }
        if (state == ConnectionState.CONNECTING) {
            if (nowNanos >= handshakeNextNanos) {
                handshakeNextNanos = nowNanos + handshakeIntervalNanos;
                handshakeIntervalNanos = Math.min(handshakeIntervalNanos * 2, config.handshakeTimeoutNanos());
                return controlWriter.writeConnect(nowNanos, cookie, hasCookie, out, p, codec);
            }
            return false;
        }
        sender.releaseDeferred(nowNanos);
        if (inbound.reannounceDue && state != ConnectionState.ESTABLISHED) {
            inbound.reannounceDue = false; // closing: no ACCEPT after our CLOSE [SPEC-CONN-17]
        }
        if (acceptDue || inbound.reannounceDue) {
            // The ACCEPT, or the same again with the share the client has now [SPEC-CONN-17].
            acceptDue = false;
            inbound.reannounceDue = false;
            inbound.announcedBytesPerSecond = inbound.shareBytesPerSecond;
            int sequence = announcementSequence;
            announcementSequence = (sequence + 1) & 0xFFFF;
            return controlWriter.writeAccept(inbound.shareBytesPerSecond, sequence, out, p, codec);
        }
        if (closeReplyDue) {
            closeReplyDue = false;
            return controlWriter.writeClose(CloseCode.NO_ERROR, true, nowNanos, out, p, codec);
        }
        if (state == ConnectionState.CLOSING && nowNanos >= closeNextNanos && closeRetriesLeft >= 0) {
            closeRetriesLeft--;
            closeNextNanos = nowNanos + closeIntervalNanos;
            // Back off, so a peer whose thread stalls for a while (a pause, a busy machine) still
            // gets to answer before the closer gives up [SPEC-STATE-5].
            closeIntervalNanos = Math.min(closeIntervalNanos * 2, config.maxRtoNanos());
            return controlWriter.writeClose(closeCodeToSend, false, nowNanos, out, p, codec);
        }
        if (control.hasNak() && control.writeNak(out, p, codec)) {
            return true;
        }
        if (acksMayBeDue) {
            boolean unacknowledged = false;
            for (int i = 0; i < paths.count(); i++) {
                // The path's tracker's ACK deadline, kept in one array (an ACK is due once it has
                // come): no path or tracker is read for a path with no ACK due (a cache miss each).
                long ackDeadline = paths.ackDeadlineNanos(i);
                if (ackDeadline == Long.MAX_VALUE) {
                    continue; // no path, or nothing to acknowledge on it
                }
                if (ackDeadline <= nowNanos) {
                    Path path = paths.get(i);
                    if (config.bundleAcks() && !ackAloneNext && state == ConnectionState.ESTABLISHED) {
                        // The next DATA packet on the path its round robin gives it; the ACK rides
                        // ahead of it if that path owes one. The ACK does not steer data to its path:
                        // two-way traffic steered so left paths without data, and without replies.
                        if (sender.writeData(nowNanos, out, p, codec, endpoint)) {
                            return bundleAckWith(nowNanos, out, p, codec);
                        }
                        if (sender.takeLocalProtectionFault()) {
                            abort(); // as below, where data is written without an ACK due [SPEC-MSG-16]
                            return transmit(nowNanos, out, p, codec);
                        }
                    }
                    ackAloneNext = false;
                    return controlWriter.writeAck(nowNanos, path, receiver.cumulativeSequence(),
                            inbound.shareBytesPerSecond, out, p, codec);
                }
                unacknowledged = true;
            }
            acksMayBeDue = unacknowledged;
        }
        // Entries for paths gone are dropped inside; the poll then goes on to what else is due.
        if (control.hasProbeAck() && control.writeProbeAck(out, p, codec)) {
            return true;
        }
        if (state == ConnectionState.DRAINING || state == ConnectionState.CLOSING) {
            return false;
        }
        if (!paths.allOpenActive() && writeDueProbe(nowNanos, out, p, codec)) {
            return true;
        }
        if (sender.writeData(nowNanos, out, p, codec, endpoint)) {
            return true;
        }
        if (sender.takeLocalProtectionFault()) {
            // A region was deregistered under work still using it: that work request has completed
            // with LOCAL_PROTECTION_ERROR; like a verbs queue pair going to the error state, the
            // connection aborts, also when a graceful close was pending [SPEC-MSG-16].
            abort();
            return transmit(nowNanos, out, p, codec); // the CLOSE goes out now
        }
        if (!paths.allOpenActive() && writeDueProbe(nowNanos, out, p, codec)) {
            // The packetizer drops the queued retransmissions of packets acknowledged or abandoned
            // since: a SUSPECT path whose queue held only those has nothing queued now, and its
            // probe is due at once [SPEC-PATH-10]. A poll that sends nothing must leave nothing to
            // send: the endpoint polls the connection again only when it changes or a deadline comes.
            return true;
        }
        if (keepAliveDue) {
            keepAliveDue = false;
            return controlWriter.writeProbe(nowNanos, out, p, codec);
        }
        return false;
    }

    /** A health probe on the first path due one (only a SUSPECT or FAILED path is: PathHealth#probeDue). */
    private boolean writeDueProbe(long nowNanos, Transmit out, Packet p, PacketCodec codec) {
        for (int i = 0; i < paths.count(); i++) {
            Path path = paths.get(i);
            if (path != null && health.probeDue(path, nowNanos)) {
                controlWriter.writeProbeOn(path, nowNanos, out, p, codec, path.state != PathState.FAILED);
                health.probeSent(path, controlWriter.lastProbeId(), nowNanos);
                reportPathStates(nowNanos);
                return true;
            }
        }
        return false;
    }

    /**
     * A DATA packet is in {@code out} while an ACK was due: the ACK of the DATA's path rides ahead
     * of it in the same datagram if it is due and both fit [SPEC-SACK-13]. Otherwise the DATA
     * leaves alone and the next poll sends the due ACKs before any more data, so an ACK waits for
     * at most one DATA packet.
     */
    private boolean bundleAckWith(long nowNanos, Transmit out, Packet p, PacketCodec codec) {
        Path dataPath = paths.get(out.pathId);
        if (dataPath != null && dataPath.receiveTracker.ackDue(nowNanos)
                && controlWriter.bundleAck(nowNanos, dataPath, receiver.cumulativeSequence(),
                        inbound.shareBytesPerSecond, bundleLimitBytes, out, p, codec)) {
            return true;
        }
        ackAloneNext = true;
        return true;
    }

    /**
     * How long a connection answers its peer's CLOSEs after the first: longer than the peer spends
     * retransmitting them (its intervals double from {@code closeRetryNanos}) [SPEC-STATE-7].
     */
    static long drainPeriodNanos(EngineConfig config) {
        long total = 0;
        long interval = config.closeRetryNanos();
        for (int i = 0; i <= config.closeRetries(); i++) {
            total += interval;
            interval = Math.min(interval * 2, config.maxRtoNanos());
        }
        return 2 * total;
    }
}
