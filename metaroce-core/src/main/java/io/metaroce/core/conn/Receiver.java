package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.AccessCheck;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.memory.ProtectionDomain;
import io.metaroce.core.sack.PathReceiveTracker;
import io.metaroce.core.sack.SequenceReceiveWindow;
import io.metaroce.core.stream.InboundMessages;
import io.metaroce.core.stream.PostedReceives;
import io.metaroce.core.stream.Segmentation;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;

/**
 * The receive side of a connection: admission of reliable packets (each CSN once, within the
 * window, with a plausible floor and PSN), placement of their payload into posted receives or
 * registered regions, refusals (answered by a NAK, not acknowledged), and receive-side
 * completions in message order per stream. READ requests are admitted here and served by the
 * {@link Sender}; READ responses are placed by the {@link Sender}, whose READs they answer.
 *
 * <p>The endpoint and the protection domain are passed to each method that needs them rather
 * than held, so that a connection's own state reaches no object it shares with the endpoint
 * (which is how {@code StateFootprintTest} measures it).
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class Receiver {
    private final long localId;
    private final ConnectionStats stats;
    private final StreamTable streams;
    private final Sender sender;
    private final ControlQueue control;
    private final int sequenceWindow;
    private final int ackEveryPackets;
    private final long maxAckDelayNanos;
    private final int maxWorkRequests;

    private final PostedReceives receives;
    private final InboundMessages inbound = new InboundMessages();
    private final SequenceReceiveWindow receiveWindow;
    /** Posted receives not yet completed. */
    private int outstanding;
    /** Whether a reliable packet has been admitted yet: the first one is acknowledged at once [SPEC-CC-26]. */
    private boolean admittedAny;

    Receiver(EngineConfig config, long localId, ConnectionStats stats, StreamTable streams, Sender sender,
            ControlQueue control) {
        this.localId = localId;
        this.stats = stats;
        this.streams = streams;
        this.sender = sender;
        this.control = control;
        this.sequenceWindow = config.sequenceWindow();
        this.ackEveryPackets = config.ackEveryPackets();
        this.maxAckDelayNanos = config.maxAckDelayNanos();
        this.maxWorkRequests = config.maxWorkRequests();
        this.receives = new PostedReceives(config.maxPostedReceives());
        this.receiveWindow = new SequenceReceiveWindow(config.sequenceWindow());
    }

    int outstanding() {
        return outstanding;
    }

    /**
     * The idle point of the connection (see {@code Sender#shrinkIdleTables}): the inbound message
     * table and the posted receives go back to their initial size when empty [SPEC-CONN-18].
     * Receives only when no inbound message is held (one may name its receive). Allocates when it
     * shrinks; never on the datapath.
     */
    void shrinkIdleTables() {
        if (inbound.size() == 0) {
            inbound.shrinkIfIdle();
            receives.shrinkIfIdle();
        }
    }

    /**
     * Whether {@link #shrinkIdleTables} would shrink something now: no inbound message is held, and
     * the inbound message table is above its initial size or the posted receives are, with none
     * posted. A table that is grown but in use (receives kept posted) does not arm the idle check,
     * which would otherwise wake for nothing once per interval for as long as they stay posted
     * [SPEC-CONN-18]. A few field reads.
     */
    boolean idleShrinkable() {
        return inbound.size() == 0 && (inbound.grown() || (receives.grown() && receives.used() == 0));
    }

    /** The CSN below which every reliable packet has been admitted, for ACKs. */
    long cumulativeSequence() {
        return receiveWindow.base();
    }

    /** Queues a validated receive buffer on {@code streamId}; {@link PostResult} OK or QUEUE_FULL. */
    int postRecv(int streamId, long workRequestId, MemoryRegion region, long offset, long length) {
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
        outstanding++;
        return PostResult.OK;
    }

    /** Admits (or refuses) a DATA or READ_REQUEST packet that came in on {@code path}. */
    void onReliable(long nowNanos, Packet p, ByteBuffer datagram, Path path, int ecn, ProtectionDomain domain,
            Endpoint endpoint) {
        // No bound on how far a PSN may run ahead of the highest recorded one: refused packets and
        // lost transmissions are never recorded, so a sender's PSNs legitimately run ahead by any
        // amount after a long refusal or an outage [SPEC-ADM-10]. The tracker's arithmetic is
        // overflow-safe up to 2^63 - 1 instead.
        path.packetsReceived++;
        path.bytesReceived += p.payloadLength;
        path.receiveTracker.countEcn(ecn);
        if (p.sequenceFloor > p.connectionSequence || p.sequenceFloor - receiveWindow.base() > sequenceWindow) {
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
            path.receiveTracker.noteAckEliciting(true, ackEveryPackets, maxAckDelayNanos, nowNanos);
            return;
        }
        int refusal = p.type == PacketType.READ_REQUEST ? acceptReadRequest(p, domain, endpoint)
                : acceptData(p, datagram, domain, endpoint);
        if (refusal != 0) {
            control.queueNak(refusal, p);
            return;
        }
        receiveWindow.admit(p.connectionSequence);
        // The sender of a first packet waits for its ACK, which brings the first rate hint, with
        // nothing else in flight [SPEC-CC-16]: acknowledging it at once saves up to the ACK delay
        // of idle time on every new sender [SPEC-CC-26].
        ackNow |= !admittedAny;
        admittedAny = true;
        int order = path.receiveTracker.record(p.pathSequence, p.timestampNanos, nowNanos);
        path.receiveTracker.noteAckEliciting(ackNow || order == PathReceiveTracker.AFTER_GAP
                || order == PathReceiveTracker.LATE, ackEveryPackets, maxAckDelayNanos, nowNanos);
    }

    /** @return 0 if accepted, else the NAK code */
    private int acceptReadRequest(Packet p, ProtectionDomain domain, Endpoint endpoint) {
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
        int check = domain.checkRemote(p.remoteKey, p.remoteOffset, p.messageLength, Access.REMOTE_READ);
        if (check != AccessCheck.OK) {
            stats.accessRefusals++;
            int m = inbound.create(s, p.messageSequence, WorkRequests.READ, p.messageLength);
            inbound.status[m] = CompletionStatus.REMOTE_ACCESS_ERROR;
            inbound.complete[m] = true;
            completeInOrder(s, endpoint);
            return NakCode.REMOTE_ACCESS_ERROR;
        }
        if (!sender.hasWorkRoom()) {
            stats.receiverNotReady++;
            return NakCode.RECEIVER_NOT_READY;
        }
        int w = sender.takeReadResponse(s, p.messageSequence, domain.lookupRemote(p.remoteKey), p.remoteOffset,
                p.messageLength);
        // The response starts when every earlier message of the stream has landed, so a READ
        // sees the bytes of the WRITEs posted before it on the same stream.
        int m = inbound.create(s, p.messageSequence, WorkRequests.READ, p.messageLength);
        inbound.responseWork[m] = w;
        inbound.complete[m] = true;
        completeInOrder(s, endpoint);
        return 0;
    }

    /** @return 0 if accepted (and placed), else the NAK code */
    private int acceptData(Packet p, ByteBuffer datagram, ProtectionDomain domain, Endpoint endpoint) {
        int s = p.streamId;
        if (!streams.isValidId(s)) {
            stats.invalidRequests++;
            return NakCode.REMOTE_INVALID_REQUEST;
        }
        streams.ensure(s);
        if (p.opcode == DataOpcode.READ_RESPONSE) {
            return sender.onReadResponse(p, datagram, endpoint);
        }
        long msn = p.messageSequence;
        int m = inbound.find(s, msn);
        if (m == StreamTable.NONE) {
            if (msn < streams.recvNextMessage(s)) {
                // A new CSN for a message already finished here: only a refused message is resent.
                stats.accessRefusals++;
                return p.opcode == DataOpcode.SEND ? NakCode.REMOTE_INVALID_REQUEST : NakCode.REMOTE_ACCESS_ERROR;
            }
            if (inbound.size() >= maxWorkRequests) {
                // The peer has more messages in progress than this side tracks: let it wait [SPEC-MSG-17].
                stats.receiverNotReady++;
                return NakCode.RECEIVER_NOT_READY;
            }
            m = openInboundMessage(p, domain, endpoint);
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
            failInbound(m, CompletionStatus.REMOTE_ACCESS_ERROR, endpoint);
            return NakCode.REMOTE_ACCESS_ERROR;
        }
        if (p.payloadLength > 0) {
            long at = inbound.targetOffset[m] + p.payloadMessageOffset;
            byte[] copy = p.payloadCopy;
            if (copy != null) {
                target.place(at, copy, WireConstants.DATA_HEADER_BYTES, p.payloadLength);
            } else {
                target.place(at, datagram, p.payloadOffset, p.payloadLength);
            }
        }
        if ((p.dataFlags & WireConstants.DATA_FLAG_HAS_IMMEDIATE) != 0) {
            inbound.immediate[m] = p.immediate;
            inbound.hasImmediate[m] = true;
        }
        // Credited bytes, not payload bytes: a message's last packet may repeat bytes [SPEC-MSG-3].
        inbound.received[m] += Segmentation.creditedBytes(inbound.length[m], p.payloadMessageOffset, p.payloadLength, sender.packetPayloadLimit());
        if (inbound.received[m] >= inbound.length[m]) {
            inbound.complete[m] = true;
            completeInOrder(s, endpoint);
        }
        return 0;
    }

    private int openInboundMessage(Packet p, ProtectionDomain domain, Endpoint endpoint) {
        int s = p.streamId;
        if (p.opcode == DataOpcode.WRITE) {
            return bindRemoteTarget(inbound.create(s, p.messageSequence, WorkRequests.WRITE, p.messageLength), p,
                    domain, endpoint);
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
                failInbound(m, CompletionStatus.LOCAL_LENGTH_ERROR, endpoint);
                return m;
            }
            inbound.region[m] = receives.region[r];
            inbound.targetOffset[m] = receives.offset[r];
            return m;
        }
        return bindRemoteTarget(m, p, domain, endpoint);
    }

    /**
     * Points message {@code m} (a WRITE or WRITE_WITH_IMM) at the region its remote key names, after
     * checking the whole message's range and the REMOTE_WRITE right; a violation fails the message.
     */
    private int bindRemoteTarget(int m, Packet p, ProtectionDomain domain, Endpoint endpoint) {
        int check = domain.checkRemote(p.remoteKey, p.remoteOffset, p.messageLength, Access.REMOTE_WRITE);
        if (check != AccessCheck.OK) {
            stats.accessRefusals++;
            failInbound(m, CompletionStatus.REMOTE_ACCESS_ERROR, endpoint);
            return m;
        }
        inbound.region[m] = domain.lookupRemote(p.remoteKey);
        inbound.targetOffset[m] = p.remoteOffset;
        return m;
    }

    private void failInbound(int m, int status, Endpoint endpoint) {
        inbound.status[m] = status;
        inbound.complete[m] = true;
        completeInOrder(inbound.stream[m], endpoint);
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

    /** Delivers the receive-side completions of stream {@code s} that are next in posting order. */
    private void completeInOrder(int s, Endpoint endpoint) {
        while (true) {
            long msn = streams.recvNextMessage(s);
            int m = inbound.find(s, msn);
            if (m == StreamTable.NONE || !inbound.complete[m]) {
                return;
            }
            if (inbound.responseWork[m] != StreamTable.NONE) {
                sender.queueResponse(inbound.responseWork[m]);
            }
            int r = inbound.receive[m];
            if (r != StreamTable.NONE) {
                // Every SEND and WRITE_WITH_IMM consumes its receive, refused or not, so the
                // receive sequence numbers of both sides stay in step.
                int opcode = inbound.opcode[m] == WorkRequests.SEND ? WorkOpcode.RECV : WorkOpcode.RECV_WRITE_WITH_IMM;
                endpoint.complete(localId, s, receives.workRequestId[r], opcode, inbound.status[m], inbound.length[m],
                        inbound.immediate[m], inbound.hasImmediate[m]);
                removeReceive(s, r, endpoint);
            }
            inbound.remove(m);
            streams.recvNextMessage(s, msn + 1);
        }
    }

    private void removeReceive(int s, int r, Endpoint endpoint) {
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
        outstanding--;
        endpoint.workFinished();
    }

    /**
     * Forgets every message in progress (the connection is ending): their receives are flushed by
     * {@link #flushStream}, and nothing arriving later may complete them a second time.
     */
    void forgetMessagesInProgress() {
        inbound.clear();
    }

    /** Completes every receive posted on stream {@code s} with {@code status} (the connection is ending). */
    void flushStream(int s, int status, Endpoint endpoint) {
        for (int r = streams.recvHead(s); r != StreamTable.NONE; ) {
            int next = receives.next[r];
            endpoint.complete(localId, s, receives.workRequestId[r], WorkOpcode.RECV, status, 0, 0, false);
            receives.free(r);
            outstanding--;
            endpoint.workFinished();
            r = next;
        }
        streams.recvHead(s, StreamTable.NONE);
        streams.recvTail(s, StreamTable.NONE);
    }
}
