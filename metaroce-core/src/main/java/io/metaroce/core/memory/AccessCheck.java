package io.metaroce.core.memory;

/**
 * Result codes of {@link ProtectionDomain#checkRemote} and {@link ProtectionDomain#checkLocal}:
 * plain {@code int}s so a check allocates nothing. Every code but {@link #OK} is a refusal; a
 * refused remote access is answered with NAK code 2, REMOTE_ACCESS_ERROR. Normative in
 * {@code docs/spec.md}, section "Memory", rules [SPEC-MEM-9] to [SPEC-MEM-11].
 */
public final class AccessCheck {
    /** The access is allowed. */
    public static final int OK = 0;
    /** No live region has this key in the protection domain (or the region belongs to another one). */
    public static final int UNKNOWN_KEY = 1;
    /** The key named a region that has been deregistered (or whose memory has been freed). */
    public static final int REGION_CLOSED = 2;
    /** The range is not inside the region (negative offset or length, or past the end). */
    public static final int OUT_OF_BOUNDS = 3;
    /** The region does not grant the required access right. */
    public static final int ACCESS_DENIED = 4;

    /** Number of codes; codes are {@code 0 <= code < COUNT}. */
    public static final int COUNT = 5;

    private static final String[] NAMES = {"OK", "UNKNOWN_KEY", "REGION_CLOSED", "OUT_OF_BOUNDS", "ACCESS_DENIED"};

    private AccessCheck() {
    }

    /** Whether {@code code} is a known result code. */
    public static boolean isValid(int code) {
        return code >= OK && code < COUNT;
    }

    /** The constant's name, e.g. {@code "OUT_OF_BOUNDS"}; {@code "UNKNOWN(code)"} for an unknown code. */
    public static String name(int code) {
        return isValid(code) ? NAMES[code] : "UNKNOWN(" + code + ")";
    }
}
