package io.metaroce.core.wire;

/**
 * Result codes of {@link PacketCodec#decode}. {@link #OK} is zero; every other code names the first
 * rule the datagram broke, in the order the decoder checks them. Codes are dense in
 * {@code [0, COUNT)} so that per-reason counters can be an array indexed by code. Normative in
 * {@code docs/spec.md} section "Packets" ({@code [SPEC-WIRE-27]}).
 */
public final class DecodeError {
    /** The datagram is a valid packet. */
    public static final int OK = 0;
    /** The datagram is shorter than the common header plus the checksum trailer (36 bytes). */
    public static final int TOO_SHORT = 1;
    /** The CRC32C trailer does not match the preceding bytes. */
    public static final int BAD_CHECKSUM = 2;
    /** Byte 0 is not {@link WireConstants#VERSION}. */
    public static final int BAD_VERSION = 3;
    /** Byte 1 is not a known {@link PacketType}. */
    public static final int UNKNOWN_TYPE = 4;
    /** The datagram length is not the length the packet type requires. */
    public static final int BAD_LENGTH = 5;
    /** A field holds a value the specification forbids. */
    public static final int BAD_FIELD = 6;

    /** Number of codes: every code is in {@code [0, COUNT)}. */
    public static final int COUNT = 7;

    private DecodeError() {
    }

    /** A stable upper-case name for logs, metrics and tools. */
    public static String name(int code) {
        return switch (code) {
            case OK -> "OK";
            case TOO_SHORT -> "TOO_SHORT";
            case BAD_CHECKSUM -> "BAD_CHECKSUM";
            case BAD_VERSION -> "BAD_VERSION";
            case UNKNOWN_TYPE -> "UNKNOWN_TYPE";
            case BAD_LENGTH -> "BAD_LENGTH";
            case BAD_FIELD -> "BAD_FIELD";
            default -> "UNKNOWN(" + code + ")";
        };
    }
}
