package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.ShortSack;
import io.metaroce.core.wire.WireConstants;

/**
 * Encoders of the control packets a connection decides to send by its own state rather than in
 * answer to one packet: CONNECT and ACCEPT (the handshake), CLOSE, ACK and the keep-alive
 * PATH_PROBE. What to send when is the connection's business; this class only fills the packet.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class ControlWriter {
    private final ConnectionStats stats;
    private final Paths paths;
    private final PacketEmitter emitter;
    private final long localId;
    private final int maxDatagramBytes;
    private final int sequenceWindow;
    private final boolean shortAcks;
    private long probeSequence;

    ControlWriter(EngineConfig config, long localId, ConnectionStats stats, Paths paths, PacketEmitter emitter) {
        this.stats = stats;
        this.paths = paths;
        this.emitter = emitter;
        this.localId = localId;
        this.maxDatagramBytes = config.maxDatagramBytes();
        this.sequenceWindow = config.sequenceWindow();
        this.shortAcks = config.shortAcks();
    }

    /** CONNECT on path 0, with the server's cookie once it sent a CHALLENGE. */
    boolean writeConnect(long nowNanos, byte[] cookie, boolean hasCookie, Transmit out, Packet p, PacketCodec codec) {
        p.clear();
        p.type = PacketType.CONNECT;
        p.sourceConnectionId = localId;
        p.maxDatagramBytes = maxDatagramBytes;
        p.pathCount = paths.count();
        p.sequenceWindow = sequenceWindow;
        p.hasCookie = hasCookie;
        if (hasCookie) {
            System.arraycopy(cookie, 0, p.cookie, 0, cookie.length);
        }
        stats.handshakePacketsSent++;
        return emitter.emit(out, p, codec, paths.get(0), 0, null, 0, nowNanos);
    }

    /**
     * ACCEPT on path 0; {@code rateHint} is the share this side's allocator gives the client (0: no
     * limit), announced before its first packet [SPEC-CC-28], {@code sequence} the number of
     * ACCEPTs sent to it before, mod 2^16 [SPEC-CONN-17].
     */
    boolean writeAccept(long rateHint, int sequence, Transmit out, Packet p, PacketCodec codec) {
        emitter.header(p, PacketType.ACCEPT, 0);
        p.sourceConnectionId = localId;
        p.maxDatagramBytes = maxDatagramBytes;
        p.sequenceWindow = sequenceWindow;
        p.pathCount = paths.count();
        p.rateHintBytesPerSecond = rateHint;
        p.announcementSequence = sequence;
        stats.handshakePacketsSent++;
        return emitter.emit(out, p, codec, paths.get(0), 0, null, 0, emitter.lastSendNanos());
    }

    boolean writeClose(int code, boolean reply, long nowNanos, Transmit out, Packet p, PacketCodec codec) {
        Path path = paths.firstInService();
        if (path == null) {
            return false;
        }
        emitter.header(p, PacketType.CLOSE, path.id);
        p.closeCode = code;
        p.closeReply = reply;
        return emitter.emit(out, p, codec, path, 0, null, 0, nowNanos);
    }

    /**
     * The ACK of {@code path}; {@code cumulativeSequence} is the CSN below which everything was
     * admitted, {@code rateHint} the peer's fair share (0: no limit) [SPEC-CC-11].
     */
    boolean writeAck(long nowNanos, Path path, long cumulativeSequence, long rateHint, Transmit out, Packet p,
            PacketCodec codec) {
        emitter.header(p, PacketType.ACK, path.id);
        path.receiveTracker.writeAck(p, nowNanos);
        p.cumulativeSequence = cumulativeSequence;
        p.rateHintBytesPerSecond = rateHint;
        shortenIfAble(p);
        stats.acksSent++;
        return emitter.emit(out, p, codec, path, 0, null, 0, nowNanos);
    }

    /**
     * Puts the ACK of {@code path} ahead of the DATA packet already in {@code out} (same path), in
     * one datagram, if both fit in {@code maxBytes} [SPEC-SACK-13]: the DATA moves up by the ACK's
     * length ({@link WireConstants#ACK_BYTES}, or {@link WireConstants#ACK_SHORT_BYTES} in the short
     * form) and the ACK, flagged {@link WireConstants#FLAG_BUNDLED}, takes the front. Returns false,
     * leaving {@code out} as it was and the path's ACK still due, if they do not fit.
     */
    boolean bundleAck(long nowNanos, Path path, long cumulativeSequence, long rateHint, int maxBytes, Transmit out,
            Packet p, PacketCodec codec) {
        int dataLength = out.length;
        // The short form is known only once the tracker has written the SACK, which also clears the
        // path's pending ACK; so the check uses the full size, and a bundle that only the short
        // form would fit is left to a datagram of its own.
        if (dataLength + WireConstants.ACK_BYTES > Math.min(maxBytes, out.buffer.capacity())) {
            return false;
        }
        emitter.header(p, PacketType.ACK, path.id);
        p.flags = WireConstants.FLAG_BUNDLED;
        path.receiveTracker.writeAck(p, nowNanos);
        p.cumulativeSequence = cumulativeSequence;
        p.rateHintBytesPerSecond = rateHint;
        shortenIfAble(p);
        // put(int, ByteBuffer, int, int) copies as if through an intermediate buffer: overlap is safe.
        out.buffer.put(PacketCodec.ackLength(p.flags), out.buffer, 0, dataLength);
        stats.acksSent++;
        stats.acksBundled++;
        int ackLength = codec.encode(p, out.buffer, 0, null, 0);
        stats.packetsSent++;
        stats.bytesSent += ackLength;
        out.length = ackLength + dataLength;
        return true;
    }

    /**
     * [SPEC-SACK-16] With {@code shortAcks}, flags the ACK in {@code p} for the short form
     * ([SPEC-WIRE-31]) when its SACK has one: the same acknowledgement in 40 fewer bytes.
     */
    private void shortenIfAble(Packet p) {
        if (shortAcks && ShortSack.fits(p.sackBase, p.sackBits)) {
            p.flags |= WireConstants.FLAG_SHORT_SACK;
            stats.acksShort++;
        }
    }

    /** A keep-alive PATH_PROBE on the first path in service. */
    boolean writeProbe(long nowNanos, Transmit out, Packet p, PacketCodec codec) {
        Path path = paths.firstInService();
        if (path == null) {
            return false;
        }
        return writeProbeOn(path, nowNanos, out, p, codec, true);
    }

    /**
     * A PATH_PROBE on {@code path}, with the next probe id ({@link #lastProbeId()}).
     * {@code countsAsSending} is false for a health probe on a FAILED path [SPEC-STATE-9]: it
     * tells nothing of whether the peer hears us, and counted it would keep a connection whose
     * paths in service fell idle from sending its keep-alive until the idle timeout ended it.
     */
    boolean writeProbeOn(Path path, long nowNanos, Transmit out, Packet p, PacketCodec codec, boolean countsAsSending) {
        emitter.header(p, PacketType.PATH_PROBE, path.id);
        p.probeId = ++probeSequence;
        p.timestampNanos = nowNanos;
        stats.probesSent++;
        return emitter.emit(out, p, codec, path, 0, null, 0, countsAsSending ? nowNanos : emitter.lastSendNanos());
    }

    /** Id of the last PATH_PROBE written (0: none). */
    long lastProbeId() {
        return probeSequence;
    }
}
