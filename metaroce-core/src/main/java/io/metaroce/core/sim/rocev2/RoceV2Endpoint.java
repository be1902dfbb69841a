package io.metaroce.core.sim.rocev2;

import io.metaroce.core.api.Transmit;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The RoCEv2-like baseline transport as a sans-IO state machine with the same driver contract as
 * the MetaRoCE engine's {@link io.metaroce.core.conn.Endpoint}: the driver hands in datagrams
 * ({@link #handleDatagram}) and time ({@link #handleTimeout}), then polls datagrams out
 * ({@link #pollTransmit} until false) and asks when to call next ({@link #pollTimeoutNanos}).
 * Time is a {@code long} of nanoseconds the driver passes in.
 *
 * <p>What it models: reliable-connected queue pairs set up out of band (each side is told both
 * QPNs; no handshake), SEND messages segmented into MTU packets that carry their real length on
 * the wire, one UDP source port per queue pair (so ECMP pins the queue pair to one path),
 * go-back-N loss recovery (one NAK per gap, coalesced ACKs, a retransmission timeout with
 * exponential back-off and a retry limit), DCQCN rate control per queue pair with CNPs, no PFC,
 * and a NIC port that never sends faster than the line rate. Control packets (CNP, NAK, ACK) go
 * before data; data goes round robin across the queue pairs whose pacing allows it. See
 * {@code docs/baseline-rocev2.md}.
 *
 * <p>In steady state nothing is allocated per packet: queue pairs are found by QPN in a primitive
 * map, every structure is preallocated when the queue pair is opened, and address objects are
 * only stored and handed back.
 *
 * <p>Not thread-safe: one thread drives an endpoint and reads its counters.
 */
public final class RoceV2Endpoint {
    /** ECN codepoint of CE (congestion experienced). */
    public static final int ECN_CE = 3;
    /** ECN codepoint data packets are sent with: ECT(0). */
    public static final int ECN_ECT0 = 2;

    private final RoceV2Config config;
    private final RoceV2Listener listener;
    private final RoceV2Codec codec = new RoceV2Codec();
    private final RoceV2Packet rx = new RoceV2Packet();
    private final RoceV2EndpointStats stats = new RoceV2EndpointStats();
    private final Int2ObjectHashMap<QueuePair> byQpn = new Int2ObjectHashMap<>();
    private QueuePair[] queuePairs = new QueuePair[8];
    private int queuePairCount;
    private int dataCursor;

    /** Queue pairs owing control packets, first come first served. */
    private QueuePair[] controlRing = new QueuePair[8];
    private int controlHead;
    private int controlCount;
    /** When the port may start the next datagram (picoseconds): the line rate's pacing. */
    private long portNextPicos;

    /** An endpoint on {@code config} that tells nobody about completions. */
    public RoceV2Endpoint(RoceV2Config config) {
        this(config, RoceV2Listener.NONE);
    }

    /** An endpoint on {@code config} that reports completions and failures to {@code listener}. */
    public RoceV2Endpoint(RoceV2Config config, RoceV2Listener listener) {
        this.config = Objects.requireNonNull(config, "config");
        this.listener = Objects.requireNonNull(listener, "listener (use RoceV2Listener.NONE for none)");
    }

    /** The configuration. */
    public RoceV2Config config() {
        return config;
    }

    /** Counters that belong to no queue pair. */
    public RoceV2EndpointStats stats() {
        return stats;
    }

    /** Queue pairs opened on this endpoint. */
    public int queuePairCount() {
        return queuePairCount;
    }

    // ---- commands ----

    /**
     * Opens a queue pair with both PSNs starting at 0. Equivalent to
     * {@link #openQueuePair(Object, int, int, int, int, int) openQueuePair(remoteAddress,
     * localSocket, localQpn, remoteQpn, 0, 0)}.
     */
    public int openQueuePair(Object remoteAddress, int localSocket, int localQpn, int remoteQpn) {
        return openQueuePair(remoteAddress, localSocket, localQpn, remoteQpn, 0, 0);
    }

    /**
     * Opens a reliable-connected queue pair, ready to send and receive at once, as after the
     * out-of-band exchange and the RTR/RTS transitions of real RC queue pairs. The peer opens its
     * side with the numbers swapped: its {@code localQpn} is this side's {@code remoteQpn}, and its
     * {@code initialReceivePsn} this side's {@code initialSendPsn}.
     *
     * @param remoteAddress the driver's address of the peer, handed back in every {@link Transmit}
     * @param localSocket the driver's id of the local socket (the UDP source port: one ECMP path)
     * @param localQpn this queue pair's number, 1 to 2^24 - 1, unique on this endpoint
     * @param remoteQpn the peer queue pair's number, 1 to 2^24 - 1
     * @param initialSendPsn PSN of the first packet this side sends, 0 to 2^24 - 1
     * @param initialReceivePsn PSN of the first packet this side expects, 0 to 2^24 - 1
     * @return {@code localQpn}, the handle for {@link #postSend} and the getters
     */
    public int openQueuePair(Object remoteAddress, int localSocket, int localQpn, int remoteQpn,
            int initialSendPsn, int initialReceivePsn) {
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        check24("localQpn", localQpn, 1);
        check24("remoteQpn", remoteQpn, 1);
        check24("initialSendPsn", initialSendPsn, 0);
        check24("initialReceivePsn", initialReceivePsn, 0);
        if (byQpn.containsKey(localQpn)) {
            throw new IllegalArgumentException("queue pair " + localQpn
                    + " is already open on this endpoint; choose another localQpn");
        }
        if (queuePairCount >= config.maxQueuePairs()) {
            throw new IllegalStateException("this endpoint holds " + queuePairCount
                    + " queue pairs, the limit (RoceV2Config.maxQueuePairs)");
        }
        QueuePair qp = new QueuePair(config, localQpn, remoteQpn, localSocket, remoteAddress, initialSendPsn,
                initialReceivePsn);
        byQpn.put(localQpn, qp);
        if (queuePairCount == queuePairs.length) {
            queuePairs = Arrays.copyOf(queuePairs, queuePairCount * 2);
        }
        queuePairs[queuePairCount++] = qp;
        if (controlRing.length < queuePairCount) {
            // Each queue pair is in the ring at most once, so the ring never needs more room.
            QueuePair[] ring = new QueuePair[queuePairs.length];
            for (int i = 0; i < controlCount; i++) {
                ring[i] = controlRing[(controlHead + i) % controlRing.length];
            }
            controlRing = ring;
            controlHead = 0;
        }
        return localQpn;
    }

    /**
     * Posts a SEND of {@code bytes} on queue pair {@code qpn}: it goes as {@code ceil(bytes /
     * payloadBytesPerPacket)} packets after the messages posted before it.
     *
     * @return false, changing nothing, if {@code sendQueueDepth} messages are already outstanding
     *     on the queue pair (post again after one completes)
     * @throws IllegalArgumentException if {@code bytes <= 0} or no queue pair has that number
     * @throws IllegalStateException if the queue pair is in the error state
     */
    public boolean postSend(int qpn, int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("postSend needs a message of at least 1 byte, got " + bytes);
        }
        QueuePair qp = queuePair(qpn);
        if (qp.failed()) {
            throw new IllegalStateException("queue pair " + qpn + " is in the error state (more than "
                    + config.retryCount() + " retransmission timeouts in a row); open a new one");
        }
        if (!qp.requester.post(bytes)) {
            return false;
        }
        qp.stats.bytesPosted += bytes;
        qp.stats.messagesPosted++;
        return true;
    }

    // ---- getters per queue pair ----

    /** The live counters of queue pair {@code qpn}. */
    public QueuePairStats queuePairStats(int qpn) {
        return queuePair(qpn).stats;
    }

    /** The rate queue pair {@code qpn} is paced at now (DCQCN's {@code Rc}; the line rate when DCQCN is off). */
    public long currentRateBitsPerSecond(int qpn) {
        return queuePair(qpn).requester.currentRate();
    }

    /** DCQCN's target rate {@code Rt} of queue pair {@code qpn}. */
    public long targetRateBitsPerSecond(int qpn) {
        return queuePair(qpn).rate.targetRateBitsPerSecond();
    }

    /** DCQCN's {@code alpha} of queue pair {@code qpn} as it stands at {@code nowNanos}. */
    public double alpha(int qpn, long nowNanos) {
        return queuePair(qpn).rate.alpha(nowNanos);
    }

    /** Packets of queue pair {@code qpn} sent and not yet acknowledged (up to the highest ever sent). */
    public long outstandingPackets(int qpn) {
        return queuePair(qpn).requester.outstandingPackets();
    }

    /** Messages posted on queue pair {@code qpn} and not yet completed. */
    public int queuedMessages(int qpn) {
        return queuePair(qpn).requester.queuedMessages();
    }

    /** The PSN queue pair {@code qpn}'s responder expects next. */
    public int expectedPsn(int qpn) {
        return queuePair(qpn).responder.expectedPsn();
    }

    /** Whether queue pair {@code qpn} is in the error state. */
    public boolean isFailed(int qpn) {
        return queuePair(qpn).failed();
    }

    // ---- inputs ----

    /**
     * Handles one received datagram. The endpoint only borrows {@code datagram} (absolute reads;
     * position and limit untouched). Malformed datagrams are dropped and counted in
     * {@link #stats()}; nothing is thrown.
     *
     * @param localSocket the local socket it arrived on (unused: queue pairs are found by QPN)
     * @param remoteAddress where it came from (unused: replies go to the queue pair's peer)
     * @param ecn the datagram's ECN codepoint (0 Not-ECT, 2 ECT(0), 3 CE)
     */
    public void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
            Object remoteAddress, int ecn) {
        stats.datagramsReceived++;
        int error = codec.decode(datagram, offset, length, config.mtuBytes(), rx);
        if (error != RoceV2DecodeError.OK) {
            stats.malformed[error]++;
            return;
        }
        QueuePair qp = byQpn.get(rx.destQpn);
        if (qp == null) {
            stats.unknownQueuePair++;
            return;
        }
        if (qp.failed()) {
            stats.droppedInErrorState++;
            return;
        }
        switch (rx.opcode) {
            case RoceV2Opcode.ACKNOWLEDGE -> qp.requester.onAcknowledge(nowNanos, rx.psn, rx.nak, qp.qpn, listener);
            case RoceV2Opcode.CNP -> {
                qp.stats.cnpsReceived++;
                if (config.dcqcnEnabled()) {
                    qp.rate.onCnp(nowNanos);
                }
            }
            default -> qp.responder.onSend(nowNanos, rx, ecn, qp.qpn, listener);
        }
        enqueueControl(qp);
    }

    /** Runs every timer due at {@code nowNanos}; a call with nothing due does nothing. */
    public void handleTimeout(long nowNanos) {
        boolean dcqcn = config.dcqcnEnabled();
        for (int i = 0; i < queuePairCount; i++) {
            QueuePair qp = queuePairs[i];
            if (qp.failed() || qp.nextTimerNanos(dcqcn) > nowNanos) {
                continue;
            }
            if (qp.requester.onTimeout(nowNanos)) {
                listener.onQueuePairFailed(qp.qpn, nowNanos);
                continue;
            }
            if (dcqcn) {
                qp.rate.onTimeout(nowNanos);
            }
            qp.responder.onTimeout(nowNanos);
            enqueueControl(qp);
        }
    }

    // ---- outputs ----

    /**
     * Writes the next datagram to send into {@code out} (from index 0 of its buffer, which must
     * hold {@code mtuBytes}) and says where it goes; false if nothing may go at {@code nowNanos}
     * (nothing owed, or the port or every queue pair's pacing says later: see
     * {@link #pollTimeoutNanos}). Call until it returns false after every input.
     */
    public boolean pollTransmit(long nowNanos, Transmit out) {
        if (out.buffer.capacity() < config.mtuBytes()) {
            throw new IllegalArgumentException("the Transmit buffer holds " + out.buffer.capacity()
                    + " bytes; it must hold mtuBytes (" + config.mtuBytes() + ")");
        }
        long nowPicos = nowNanos * 1000;
        if (nowPicos < portNextPicos) {
            return false;
        }
        while (controlCount > 0) {
            QueuePair qp = controlRing[controlHead];
            if (!qp.hasControl()) {
                dequeueControl();
                continue;
            }
            int length = qp.responder.writeControl(out.buffer, codec, qp.remoteQpn);
            if (!qp.hasControl()) {
                dequeueControl();
            }
            emit(nowNanos, out, qp, length, 0);
            return true;
        }
        int n = queuePairCount;
        for (int k = 0; k < n; k++) {
            int i = dataCursor + k < n ? dataCursor + k : dataCursor + k - n;
            QueuePair qp = queuePairs[i];
            if (qp.requester.readyAt(nowPicos)) {
                int length = qp.requester.writeNext(nowNanos, out.buffer, codec, qp.remoteQpn);
                // The next call starts after this queue pair, so a busy one cannot starve the rest.
                dataCursor = i + 1 == n ? 0 : i + 1;
                emit(nowNanos, out, qp, length, ECN_ECT0);
                return true;
            }
        }
        return false;
    }

    /**
     * The earliest time the endpoint has work: a timer, or the moment pacing (the port's or a
     * queue pair's) lets the next owed datagram go; {@link Long#MAX_VALUE} if none.
     */
    public long pollTimeoutNanos() {
        boolean dcqcn = config.dcqcnEnabled();
        long t = Long.MAX_VALUE;
        long data = Long.MAX_VALUE;
        for (int i = 0; i < queuePairCount; i++) {
            QueuePair qp = queuePairs[i];
            t = Math.min(t, qp.nextTimerNanos(dcqcn));
            if (qp.requester.hasSendable()) {
                data = Math.min(data, qp.requester.nextSendNanos());
            }
        }
        long port = Math.ceilDiv(portNextPicos, 1000L);
        if (controlCount > 0) {
            t = Math.min(t, port);
        }
        if (data != Long.MAX_VALUE) {
            t = Math.min(t, Math.max(data, port));
        }
        return t;
    }

    // ---- internals ----

    private void emit(long nowNanos, Transmit out, QueuePair qp, int length, int ecn) {
        out.length = length;
        out.localSocket = qp.localSocket;
        out.remoteAddress = qp.remoteAddress;
        out.ecn = ecn;
        out.pathId = 0;
        stats.datagramsSent++;
        stats.bytesSent += length;
        portNextPicos = Requester.Pacing.next(portNextPicos, nowNanos, length, config.lineRateBitsPerSecond());
    }

    private void enqueueControl(QueuePair qp) {
        if (!qp.inControlRing && qp.hasControl()) {
            qp.inControlRing = true;
            controlRing[(controlHead + controlCount) % controlRing.length] = qp;
            controlCount++;
        }
    }

    private void dequeueControl() {
        controlRing[controlHead].inControlRing = false;
        controlRing[controlHead] = null;
        controlHead = (controlHead + 1) % controlRing.length;
        controlCount--;
    }

    private QueuePair queuePair(int qpn) {
        QueuePair qp = byQpn.get(qpn);
        if (qp == null) {
            throw new IllegalArgumentException("no queue pair " + qpn + " on this endpoint; open it with openQueuePair first");
        }
        return qp;
    }

    private static void check24(String name, int value, int min) {
        if (value < min || value > RoceV2Codec.MASK_24) {
            throw new IllegalArgumentException(name + " is " + value + " but must be in [" + min + ", "
                    + RoceV2Codec.MASK_24 + "] (24 bits)");
        }
    }
}
