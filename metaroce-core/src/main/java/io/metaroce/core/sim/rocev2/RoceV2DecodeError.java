package io.metaroce.core.sim.rocev2;

/**
 * Why {@link RoceV2Codec#decode} rejected a datagram; {@link RoceV2EndpointStats#malformed} counts
 * each kind.
 *
 * <p>Constants only; thread-safe.
 */
public final class RoceV2DecodeError {
    /** The datagram is valid. */
    public static final int OK = 0;
    /** Shorter than its opcode's fixed layout, or data without payload. */
    public static final int TRUNCATED = 1;
    /** The ICRC does not match the headers. */
    public static final int BAD_ICRC = 2;
    /** An opcode the baseline does not use. */
    public static final int BAD_OPCODE = 3;
    /** A header field with a value the baseline never sends (version, partition key, reserved bits, NAK code). */
    public static final int BAD_HEADER = 4;
    /** Longer than the opcode allows (an ACK or CNP with extra bytes, data beyond the MTU). */
    public static final int BAD_LENGTH = 5;
    /** Number of codes. */
    public static final int COUNT = 6;

    private RoceV2DecodeError() {
    }

    /** A short name of {@code code}. */
    public static String name(int code) {
        return switch (code) {
            case OK -> "ok";
            case TRUNCATED -> "truncated";
            case BAD_ICRC -> "bad ICRC";
            case BAD_OPCODE -> "bad opcode";
            case BAD_HEADER -> "bad header";
            case BAD_LENGTH -> "bad length";
            default -> "unknown(" + code + ")";
        };
    }
}
