package io.metaroce.core.wire;

/** Sizes and flag bits of the wire format. Normative in {@code docs/spec.md}. */
public final class WireConstants {
    /** Protocol version carried in byte 0 of every packet. */
    public static final int VERSION = 1;
    /** Bytes of the common header that starts every packet. */
    public static final int COMMON_HEADER_BYTES = 32;
    /** Bytes of the CRC32C trailer that ends every packet. */
    public static final int CHECKSUM_BYTES = 4;
    /** Bytes of a DATA packet before its payload (common header included). */
    public static final int DATA_HEADER_BYTES = 104;
    /** Bytes of a DATA packet besides its payload. */
    public static final int DATA_OVERHEAD_BYTES = DATA_HEADER_BYTES + CHECKSUM_BYTES;
    /** Total size of a READ_REQUEST packet. */
    public static final int READ_REQUEST_BYTES = 84;
    /** Total size of an ACK packet. */
    public static final int ACK_BYTES = 124;
    /** Total size of an ACK in the short form ({@link #FLAG_SHORT_SACK}, [SPEC-WIRE-31]). */
    public static final int ACK_SHORT_BYTES = 84;
    /** Total size of a NAK packet. */
    public static final int NAK_BYTES = 76;
    /** Total size of a CONNECT packet (with or without a cookie: it is padded so no reply is larger). */
    public static final int CONNECT_BYTES = 84;
    /** Total size of a CHALLENGE packet. */
    public static final int CHALLENGE_BYTES = 60;
    /** Total size of an ACCEPT packet (with the server's rate announcement, [SPEC-WIRE-24]). */
    public static final int ACCEPT_BYTES = 64;
    /** Total size of a CLOSE packet. */
    public static final int CLOSE_BYTES = 44;
    /** Total size of a PATH_PROBE or PROBE_ACK packet. */
    public static final int PROBE_BYTES = 52;
    /** Bits in the selective acknowledgement of an ACK. */
    public static final int SACK_BITS = 256;
    /** 64-bit words in the selective acknowledgement. */
    public static final int SACK_WORDS = SACK_BITS / 64;
    /** Bytes of the anti-spoofing cookie. */
    public static final int COOKIE_BYTES = 24;

    /** Header flag: the receiver should acknowledge this packet's path at once. */
    public static final int FLAG_ACK_NOW = 1;
    /** Header flag: this packet is a retransmission (informational; receivers must not depend on it). */
    public static final int FLAG_RETRANSMISSION = 2;
    /**
     * Header flag, on an ACK only: another packet follows this ACK in the same datagram (an ACK
     * riding ahead of a DATA packet on the same path, [SPEC-WIRE-30]).
     */
    public static final int FLAG_BUNDLED = 4;
    /**
     * Header flag, on an ACK only: the ACK is in the short form ({@link #ACK_SHORT_BYTES} bytes, one
     * 64-bit SACK word ending at the highest acknowledged path sequence number, [SPEC-WIRE-31]).
     */
    public static final int FLAG_SHORT_SACK = 8;

    /** DATA flag: {@link Packet#immediate} is valid (required for WRITE_WITH_IMM, optional for SEND). */
    public static final int DATA_FLAG_HAS_IMMEDIATE = 1;

    /** Largest message length the protocol allows: 2^62 bytes. */
    public static final long MAX_MESSAGE_LENGTH = 1L << 62;

    private WireConstants() {
    }
}
