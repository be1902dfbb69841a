package io.metaroce.core.conn;

import io.metaroce.core.api.Transmit;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import java.nio.ByteBuffer;

/**
 * The last step of every packet a connection sends: the common header, the encoding into the
 * driver's {@link Transmit}, and the counting. Remembers when the connection last sent, for
 * keep-alives.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class PacketEmitter {
    private final ConnectionStats stats;
    /** The peer's connection id, which every packet after the CONNECT carries. */
    private long destinationId;
    private long lastSendNanos;

    PacketEmitter(ConnectionStats stats, long nowNanos) {
        this.stats = stats;
        this.lastSendNanos = nowNanos;
    }

    void destinationId(long peerId) {
        this.destinationId = peerId;
    }

    long lastSendNanos() {
        return lastSendNanos;
    }

    void header(Packet p, int type, int pathId) {
        // Every writer sets all the fields its type encodes, so the arrays need no reset here.
        p.clearScalars();
        p.type = type;
        p.pathId = pathId;
        p.destinationConnectionId = destinationId;
    }

    /**
     * {@link #header} for a DATA or READ_REQUEST packet whose writer ({@code DataWriter}) sets
     * every other field the encoder reads for that type: only the fields that writer may leave
     * unset are reset (a few stores rather than the whole packet's forty, on every DATA packet).
     * Fields the encoder does not read for the type may keep an earlier packet's values: every
     * other writer starts with {@link #header}, which clears them.
     */
    void reliableHeader(Packet p, int type, int pathId) {
        p.type = type;
        p.pathId = pathId;
        p.destinationConnectionId = destinationId;
        p.flags = 0;
        p.opcode = 0;
        p.dataFlags = 0;
        p.immediate = 0;
        p.receiveSequence = 0;
        p.payloadMessageOffset = 0;
        p.payloadLength = 0;
    }

    long destinationId() {
        return destinationId;
    }

    /**
     * The rest of {@link #emit} for a packet the caller encoded into {@code out} itself (a DATA packet,
     * through the codec's header template or in full): addressing and counting.
     */
    void sent(Transmit out, Path path, int ecn, long nowNanos) {
        out.localSocket = path.localSocket;
        out.remoteAddress = path.remoteAddress;
        out.pathId = path.id;
        out.ecn = ecn;
        lastSendNanos = nowNanos;
        stats.packetsSent++;
        stats.bytesSent += out.length;
    }

    /** Encodes {@code p} into {@code out}, addressed to {@code path}; always returns true. */
    boolean emit(Transmit out, Packet p, PacketCodec codec, Path path, int ecn, ByteBuffer payload, int payloadIndex,
            long nowNanos) {
        out.length = codec.encode(p, out.buffer, 0, payload, payloadIndex);
        sent(out, path, ecn, nowNanos);
        return true;
    }
}
