package io.metaroce.core.sim.rocev2;

/**
 * The BTH opcodes the baseline uses: the reliable-connected SEND opcodes, ACKNOWLEDGE and the
 * RoCEv2 CNP, with their InfiniBand values.
 *
 * <p>Constants only; thread-safe.
 */
public final class RoceV2Opcode {
    /** RC SEND First: the first packet of a message of several packets. */
    public static final int SEND_FIRST = 0x00;
    /** RC SEND Middle: a full packet inside a message. */
    public static final int SEND_MIDDLE = 0x01;
    /** RC SEND Last: the last packet of a message of several packets. */
    public static final int SEND_LAST = 0x02;
    /** RC SEND Only: a message of one packet. */
    public static final int SEND_ONLY = 0x04;
    /** RC Acknowledge: carries an AETH (ACK or NAK). */
    public static final int ACKNOWLEDGE = 0x11;
    /** RoCEv2 Congestion Notification Packet. */
    public static final int CNP = 0x81;

    private RoceV2Opcode() {
    }

    /** Whether {@code opcode} is one of the four SEND opcodes. */
    public static boolean isSend(int opcode) {
        return opcode == SEND_FIRST || opcode == SEND_MIDDLE || opcode == SEND_LAST || opcode == SEND_ONLY;
    }

    /** Whether a SEND opcode ends a message. */
    public static boolean endsMessage(int opcode) {
        return opcode == SEND_LAST || opcode == SEND_ONLY;
    }

    /** Whether a SEND opcode begins a message. */
    public static boolean beginsMessage(int opcode) {
        return opcode == SEND_FIRST || opcode == SEND_ONLY;
    }
}
