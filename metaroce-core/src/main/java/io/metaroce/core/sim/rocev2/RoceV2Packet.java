package io.metaroce.core.sim.rocev2;

/**
 * One decoded baseline packet: the fields of its BTH and, for ACKNOWLEDGE, its AETH. One instance
 * is reused for every datagram, so decoding allocates nothing.
 *
 * <p>Not thread-safe.
 */
public final class RoceV2Packet {
    /** The BTH opcode ({@link RoceV2Opcode}). */
    public int opcode;
    /** The destination queue pair number (24 bits). */
    public int destQpn;
    /** The BTH AckReq bit: the requester asks for an acknowledgement of this packet. */
    public boolean ackRequest;
    /** The packet sequence number (24 bits). */
    public int psn;
    /** ACKNOWLEDGE only: whether the AETH is a NAK (else an ACK). */
    public boolean nak;
    /** ACKNOWLEDGE only: the NAK code ({@link RoceV2Codec#NAK_PSN_SEQUENCE_ERROR}). */
    public int nakCode;
    /** ACKNOWLEDGE only: the responder's message sequence number (24 bits). */
    public int msn;
    /** SEND only: payload bytes. */
    public int payloadBytes;

    /** Resets every field. */
    public void clear() {
        opcode = 0;
        destQpn = 0;
        ackRequest = false;
        psn = 0;
        nak = false;
        nakCode = 0;
        msn = 0;
        payloadBytes = 0;
    }
}
