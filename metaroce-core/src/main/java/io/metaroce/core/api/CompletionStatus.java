package io.metaroce.core.api;

/** The outcome of a work request. Values are stable. */
public final class CompletionStatus {
    /** Done as asked. */
    public static final int SUCCESS = 0;
    /** The peer refused a WRITE or READ: unknown key, out of the region's bounds, or no access right. */
    public static final int REMOTE_ACCESS_ERROR = 1;
    /** The peer refused a SEND: longer than the receive it matched. */
    public static final int REMOTE_INVALID_REQUEST = 2;
    /** A receive was too short for the SEND that matched it; nothing was written past its end. */
    public static final int LOCAL_LENGTH_ERROR = 3;
    /** The connection closed before the work request finished. */
    public static final int CONNECTION_CLOSED = 4;
    /** The peer stopped answering (retransmission timeouts exhausted, or idle timeout). */
    public static final int PEER_UNREACHABLE = 5;
    /** A local region was deregistered while a work request still used it. */
    public static final int LOCAL_PROTECTION_ERROR = 6;

    private CompletionStatus() {
    }

    /** A stable upper-case name. */
    public static String name(int status) {
        return switch (status) {
            case SUCCESS -> "SUCCESS";
            case REMOTE_ACCESS_ERROR -> "REMOTE_ACCESS_ERROR";
            case REMOTE_INVALID_REQUEST -> "REMOTE_INVALID_REQUEST";
            case LOCAL_LENGTH_ERROR -> "LOCAL_LENGTH_ERROR";
            case CONNECTION_CLOSED -> "CONNECTION_CLOSED";
            case PEER_UNREACHABLE -> "PEER_UNREACHABLE";
            case LOCAL_PROTECTION_ERROR -> "LOCAL_PROTECTION_ERROR";
            default -> "UNKNOWN(" + status + ")";
        };
    }
}
