package io.metaroce.core.api;

/**
 * Result codes of posting a work request. Misuse (bad arguments) throws instead; these codes are
 * for conditions a correct program meets at run time and can wait out.
 */
public final class PostResult {
    /** Accepted; a completion will follow. */
    public static final int OK = 0;
    /** The connection's work-request or receive table is full; poll completions and retry. */
    public static final int QUEUE_FULL = 1;
    /** The connection is closing or closed; no completion will follow. */
    public static final int CLOSED = 2;
    /** The connection is not established yet; retry after it is. */
    public static final int NOT_CONNECTED = 3;

    private PostResult() {
    }

    /** A stable upper-case name. */
    public static String name(int result) {
        return switch (result) {
            case OK -> "OK";
            case QUEUE_FULL -> "QUEUE_FULL";
            case CLOSED -> "CLOSED";
            case NOT_CONNECTED -> "NOT_CONNECTED";
            default -> "UNKNOWN(" + result + ")";
        };
    }
}
