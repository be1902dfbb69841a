package io.metaroce.core.sim.rocev2;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes the baseline's packets, laid out like RoCEv2's (all fields big-endian):
 *
 * <pre>
 * BTH (12 bytes), every packet:
 *   0      opcode
 *   1      SE | M | PadCnt | TVer      always 0
 *   2..3   P_Key                       0xFFFF (the default partition)
 *   4      reserved                    0
 *   5..7   destination QP              24 bits
 *   8      AckReq (bit 7) | reserved   reserved bits 0
 *   9..11  PSN                         24 bits
 * SEND First/Middle/Last/Only: BTH, payload (1 byte or more), ICRC
 * ACKNOWLEDGE: BTH, AETH (syndrome 1 byte: 0x1F ACK, 0x60 NAK PSN sequence error; MSN 3 bytes), ICRC  = 20 bytes
 * CNP: BTH, 16 reserved zero bytes, ICRC                                                             = 32 bytes
 * ICRC (4 bytes): CRC32C of every byte before it except the payload
 * </pre>
 *
 * The payload's content is not modelled (the transport only needs its length), so the ICRC covers
 * the headers only and the encoder leaves the payload bytes as the buffer holds them. Decoding is
 * total: it returns a {@link RoceV2DecodeError} code and never throws.
 *
 * <p>Not thread-safe: holds scratch state; use one per endpoint.
 */
public final class RoceV2Codec {
    /** Bytes of the Base Transport Header. */
    public static final int BTH_BYTES = 12;
    /** Bytes of the ACK Extended Transport Header. */
    public static final int AETH_BYTES = 4;
    /** Bytes of the invariant CRC trailer. */
    public static final int ICRC_BYTES = 4;
    /** Bytes of a SEND packet besides its payload. */
    public static final int DATA_OVERHEAD_BYTES = BTH_BYTES + ICRC_BYTES;
    /** Bytes of an ACKNOWLEDGE packet. */
    public static final int ACK_BYTES = BTH_BYTES + AETH_BYTES + ICRC_BYTES;
    /** Bytes of a CNP. */
    public static final int CNP_BYTES = BTH_BYTES + 16 + ICRC_BYTES;
    /** The default partition key every packet carries. */
    public static final int DEFAULT_PKEY = 0xFFFF;
    /** AETH syndrome of an ACK (credit field 0b11111: no end-to-end credits). */
    public static final int SYNDROME_ACK = 0x1F;
    /** AETH syndrome prefix of a NAK (0b011 in the top three bits); the low five are the code. */
    public static final int SYNDROME_NAK = 0x60;
    /** NAK code: PSN sequence error (the responder expected another PSN, carried in the BTH). */
    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    /** Mask of a 24-bit field (PSN, QPN, MSN). */
    public static final int MASK_24 = 0xFF_FFFF;

    private final CRC32C crc = new CRC32C();
    private final byte[] scratch = new byte[CNP_BYTES];

    /**
     * Writes a SEND packet at index 0 of {@code dst}; returns its length ({@code payloadBytes +
     * DATA_OVERHEAD_BYTES}).
     */
    public int encodeSend(ByteBuffer dst, int opcode, int destQpn, boolean ackRequest, int psn, int payloadBytes) {
        writeBth(dst, opcode, destQpn, ackRequest, psn);
        int length = DATA_OVERHEAD_BYTES + payloadBytes;
        dst.putInt(length - ICRC_BYTES, icrc(dst, BTH_BYTES));
        return length;
    }

    /**
     * Writes an ACKNOWLEDGE: an ACK of every PSN up to and including {@code psn}, or (if
     * {@code nak}) a PSN sequence error NAK saying the responder expects {@code psn}. Returns its
     * length.
     */
    public int encodeAck(ByteBuffer dst, int destQpn, boolean nak, int psn, int msn) {
        writeBth(dst, RoceV2Opcode.ACKNOWLEDGE, destQpn, false, psn);
        dst.put(BTH_BYTES, (byte) (nak ? SYNDROME_NAK | NAK_PSN_SEQUENCE_ERROR : SYNDROME_ACK));
        put24(dst, BTH_BYTES + 1, msn);
        dst.putInt(ACK_BYTES - ICRC_BYTES, icrc(dst, BTH_BYTES + AETH_BYTES));
        return ACK_BYTES;
    }

    /** Writes a CNP for queue pair {@code destQpn}; returns its length. */
    public int encodeCnp(ByteBuffer dst, int destQpn) {
        writeBth(dst, RoceV2Opcode.CNP, destQpn, false, 0);
        for (int i = BTH_BYTES; i < CNP_BYTES - ICRC_BYTES; i++) {
            dst.put(i, (byte) 0);
        }
        dst.putInt(CNP_BYTES - ICRC_BYTES, icrc(dst, CNP_BYTES - ICRC_BYTES));
        return CNP_BYTES;
    }

    /**
     * Decodes the datagram at {@code src[offset, offset + length)} into {@code out} without
     * changing the buffer's position or limit. SEND packets longer than {@code maxDatagramBytes}
     * are rejected.
     *
     * @return {@link RoceV2DecodeError#OK} or the reason for rejecting it
     */
    public int decode(ByteBuffer src, int offset, int length, int maxDatagramBytes, RoceV2Packet out) {
        out.clear();
        if (offset < 0 || length < 0 || offset > src.limit() - length) {
            return RoceV2DecodeError.TRUNCATED;
        }
        if (length < BTH_BYTES + ICRC_BYTES) {
            return RoceV2DecodeError.TRUNCATED;
        }
        int opcode = src.get(offset) & 0xFF;
        int headerBytes;
        switch (opcode) {
            case RoceV2Opcode.SEND_FIRST, RoceV2Opcode.SEND_MIDDLE, RoceV2Opcode.SEND_LAST, RoceV2Opcode.SEND_ONLY -> {
                if (length == DATA_OVERHEAD_BYTES) {
                    return RoceV2DecodeError.TRUNCATED;
                }
                if (length > maxDatagramBytes) {
                    return RoceV2DecodeError.BAD_LENGTH;
                }
                headerBytes = BTH_BYTES;
            }
            case RoceV2Opcode.ACKNOWLEDGE -> {
                int r = exactLength(length, ACK_BYTES);
                if (r != RoceV2DecodeError.OK) {
                    return r;
                }
                headerBytes = BTH_BYTES + AETH_BYTES;
            }
            case RoceV2Opcode.CNP -> {
                int r = exactLength(length, CNP_BYTES);
                if (r != RoceV2DecodeError.OK) {
                    return r;
                }
                headerBytes = CNP_BYTES - ICRC_BYTES;
            }
            default -> {
                return RoceV2DecodeError.BAD_OPCODE;
            }
        }
        src.get(offset, scratch, 0, headerBytes);
        crc.reset();
        crc.update(scratch, 0, headerBytes);
        if ((int) crc.getValue() != src.getInt(offset + length - ICRC_BYTES)) {
            return RoceV2DecodeError.BAD_ICRC;
        }
        int flags = scratch[1] & 0xFF;
        int pkey = ((scratch[2] & 0xFF) << 8) | (scratch[3] & 0xFF);
        int ackByte = scratch[8] & 0xFF;
        boolean ackRequest = (ackByte & 0x80) != 0;
        if (flags != 0 || pkey != DEFAULT_PKEY || scratch[4] != 0 || (ackByte & 0x7F) != 0
                || (ackRequest && !RoceV2Opcode.isSend(opcode))) {
            return RoceV2DecodeError.BAD_HEADER;
        }
        out.opcode = opcode;
        out.destQpn = get24(scratch, 5);
        out.ackRequest = ackRequest;
        out.psn = get24(scratch, 9);
        if (opcode == RoceV2Opcode.ACKNOWLEDGE) {
            int syndrome = scratch[BTH_BYTES] & 0xFF;
            if (syndrome == SYNDROME_NAK + NAK_PSN_SEQUENCE_ERROR) {
                out.nak = true;
                out.nakCode = NAK_PSN_SEQUENCE_ERROR;
            } else if (syndrome != SYNDROME_ACK) {
                return RoceV2DecodeError.BAD_HEADER;
            }
            out.msn = get24(scratch, BTH_BYTES + 1);
        } else if (opcode == RoceV2Opcode.CNP) {
            if (out.psn != 0) {
                return RoceV2DecodeError.BAD_HEADER;
            }
            for (int i = BTH_BYTES; i < headerBytes; i++) {
                if (scratch[i] != 0) {
                    return RoceV2DecodeError.BAD_HEADER;
                }
            }
        } else {
            out.payloadBytes = length - DATA_OVERHEAD_BYTES;
        }
        return RoceV2DecodeError.OK;
    }

    private static int exactLength(int length, int expected) {
        if (length < expected) {
            return RoceV2DecodeError.TRUNCATED;
        }
        return length > expected ? RoceV2DecodeError.BAD_LENGTH : RoceV2DecodeError.OK;
    }

    private static void writeBth(ByteBuffer dst, int opcode, int destQpn, boolean ackRequest, int psn) {
        dst.put(0, (byte) opcode);
        dst.put(1, (byte) 0);
        dst.putShort(2, (short) DEFAULT_PKEY);
        dst.put(4, (byte) 0);
        put24(dst, 5, destQpn);
        dst.put(8, (byte) (ackRequest ? 0x80 : 0));
        put24(dst, 9, psn);
    }

    private int icrc(ByteBuffer dst, int headerBytes) {
        dst.get(0, scratch, 0, headerBytes);
        crc.reset();
        crc.update(scratch, 0, headerBytes);
        return (int) crc.getValue();
    }

    private static void put24(ByteBuffer dst, int index, int value) {
        dst.put(index, (byte) (value >>> 16));
        dst.put(index + 1, (byte) (value >>> 8));
        dst.put(index + 2, (byte) value);
    }

    private static int get24(byte[] src, int index) {
        return ((src[index] & 0xFF) << 16) | ((src[index + 1] & 0xFF) << 8) | (src[index + 2] & 0xFF);
    }
}
