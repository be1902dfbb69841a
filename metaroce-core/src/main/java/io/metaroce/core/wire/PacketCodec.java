package io.metaroce.core.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes MetaRoCE packets to and from {@link ByteBuffer}s. The wire layout is normative
 * in {@code docs/spec.md} section "Packets" (rule ids {@code [SPEC-WIRE-n]}).
 *
 * <p>One instance per thread: it holds a {@link CRC32C} and a little scratch state, so it is
 * <em>not</em> thread-safe. Neither {@link #decode} nor {@link #encode} allocates.
 *
 * <p>Byte order: every multi-byte field is big-endian on the wire regardless of the
 * {@link ByteBuffer#order() order} of the buffers passed in; both orders are handled.
 *
 * <p>Buffer state: only absolute gets and puts are used. To feed the intrinsic CRC path, the
 * position and limit of a buffer without an accessible array (direct or read-only) are moved
 * temporarily and restored before returning; such a buffer's mark may be discarded, and no other
 * thread may use the same buffer object (even for absolute access) during the call. Heap buffers
 * with an accessible array are never touched this way.
 */
public final class PacketCodec {
    /** Smallest datagram that can be a packet: the common header plus the checksum. */
    public static final int MIN_PACKET_BYTES = WireConstants.COMMON_HEADER_BYTES + WireConstants.CHECKSUM_BYTES;

    /** Value of the CONNECT cookie-length field when a cookie is present. */
    private static final int COOKIE_LENGTH_PRESENT = WireConstants.COOKIE_BYTES;
    /** Smallest acceptable maxDatagramBytes (CONNECT, ACCEPT), compared unsigned. */
    public static final int MIN_DATAGRAM_BYTES = 256;
    /** Smallest acceptable sequenceWindow (CONNECT, ACCEPT), compared unsigned. */
    public static final int MIN_SEQUENCE_WINDOW = 64;
    /** CLOSE flag bit: this CLOSE answers the peer's CLOSE. */
    public static final int CLOSE_FLAG_REPLY = 1;

    // ---- common header offsets ----
    private static final int OFF_VERSION = 0;
    private static final int OFF_TYPE = 1;
    private static final int OFF_PATH_ID = 2;
    private static final int OFF_FLAGS = 4;
    private static final int OFF_HDR_RESERVED = 6;
    private static final int OFF_DCID = 8;
    private static final int OFF_CSN = 16;
    private static final int OFF_PSN = 24;

    private final CRC32C crc = new CRC32C();
    /** Whether the buffer being processed is little-endian, so every multi-byte access is swapped. */
    private boolean swap;
    /** Static description of the field that caused the last BAD_FIELD, for diagnostics. */
    private String lastFieldError = "";

    /** Creates a codec; use one per thread. */
    public PacketCodec() {
    }

    // =====================================================================================
    // Sizes
    // =====================================================================================

    /**
     * The exact datagram length of a packet of {@code type}, or -1 for DATA (whose length depends on
     * its payload) and for unknown types.
     */
    public static int fixedLength(int type) {
        return switch (type) {
            case PacketType.READ_REQUEST -> WireConstants.READ_REQUEST_BYTES;
            case PacketType.ACK -> WireConstants.ACK_BYTES;
            case PacketType.NAK -> WireConstants.NAK_BYTES;
            case PacketType.CONNECT -> WireConstants.CONNECT_BYTES;
            case PacketType.CHALLENGE -> WireConstants.CHALLENGE_BYTES;
            case PacketType.ACCEPT -> WireConstants.ACCEPT_BYTES;
            case PacketType.CLOSE -> WireConstants.CLOSE_BYTES;
            case PacketType.PATH_PROBE, PacketType.PROBE_ACK -> WireConstants.PROBE_BYTES;
            default -> -1;
        };
    }

    /**
     * The datagram length {@link #encode} produces for a packet of {@code type} carrying
     * {@code payloadLength} payload bytes (ignored unless DATA).
     *
     * @throws IllegalArgumentException for an unknown type or an impossible payload length
     */
    public static int encodedLength(int type, int payloadLength) {
        if (type == PacketType.DATA) {
            if (payloadLength < 0 || payloadLength > Integer.MAX_VALUE - WireConstants.DATA_OVERHEAD_BYTES) {
                throw new IllegalArgumentException("bad DATA payload length " + payloadLength);
            }
            return WireConstants.DATA_OVERHEAD_BYTES + payloadLength;
        }
        int n = fixedLength(type);
        if (n < 0) {
            throw new IllegalArgumentException("unknown packet type " + type);
        }
        return n;
    }

    /**
     * A static, human-readable description of the rule broken by the last {@link #decode} that
     * returned {@link DecodeError#BAD_FIELD}; empty before any. For logs only; never parse it.
     */
    public String lastFieldError() {
        return lastFieldError;
    }

    // =====================================================================================
    // Decode
    // =====================================================================================

    /**
     * The length of the first packet of a bundled datagram [SPEC-WIRE-30]: {@link WireConstants#ACK_BYTES}
     * if the datagram starts with an ACK that has {@link WireConstants#FLAG_BUNDLED} set and is longer
     * than an ACK, otherwise 0 (one packet). Reads two header bytes only; each packet of a bundle is
     * then decoded, checksum first, on its own.
     */
    public static int bundledHeadLength(ByteBuffer src, int offset, int length) {
        if (length <= WireConstants.ACK_BYTES || (src.get(offset + OFF_TYPE) & 0xff) != PacketType.ACK) {
            return 0;
        }
        int flags = ((src.get(offset + OFF_FLAGS) & 0xff) << 8) | (src.get(offset + OFF_FLAGS + 1) & 0xff);
        return (flags & WireConstants.FLAG_BUNDLED) != 0 ? WireConstants.ACK_BYTES : 0;
    }

    /**
     * Validates the datagram {@code src[offset, offset + length)} and, if valid, fills {@code out}.
     *
     * <p>Never throws because of the datagram's bytes: every malformed input yields a non-OK
     * {@link DecodeError} code. When the result is not {@link DecodeError#OK}, the contents of
     * {@code out} are unspecified and MUST NOT be used. For DATA, {@link Packet#payloadOffset} is
     * the absolute index of the payload inside {@code src}; the payload is not copied.
     *
     * @return a {@link DecodeError} code
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside
     *     {@code [0, src.limit())} (a caller bug, not a property of the datagram)
     */
    public int decode(ByteBuffer src, int offset, int length, Packet out) {
        Objects.checkFromIndexSize(offset, length, src.limit());
        if (length < MIN_PACKET_BYTES) {
            return DecodeError.TOO_SHORT;
        }
        swap = src.order() != ByteOrder.BIG_ENDIAN;
        // [SPEC-WIRE-9] the checksum is verified before any other field is interpreted.
        int end = offset + length - WireConstants.CHECKSUM_BYTES;
        if (checksum(src, offset, end) != getInt(src, end)) {
            return DecodeError.BAD_CHECKSUM;
        }
        if (u8(src, offset + OFF_VERSION) != WireConstants.VERSION) {
            return DecodeError.BAD_VERSION;
        }
        int type = u8(src, offset + OFF_TYPE);
        if (!PacketType.isValid(type)) {
            return DecodeError.UNKNOWN_TYPE;
        }
        if (type == PacketType.DATA) {
            if (length < WireConstants.DATA_OVERHEAD_BYTES) {
                return DecodeError.BAD_LENGTH;
            }
        } else if (length != fixedLength(type)) {
            return DecodeError.BAD_LENGTH;
        }

        // Zero what this type does not overwrite, so nothing of an earlier packet leaks through:
        // the scalars always, the SACK bits unless an ACK (which writes all of them), the cookie
        // unless a CHALLENGE or a CONNECT (decodeConnect zeroes it when no cookie is present).
        out.clearScalars();
        if (type != PacketType.ACK) {
            out.clearSackBits();
        }
        if (type != PacketType.CHALLENGE && type != PacketType.CONNECT) {
            out.clearCookie();
        }
        out.type = type;
        out.pathId = u16(src, offset + OFF_PATH_ID);
        out.flags = u16(src, offset + OFF_FLAGS);
        // offset + OFF_HDR_RESERVED: ignored on receive [SPEC-WIRE-4].
        out.destinationConnectionId = getLong(src, offset + OFF_DCID);
        out.connectionSequence = getLong(src, offset + OFF_CSN);
        out.pathSequence = getLong(src, offset + OFF_PSN);
        // [SPEC-WIRE-7]
        if (out.connectionSequence < 0) {
            return badField("connectionSequence >= 2^63");
        }
        if (out.pathSequence < 0) {
            return badField("pathSequence >= 2^63");
        }

        return switch (type) {
            case PacketType.DATA -> decodeData(src, offset, length, out);
            case PacketType.READ_REQUEST -> decodeReadRequest(src, offset, out);
            case PacketType.ACK -> decodeAck(src, offset, out);
            case PacketType.NAK -> decodeNak(src, offset, out);
            case PacketType.CONNECT -> decodeConnect(src, offset, out);
            case PacketType.CHALLENGE -> decodeChallenge(src, offset, out);
            case PacketType.ACCEPT -> decodeAccept(src, offset, out);
            case PacketType.CLOSE -> decodeClose(src, offset, out);
            default -> decodeProbe(src, offset, out); // PATH_PROBE, PROBE_ACK
        };
    }

    private int decodeData(ByteBuffer src, int o, int length, Packet out) {
        out.opcode = u8(src, o + 32);
        out.dataFlags = u8(src, o + 33);
        // o + 34: reserved u16
        out.streamId = getInt(src, o + 36);
        out.messageSequence = getLong(src, o + 40);
        out.receiveSequence = getLong(src, o + 48);
        out.messageLength = getLong(src, o + 56);
        out.payloadMessageOffset = getLong(src, o + 64);
        out.remoteOffset = getLong(src, o + 72);
        out.remoteKey = getInt(src, o + 80);
        out.immediate = getInt(src, o + 84);
        out.timestampNanos = getLong(src, o + 88);
        out.sequenceFloor = getLong(src, o + 96);
        out.payloadOffset = o + WireConstants.DATA_HEADER_BYTES;
        out.payloadLength = length - WireConstants.DATA_OVERHEAD_BYTES;

        if (!DataOpcode.isValid(out.opcode)) {
            return badField("DATA opcode unknown");
        }
        if (out.opcode == DataOpcode.WRITE_WITH_IMM
                && (out.dataFlags & WireConstants.DATA_FLAG_HAS_IMMEDIATE) == 0) {
            return badField("DATA WRITE_WITH_IMM without HAS_IMMEDIATE");
        }
        if (out.messageLength < 0 || out.messageLength > WireConstants.MAX_MESSAGE_LENGTH) {
            return badField("DATA messageLength > MAX_MESSAGE_LENGTH");
        }
        if (out.payloadMessageOffset < 0) {
            return badField("DATA payloadMessageOffset >= 2^63");
        }
        // messageLength - payloadLength cannot overflow: both are in range.
        if (out.payloadMessageOffset > out.messageLength - out.payloadLength) {
            return badField("DATA payload outside its message");
        }
        if (out.messageSequence < 0) {
            return badField("DATA messageSequence >= 2^63");
        }
        if (out.receiveSequence < 0) {
            return badField("DATA receiveSequence >= 2^63");
        }
        if (out.remoteOffset < 0) {
            return badField("DATA remoteOffset >= 2^63");
        }
        if (out.sequenceFloor < 0) {
            return badField("DATA sequenceFloor >= 2^63");
        }
        return DecodeError.OK;
    }

    private int decodeReadRequest(ByteBuffer src, int o, Packet out) {
        out.streamId = getInt(src, o + 32);
        out.remoteKey = getInt(src, o + 36);
        out.messageSequence = getLong(src, o + 40);
        out.remoteOffset = getLong(src, o + 48);
        out.messageLength = getLong(src, o + 56);
        out.timestampNanos = getLong(src, o + 64);
        out.sequenceFloor = getLong(src, o + 72);
        if (out.messageSequence < 0) {
            return badField("READ_REQUEST messageSequence >= 2^63");
        }
        if (out.remoteOffset < 0) {
            return badField("READ_REQUEST remoteOffset >= 2^63");
        }
        if (out.messageLength < 0 || out.messageLength > WireConstants.MAX_MESSAGE_LENGTH) {
            return badField("READ_REQUEST length > MAX_MESSAGE_LENGTH");
        }
        if (out.sequenceFloor < 0) {
            return badField("READ_REQUEST sequenceFloor >= 2^63");
        }
        return DecodeError.OK;
    }

    private int decodeAck(ByteBuffer src, int o, Packet out) {
        out.sackBase = getLong(src, o + 32);
        long[] bits = out.sackBits;
        for (int i = 0; i < WireConstants.SACK_WORDS; i++) {
            bits[i] = getLong(src, o + 40 + 8 * i);
        }
        out.echoTimestampNanos = getLong(src, o + 72);
        out.ackDelayNanos = getLong(src, o + 80);
        out.ectCount = getLong(src, o + 88);
        out.ceCount = getLong(src, o + 96);
        out.rateHintBytesPerSecond = getLong(src, o + 104);
        out.cumulativeSequence = getLong(src, o + 112);
        if (out.sackBase < 0) {
            return badField("ACK sackBase >= 2^63");
        }
        if (out.ackDelayNanos < 0) {
            return badField("ACK ackDelayNanos >= 2^63");
        }
        if (out.ectCount < 0 || out.ceCount < 0) {
            return badField("ACK ECN count >= 2^63");
        }
        if (out.ceCount > out.ectCount) {
            return badField("ACK ceCount > ectCount");
        }
        if (out.rateHintBytesPerSecond < 0) {
            return badField("ACK rateHintBytesPerSecond >= 2^63");
        }
        if (out.cumulativeSequence < 0) {
            return badField("ACK cumulativeSequence >= 2^63");
        }
        return DecodeError.OK;
    }

    private int decodeNak(ByteBuffer src, int o, Packet out) {
        out.nakCode = u8(src, o + 32);
        // o + 33 .. o + 35: reserved
        out.streamId = getInt(src, o + 36);
        out.refusedPathSequence = getLong(src, o + 40);
        out.refusedConnectionSequence = getLong(src, o + 48);
        out.messageSequence = getLong(src, o + 56);
        out.retryAfterNanos = getLong(src, o + 64);
        if (!NakCode.isValid(out.nakCode)) {
            return badField("NAK code unknown");
        }
        if (out.refusedPathSequence < 0) {
            return badField("NAK refusedPathSequence >= 2^63");
        }
        if (out.refusedConnectionSequence < 0) {
            return badField("NAK refusedConnectionSequence >= 2^63");
        }
        if (out.messageSequence < 0) {
            return badField("NAK messageSequence >= 2^63");
        }
        if (out.retryAfterNanos < 0) {
            return badField("NAK retryAfterNanos >= 2^63");
        }
        return DecodeError.OK;
    }

    private int decodeConnect(ByteBuffer src, int o, Packet out) {
        out.sourceConnectionId = getLong(src, o + 32);
        out.maxDatagramBytes = getInt(src, o + 40);
        out.pathCount = u16(src, o + 44);
        int cookieLength = u16(src, o + 46);
        out.sequenceWindow = getInt(src, o + 48);
        // o + 52: reserved u32
        if (out.destinationConnectionId != 0) {
            return badField("CONNECT destinationConnectionId != 0");
        }
        int r = checkHandshake(out, true);
        if (r != DecodeError.OK) {
            return r;
        }
        if (out.pathCount < 1) {
            return badField("CONNECT pathCount == 0");
        }
        if (cookieLength == COOKIE_LENGTH_PRESENT) {
            out.hasCookie = true;
            src.get(o + 56, out.cookie, 0, WireConstants.COOKIE_BYTES);
        } else if (cookieLength != 0) {
            return badField("CONNECT cookieLength not 0 or 24");
        } else {
            out.clearCookie();
        }
        // cookieLength == 0: the 24 cookie bytes are ignored; out.cookie stays zero.
        return DecodeError.OK;
    }

    private int decodeChallenge(ByteBuffer src, int o, Packet out) {
        out.hasCookie = true;
        src.get(o + 32, out.cookie, 0, WireConstants.COOKIE_BYTES);
        return DecodeError.OK;
    }

    private int decodeAccept(ByteBuffer src, int o, Packet out) {
        out.sourceConnectionId = getLong(src, o + 32);
        out.maxDatagramBytes = getInt(src, o + 40);
        out.sequenceWindow = getInt(src, o + 44);
        out.pathCount = u16(src, o + 48);
        out.announcementSequence = u16(src, o + 50);
        out.rateHintBytesPerSecond = getLong(src, o + 52);
        if (out.pathCount == 0) {
            return badField("ACCEPT pathCount == 0");
        }
        if (out.rateHintBytesPerSecond < 0) {
            return badField("ACCEPT rateHintBytesPerSecond >= 2^63");
        }
        return checkHandshake(out, false);
    }

    /** Rules shared by CONNECT and ACCEPT. */
    private int checkHandshake(Packet out, boolean connect) {
        if (out.sourceConnectionId == 0) {
            return badField(connect ? "CONNECT sourceConnectionId == 0" : "ACCEPT sourceConnectionId == 0");
        }
        if (Integer.compareUnsigned(out.maxDatagramBytes, MIN_DATAGRAM_BYTES) < 0) {
            return badField(connect ? "CONNECT maxDatagramBytes < 256" : "ACCEPT maxDatagramBytes < 256");
        }
        if (Integer.compareUnsigned(out.sequenceWindow, MIN_SEQUENCE_WINDOW) < 0) {
            return badField(connect ? "CONNECT sequenceWindow < 64" : "ACCEPT sequenceWindow < 64");
        }
        return DecodeError.OK;
    }

    private int decodeClose(ByteBuffer src, int o, Packet out) {
        out.closeCode = u16(src, o + 32);
        int closeFlags = u16(src, o + 34);
        out.closeReply = (closeFlags & CLOSE_FLAG_REPLY) != 0;
        // o + 36: reserved u32
        if (!CloseCode.isValid(out.closeCode)) {
            return badField("CLOSE code unknown");
        }
        return DecodeError.OK;
    }

    private int decodeProbe(ByteBuffer src, int o, Packet out) {
        out.probeId = getLong(src, o + 32);
        out.timestampNanos = getLong(src, o + 40);
        return DecodeError.OK;
    }

    private int badField(String why) {
        lastFieldError = why;
        return DecodeError.BAD_FIELD;
    }

    // =====================================================================================
    // Encode
    // =====================================================================================

    /**
     * Writes the packet {@code p} (of type {@code p.type}) at {@code dst[offset..]} followed by its
     * CRC32C trailer, and returns the number of bytes written. For DATA, {@code p.payloadLength}
     * bytes are copied from {@code payloadSource[payloadSourceIndex..]} ({@code p.payloadOffset} is
     * ignored); {@code payloadSource} may be null when there is no payload to copy.
     *
     * <p>The encoder writes the field values it is given and does not apply the decoder's validation
     * rules (so tests can build invalid packets); u16 fields are truncated to 16 bits and u8 fields
     * to 8. Reserved fields are written as zero. CONNECT writes a cookie length of 24 and
     * {@code p.cookie} when {@code p.hasCookie}, otherwise a cookie length of 0 and 24 zero bytes.
     *
     * @return the datagram length
     * @throws IllegalArgumentException if the type is unknown, {@code dst} is read-only or too small,
     *     or the payload source is missing or too small (programming errors)
     */
    public int encode(Packet p, ByteBuffer dst, int offset, ByteBuffer payloadSource, int payloadSourceIndex) {
        int type = p.type;
        if (!PacketType.isValid(type)) {
            throw new IllegalArgumentException("cannot encode unknown packet type " + type);
        }
        int payloadLength = type == PacketType.DATA ? p.payloadLength : 0;
        int length = encodedLength(type, payloadLength);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("destination buffer is read-only");
        }
        if (offset < 0 || offset > dst.limit() - length) {
            throw new IllegalArgumentException("destination buffer too small: " + PacketType.name(type)
                    + " needs " + length + " bytes at offset " + offset + " but limit is " + dst.limit());
        }
        if (payloadLength > 0) {
            if (payloadSource == null) {
                throw new IllegalArgumentException("DATA payloadLength " + payloadLength + " but no payload source");
            }
            if (payloadSourceIndex < 0 || payloadSourceIndex > payloadSource.limit() - payloadLength) {
                throw new IllegalArgumentException("payload source too small: need " + payloadLength
                        + " bytes at index " + payloadSourceIndex + " but limit is " + payloadSource.limit());
            }
        }
        swap = dst.order() != ByteOrder.BIG_ENDIAN;

        int o = offset;
        dst.put(o + OFF_VERSION, (byte) WireConstants.VERSION);
        dst.put(o + OFF_TYPE, (byte) type);
        putShort(dst, o + OFF_PATH_ID, p.pathId);
        putShort(dst, o + OFF_FLAGS, p.flags);
        putShort(dst, o + OFF_HDR_RESERVED, 0);
        putLong(dst, o + OFF_DCID, p.destinationConnectionId);
        putLong(dst, o + OFF_CSN, p.connectionSequence);
        putLong(dst, o + OFF_PSN, p.pathSequence);

        switch (type) {
            case PacketType.DATA -> {
                dst.put(o + 32, (byte) p.opcode);
                dst.put(o + 33, (byte) p.dataFlags);
                putShort(dst, o + 34, 0);
                putInt(dst, o + 36, p.streamId);
                putLong(dst, o + 40, p.messageSequence);
                putLong(dst, o + 48, p.receiveSequence);
                putLong(dst, o + 56, p.messageLength);
                putLong(dst, o + 64, p.payloadMessageOffset);
                putLong(dst, o + 72, p.remoteOffset);
                putInt(dst, o + 80, p.remoteKey);
                putInt(dst, o + 84, p.immediate);
                putLong(dst, o + 88, p.timestampNanos);
                putLong(dst, o + 96, p.sequenceFloor);
                if (payloadLength > 0) {
                    dst.put(o + WireConstants.DATA_HEADER_BYTES, payloadSource, payloadSourceIndex, payloadLength);
                }
            }
            case PacketType.READ_REQUEST -> {
                putInt(dst, o + 32, p.streamId);
                putInt(dst, o + 36, p.remoteKey);
                putLong(dst, o + 40, p.messageSequence);
                putLong(dst, o + 48, p.remoteOffset);
                putLong(dst, o + 56, p.messageLength);
                putLong(dst, o + 64, p.timestampNanos);
                putLong(dst, o + 72, p.sequenceFloor);
            }
            case PacketType.ACK -> {
                putLong(dst, o + 32, p.sackBase);
                long[] bits = p.sackBits;
                for (int i = 0; i < WireConstants.SACK_WORDS; i++) {
                    putLong(dst, o + 40 + 8 * i, bits[i]);
                }
                putLong(dst, o + 72, p.echoTimestampNanos);
                putLong(dst, o + 80, p.ackDelayNanos);
                putLong(dst, o + 88, p.ectCount);
                putLong(dst, o + 96, p.ceCount);
                putLong(dst, o + 104, p.rateHintBytesPerSecond);
                putLong(dst, o + 112, p.cumulativeSequence);
            }
            case PacketType.NAK -> {
                dst.put(o + 32, (byte) p.nakCode);
                dst.put(o + 33, (byte) 0);
                putShort(dst, o + 34, 0);
                putInt(dst, o + 36, p.streamId);
                putLong(dst, o + 40, p.refusedPathSequence);
                putLong(dst, o + 48, p.refusedConnectionSequence);
                putLong(dst, o + 56, p.messageSequence);
                putLong(dst, o + 64, p.retryAfterNanos);
            }
            case PacketType.CONNECT -> {
                putLong(dst, o + 32, p.sourceConnectionId);
                putInt(dst, o + 40, p.maxDatagramBytes);
                putShort(dst, o + 44, p.pathCount);
                putShort(dst, o + 46, p.hasCookie ? COOKIE_LENGTH_PRESENT : 0);
                putInt(dst, o + 48, p.sequenceWindow);
                putInt(dst, o + 52, 0);
                if (p.hasCookie) {
                    dst.put(o + 56, p.cookie, 0, WireConstants.COOKIE_BYTES);
                } else {
                    for (int i = 0; i < WireConstants.COOKIE_BYTES; i += 8) {
                        putLong(dst, o + 56 + i, 0L);
                    }
                }
            }
            case PacketType.CHALLENGE -> dst.put(o + 32, p.cookie, 0, WireConstants.COOKIE_BYTES);
            case PacketType.ACCEPT -> {
                putLong(dst, o + 32, p.sourceConnectionId);
                putInt(dst, o + 40, p.maxDatagramBytes);
                putInt(dst, o + 44, p.sequenceWindow);
                putShort(dst, o + 48, p.pathCount);
                putShort(dst, o + 50, p.announcementSequence);
                putLong(dst, o + 52, p.rateHintBytesPerSecond);
            }
            case PacketType.CLOSE -> {
                putShort(dst, o + 32, p.closeCode);
                putShort(dst, o + 34, p.closeReply ? CLOSE_FLAG_REPLY : 0);
                putInt(dst, o + 36, 0);
            }
            default -> { // PATH_PROBE, PROBE_ACK
                putLong(dst, o + 32, p.probeId);
                putLong(dst, o + 40, p.timestampNanos);
            }
        }
        int end = o + length - WireConstants.CHECKSUM_BYTES;
        putInt(dst, end, checksum(dst, o, end));
        return length;
    }

    /**
     * Recomputes and rewrites the CRC32C trailer of the datagram {@code buf[offset, offset + length)}
     * after its bytes were changed in place (for example by a test building a malformed packet).
     *
     * @throws IllegalArgumentException if {@code length} is shorter than the trailer or out of bounds
     */
    public void reseal(ByteBuffer buf, int offset, int length) {
        if (length < WireConstants.CHECKSUM_BYTES || offset < 0 || offset > buf.limit() - length) {
            throw new IllegalArgumentException("bad datagram bounds " + offset + "+" + length);
        }
        swap = buf.order() != ByteOrder.BIG_ENDIAN;
        int end = offset + length - WireConstants.CHECKSUM_BYTES;
        putInt(buf, end, checksum(buf, offset, end));
    }

    // =====================================================================================
    // Checksum and primitive access
    // =====================================================================================

    /** CRC32C of {@code buf[from, to)} as an int bit pattern, leaving position and limit as they were. */
    private int checksum(ByteBuffer buf, int from, int to) {
        CRC32C c = crc;
        c.reset();
        if (buf.hasArray()) {
            c.update(buf.array(), buf.arrayOffset() + from, to - from);
        } else {
            int position = buf.position();
            int limit = buf.limit();
            // from <= to <= limit, so setting the position first is always legal.
            buf.position(from);
            buf.limit(to);
            c.update(buf);
            buf.limit(limit);
            buf.position(position);
        }
        return (int) c.getValue();
    }

    private static int u8(ByteBuffer b, int i) {
        return b.get(i) & 0xFF;
    }

    private int u16(ByteBuffer b, int i) {
        short v = b.getShort(i);
        return (swap ? Short.reverseBytes(v) : v) & 0xFFFF;
    }

    private int getInt(ByteBuffer b, int i) {
        int v = b.getInt(i);
        return swap ? Integer.reverseBytes(v) : v;
    }

    private long getLong(ByteBuffer b, int i) {
        long v = b.getLong(i);
        return swap ? Long.reverseBytes(v) : v;
    }

    private void putShort(ByteBuffer b, int i, int v) {
        short s = (short) v;
        b.putShort(i, swap ? Short.reverseBytes(s) : s);
    }

    private void putInt(ByteBuffer b, int i, int v) {
        b.putInt(i, swap ? Integer.reverseBytes(v) : v);
    }

    private void putLong(ByteBuffer b, int i, long v) {
        b.putLong(i, swap ? Long.reverseBytes(v) : v);
    }
}
