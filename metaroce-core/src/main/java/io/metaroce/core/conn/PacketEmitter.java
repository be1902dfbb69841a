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

    /** Encodes {@code p} into {@code out}, addressed to {@code path}; always returns true. */
    boolean emit(Transmit out, Packet p, PacketCodec codec, Path path, int ecn, ByteBuffer payload, int payloadIndex,
            long nowNanos) {
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
}
