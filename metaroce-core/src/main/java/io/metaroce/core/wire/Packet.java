package io.metaroce.core.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One decoded (or to-be-encoded) MetaRoCE packet: the union of every packet type's fields.
 *
 * <p>A single instance is reused for every packet on a thread, so decoding and encoding allocate
 * nothing. Fields that a type does not carry are ignored on encode and zeroed on decode, so
 * nothing of an earlier packet shows through (a DATA decode zeroes only the fields DATA does not
 * carry, {@link #clearOutsideData}, and writes the rest).
 * Field meanings and sizes are normative in {@code docs/spec.md} section "Packets". The payload of
 * a DATA packet is usually not copied by the decoder: {@link #payloadOffset} and
 * {@link #payloadLength} point into the buffer that was decoded. When the decoder copied the whole
 * datagram to checksum it (a short datagram in a buffer without an accessible array),
 * {@link #payloadCopy} holds that copy instead: the codec's internal array, with the payload at
 * {@link WireConstants#DATA_HEADER_BYTES}, valid only until the codec's next decode.
 *
 * <p>Not thread-safe; one instance per thread.
 */
public final class Packet {
    // ---- common header (every packet) ----
    /** {@link PacketType} code. */
    public int type;
    /** Path id (u16). For ACK, NAK, PATH_PROBE and PROBE_ACK: the path the packet is about. */
    public int pathId;
    /** Header flags (u16), see {@link WireConstants#FLAG_ACK_NOW}. */
    public int flags;
    /** Destination connection id (u64); 0 only on CONNECT. */
    public long destinationConnectionId;
    /** Connection sequence number (u64); 0 on packets that are not reliably delivered. */
    public long connectionSequence;
    /** Path sequence number (u64); 0 on packets that do not consume one. */
    public long pathSequence;

    // ---- DATA and READ_REQUEST ----
    /** {@link DataOpcode} code (DATA only). */
    public int opcode;
    /** DATA flags (u8), see {@link WireConstants#DATA_FLAG_HAS_IMMEDIATE}. */
    public int dataFlags;
    /** Stream id (u32, DATA, READ_REQUEST, NAK). */
    public int streamId;
    /** Message sequence number within the stream (DATA, READ_REQUEST, NAK). */
    public long messageSequence;
    /** Receive sequence number within the stream (DATA SEND and WRITE_WITH_IMM). */
    public long receiveSequence;
    /** Total message length in bytes (DATA), or the READ length (READ_REQUEST). */
    public long messageLength;
    /** Offset of this packet's payload within the message (DATA). */
    public long payloadMessageOffset;
    /** Byte offset inside the target region (DATA WRITE*, READ_REQUEST). */
    public long remoteOffset;
    /** Remote key naming the target region (u32; DATA WRITE*, READ_REQUEST). */
    public int remoteKey;
    /** Immediate data (u32; DATA when {@link WireConstants#DATA_FLAG_HAS_IMMEDIATE} is set). */
    public int immediate;
    /** Sender's send time in nanoseconds of its own clock (DATA, READ_REQUEST, PATH_PROBE, PROBE_ACK echo). */
    public long timestampNanos;
    /** Sender's connection-sequence floor: every CSN below it is acknowledged or abandoned (DATA, READ_REQUEST). */
    public long sequenceFloor;
    /** Absolute index of the DATA payload in the decoded buffer (decode), or ignored (encode). */
    public int payloadOffset;
    /** DATA payload length in bytes. */
    public int payloadLength;
    /**
     * The decoder's checksummed copy of the whole DATA datagram when it made one (a short datagram
     * in a buffer without an accessible array, see {@code PacketCodec#decode}), with the payload at
     * {@link WireConstants#DATA_HEADER_BYTES}; null when the payload lies only in the decoded buffer
     * (at {@link #payloadOffset}), and for every other type. The codec's own array: valid until it
     * decodes its next packet, and never written by the reader.
     */
    public byte[] payloadCopy;

    // ---- ACK ----
    /** Path sequence number of bit 0 of the selective acknowledgement. */
    public long sackBase;
    /** The 256-bit selective acknowledgement: word i, bit j (LSB first) acknowledges {@code sackBase + 64*i + j}. */
    public final long[] sackBits = new long[WireConstants.SACK_WORDS];
    /** Echoed timestamp of the highest-numbered packet received on the path. */
    public long echoTimestampNanos;
    /** Time the receiver held that packet before acknowledging it. */
    public long ackDelayNanos;
    /** Cumulative count of ECN-capable (ECT(0), ECT(1) or CE) data packets received on the path. */
    public long ectCount;
    /** Cumulative count of CE-marked data packets received on the path. */
    public long ceCount;
    /** The receiver's rate allocation for this sender in bytes per second; 0 means no limit (ACK; ACCEPT: the share announced before any data). */
    public long rateHintBytesPerSecond;
    /** The receiver's cumulative connection sequence: every CSN below it is final at the receiver. */
    public long cumulativeSequence;

    // ---- NAK ----
    /** {@link NakCode} code. */
    public int nakCode;
    /** Path sequence number of the refused packet. */
    public long refusedPathSequence;
    /** Connection sequence number of the refused packet. */
    public long refusedConnectionSequence;
    /** Receiver's suggested delay before a retry (RECEIVER_NOT_READY), nanoseconds. */
    public long retryAfterNanos;

    // ---- CONNECT, CHALLENGE, ACCEPT ----
    /** The sender's own connection id (CONNECT, ACCEPT). */
    public long sourceConnectionId;
    /**
     * Largest datagram the sender accepts (u32 bit pattern; CONNECT, ACCEPT). The decoder guarantees
     * at least 256 compared unsigned; a value with the top bit set is valid on the wire, so read it
     * with {@link Integer#toUnsignedLong(int)} or clamp it before using it as a size.
     */
    public int maxDatagramBytes;
    /** Paths the client intends to open (u16, at least 1; CONNECT). */
    public int pathCount;
    /**
     * ACCEPT: how many ACCEPTs the server sent the connection before this one (u16, wrapping), so a
     * client keeps the newest announced share when they arrive out of order [SPEC-CONN-17]; 0 from
     * a server that does not announce again.
     */
    public int announcementSequence;
    /**
     * Connection-sequence window the sender's receiver tracks (u32 bit pattern; CONNECT, ACCEPT).
     * The decoder guarantees at least 64 compared unsigned; read it with
     * {@link Integer#toUnsignedLong(int)}.
     */
    public int sequenceWindow;
    /** Whether {@link #cookie} is present (CONNECT); always true for CHALLENGE. */
    public boolean hasCookie;
    /** Anti-spoofing cookie (CONNECT, CHALLENGE), {@link WireConstants#COOKIE_BYTES} long. */
    public final byte[] cookie = new byte[WireConstants.COOKIE_BYTES];

    // ---- CLOSE ----
    /** {@link CloseCode} code. */
    public int closeCode;
    /** Whether this CLOSE answers the peer's CLOSE. */
    public boolean closeReply;

    // ---- PATH_PROBE, PROBE_ACK ----
    /** Probe identifier, echoed by PROBE_ACK. */
    public long probeId;

    /** The cookie's bytes eight at a time, for {@link #clearCookie}. */
    private static final VarHandle COOKIE_WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    static {
        if (WireConstants.COOKIE_BYTES % Long.BYTES != 0) {
            throw new ExceptionInInitializerError("clearCookie zeroes whole words; COOKIE_BYTES is " + WireConstants.COOKIE_BYTES);
        }
    }

    /** Resets every field to zero so that stale values from an earlier packet cannot leak through. */
    public void clear() {
        clearScalars();
        clearSackBits();
        clearCookie();
    }

    /**
     * Zeroes {@link #sackBits}. A loop of constant length, which the JIT unrolls into plain
     * stores: {@code Arrays.fill} on so short an array cost a call into a fill stub on every packet
     * and showed up in profiles of the decoder.
     */
    public void clearSackBits() {
        long[] bits = sackBits;
        for (int i = 0; i < WireConstants.SACK_WORDS; i++) {
            bits[i] = 0;
        }
    }

    /**
     * Zeroes {@link #cookie}, a word at a time: a loop of constant length that the JIT unrolls into
     * three stores. A constant-length {@code System.arraycopy} from a zero array was a call into a
     * copy stub on every DATA packet decoded (C2 expands copies of at most 8 elements only).
     */
    public void clearCookie() {
        byte[] c = cookie;
        for (int i = 0; i < WireConstants.COOKIE_BYTES; i += Long.BYTES) {
            COOKIE_WORD.set(c, i, 0L);
        }
    }

    /**
     * Resets every field a DATA packet does not carry (the arrays included), leaving those it does
     * as they are: the decoder of a DATA packet then writes every one of those, so this and the
     * decoder together leave nothing of an earlier packet behind at about half the stores of
     * {@link #clearScalars} and the two array resets. {@code PacketDecodePropertyTest} checks that
     * a DATA packet decoded into a packet full of stale values equals one decoded into a fresh one.
     */
    public void clearOutsideData() {
        sackBase = 0;
        clearSackBits();
        echoTimestampNanos = 0;
        ackDelayNanos = 0;
        ectCount = 0;
        ceCount = 0;
        rateHintBytesPerSecond = 0;
        cumulativeSequence = 0;
        nakCode = 0;
        refusedPathSequence = 0;
        refusedConnectionSequence = 0;
        retryAfterNanos = 0;
        sourceConnectionId = 0;
        maxDatagramBytes = 0;
        pathCount = 0;
        announcementSequence = 0;
        sequenceWindow = 0;
        hasCookie = false;
        clearCookie();
        closeCode = 0;
        closeReply = false;
        probeId = 0;
    }

    /**
     * Resets every field except the two arrays ({@link #sackBits}, {@link #cookie}), which the
     * types that carry them always overwrite in full: the cheap reset of the per-packet paths.
     */
    public void clearScalars() {
        type = 0;
        pathId = 0;
        flags = 0;
        destinationConnectionId = 0;
        connectionSequence = 0;
        pathSequence = 0;
        opcode = 0;
        dataFlags = 0;
        streamId = 0;
        messageSequence = 0;
        receiveSequence = 0;
        messageLength = 0;
        payloadMessageOffset = 0;
        remoteOffset = 0;
        remoteKey = 0;
        immediate = 0;
        timestampNanos = 0;
        sequenceFloor = 0;
        payloadOffset = 0;
        payloadLength = 0;
        payloadCopy = null;
        sackBase = 0;
        echoTimestampNanos = 0;
        ackDelayNanos = 0;
        ectCount = 0;
        ceCount = 0;
        rateHintBytesPerSecond = 0;
        cumulativeSequence = 0;
        nakCode = 0;
        refusedPathSequence = 0;
        refusedConnectionSequence = 0;
        retryAfterNanos = 0;
        sourceConnectionId = 0;
        maxDatagramBytes = 0;
        pathCount = 0;
        announcementSequence = 0;
        sequenceWindow = 0;
        hasCookie = false;
        closeCode = 0;
        closeReply = false;
        probeId = 0;
    }
}
