package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;

/**
 * Answers this side owes the peer, one per packet that asked for it: a NAK for each refused
 * reliable packet, a PROBE_ACK for each PATH_PROBE. Both are bounded rings of primitive columns;
 * when a ring is full the answer is dropped (and counted, for NAKs), as the peer recovers from a
 * lost answer anyway.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class ControlQueue {
    private static final int NAK_QUEUE = 16;
    private static final int PROBE_QUEUE = 4;

    private final ConnectionStats stats;
    private final Paths paths;
    private final PacketEmitter emitter;
    private final long rnrRetryDelayNanos;

    /*
     * The NAK ring's columns, made at the first NAK and dropped at the connection's idle point when
     * empty (shrinkIdle): most connections never refuse a packet, and the ring is 672 bytes of an
     * idle connection's footprint [SPEC-CONN-18].
     */
    private int[] nakCode;
    private int[] nakPath;
    private int[] nakStream;
    private long[] nakPsn;
    private long[] nakCsn;
    private long[] nakMsn;
    private int nakHead;
    private int nakCount;

    /**
     * Each queued answer's path id (a u16, the low 16 bits) and, above them, the copies of it
     * still to send [SPEC-SACK-14]: one column, as an idle connection's footprint counts.
     */
    private final int[] probeAckPathAndCopies = new int[PROBE_QUEUE];
    private final long[] probeAckId = new long[PROBE_QUEUE];
    private final long[] probeAckTimestamp = new long[PROBE_QUEUE];
    private int probeAckHead;
    private int probeAckCount;

    ControlQueue(EngineConfig config, ConnectionStats stats, Paths paths, PacketEmitter emitter) {
        this.stats = stats;
        this.paths = paths;
        this.emitter = emitter;
        this.rnrRetryDelayNanos = config.rnrRetryDelayNanos();
    }

    /** Queues a NAK with {@code code} for the refused packet {@code p}. */
    void queueNak(int code, Packet p) {
        stats.naksSent++;
        if (nakCount == NAK_QUEUE) {
            stats.naksDropped++;
            return;
        }
        if (nakCode == null) {
            allocateNakRing();
        }
        int i = (nakHead + nakCount++) % NAK_QUEUE;
        nakCode[i] = code;
        nakPath[i] = p.pathId;
        nakStream[i] = p.streamId;
        nakPsn[i] = p.pathSequence;
        nakCsn[i] = p.connectionSequence;
        nakMsn[i] = p.messageSequence;
    }

    private void allocateNakRing() {
        nakCode = new int[NAK_QUEUE];
        nakPath = new int[NAK_QUEUE];
        nakStream = new int[NAK_QUEUE];
        nakPsn = new long[NAK_QUEUE];
        nakCsn = new long[NAK_QUEUE];
        nakMsn = new long[NAK_QUEUE];
    }

    /**
     * Whether {@link #shrinkIdle} would drop the NAK ring now: it is allocated (a packet was
     * refused since the last idle point) and no NAK is queued [SPEC-CONN-18].
     */
    boolean nakRingShrinkable() {
        return nakCode != null && nakCount == 0;
    }

    /** At the connection's idle point: drops the NAK ring's columns when no NAK is queued. */
    void shrinkIdle() {
        if (nakCount == 0 && nakCode != null) {
            nakCode = null;
            nakPath = null;
            nakStream = null;
            nakPsn = null;
            nakCsn = null;
            nakMsn = null;
        }
    }

    /**
     * Queues the answer to a PATH_PROBE that came in on the open path {@code pathId}, to be sent
     * {@code copies} times in a row [SPEC-SACK-14].
     */
    void queueProbeAck(int pathId, long probeId, long timestampNanos, int copies) {
        if (probeAckCount == PROBE_QUEUE) {
            return;
        }
        int i = (probeAckHead + probeAckCount++) % PROBE_QUEUE;
        probeAckPathAndCopies[i] = pathId | copies << 16;
        probeAckId[i] = probeId;
        probeAckTimestamp[i] = timestampNanos;
    }

    boolean hasNak() {
        return nakCount > 0;
    }

    boolean hasProbeAck() {
        return probeAckCount > 0;
    }

    /** Writes the oldest queued NAK; false (and the NAK is dropped) if its path is gone. */
    boolean writeNak(Transmit out, Packet p, PacketCodec codec) {
        int i = nakHead;
        nakHead = (nakHead + 1) % NAK_QUEUE;
        nakCount--;
        Path path = paths.get(nakPath[i]);
        if (path == null) {
            return false;
        }
        emitter.header(p, PacketType.NAK, path.id);
        p.nakCode = nakCode[i];
        p.streamId = nakStream[i];
        p.refusedPathSequence = nakPsn[i];
        p.refusedConnectionSequence = nakCsn[i];
        p.messageSequence = nakMsn[i];
        p.retryAfterNanos = nakCode[i] == NakCode.RECEIVER_NOT_READY ? rnrRetryDelayNanos : 0;
        return emitter.emit(out, p, codec, path, 0, null, 0, emitter.lastSendNanos());
    }

    /**
     * Writes one copy of the oldest queued PROBE_ACK whose path is still open (it stays queued
     * until its last copy); entries whose path is gone (dropped by the peer's grant) are dropped
     * whole, copies and all, on the way. False if none is left to write.
     */
    boolean writeProbeAck(Transmit out, Packet p, PacketCodec codec) {
        while (probeAckCount > 0) {
            int i = probeAckHead;
            Path path = paths.get(probeAckPathAndCopies[i] & 0xFFFF);
            if (path == null) {
                probeAckHead = (probeAckHead + 1) % PROBE_QUEUE;
                probeAckCount--;
                continue;
            }
            probeAckPathAndCopies[i] -= 1 << 16;
            if (probeAckPathAndCopies[i] >>> 16 == 0) {
                probeAckHead = (probeAckHead + 1) % PROBE_QUEUE;
                probeAckCount--;
            }
            emitter.header(p, PacketType.PROBE_ACK, path.id);
            p.probeId = probeAckId[i];
            p.timestampNanos = probeAckTimestamp[i];
            return emitter.emit(out, p, codec, path, 0, null, 0, emitter.lastSendNanos());
        }
        return false;
    }
}
