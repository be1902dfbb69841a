package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.AccessCheck;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.memory.ProtectionDomain;
import io.metaroce.core.sack.PacketTable;
import io.metaroce.core.sack.PathReceiveTracker;
import io.metaroce.core.sack.ScoreboardListener;
import io.metaroce.core.sack.SequenceReceiveWindow;
import io.metaroce.core.stream.InboundMessages;
import io.metaroce.core.stream.PostedReceives;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import io.metaroce.core.wire.CloseCode;
import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import org.agrona.collections.IntArrayQueue;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayQueue;

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
    private static final long READ_KEY_SHIFT = 32;
    private static final int NAK_QUEUE = 16;
    private static final int PROBE_QUEUE = 4;

    private final Endpoint endpoint;
    private final EngineConfig config;
    private final CongestionController congestion;
    private final ProtectionDomain protectionDomain;
    private final long localId;
    private final boolean client;
    private final ConnectionStats stats = new ConnectionStats();
    private final int payloadBytes;

    private long peerId;
    private int peerWindow;
    private int peerPayloadBytes;
    private ConnectionState state;
    private CloseReason closeReason;
    private int pathCount;
    private final Path[] paths;
    private int nextPathForData;

    private final StreamTable streams;
    private final WorkRequests work;
    private final PostedReceives receives;
    private final InboundMessages inbound = new InboundMessages();
    private final PacketTable packets;
    private final SequenceReceiveWindow receiveWindow;
    /** (stream, msn) of a READ this side posted, to the work request slot waiting for its response. */
    private final Long2LongHashMap pendingReads = new Long2LongHashMap(8, 0.65f, -1L);
    /** Streams with unsent work, in round-robin order. */
    private final IntArrayQueue readyStreams = new IntArrayQueue(8, -1);
    /** Streams paused by a receiver-not-ready NAK. */
    private final IntArrayQueue pausedStreams = new IntArrayQueue(8, -1);
    /** READ responses this side is serving, in arrival order. */
    private final IntArrayQueue responses = new IntArrayQueue(8, -1);
    private boolean responsesTurn;
    /** CSNs refused as receiver-not-ready, with the time each may be retried. */
    private final LongArrayQueue deferredSequences = new LongArrayQueue(8, -1L);
    private final LongArrayQueue deferredUntil = new LongArrayQueue(8, -1L);

    private final int[] nakCode = new int[NAK_QUEUE];
    private final int[] nakPath = new int[NAK_QUEUE];
    private final int[] nakStream = new int[NAK_QUEUE];
    private final long[] nakPsn = new long[NAK_QUEUE];
    private final long[] nakCsn = new long[NAK_QUEUE];
    private final long[] nakMsn = new long[NAK_QUEUE];
    private int nakHead;
    private int nakCount;

    private final int[] probeAckPath = new int[PROBE_QUEUE];
    private final long[] probeAckId = new long[PROBE_QUEUE];
    private final long[] probeAckTimestamp = new long[PROBE_QUEUE];
    private int probeAckHead;
    private int probeAckCount;
    private boolean keepAliveDue;
    private long probeSequence;

    /** Time of the input being handled, for callbacks that do not carry it. */
    private long inputNanos;
    private long createdAtNanos;
    private long lastReceiveNanos;
    private long lastSendNanos;
    private long handshakeNextNanos;
    private long handshakeIntervalNanos;
    private final byte[] cookie = new byte[WireConstants.COOKIE_BYTES];
    private boolean hasCookie;
    private boolean acceptDue;
    private int closeCodeToSend;
    private boolean closeReplyDue;
    private long closeNextNanos = Long.MAX_VALUE;
    private int closeRetriesLeft;
    private long drainUntilNanos = Long.MAX_VALUE;
    private int outstandingWork;

    Connection(Endpoint endpoint, long localId, boolean client, int pathCount, long nowNanos) {
        this.endpoint = endpoint;
        this.config = endpoint.config();
        this.protectionDomain = endpoint.protectionDomain();
        this.congestion = endpoint.congestionControllerFactory().apply(config);
        this.localId = localId;
        this.client = client;
        this.pathCount = pathCount;
        this.paths = new Path[pathCount];
        this.payloadBytes = EngineConfig.payloadBytesFor(config.maxDatagramBytes());
        this.peerPayloadBytes = payloadBytes;
        this.peerWindow = config.sequenceWindow();
        this.streams = new StreamTable(config.maxStreams());
        this.work = new WorkRequests(config.maxWorkRequests());
        this.receives = new PostedReceives(config.maxPostedReceives());
        this.packets = new PacketTable(config.sequenceWindow());
        this.receiveWindow = new SequenceReceiveWindow(config.sequenceWindow());
        this.state = client ? ConnectionState.CONNECTING : ConnectionState.ESTABLISHED;
        this.createdAtNanos = nowNanos;
        this.lastReceiveNanos = nowNanos;
        this.lastSendNanos = nowNanos;
        this.handshakeNextNanos = nowNanos;
        this.handshakeIntervalNanos = config.handshakeRetryNanos();
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
        return pathCount;
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
        return Math.min(payloadBytes, peerPayloadBytes);
    }

    /** Smoothed RTT of path {@code pathId} in nanoseconds, or -1 if the path is not open. */
    public long smoothedRttNanos(int pathId) {
        Path p = pathId >= 0 && pathId < pathCount ? paths[pathId] : null;
        return p == null ? -1 : p.rtt.smoothedNanos();
    }

    /** Packets sent on path {@code pathId} (first transmissions and retransmissions), or -1. */
    public long pathPacketsSent(int pathId) {
        Path p = pathId >= 0 && pathId < pathCount ? paths[pathId] : null;
        return p == null ? -1 : p.packetsSent;
    }

    /** Retransmissions sent on path {@code pathId}, or -1. */
    public long pathRetransmissions(int pathId) {
        Path p = pathId >= 0 && pathId < pathCount ? paths[pathId] : null;
        return p == null ? -1 : p.retransmissions;
    }

    /** Losses detected on path {@code pathId}, or -1. */
    public long pathLosses(int pathId) {
        Path p = pathId >= 0 && pathId < pathCount ? paths[pathId] : null;
        return p == null ? -1 : p.losses;
    }

    /** Work requests posted on this connection and not yet completed (sends and receives). */
    public int outstandingWork() {
        return outstandingWork;
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
        checkStream(streamId);
        checkLocal(region, offset, length, Access.LOCAL_WRITE, "postRecv");
        int gate = postGate();
        if (gate != PostResult.OK) {
            return gate;
        }
        if (!receives.hasRoom()) {
            return PostResult.QUEUE_FULL;
        }
        streams.ensure(streamId);
        int r = receives.take();
        receives.workRequestId[r] = workRequestId;
        receives.region[r] = region;
        receives.offset[r] = offset;
        receives.length[r] = length;
        receives.receiveSequence[r] = streams.takeRecvPosted(streamId);
        int tail = streams.recvTail(streamId);
        if (tail == StreamTable.NONE) {
            streams.recvHead(streamId, r);
        } else {
            receives.next[tail] = r;
        }
        streams.recvTail(streamId, r);
        outstandingWork++;
        endpoint.workPosted();
        return PostResult.OK;
    }

    private int postOutbound(byte kind, int streamId, long workRequestId, MemoryRegion region, long offset,
            long length, int remoteKey, long remoteOffset, int immediate, boolean hasImmediate) {
        checkStream(streamId);
        checkLocal(region, offset, length, kind == WorkRequests.READ ? Access.LOCAL_WRITE : 0, opName(kind));
        if (remoteOffset < 0) {
            throw new IllegalArgumentException(opName(kind) + ": remoteOffset must be >= 0, was " + remoteOffset);
        }
        int gate = postGate();
        if (gate != PostResult.OK) {
            return gate;
        }
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
        schedule(streamId);
        outstandingWork++;
        endpoint.workPosted();
        return PostResult.OK;
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

    private void checkStream(int streamId) {
        if (!streams.isValidId(streamId)) {
            throw new IllegalArgumentException("streamId " + streamId + " is out of range: use 0 to "
                    + (config.maxStreams() - 1) + " (EngineConfig.maxStreams)");
        }
    }

    private void checkLocal(MemoryRegion region, long offset, long length, int access, String op) {
        if (region == null) {
            throw new IllegalArgumentException(op + ": region is null; register memory with the endpoint's protection domain first");
        }
        int check = protectionDomain.checkLocal(region, offset, length, access);
        if (check == AccessCheck.OK) {
            return;
        }
        String name = op + ": " + AccessCheck.name(check) + ": region " + region.localKey() + " (length "
                + region.length() + ", access " + Access.describe(region.access()) + ")";
        throw new IllegalArgumentException(switch (check) {
            case AccessCheck.UNKNOWN_KEY -> name + " is not registered in this connection's protection domain;"
                    + " register the memory with the protection domain of the endpoint that owns the connection";
            case AccessCheck.REGION_CLOSED -> name + " is closed (deregistered, or its memory was freed);"
                    + " register the memory again";
            case AccessCheck.OUT_OF_BOUNDS -> name + ": the range [" + offset + ", +" + length
                    + ") does not fit in the region; use offset >= 0, length >= 0, offset + length <= " + region.length();
            case AccessCheck.ACCESS_DENIED -> name + " lacks Access.LOCAL_WRITE, which the target of a receive or"
                    + " READ needs; register it with Access.LOCAL_WRITE";
            default -> name + " is not usable: " + AccessCheck.name(check);
        });
    }

    private static String opName(byte kind) {
        return switch (kind) {
            case WorkRequests.SEND -> "postSend";
            case WorkRequests.WRITE -> "postWrite";
            case WorkRequests.WRITE_WITH_IMM -> "postWriteWithImmediate";
            case WorkRequests.READ -> "postRead";
            default -> "post";
        };
    }

    private void schedule(int streamId) {
        if (!streams.scheduled(streamId)) {
            streams.scheduled(streamId, true);
            readyStreams.addInt(streamId);
        }
    }

    private static long readKey(int streamId, long msn) {
        return ((long) streamId << READ_KEY_SHIFT) | (msn & 0xffff_ffffL);
    }

    /**
     * Closes gracefully: no new work is accepted; work already posted finishes; then CLOSE is
     * exchanged. Posted receives that no SEND consumed complete with CONNECTION_CLOSED.
     */
    public void close() {
        if (state == ConnectionState.ESTABLISHED) {
            state = ConnectionState.CLOSE_PENDING;
            maybeFinishClosePending();
        } else if (state == ConnectionState.CONNECTING) {
            finish(CloseReason.LOCAL_CLOSE, CompletionStatus.CONNECTION_CLOSED);
        }
    }

    /** Aborts at once: outstanding work completes with CONNECTION_CLOSED and the peer is told. */
    public void abort() {
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
    }

    // =====================================================================================
    // Handshake (driven by the endpoint)
    // =====================================================================================

    void addPath(int pathId, int localSocket, Object remoteAddress) {
        paths[pathId] = new Path(pathId, localSocket, remoteAddress, config);
    }

    void acceptFrom(long clientId, int peerMaxDatagram, int window) {
        this.peerId = clientId;
        adoptPeerLimits(peerMaxDatagram, window);
        this.acceptDue = true;
    }

    /** Takes the peer's datagram size and sequence window (u32 on the wire) within this side's own limits. */
    private void adoptPeerLimits(int peerMaxDatagram, int window) {
        long datagram = Math.min(Integer.toUnsignedLong(peerMaxDatagram), config.maxDatagramBytes());
        this.peerPayloadBytes = EngineConfig.payloadBytesFor((int) Math.max(datagram, EngineConfig.MIN_DATAGRAM_BYTES));
        this.peerWindow = (int) Math.min(Integer.toUnsignedLong(window), config.sequenceWindow());
    }

    void resendAccept() {
        acceptDue = true;
    }

    boolean matchesPeer(Object remoteAddress) {
        Path p0 = paths[0];
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
            // A repeated ACCEPT (our CONNECT was resent) is harmless; anything else is noise.
            stats.unexpectedPackets++;
            return;
        }
        peerId = p.sourceConnectionId;
        adoptPeerLimits(p.maxDatagramBytes, p.sequenceWindow);
        if (p.pathCount < pathCount) {
            // The server granted fewer paths than asked: use only those [SPEC-CONN-15].
            for (int i = p.pathCount; i < pathCount; i++) {
                paths[i] = null;
            }
            pathCount = p.pathCount;
            nextPathForData = 0;
        }
        state = ConnectionState.ESTABLISHED;
        lastReceiveNanos = nowNanos;
        endpoint.connectionEstablished(this);
    }

    // =====================================================================================
    // Input
    // =====================================================================================

    /** Handles one decoded packet addressed to this connection. */
    void handlePacket(long nowNanos, Packet p, ByteBuffer datagram, int localSocket, Object remoteAddress, int ecn) {
        if (state == ConnectionState.CLOSED) {
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
            case PacketType.PATH_PROBE -> queueProbeAck(p.pathId, p.probeId, p.timestampNanos, localSocket, remoteAddress);
            case PacketType.PROBE_ACK -> onProbeAck(nowNanos, p);
            default -> stats.unexpectedPackets++;
        }
    }

    private Path pathForInbound(int pathId, int localSocket, Object remoteAddress) {
        if (pathId >= pathCount) {
            stats.unknownPathPackets++;
            return null;
        }
        Path path = paths[pathId];
        if (path == null) {
            path = new Path(pathId, localSocket, remoteAddress, config);
            paths[pathId] = path;
        } else if (path.localSocket != localSocket || !path.remoteAddress.equals(remoteAddress)) {
            // The peer moved the path (a new source port) or a NAT rebound it: answer where it now is.
            path.localSocket = localSocket;
            path.remoteAddress = remoteAddress;
        }
        return path;
    }

    private void onReliable(long nowNanos, Packet p, ByteBuffer datagram, int localSocket, Object remoteAddress, int ecn) {
        if (state == ConnectionState.CONNECTING) {
            return;
        }
        Path path = pathForInbound(p.pathId, localSocket, remoteAddress);
        if (path == null) {
            return;
        }
        if (p.pathSequence > path.receiveTracker.highest() + config.pathWindowPackets()) {
            // No sender has more than a path window in flight, so this PSN is forged or broken [SPEC-ADM-10].
            stats.beyondWindowPackets++;
            return;
        }
        path.packetsReceived++;
        path.bytesReceived += p.payloadLength;
        path.receiveTracker.countEcn(ecn);
        if (p.sequenceFloor > p.connectionSequence || p.sequenceFloor - receiveWindow.base() > config.sequenceWindow()) {
            // A sender's floor is never above the packet it rides on, nor more than a window ahead
            // of what this side has finished: the packet is forged or broken [SPEC-ADM-9].
            stats.beyondWindowPackets++;
            return;
        }
        receiveWindow.advanceTo(p.sequenceFloor);
        int admission = receiveWindow.classify(p.connectionSequence);
        if (admission == SequenceReceiveWindow.BEYOND_WINDOW) {
            stats.beyondWindowPackets++;
            return;
        }
        boolean ackNow = (p.flags & WireConstants.FLAG_ACK_NOW) != 0;
        if (admission == SequenceReceiveWindow.DUPLICATE) {
            stats.duplicatePackets++;
            if ((p.flags & WireConstants.FLAG_RETRANSMISSION) != 0) {
                stats.spuriousRetransmissionsReceived++;
            }
            path.receiveTracker.record(p.pathSequence, p.timestampNanos, nowNanos);
            path.receiveTracker.noteAckEliciting(true, config.ackEveryPackets(), config.maxAckDelayNanos(), nowNanos);
            return;
        }
        int refusal = p.type == PacketType.READ_REQUEST ? acceptReadRequest(p) : acceptData(p, datagram);
        if (refusal != 0) {
            queueNak(refusal, p);
            return;
        }
        receiveWindow.admit(p.connectionSequence);
        int order = path.receiveTracker.record(p.pathSequence, p.timestampNanos, nowNanos);
        path.receiveTracker.noteAckEliciting(ackNow || order == PathReceiveTracker.AFTER_GAP
                || order == PathReceiveTracker.LATE, config.ackEveryPackets(), config.maxAckDelayNanos(), nowNanos);
    }

    /** @return 0 if accepted, else the NAK code */
    private int acceptReadRequest(Packet p) {
        int s = p.streamId;
        if (!streams.isValidId(s)) {
            stats.invalidRequests++;
            return NakCode.REMOTE_INVALID_REQUEST;
        }
        streams.ensure(s);
        if (p.messageSequence < streams.recvNextMessage(s) || inbound.find(s, p.messageSequence) != StreamTable.NONE) {
            stats.accessRefusals++;
            return NakCode.REMOTE_ACCESS_ERROR;
        }
        int check = protectionDomain.checkRemote(p.remoteKey, p.remoteOffset, p.messageLength, Access.REMOTE_READ);
        if (check != AccessCheck.OK) {
            stats.accessRefusals++;
            int m = inbound.create(s, p.messageSequence, WorkRequests.READ, p.messageLength);
            inbound.status[m] = CompletionStatus.REMOTE_ACCESS_ERROR;
            inbound.complete[m] = true;
            completeInboundInOrder(s);
            return NakCode.REMOTE_ACCESS_ERROR;
        }
        if (!work.hasRoom()) {
            stats.receiverNotReady++;
            return NakCode.RECEIVER_NOT_READY;
        }
        int w = work.take();
        work.kind[w] = WorkRequests.READ_RESPONSE;
        work.stream[w] = s;
        work.messageSequence[w] = p.messageSequence;
        work.region[w] = protectionDomain.lookupRemote(p.remoteKey);
        work.localOffset[w] = p.remoteOffset;
        work.length[w] = p.messageLength;
        // The response starts when every earlier message of the stream has landed, so a READ
        // sees the bytes of the WRITEs posted before it on the same stream.
        int m = inbound.create(s, p.messageSequence, WorkRequests.READ, p.messageLength);
        inbound.responseWork[m] = w;
        inbound.complete[m] = true;
        completeInboundInOrder(s);
        return 0;
    }

    /** @return 0 if accepted (and placed), else the NAK code */
    private int acceptData(Packet p, ByteBuffer datagram) {
        int s = p.streamId;
        if (!streams.isValidId(s)) {
            stats.invalidRequests++;
            return NakCode.REMOTE_INVALID_REQUEST;
        }
        streams.ensure(s);
        if (p.opcode == DataOpcode.READ_RESPONSE) {
            return acceptReadResponse(p, datagram);
        }
        long msn = p.messageSequence;
        int m = inbound.find(s, msn);
        if (m == StreamTable.NONE) {
            if (msn < streams.recvNextMessage(s)) {
                // A new CSN for a message already finished here: only a refused message is resent.
                stats.accessRefusals++;
                return p.opcode == DataOpcode.SEND ? NakCode.REMOTE_INVALID_REQUEST : NakCode.REMOTE_ACCESS_ERROR;
            }
            if (inbound.size() >= config.maxWorkRequests()) {
                // The peer has more messages in progress than this side tracks: let it wait.
                stats.receiverNotReady++;
                return NakCode.RECEIVER_NOT_READY;
            }
            m = openInboundMessage(p);
            if (m == StreamTable.NONE) {
                return NakCode.RECEIVER_NOT_READY;
            }
        }
        int failed = inbound.status[m];
        if (failed != 0) {
            return failed == CompletionStatus.LOCAL_LENGTH_ERROR ? NakCode.REMOTE_INVALID_REQUEST : NakCode.REMOTE_ACCESS_ERROR;
        }
        if (inbound.complete[m] || p.messageLength != inbound.length[m]) {
            stats.invalidRequests++;
            return NakCode.REMOTE_INVALID_REQUEST;
        }
        MemoryRegion target = inbound.region[m];
        if (!target.isUsable()) {
            stats.accessRefusals++;
            failInbound(m, CompletionStatus.REMOTE_ACCESS_ERROR);
            return NakCode.REMOTE_ACCESS_ERROR;
        }
        if (p.payloadLength > 0) {
            target.place(inbound.targetOffset[m] + p.payloadMessageOffset, datagram, p.payloadOffset, p.payloadLength);
        }
        if ((p.dataFlags & WireConstants.DATA_FLAG_HAS_IMMEDIATE) != 0) {
            inbound.immediate[m] = p.immediate;
            inbound.hasImmediate[m] = true;
        }
        inbound.received[m] += p.payloadLength;
        if (inbound.received[m] >= inbound.length[m]) {
            inbound.complete[m] = true;
            completeInboundInOrder(s);
        }
        return 0;
    }

    private int openInboundMessage(Packet p) {
        int s = p.streamId;
        if (p.opcode == DataOpcode.WRITE) {
            int check = protectionDomain.checkRemote(p.remoteKey, p.remoteOffset, p.messageLength, Access.REMOTE_WRITE);
            int m = inbound.create(s, p.messageSequence, WorkRequests.WRITE, p.messageLength);
            if (check != AccessCheck.OK) {
                stats.accessRefusals++;
                failInbound(m, CompletionStatus.REMOTE_ACCESS_ERROR);
                return m;
            }
            inbound.region[m] = protectionDomain.lookupRemote(p.remoteKey);
            inbound.targetOffset[m] = p.remoteOffset;
            return m;
        }
        // SEND and WRITE_WITH_IMM consume the posted receive named by the receive sequence number.
        int r = findReceive(s, p.receiveSequence);
        if (r == StreamTable.NONE) {
            stats.receiverNotReady++;
            return StreamTable.NONE;
        }
        byte kind = p.opcode == DataOpcode.SEND ? WorkRequests.SEND : WorkRequests.WRITE_WITH_IMM;
        int m = inbound.create(s, p.messageSequence, kind, p.messageLength);
        inbound.receive[m] = r;
        if (kind == WorkRequests.SEND) {
            if (p.messageLength > receives.length[r]) {
                stats.invalidRequests++;
                failInbound(m, CompletionStatus.LOCAL_LENGTH_ERROR);
                return m;
            }
            inbound.region[m] = receives.region[r];
            inbound.targetOffset[m] = receives.offset[r];
            return m;
        }
        int check = protectionDomain.checkRemote(p.remoteKey, p.remoteOffset, p.messageLength, Access.REMOTE_WRITE);
        if (check != AccessCheck.OK) {
            stats.accessRefusals++;
            failInbound(m, CompletionStatus.REMOTE_ACCESS_ERROR);
            return m;
        }
        inbound.region[m] = protectionDomain.lookupRemote(p.remoteKey);
        inbound.targetOffset[m] = p.remoteOffset;
        return m;
    }

    private void failInbound(int m, int status) {
        inbound.status[m] = status;
        inbound.complete[m] = true;
        completeInboundInOrder(inbound.stream[m]);
    }

    private int findReceive(int s, long rsn) {
        for (int r = streams.recvHead(s); r != StreamTable.NONE; r = receives.next[r]) {
            if (receives.receiveSequence[r] == rsn) {
                return r;
            }
            if (receives.receiveSequence[r] > rsn) {
                break;
            }
        }
        return StreamTable.NONE;
    }

    private int acceptReadResponse(Packet p, ByteBuffer datagram) {
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
            abandon(w, CompletionStatus.LOCAL_PROTECTION_ERROR);
            return 0;
        }
        if (p.payloadLength > 0) {
            target.place(work.localOffset[w] + p.payloadMessageOffset, datagram, p.payloadOffset, p.payloadLength);
        }
        work.readReceived[w] += p.payloadLength;
        if (work.readReceived[w] >= work.length[w]) {
            pendingReads.remove(readKey(p.streamId, p.messageSequence));
            markDone(w, CompletionStatus.SUCCESS);
        }
        return 0;
    }

    /** Delivers the receive-side completions of stream {@code s} that are next in posting order. */
    private void completeInboundInOrder(int s) {
        while (true) {
            long msn = streams.recvNextMessage(s);
            int m = inbound.find(s, msn);
            if (m == StreamTable.NONE || !inbound.complete[m]) {
                return;
            }
            if (inbound.responseWork[m] != StreamTable.NONE) {
                responses.addInt(inbound.responseWork[m]);
            }
            int r = inbound.receive[m];
            if (r != StreamTable.NONE) {
                // Every SEND and WRITE_WITH_IMM consumes its receive, refused or not, so the
                // receive sequence numbers of both sides stay in step.
                int opcode = inbound.opcode[m] == WorkRequests.SEND ? WorkOpcode.RECV : WorkOpcode.RECV_WRITE_WITH_IMM;
                endpoint.complete(localId, s, receives.workRequestId[r], opcode, inbound.status[m], inbound.length[m],
                        inbound.immediate[m], inbound.hasImmediate[m]);
                removeReceive(s, r);
            }
            inbound.remove(m);
            streams.recvNextMessage(s, msn + 1);
        }
    }

    private void removeReceive(int s, int r) {
        // Messages complete in order and consume receives in order, so r is the head.
        int head = streams.recvHead(s);
        if (head == r) {
            streams.recvHead(s, receives.next[r]);
            if (streams.recvTail(s) == r) {
                streams.recvTail(s, StreamTable.NONE);
            }
        } else {
            int prev = head;
            while (receives.next[prev] != r) {
                prev = receives.next[prev];
            }
            receives.next[prev] = receives.next[r];
            if (streams.recvTail(s) == r) {
                streams.recvTail(s, prev);
            }
        }
        receives.free(r);
        outstandingWork--;
        endpoint.workFinished();
    }

    private void onAck(long nowNanos, Packet p) {
        if (p.pathId >= pathCount || paths[p.pathId] == null) {
            stats.unknownPathPackets++;
            return;
        }
        Path path = paths[p.pathId];
        stats.acksReceived++;
        inputNanos = nowNanos;
        long highestBefore = path.scoreboard.highestAcked();
        int acked = path.scoreboard.onAck(p, config.reorderAllowancePackets(), this);
        if (acked > 0) {
            path.consecutiveTimeouts = 0;
            if (path.scoreboard.highestAcked() > highestBefore) {
                path.rtt.update(nowNanos - p.echoTimestampNanos - p.ackDelayNanos);
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
        maybeFinishClosePending();
    }

    @Override
    public void onTransmissionAcked(int pathId, long pathSequence, long csn, int bytes, long sentAtNanos) {
        congestion.onPacketAcked(pathId, bytes, -1, inputNanos);
        if (packets.state(csn) == PacketTable.OUTSTANDING) {
            delivered(csn);
        }
    }

    @Override
    public void onTransmissionLost(int pathId, long pathSequence, long csn, int bytes, boolean byTimeout) {
        Path path = paths[pathId];
        path.losses++;
        stats.losses++;
        congestion.onPacketLost(pathId, bytes, inputNanos);
        if (packets.state(csn) == PacketTable.OUTSTANDING && !ownerLive(csn)) {
            packets.finish(csn, PacketTable.ABANDONED);
        } else if (packets.state(csn) == PacketTable.OUTSTANDING && !packets.queued(csn)) {
            packets.queued(csn, true);
            path.retransmitQueue.addLong(csn);
        }
    }

    /** Whether the work request that packet {@code csn} belongs to still waits for it. */
    private boolean ownerLive(long csn) {
        int w = packets.owner(csn);
        return work.generation[w] == packets.ownerGeneration(csn) && !work.done[w];
    }

    private void delivered(long csn) {
        int w = packets.owner(csn);
        boolean live = work.generation[w] == packets.ownerGeneration(csn) && !work.done[w];
        packets.finish(csn, PacketTable.DELIVERED);
        if (!live) {
            return;
        }
        work.undelivered[w]--;
        if (work.undelivered[w] == 0 && work.allSent[w] && work.kind[w] != WorkRequests.READ) {
            markDone(w, CompletionStatus.SUCCESS);
        }
    }

    private void onNak(long nowNanos, Packet p) {
        stats.naksReceived++;
        Path path = p.pathId < pathCount ? paths[p.pathId] : null;
        if (path == null) {
            stats.unknownPathPackets++;
        }
        long csn = p.refusedConnectionSequence;
        if (path != null) {
            int bytes = path.scoreboard.cancel(p.refusedPathSequence, csn);
            if (bytes >= 0) {
                congestion.onPacketDiscarded(path.id, bytes, nowNanos);
            }
        }
        if (packets.state(csn) != PacketTable.OUTSTANDING) {
            return;
        }
        int w = packets.owner(csn);
        if (work.generation[w] != packets.ownerGeneration(csn) || work.done[w]) {
            return;
        }
        switch (p.nakCode) {
            case NakCode.RECEIVER_NOT_READY -> {
                stats.receiverNotReadyNaks++;
                long delay = p.retryAfterNanos > 0 ? Math.min(p.retryAfterNanos, config.maxRtoNanos()) : config.rnrRetryDelayNanos();
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
            case NakCode.REMOTE_ACCESS_ERROR -> abandon(w, CompletionStatus.REMOTE_ACCESS_ERROR);
            default -> abandon(w, CompletionStatus.REMOTE_INVALID_REQUEST);
        }
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
        drainUntilNanos = nowNanos + 3 * config.closeRetryNanos() * Math.max(1, config.closeRetries());
    }

    private void onProbeAck(long nowNanos, Packet p) {
        if (p.pathId >= pathCount || paths[p.pathId] == null) {
            stats.unknownPathPackets++;
            return;
        }
        paths[p.pathId].rtt.update(nowNanos - p.timestampNanos);
    }

    private void queueNak(int code, Packet p) {
        stats.naksSent++;
        if (nakCount == NAK_QUEUE) {
            stats.naksDropped++;
            return;
        }
        int i = (nakHead + nakCount++) % NAK_QUEUE;
        nakCode[i] = code;
        nakPath[i] = p.pathId;
        nakStream[i] = p.streamId;
        nakPsn[i] = p.pathSequence;
        nakCsn[i] = p.connectionSequence;
        nakMsn[i] = p.messageSequence;
    }

    private void queueProbeAck(int pathId, long probeId, long timestampNanos, int localSocket, Object remoteAddress) {
        if (pathId >= pathCount) {
            stats.unknownPathPackets++;
            return;
        }
        if (pathForInbound(pathId, localSocket, remoteAddress) == null || probeAckCount == PROBE_QUEUE) {
            return;
        }
        int i = (probeAckHead + probeAckCount++) % PROBE_QUEUE;
        probeAckPath[i] = pathId;
        probeAckId[i] = probeId;
        probeAckTimestamp[i] = timestampNanos;
    }

    // =====================================================================================
    // Completion bookkeeping
    // =====================================================================================

    private void markDone(int w, int status) {
        work.done[w] = true;
        work.status[w] = status;
        if (work.kind[w] == WorkRequests.READ_RESPONSE) {
            work.free(w);
            maybeFinishClosePending();
            return;
        }
        completeOutboundInOrder(work.stream[w]);
    }

    private void completeOutboundInOrder(int s) {
        int w = streams.workHead(s);
        while (w != StreamTable.NONE && work.done[w]) {
            int next = work.next[w];
            endpoint.complete(localId, s, work.workRequestId[w], completionOpcode(work.kind[w]), work.status[w],
                    work.length[w], work.immediate[w], work.hasImmediate[w]);
            if (streams.sendCursor(s) == w) {
                streams.sendCursor(s, next);
            }
            work.free(w);
            outstandingWork--;
            endpoint.workFinished();
            w = next;
        }
        streams.workHead(s, w);
        if (w == StreamTable.NONE) {
            streams.workTail(s, StreamTable.NONE);
        }
        maybeFinishClosePending();
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
    private void abandon(int w, int status) {
        int generation = work.generation[w];
        for (long c = packets.floor(); c < packets.next(); c++) {
            if (packets.state(c) == PacketTable.OUTSTANDING && packets.owner(c) == w
                    && packets.ownerGeneration(c) == generation) {
                packets.finish(c, PacketTable.ABANDONED);
            }
        }
        work.allSent[w] = true;
        work.undelivered[w] = 0;
        advanceCursor(w);
        if (work.kind[w] == WorkRequests.READ) {
            pendingReads.remove(readKey(work.stream[w], work.messageSequence[w]));
        }
        markDone(w, status);
    }

    private void flushAllWork(int status) {
        for (int s = 0; s < streams.capacity(); s++) {
            for (int w = streams.workHead(s); w != StreamTable.NONE; w = work.next[w]) {
                if (!work.done[w]) {
                    int generation = work.generation[w];
                    for (long c = packets.floor(); c < packets.next(); c++) {
                        if (packets.state(c) == PacketTable.OUTSTANDING && packets.owner(c) == w
                                && packets.ownerGeneration(c) == generation) {
                            packets.finish(c, PacketTable.ABANDONED);
                        }
                    }
                    work.done[w] = true;
                    work.allSent[w] = true;
                    work.status[w] = status;
                }
            }
            completeOutboundInOrder(s);
            streams.sendCursor(s, StreamTable.NONE);
            for (int r = streams.recvHead(s); r != StreamTable.NONE; ) {
                int next = receives.next[r];
                endpoint.complete(localId, s, receives.workRequestId[r], WorkOpcode.RECV, status, 0, 0, false);
                receives.free(r);
                outstandingWork--;
                endpoint.workFinished();
                r = next;
            }
            streams.recvHead(s, StreamTable.NONE);
            streams.recvTail(s, StreamTable.NONE);
        }
        while (!responses.isEmpty()) {
            int w = responses.pollInt();
            if (work.kind[w] == WorkRequests.READ_RESPONSE && !work.done[w]) {
                work.done[w] = true;
                work.free(w);
            }
        }
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

    private void maybeFinishClosePending() {
        if (state == ConnectionState.CLOSE_PENDING && work.used() == 0) {
            startClosing(CloseCode.NO_ERROR);
        }
    }

    /** Ends the connection: every outstanding work request completes with {@code status}. */
    void finish(CloseReason reason, int status) {
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

    /** The earliest time {@link #handleTimeout} has something to do, or {@link Long#MAX_VALUE}. */
    long nextTimeoutNanos() {
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
            t = Math.min(t, lastSendNanos + config.keepAliveNanos());
        }
        for (int i = 0; i < pathCount; i++) {
            Path p = paths[i];
            if (p != null) {
                t = Math.min(t, p.receiveTracker.ackDeadlineNanos());
                t = Math.min(t, p.rtoDeadlineNanos(config));
            }
        }
        if (!deferredUntil.isEmpty()) {
            t = Math.min(t, deferredUntil.peekLong());
        }
        if (!pausedStreams.isEmpty()) {
            t = Math.min(t, streams.pausedUntilNanos(pausedStreams.peekInt()));
        }
        return t;
    }

    /** Runs every timer due at {@code nowNanos}. A call with nothing due does nothing. */
    void handleTimeout(long nowNanos) {
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
        if (config.keepAliveNanos() > 0 && nowNanos - lastSendNanos >= config.keepAliveNanos()) {
            keepAliveDue = true;
        }
        inputNanos = nowNanos;
        for (int i = 0; i < pathCount; i++) {
            Path p = paths[i];
            if (p == null || nowNanos < p.rtoDeadlineNanos(config)) {
                continue;
            }
            long rto = p.rtoNanos(config);
            p.timeouts++;
            stats.timeouts++;
            p.scoreboard.onTimeout(nowNanos - rto, true, this);
            p.consecutiveTimeouts++;
            if (p.consecutiveTimeouts >= config.maxConsecutiveTimeouts()) {
                finish(CloseReason.PEER_UNREACHABLE, CompletionStatus.PEER_UNREACHABLE);
                return;
            }
        }
        releaseDeferred(nowNanos);
    }

    private void releaseDeferred(long nowNanos) {
        while (!deferredUntil.isEmpty() && deferredUntil.peekLong() <= nowNanos) {
            deferredUntil.pollLong();
            long csn = deferredSequences.pollLong();
            if (packets.state(csn) == PacketTable.OUTSTANDING) {
                packets.queued(csn, false);
                retransmitSoon(csn);
            }
        }
        while (!pausedStreams.isEmpty() && streams.pausedUntilNanos(pausedStreams.peekInt()) <= nowNanos) {
            int s = pausedStreams.pollInt();
            streams.scheduled(s, false);
            if (streams.sendCursor(s) != StreamTable.NONE) {
                schedule(s);
            }
        }
    }

    private void retransmitSoon(long csn) {
        // Deferred packets go out on the first path that has room, which is the path they were
        // refused on when the connection has one path.
        Path path = null;
        for (int i = 0; i < pathCount && path == null; i++) {
            path = paths[(nextPathForData + i) % pathCount];
        }
        if (path != null) {
            packets.queued(csn, true);
            path.retransmitQueue.addLong(csn);
        }
    }

    // =====================================================================================
    // Output
    // =====================================================================================

    /**
     * Writes the next datagram this connection wants to send into {@code out}, if any.
     *
     * @return whether a datagram was written
     */
    boolean pollTransmit(long nowNanos, Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        if (state == ConnectionState.CLOSED) {
            return false;
        }
        if (state == ConnectionState.CONNECTING) {
            if (nowNanos >= handshakeNextNanos) {
                handshakeNextNanos = nowNanos + handshakeIntervalNanos;
                handshakeIntervalNanos = Math.min(handshakeIntervalNanos * 2, config.handshakeTimeoutNanos());
                return writeConnect(nowNanos, out, p, codec);
            }
            return false;
        }
        releaseDeferred(nowNanos);
        if (acceptDue) {
            acceptDue = false;
            return writeAccept(out, p, codec);
        }
        if (closeReplyDue) {
            closeReplyDue = false;
            return writeClose(out, p, codec, CloseCode.NO_ERROR, true, nowNanos);
        }
        if (state == ConnectionState.CLOSING && nowNanos >= closeNextNanos && closeRetriesLeft >= 0) {
            closeRetriesLeft--;
            closeNextNanos = nowNanos + config.closeRetryNanos();
            return writeClose(out, p, codec, closeCodeToSend, false, nowNanos);
        }
        if (nakCount > 0 && writeNak(out, p, codec)) {
            return true;
        }
        for (int i = 0; i < pathCount; i++) {
            Path path = paths[i];
            if (path != null && path.receiveTracker.ackDue(nowNanos)) {
                return writeAck(nowNanos, path, out, p, codec);
            }
        }
        if (probeAckCount > 0) {
            return writeProbeAck(out, p, codec);
        }
        if (state == ConnectionState.DRAINING || state == ConnectionState.CLOSING) {
            return false;
        }
        if (writeData(nowNanos, out, p, codec)) {
            return true;
        }
        if (keepAliveDue) {
            keepAliveDue = false;
            return writeProbe(nowNanos, out, p, codec);
        }
        return false;
    }

    private void header(Packet p, int type, int pathId) {
        // Every writer sets all the fields its type encodes, so the arrays need no reset here.
        p.clearScalars();
        p.type = type;
        p.pathId = pathId;
        p.destinationConnectionId = peerId;
    }

    private boolean emit(Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec, Path path, int ecn,
            ByteBuffer payload, int payloadIndex, long nowNanos) {
        out.length = codec.encode(p, out.buffer, 0, payload, payloadIndex);
        out.localSocket = path.localSocket;
        out.remoteAddress = path.remoteAddress;
        out.pathId = path.id;
        out.ecn = ecn;
        lastSendNanos = nowNanos;
        stats.packetsSent++;
        stats.bytesSent += out.length;
        return true;
    }

    private boolean writeConnect(long nowNanos, Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        p.clear();
        p.type = PacketType.CONNECT;
        p.sourceConnectionId = localId;
        p.maxDatagramBytes = config.maxDatagramBytes();
        p.pathCount = pathCount;
        p.sequenceWindow = config.sequenceWindow();
        p.hasCookie = hasCookie;
        if (hasCookie) {
            System.arraycopy(cookie, 0, p.cookie, 0, cookie.length);
        }
        stats.handshakePacketsSent++;
        return emit(out, p, codec, paths[0], 0, null, 0, nowNanos);
    }

    private boolean writeAccept(Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        header(p, PacketType.ACCEPT, 0);
        p.sourceConnectionId = localId;
        p.maxDatagramBytes = config.maxDatagramBytes();
        p.sequenceWindow = config.sequenceWindow();
        p.pathCount = pathCount;
        stats.handshakePacketsSent++;
        return emit(out, p, codec, paths[0], 0, null, 0, lastSendNanos);
    }

    private boolean writeClose(Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec, int code, boolean reply,
            long nowNanos) {
        Path path = firstPath();
        if (path == null) {
            return false;
        }
        header(p, PacketType.CLOSE, path.id);
        p.closeCode = code;
        p.closeReply = reply;
        return emit(out, p, codec, path, 0, null, 0, nowNanos);
    }

    private Path firstPath() {
        for (int i = 0; i < pathCount; i++) {
            if (paths[i] != null) {
                return paths[i];
            }
        }
        return null;
    }

    private boolean writeNak(Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        int i = nakHead;
        nakHead = (nakHead + 1) % NAK_QUEUE;
        nakCount--;
        Path path = paths[nakPath[i]];
        if (path == null) {
            return false;
        }
        header(p, PacketType.NAK, path.id);
        p.nakCode = nakCode[i];
        p.streamId = nakStream[i];
        p.refusedPathSequence = nakPsn[i];
        p.refusedConnectionSequence = nakCsn[i];
        p.messageSequence = nakMsn[i];
        p.retryAfterNanos = nakCode[i] == NakCode.RECEIVER_NOT_READY ? config.rnrRetryDelayNanos() : 0;
        return emit(out, p, codec, path, 0, null, 0, lastSendNanos);
    }

    private boolean writeAck(long nowNanos, Path path, Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        header(p, PacketType.ACK, path.id);
        path.receiveTracker.writeAck(p, nowNanos);
        p.cumulativeSequence = receiveWindow.base();
        p.rateHintBytesPerSecond = 0;
        stats.acksSent++;
        return emit(out, p, codec, path, 0, null, 0, nowNanos);
    }

    private boolean writeProbeAck(Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        int i = probeAckHead;
        probeAckHead = (probeAckHead + 1) % PROBE_QUEUE;
        probeAckCount--;
        Path path = paths[probeAckPath[i]];
        header(p, PacketType.PROBE_ACK, path.id);
        p.probeId = probeAckId[i];
        p.timestampNanos = probeAckTimestamp[i];
        return emit(out, p, codec, path, 0, null, 0, lastSendNanos);
    }

    private boolean writeProbe(long nowNanos, Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        Path path = firstPath();
        if (path == null) {
            return false;
        }
        header(p, PacketType.PATH_PROBE, path.id);
        p.probeId = ++probeSequence;
        p.timestampNanos = nowNanos;
        stats.probesSent++;
        return emit(out, p, codec, path, 0, null, 0, nowNanos);
    }

    private boolean writeData(long nowNanos, Transmit out, Packet p, io.metaroce.core.wire.PacketCodec codec) {
        // Retransmissions first, each on the path that lost it (R-SACK-2).
        for (int i = 0; i < pathCount; i++) {
            Path path = paths[i];
            if (path == null) {
                continue;
            }
            while (!path.retransmitQueue.isEmpty()) {
                long csn = path.retransmitQueue.peekLong();
                if (packets.state(csn) != PacketTable.OUTSTANDING) {
                    path.retransmitQueue.pollLong();
                    continue;
                }
                if (!ownerLive(csn)) {
                    path.retransmitQueue.pollLong();
                    packets.finish(csn, PacketTable.ABANDONED);
                    continue;
                }
                if (!canSendOn(path, nowNanos)) {
                    break;
                }
                path.retransmitQueue.pollLong();
                packets.queued(csn, false);
                path.retransmissions++;
                stats.retransmissions++;
                return writeReliable(nowNanos, path, csn, true, out, p, codec);
            }
        }
        if (!packets.canIssue(peerWindow)) {
            stats.sequenceWindowStalls++;
            return false;
        }
        Path path = pickPathForNewData(nowNanos);
        if (path == null) {
            return false;
        }
        int w = nextWorkToSend(nowNanos);
        if (w == StreamTable.NONE) {
            return false;
        }
        long offset = work.kind[w] == WorkRequests.READ ? 0 : work.sendOffset[w];
        int length = work.kind[w] == WorkRequests.READ ? 0
                : (int) Math.min(payloadBytesPerPacket(), work.length[w] - offset);
        long csn = packets.issue(w, work.generation[w], offset, length);
        work.sendOffset[w] = offset + length;
        work.undelivered[w]++;
        if (work.kind[w] == WorkRequests.READ || work.sendOffset[w] >= work.length[w]) {
            work.allSent[w] = true;
            advanceCursor(w);
        }
        return writeReliable(nowNanos, path, csn, false, out, p, codec);
    }

    private boolean canSendOn(Path path, long nowNanos) {
        return path.scoreboard.hasRoom()
                && congestion.sendAllowanceBytes(path.id, nowNanos) > 0
                && congestion.nextSendTimeNanos(path.id, nowNanos) <= nowNanos;
    }

    private Path pickPathForNewData(long nowNanos) {
        for (int i = 0; i < pathCount; i++) {
            int id = (nextPathForData + i) % pathCount;
            Path path = paths[id];
            if (path != null && canSendOn(path, nowNanos)) {
                nextPathForData = (id + 1) % pathCount;
                return path;
            }
        }
        return null;
    }

    /** The work request whose next packet goes out now, taking streams (and READ responses) in turn. */
    private int nextWorkToSend(long nowNanos) {
        // A response abandoned mid-way (its region closed) may still sit in the queue: skip it.
        while (!responses.isEmpty() && (work.kind[responses.peekInt()] != WorkRequests.READ_RESPONSE
                || work.allSent[responses.peekInt()])) {
            responses.pollInt();
        }
        responsesTurn = !responsesTurn;
        if (responsesTurn && !responses.isEmpty()) {
            return responses.peekInt();
        }
        int n = readyStreams.size();
        for (int i = 0; i < n; i++) {
            int s = readyStreams.pollInt();
            int w = streams.sendCursor(s);
            if (w != StreamTable.NONE && work.allSent[w]) {
                advanceCursor(w);
                w = streams.sendCursor(s);
            }
            if (w == StreamTable.NONE) {
                streams.scheduled(s, false);
                continue;
            }
            if (streams.pausedUntilNanos(s) > nowNanos) {
                pausedStreams.addInt(s);
                continue;
            }
            readyStreams.addInt(s);
            return w;
        }
        return responses.isEmpty() ? StreamTable.NONE : responses.peekInt();
    }

    private void advanceCursor(int w) {
        if (work.kind[w] == WorkRequests.READ_RESPONSE) {
            if (!responses.isEmpty() && responses.peekInt() == w) {
                responses.pollInt();
            }
            return;
        }
        int s = work.stream[w];
        if (streams.sendCursor(s) == w) {
            int next = work.next[w];
            while (next != StreamTable.NONE && work.allSent[next]) {
                next = work.next[next];
            }
            streams.sendCursor(s, next);
        }
    }

    private boolean writeReliable(long nowNanos, Path path, long csn, boolean retransmission, Transmit out, Packet p,
            io.metaroce.core.wire.PacketCodec codec) {
        int w = packets.owner(csn);
        byte kind = work.kind[w];
        long offset = packets.messageOffset(csn);
        int length = packets.payloadLength(csn);
        MemoryRegion source = work.region[w];
        if (kind != WorkRequests.READ && !source.isUsable()) {
            // A region was deregistered (or its memory freed) while work still used it. The peer
            // cannot be told which message will never come, so, like a verbs queue pair going to
            // the error state, the connection is aborted: the work request completes with
            // LOCAL_PROTECTION_ERROR, everything else with CONNECTION_CLOSED.
            stats.localProtectionErrors++;
            if (kind != WorkRequests.READ_RESPONSE) {
                abandon(w, CompletionStatus.LOCAL_PROTECTION_ERROR);
            }
            abort();
            return false;
        }
        header(p, kind == WorkRequests.READ ? PacketType.READ_REQUEST : PacketType.DATA, path.id);
        p.connectionSequence = csn;
        p.sequenceFloor = packets.floor();
        p.timestampNanos = nowNanos;
        p.streamId = work.stream[w];
        p.messageSequence = work.messageSequence[w];
        p.messageLength = work.length[w];
        if (retransmission) {
            p.flags |= WireConstants.FLAG_RETRANSMISSION | WireConstants.FLAG_ACK_NOW;
        }
        ByteBuffer payload = null;
        int payloadIndex = 0;
        if (kind == WorkRequests.READ) {
            p.remoteKey = work.remoteKey[w];
            p.remoteOffset = work.remoteOffset[w];
        } else {
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
            p.payloadMessageOffset = offset;
            p.payloadLength = length;
            if (offset + length >= work.length[w]) {
                p.flags |= WireConstants.FLAG_ACK_NOW;
            }
            payload = source.buffer();
            payloadIndex = (int) (work.localOffset[w] + offset);
        }
        long psn = path.scoreboard.nextPathSequence();
        p.pathSequence = psn;
        emit(out, p, codec, path, 2, payload, payloadIndex, nowNanos);
        path.scoreboard.onSent(csn, out.length, nowNanos);
        congestion.onPacketSent(path.id, out.length, nowNanos);
        path.packetsSent++;
        path.bytesSent += out.length;
        stats.dataPacketsSent++;
        return true;
    }
}
