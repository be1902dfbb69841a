package io.metaroce.core.wire;

/** Packet type codes (the second byte of every packet). Normative in {@code docs/spec.md}. */
public final class PacketType {
    public static final int DATA = 1;
    public static final int READ_REQUEST = 2;
    public static final int ACK = 3;
    public static final int NAK = 4;
    public static final int CONNECT = 5;
    public static final int CHALLENGE = 6;
    public static final int ACCEPT = 7;
    public static final int CLOSE = 8;
    public static final int PATH_PROBE = 9;
    public static final int PROBE_ACK = 10;

    private PacketType() {
    }

    /** Whether {@code type} is a known packet type. */
    public static boolean isValid(int type) {
        return type >= DATA && type <= PROBE_ACK;
    }

    /** A stable upper-case name for logs and tools. */
    public static String name(int type) {
        return switch (type) {
            case DATA -> "DATA";
            case READ_REQUEST -> "READ_REQUEST";
            case ACK -> "ACK";
            case NAK -> "NAK";
            case CONNECT -> "CONNECT";
            case CHALLENGE -> "CHALLENGE";
            case ACCEPT -> "ACCEPT";
            case CLOSE -> "CLOSE";
            case PATH_PROBE -> "PATH_PROBE";
            case PROBE_ACK -> "PROBE_ACK";
            default -> "UNKNOWN(" + type + ")";
        };
    }
}
