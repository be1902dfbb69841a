package io.metaroce.core.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
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
 * position and limit of a buffer without an accessible array (direct or read-only) holding a
 * datagram longer than 512 bytes are moved temporarily and restored before
 * returning (a shorter one is checksummed in a copy); such a buffer's mark may be discarded, and no other
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

    /** The longest header (a packet without its payload and checksum): an ACK's. */
    private static final int MAX_HEADER_BYTES = WireConstants.ACK_BYTES - WireConstants.CHECKSUM_BYTES;

    /**
     * The longest datagram the decoder copies whole out of a buffer without an accessible array,
     * to checksum the copy (see {@link #decode}). Not a protocol constant: any length at least
     * {@link WireConstants#ACK_BYTES} decodes the same; this one is where copying the payload
     * once more stops being cheaper than the buffer's checksum wrapper (a 4 KiB copy costs several
     * hundred instructions, the wrapper about a hundred).
     */
    static final int WHOLE_COPY_BYTES = 512;

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final CRC32C crc = new CRC32C();
    /**
     * The header of the packet being encoded by {@link #encode}, big-endian as on the wire: fields
     * are written here and go to the datagram in one bulk put, so a packet costs one bounds check
     * on the buffer rather than one per field. Room for the checksum trailer behind the longest
     * header: a packet without payload is checksummed and completed here.
     */
    private final byte[] header = new byte[MAX_HEADER_BYTES + WireConstants.CHECKSUM_BYTES];
    /**
     * The DATA header template ({@link #encodeData}, {@link #encodeDataFromTemplate}): the header of
     * the last DATA packet encoded through them, big-endian as on the wire. Apart from {@link #header}
     * because the decoder and the other packets' encoder overwrite that one between two DATA packets.
     * Its first {@link WireConstants#DATA_HEADER_BYTES} bytes are the header; a short datagram's
     * payload and checksum are assembled behind them ({@link #finishData}).
     */
    private final byte[] dataTemplate = new byte[WHOLE_COPY_BYTES];
    /** Who filled {@link #dataTemplate} (null: nobody, or invalidated), and under which key and DCID. */
    private Object templateOwner;
    private long templateKey;
    private long templateDestination;
    /**
     * The received datagram, or its header when it is longer than {@link #WHOLE_COPY_BYTES} or in
     * a buffer with an accessible array, as the decoder copies it out (see {@link #decode}).
     */
    private final byte[] received = new byte[WHOLE_COPY_BYTES];
    /** Whether the buffer being processed is little-endian, so the checksum trailer is swapped. */
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
     * The datagram length of an ACK whose header flags are {@code flags}: {@link WireConstants#ACK_SHORT_BYTES}
     * with {@link WireConstants#FLAG_SHORT_SACK} set ([SPEC-WIRE-31]), otherwise {@link WireConstants#ACK_BYTES}.
     */
    public static int ackLength(int flags) {
        return (flags & WireConstants.FLAG_SHORT_SACK) != 0 ? WireConstants.ACK_SHORT_BYTES : WireConstants.ACK_BYTES;
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
     * The length of the first packet of a bundled datagram [SPEC-WIRE-30]: the ACK's length
     * ({@link #ackLength}: 124 bytes, or 84 in the short form, [SPEC-WIRE-31]) if the datagram starts
     * with an ACK that has {@link WireConstants#FLAG_BUNDLED} set and is longer than that ACK,
     * otherwise 0 (one packet). Reads three header bytes only; each packet of a bundle is then
     * decoded, checksum first, on its own.
     */
    public static int bundledHeadLength(ByteBuffer src, int offset, int length) {
        if (length <= WireConstants.ACK_SHORT_BYTES || (src.get(offset + OFF_TYPE) & 0xff) != PacketType.ACK) {
            return 0;
        }
        int flags = ((src.get(offset + OFF_FLAGS) & 0xff) << 8) | (src.get(offset + OFF_FLAGS + 1) & 0xff);
        int head = ackLength(flags);
        return (flags & WireConstants.FLAG_BUNDLED) != 0 && length > head ? head : 0;
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
        // The header (everything before the payload or the checksum, at most the longest header)
        // is copied out in one bulk get and its fields read from the array, the version and the
        // type included: a few wide array reads instead of a bounds, session and byte-order check
        // on the buffer for each field. A DATA packet's copy may take a few payload bytes with it;
        // nothing reads them.
        byte[] h = received;
        int end = offset + length - WireConstants.CHECKSUM_BYTES;
        boolean whole = length <= WHOLE_COPY_BYTES && !src.hasArray();
        if (whole) {
            // A short datagram in a buffer without an accessible array (direct, as drivers use)
            // comes over whole: the checksum is then taken over the copy, whose wrapper is a
            // bounds check, rather than over the buffer, whose wrapper aims the buffer's position
            // and limit at the range and back around the JDK's checks of the buffer (about 90
            // instructions a packet more than copying the payload too; docs/benchmarks.md,
            // "Engine pair round (session 13)"). [SPEC-WIRE-9] still nothing is interpreted first.
            src.get(offset, h, 0, length);
            int trailer = length - WireConstants.CHECKSUM_BYTES;
            if (checksum(h, trailer) != getInt(h, trailer)) {
                return DecodeError.BAD_CHECKSUM;
            }
        } else {
            swap = src.order() != ByteOrder.BIG_ENDIAN;
            // [SPEC-WIRE-9] the checksum is verified before any other field is interpreted.
            if (checksum(src, offset, end) != getInt(src, end)) {
                return DecodeError.BAD_CHECKSUM;
            }
            src.get(offset, h, 0, Math.min(end - offset, MAX_HEADER_BYTES));
        }
        if ((h[OFF_VERSION] & 0xFF) != WireConstants.VERSION) {
            return DecodeError.BAD_VERSION;
        }
        int type = h[OFF_TYPE] & 0xFF;
        if (!PacketType.isValid(type)) {
            return DecodeError.UNKNOWN_TYPE;
        }
        if (type == PacketType.DATA) {
            if (length < WireConstants.DATA_OVERHEAD_BYTES) {
                return DecodeError.BAD_LENGTH;
            }
        } else if (length != (type == PacketType.ACK ? ackLength(u16(h, OFF_FLAGS)) : fixedLength(type))) {
            return DecodeError.BAD_LENGTH;
        }

        // Zero what this type does not overwrite, so nothing of an earlier packet leaks through:
        // the scalars always, the SACK bits unless an ACK (which writes all of them), the cookie
        // unless a CHALLENGE or a CONNECT (decodeConnect zeroes it when no cookie is present).
        // A DATA packet, the common case, zeroes only the fields DATA does not carry: decodeData
        // writes every other one.
        if (type == PacketType.DATA) {
            out.clearOutsideData();
        } else {
            out.clearScalars();
            if (type != PacketType.ACK) {
                out.clearSackBits();
            }
            if (type != PacketType.CHALLENGE && type != PacketType.CONNECT) {
                out.clearCookie();
            }
        }
        out.type = type;
        out.pathId = u16(h, OFF_PATH_ID);
        out.flags = u16(h, OFF_FLAGS);
        // OFF_HDR_RESERVED: ignored on receive [SPEC-WIRE-4].
        out.destinationConnectionId = getLong(h, OFF_DCID);
        out.connectionSequence = getLong(h, OFF_CSN);
        out.pathSequence = getLong(h, OFF_PSN);
        // [SPEC-WIRE-7]
        if (out.connectionSequence < 0) {
            return badField("connectionSequence >= 2^63");
        }
        if (out.pathSequence < 0) {
            return badField("pathSequence >= 2^63");
        }

        return switch (type) {
            case PacketType.DATA -> decodeData(h, offset, length, whole, out);
            case PacketType.READ_REQUEST -> decodeReadRequest(h, out);
            case PacketType.ACK -> decodeAck(h, out);
            case PacketType.NAK -> decodeNak(h, out);
            case PacketType.CONNECT -> decodeConnect(h, out);
            case PacketType.CHALLENGE -> decodeChallenge(h, out);
            case PacketType.ACCEPT -> decodeAccept(h, out);
            case PacketType.CLOSE -> decodeClose(h, out);
            default -> decodeProbe(h, out); // PATH_PROBE, PROBE_ACK
        };
    }

    private int decodeData(byte[] h, int o, int length, boolean whole, Packet out) {
        out.opcode = u8(h, 32);
        out.dataFlags = u8(h, 33);
        // 34: reserved u16
        out.streamId = getInt(h, 36);
        out.messageSequence = getLong(h, 40);
        out.receiveSequence = getLong(h, 48);
        out.messageLength = getLong(h, 56);
        out.payloadMessageOffset = getLong(h, 64);
        out.remoteOffset = getLong(h, 72);
        out.remoteKey = getInt(h, 80);
        out.immediate = getInt(h, 84);
        out.timestampNanos = getLong(h, 88);
        out.sequenceFloor = getLong(h, 96);
        out.payloadOffset = o + WireConstants.DATA_HEADER_BYTES;
        out.payloadCopy = whole ? h : null;
        out.payloadLength = length - WireConstants.DATA_OVERHEAD_BYTES;

        // Every field in range, in one test of the sign bits and two comparisons (the packets of a
        // valid peer); otherwise the checks one by one, for the first rule broken.
        if (DataOpcode.isValid(out.opcode)
                && (out.opcode != DataOpcode.WRITE_WITH_IMM || (out.dataFlags & WireConstants.DATA_FLAG_HAS_IMMEDIATE) != 0)
                && (out.messageLength | out.payloadMessageOffset | out.messageSequence | out.receiveSequence
                        | out.remoteOffset | out.sequenceFloor) >= 0
                && out.messageLength <= WireConstants.MAX_MESSAGE_LENGTH
                && out.payloadMessageOffset <= out.messageLength - out.payloadLength) {
            return DecodeError.OK;
        }
        return dataFieldError(out);
    }

    /** The first rule of a DATA packet's fields that {@code out} breaks, as {@link #badField}. */
    private int dataFieldError(Packet out) {
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

    private int decodeReadRequest(byte[] h, Packet out) {
        out.streamId = getInt(h, 32);
        out.remoteKey = getInt(h, 36);
        out.messageSequence = getLong(h, 40);
        out.remoteOffset = getLong(h, 48);
        out.messageLength = getLong(h, 56);
        out.timestampNanos = getLong(h, 64);
        out.sequenceFloor = getLong(h, 72);
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

    private int decodeAck(byte[] h, Packet out) {
        if ((out.flags & WireConstants.FLAG_SHORT_SACK) != 0) {
            return decodeShortAck(h, out);
        }
        out.sackBase = getLong(h, 32);
        long[] bits = out.sackBits;
        for (int i = 0; i < WireConstants.SACK_WORDS; i++) {
            bits[i] = getLong(h, 40 + 8 * i);
        }
        out.echoTimestampNanos = getLong(h, 72);
        out.ackDelayNanos = getLong(h, 80);
        out.ectCount = getLong(h, 88);
        out.ceCount = getLong(h, 96);
        out.rateHintBytesPerSecond = getLong(h, 104);
        out.cumulativeSequence = getLong(h, 112);
        if (out.sackBase < 0) {
            return badField("ACK sackBase >= 2^63");
        }
        if (out.cumulativeSequence < 0) {
            return badField("ACK cumulativeSequence >= 2^63");
        }
        return checkAckCounters(out);
    }

    /** The checks both ACK forms share: the delay, the ECN counts and the rate hint. */
    private int checkAckCounters(Packet out) {
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
        return DecodeError.OK;
    }

    /**
     * [SPEC-WIRE-31] The short form, decoded into the fields of the full one: the header's
     * {@code pathSequence} slot holds the highest acknowledged PSN and its {@code connectionSequence}
     * slot the cumulative sequence (both already checked below 2^63); the packet then reads as the
     * 124-byte ACK with the same contents would (CSN 0, PSN 0).
     */
    private int decodeShortAck(byte[] h, Packet out) {
        long base = ShortSack.expand(out.pathSequence, getLong(h, 32), out.sackBits);
        out.cumulativeSequence = out.connectionSequence;
        out.connectionSequence = 0;
        out.pathSequence = 0;
        out.echoTimestampNanos = getLong(h, 40);
        out.ackDelayNanos = getLong(h, 48);
        out.ectCount = getLong(h, 56);
        out.ceCount = getLong(h, 64);
        out.rateHintBytesPerSecond = getLong(h, 72);
        if (base < 0) {
            return badField("short ACK word without its highest bit or with bits below 0");
        }
        out.sackBase = base;
        return checkAckCounters(out);
    }

    private int decodeNak(byte[] h, Packet out) {
        out.nakCode = u8(h, 32);
        // 33 .. 35: reserved
        out.streamId = getInt(h, 36);
        out.refusedPathSequence = getLong(h, 40);
        out.refusedConnectionSequence = getLong(h, 48);
        out.messageSequence = getLong(h, 56);
        out.retryAfterNanos = getLong(h, 64);
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

    private int decodeConnect(byte[] h, Packet out) {
        out.sourceConnectionId = getLong(h, 32);
        out.maxDatagramBytes = getInt(h, 40);
        out.pathCount = u16(h, 44);
        int cookieLength = u16(h, 46);
        out.sequenceWindow = getInt(h, 48);
        // 52: reserved u32
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
            System.arraycopy(h, 56, out.cookie, 0, WireConstants.COOKIE_BYTES);
        } else if (cookieLength != 0) {
            return badField("CONNECT cookieLength not 0 or 24");
        } else {
            out.clearCookie();
        }
        // cookieLength == 0: the 24 cookie bytes are ignored; out.cookie stays zero.
        return DecodeError.OK;
    }

    private int decodeChallenge(byte[] h, Packet out) {
        out.hasCookie = true;
        System.arraycopy(h, 32, out.cookie, 0, WireConstants.COOKIE_BYTES);
        return DecodeError.OK;
    }

    private int decodeAccept(byte[] h, Packet out) {
        out.sourceConnectionId = getLong(h, 32);
        out.maxDatagramBytes = getInt(h, 40);
        out.sequenceWindow = getInt(h, 44);
        out.pathCount = u16(h, 48);
        out.announcementSequence = u16(h, 50);
        out.rateHintBytesPerSecond = getLong(h, 52);
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

    private int decodeClose(byte[] h, Packet out) {
        out.closeCode = u16(h, 32);
        int closeFlags = u16(h, 34);
        out.closeReply = (closeFlags & CLOSE_FLAG_REPLY) != 0;
        // 36: reserved u32
        if (!CloseCode.isValid(out.closeCode)) {
            return badField("CLOSE code unknown");
        }
        return DecodeError.OK;
    }

    private int decodeProbe(byte[] h, Packet out) {
        out.probeId = getLong(h, 32);
        out.timestampNanos = getLong(h, 40);
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
        int length = type == PacketType.ACK ? ackLength(p.flags) : encodedLength(type, payloadLength);
        if (type == PacketType.ACK && length == WireConstants.ACK_SHORT_BYTES && !ShortSack.fits(p.sackBase, p.sackBits)) {
            throw new IllegalArgumentException("FLAG_SHORT_SACK on an ACK whose SACK has no short form ("
                    + "see ShortSack.fits)");
        }
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

        byte[] h = header;
        h[OFF_VERSION] = (byte) WireConstants.VERSION;
        h[OFF_TYPE] = (byte) type;
        putShort(h, OFF_PATH_ID, p.pathId);
        putShort(h, OFF_FLAGS, p.flags);
        putShort(h, OFF_HDR_RESERVED, 0);
        putLong(h, OFF_DCID, p.destinationConnectionId);
        putLong(h, OFF_CSN, p.connectionSequence);
        putLong(h, OFF_PSN, p.pathSequence);

        switch (type) {
            case PacketType.DATA -> {
                putDataMessageFields(h, p);
                putLong(h, 64, p.payloadMessageOffset);
                putLong(h, 88, p.timestampNanos);
                putLong(h, 96, p.sequenceFloor);
            }
            case PacketType.READ_REQUEST -> {
                putInt(h, 32, p.streamId);
                putInt(h, 36, p.remoteKey);
                putLong(h, 40, p.messageSequence);
                putLong(h, 48, p.remoteOffset);
                putLong(h, 56, p.messageLength);
                putLong(h, 64, p.timestampNanos);
                putLong(h, 72, p.sequenceFloor);
            }
            case PacketType.ACK -> {
                if (length == WireConstants.ACK_SHORT_BYTES) {
                    putShortAckFields(h, p);
                } else {
                    putLong(h, 32, p.sackBase);
                    long[] bits = p.sackBits;
                    for (int i = 0; i < WireConstants.SACK_WORDS; i++) {
                        putLong(h, 40 + 8 * i, bits[i]);
                    }
                    putLong(h, 72, p.echoTimestampNanos);
                    putLong(h, 80, p.ackDelayNanos);
                    putLong(h, 88, p.ectCount);
                    putLong(h, 96, p.ceCount);
                    putLong(h, 104, p.rateHintBytesPerSecond);
                    putLong(h, 112, p.cumulativeSequence);
                }
            }
            case PacketType.NAK -> {
                h[32] = (byte) p.nakCode;
                h[33] = (byte) 0;
                putShort(h, 34, 0);
                putInt(h, 36, p.streamId);
                putLong(h, 40, p.refusedPathSequence);
                putLong(h, 48, p.refusedConnectionSequence);
                putLong(h, 56, p.messageSequence);
                putLong(h, 64, p.retryAfterNanos);
            }
            case PacketType.CONNECT -> {
                putLong(h, 32, p.sourceConnectionId);
                putInt(h, 40, p.maxDatagramBytes);
                putShort(h, 44, p.pathCount);
                putShort(h, 46, p.hasCookie ? COOKIE_LENGTH_PRESENT : 0);
                putInt(h, 48, p.sequenceWindow);
                putInt(h, 52, 0);
                if (p.hasCookie) {
                    System.arraycopy(p.cookie, 0, h, 56, WireConstants.COOKIE_BYTES);
                } else {
                    for (int i = 0; i < WireConstants.COOKIE_BYTES; i += 8) {
                        putLong(h, 56 + i, 0L);
                    }
                }
            }
            case PacketType.CHALLENGE -> System.arraycopy(p.cookie, 0, h, 32, WireConstants.COOKIE_BYTES);
            case PacketType.ACCEPT -> {
                putLong(h, 32, p.sourceConnectionId);
                putInt(h, 40, p.maxDatagramBytes);
                putInt(h, 44, p.sequenceWindow);
                putShort(h, 48, p.pathCount);
                putShort(h, 50, p.announcementSequence);
                putLong(h, 52, p.rateHintBytesPerSecond);
            }
            case PacketType.CLOSE -> {
                putShort(h, 32, p.closeCode);
                putShort(h, 34, p.closeReply ? CLOSE_FLAG_REPLY : 0);
                putInt(h, 36, 0);
            }
            default -> { // PATH_PROBE, PROBE_ACK
                putLong(h, 32, p.probeId);
                putLong(h, 40, p.timestampNanos);
            }
        }
        if (type != PacketType.DATA) {
            // Every byte before the trailer is in the header array: checksummed there, the trailer
            // written behind it, and the datagram put whole (as finishData does for a short DATA
            // packet): the array's checksum wrapper and one bulk put instead of a put, the buffer's
            // checksum wrapper (four checked position and limit setters around the JDK's checks)
            // and a checked put of the trailer. The same bytes either way; every ACK goes this way.
            int trailer = length - WireConstants.CHECKSUM_BYTES;
            putInt(h, trailer, checksum(h, trailer));
            dst.put(offset, h, 0, length);
            return length;
        }
        // The header goes out in one bulk put (see decode), then the payload.
        dst.put(offset, h, 0, WireConstants.DATA_HEADER_BYTES);
        if (payloadLength > 0) {
            dst.put(offset + WireConstants.DATA_HEADER_BYTES, payloadSource, payloadSourceIndex, payloadLength);
        }
        int end = offset + length - WireConstants.CHECKSUM_BYTES;
        putInt(dst, end, checksum(dst, offset, end));
        return length;
    }

    /** [SPEC-WIRE-31] The short ACK's fields, the header's two sequence slots included. */
    private static void putShortAckFields(byte[] h, Packet p) {
        putLong(h, OFF_CSN, p.cumulativeSequence);
        putLong(h, OFF_PSN, ShortSack.highest(p.sackBase, p.sackBits));
        putLong(h, 32, ShortSack.word(p.sackBits));
        putLong(h, 40, p.echoTimestampNanos);
        putLong(h, 48, p.ackDelayNanos);
        putLong(h, 56, p.ectCount);
        putLong(h, 64, p.ceCount);
        putLong(h, 72, p.rateHintBytesPerSecond);
    }

    // =====================================================================================
    // Encode: DATA through a header template
    // =====================================================================================

    /**
     * Whether the DATA header template holds the message's fields of {@code owner}'s message
     * {@code key} for destination {@code destinationConnectionId}: true when the last
     * {@link #encodeData} was given the same three (and nothing invalidated it since), so that
     * {@link #encodeDataFromTemplate} may send the message's next packet.
     *
     * <p>The caller promises that one (owner, key, destination) always stands for the same values of
     * the fields the template keeps: type DATA, {@code destinationConnectionId}, {@code opcode},
     * {@code dataFlags}, {@code streamId}, {@code messageSequence}, {@code receiveSequence},
     * {@code messageLength}, {@code remoteOffset}, {@code remoteKey} and {@code immediate}.
     */
    public boolean holdsDataTemplate(Object owner, long key, long destinationConnectionId) {
        return templateOwner == owner && owner != null && templateKey == key
                && templateDestination == destinationConnectionId;
    }

    /**
     * Encodes the DATA packet {@code p} exactly as {@link #encode} does (same bytes, same checks), and
     * keeps its header as the template of (owner, key, {@code p.destinationConnectionId}) (see
     * {@link #holdsDataTemplate}); {@code owner} null keeps no template.
     *
     * @return the datagram length
     * @throws IllegalArgumentException as {@link #encode}, or if {@code p.type} is not DATA
     */
    public int encodeData(Packet p, Object owner, long key, ByteBuffer dst, int offset, ByteBuffer payloadSource,
            int payloadSourceIndex) {
        if (p.type != PacketType.DATA) {
            throw new IllegalArgumentException("encodeData takes DATA packets, not " + PacketType.name(p.type));
        }
        int length = checkDataBounds(p.payloadLength, dst, offset, payloadSource, payloadSourceIndex);
        // Invalidated first: a throw below (a caller's bug) must not leave a half-written template valid.
        templateOwner = null;
        byte[] h = dataTemplate;
        h[OFF_VERSION] = (byte) WireConstants.VERSION;
        h[OFF_TYPE] = (byte) PacketType.DATA;
        putShort(h, OFF_HDR_RESERVED, 0);
        putLong(h, OFF_DCID, p.destinationConnectionId);
        putDataMessageFields(h, p);
        putPacketFields(h, p);
        finishData(h, length, p.payloadLength, dst, offset, payloadSource, payloadSourceIndex);
        if (owner != null) {
            templateOwner = owner;
            templateKey = key;
            templateDestination = p.destinationConnectionId;
        }
        return length;
    }

    /**
     * The DATA header fields that belong to the message, the same for each of its packets (opcode,
     * DATA flags, stream, message and receive sequence, length, remote offset and key, immediate):
     * written by {@link #encode} and once per message into the template by {@link #encodeData}.
     */
    private static void putDataMessageFields(byte[] h, Packet p) {
        h[32] = (byte) p.opcode;
        h[33] = (byte) p.dataFlags;
        putShort(h, 34, 0);
        putInt(h, 36, p.streamId);
        putLong(h, 40, p.messageSequence);
        putLong(h, 48, p.receiveSequence);
        putLong(h, 56, p.messageLength);
        putLong(h, 72, p.remoteOffset);
        putInt(h, 80, p.remoteKey);
        putInt(h, 84, p.immediate);
    }

    /**
     * Encodes the next DATA packet of the message the template holds (the caller checked
     * {@link #holdsDataTemplate}): only the fields that change from packet to packet are read from
     * {@code p} ({@code pathId}, {@code flags}, {@code connectionSequence}, {@code pathSequence},
     * {@code payloadMessageOffset}, {@code payloadLength}, {@code timestampNanos},
     * {@code sequenceFloor}) and patched into the template; the rest of the header is the template's.
     * The bytes are those {@link #encode} writes for {@code p} with the template's fields.
     *
     * @return the datagram length
     * @throws IllegalArgumentException as {@link #encode}, or if no template is held
     */
    public int encodeDataFromTemplate(Packet p, ByteBuffer dst, int offset, ByteBuffer payloadSource,
            int payloadSourceIndex) {
        if (templateOwner == null) {
            throw new IllegalArgumentException("no DATA header template: encode the message's packet with encodeData first");
        }
        int payloadLength = p.payloadLength;
        int length = encodedLength(PacketType.DATA, payloadLength);
        byte[] h = dataTemplate;
        if (length <= WHOLE_COPY_BYTES && !dst.hasArray()) {
            // The short datagram's two bulk copies (payload source into the template, template into
            // the datagram) check exactly the ranges checkDataBounds checks, and the datagram's
            // read-only state, before they copy anything; the datagram is written by the second
            // alone, so a bad argument leaves it untouched. Their exceptions are turned into
            // encode's by running its checks then, not on every packet.
            putPacketFields(h, p);
            try {
                assembleShortData(h, length, payloadLength, dst, offset, payloadSource, payloadSourceIndex);
            } catch (IndexOutOfBoundsException | ReadOnlyBufferException | NullPointerException e) {
                checkDataBounds(payloadLength, dst, offset, payloadSource, payloadSourceIndex);
                throw e;
            }
            return length;
        }
        checkDataBounds(payloadLength, dst, offset, payloadSource, payloadSourceIndex);
        putPacketFields(h, p);
        finishData(h, length, payloadLength, dst, offset, payloadSource, payloadSourceIndex);
        return length;
    }

    /** Forgets the DATA header template: {@link #holdsDataTemplate} is false until the next {@link #encodeData}. */
    public void forgetDataTemplate() {
        templateOwner = null;
    }

    /**
     * Forgets the DATA header template if {@code owner} filled it, so that the codec no longer keeps
     * {@code owner} reachable (call it when the owner, a connection, goes away).
     */
    public void forgetDataTemplateOf(Object owner) {
        if (templateOwner == owner) {
            templateOwner = null;
        }
    }

    /** Whether the DATA header template is {@code owner}'s (whatever its key). */
    public boolean holdsDataTemplateOf(Object owner) {
        return owner != null && templateOwner == owner;
    }

    /** The DATA header fields that change from packet to packet of one message. */
    private static void putPacketFields(byte[] h, Packet p) {
        putShort(h, OFF_PATH_ID, p.pathId);
        putShort(h, OFF_FLAGS, p.flags);
        putLong(h, OFF_CSN, p.connectionSequence);
        putLong(h, OFF_PSN, p.pathSequence);
        putLong(h, 64, p.payloadMessageOffset);
        putLong(h, 88, p.timestampNanos);
        putLong(h, 96, p.sequenceFloor);
    }

    /** {@link #encode}'s checks for a DATA packet of {@code payloadLength}; returns the datagram length. */
    private static int checkDataBounds(int payloadLength, ByteBuffer dst, int offset, ByteBuffer payloadSource,
            int payloadSourceIndex) {
        int length = encodedLength(PacketType.DATA, payloadLength);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("destination buffer is read-only");
        }
        if (offset < 0 || offset > dst.limit() - length) {
            throw new IllegalArgumentException("destination buffer too small: DATA needs " + length
                    + " bytes at offset " + offset + " but limit is " + dst.limit());
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
        return length;
    }

    /** The header in one bulk put, the payload, the checksum (as {@link #encode}'s tail). */
    private void finishData(byte[] h, int length, int payloadLength, ByteBuffer dst, int offset,
            ByteBuffer payloadSource, int payloadSourceIndex) {
        if (length <= WHOLE_COPY_BYTES && !dst.hasArray()) {
            // A short datagram into a buffer without an accessible array (direct, as drivers use)
            // is assembled behind the template's header, checksummed there and put whole, as the
            // decoder does (see decode): one bulk put and the array's checksum wrapper instead of
            // two puts, the buffer's checksum wrapper and a checked put of the trailer. The
            // template's header bytes stay as they are; only the bytes after it change.
            assembleShortData(h, length, payloadLength, dst, offset, payloadSource, payloadSourceIndex);
            return;
        }
        swap = dst.order() != ByteOrder.BIG_ENDIAN;
        dst.put(offset, h, 0, WireConstants.DATA_HEADER_BYTES);
        if (payloadLength > 0) {
            dst.put(offset + WireConstants.DATA_HEADER_BYTES, payloadSource, payloadSourceIndex, payloadLength);
        }
        int end = offset + length - WireConstants.CHECKSUM_BYTES;
        putInt(dst, end, checksum(dst, offset, end));
    }

    /**
     * A short DATA datagram ({@link #finishData}'s first case): the payload behind the header in
     * {@code h}, the checksum over both, and the whole put into {@code dst} in one bulk put, which
     * is the only write to {@code dst}.
     */
    private void assembleShortData(byte[] h, int length, int payloadLength, ByteBuffer dst, int offset,
            ByteBuffer payloadSource, int payloadSourceIndex) {
        if (payloadLength > 0) {
            payloadSource.get(payloadSourceIndex, h, WireConstants.DATA_HEADER_BYTES, payloadLength);
        }
        int trailer = length - WireConstants.CHECKSUM_BYTES;
        putInt(h, trailer, checksum(h, trailer));
        dst.put(offset, h, 0, length);
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

    /** CRC32C of {@code h[0, to)} as an int bit pattern. */
    private int checksum(byte[] h, int to) {
        CRC32C c = crc;
        c.reset();
        c.update(h, 0, to);
        return (int) c.getValue();
    }

    private static int u8(byte[] h, int i) {
        return h[i] & 0xFF;
    }

    private static int u16(byte[] h, int i) {
        return (short) SHORT.get(h, i) & 0xFFFF;
    }

    private static int getInt(byte[] h, int i) {
        return (int) INT.get(h, i);
    }

    private static long getLong(byte[] h, int i) {
        return (long) LONG.get(h, i);
    }

    private static void putShort(byte[] h, int i, int v) {
        SHORT.set(h, i, (short) v);
    }

    private static void putInt(byte[] h, int i, int v) {
        INT.set(h, i, v);
    }

    private static void putLong(byte[] h, int i, long v) {
        LONG.set(h, i, v);
    }

    /** The checksum trailer, big-endian whatever the buffer's order. */
    private int getInt(ByteBuffer b, int i) {
        int v = b.getInt(i);
        return swap ? Integer.reverseBytes(v) : v;
    }

    private void putInt(ByteBuffer b, int i, int v) {
        b.putInt(i, swap ? Integer.reverseBytes(v) : v);
    }
}
