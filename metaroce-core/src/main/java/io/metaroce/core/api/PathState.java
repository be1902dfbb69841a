package io.metaroce.core.api;

/**
 * The health of one path of a connection, as its sender judges it ([SPEC-PATH-9] to
 * [SPEC-PATH-13] of {@code docs/spec.md}). Congestion (ECN marks, a longer RTT, packets still
 * delivered) never changes a path's state: it only slows the path. Failure does: timeouts with no
 * progress move a path from ACTIVE to SUSPECT, then, while another path of the connection is in
 * service, to FAILED, where it carries no data and is probed back with exponential backoff.
 *
 * <p>Values are stable small integers, reported in {@link PathStats#state} and
 * {@link ConnectionListener#onPathStateChanged}. Constants only; thread-safe.
 */
public final class PathState {
    /** In service: carries new data and its own retransmissions. */
    public static final int ACTIVE = 0;
    /**
     * A retransmission timeout (or an unanswered probe) without progress since: the path still
     * retransmits what it lost, but gets no new data while an ACTIVE path exists.
     */
    public static final int SUSPECT = 1;
    /** Out of service: what was in flight on it was resent on other paths; probed back later. */
    public static final int FAILED = 2;
    /** A FAILED path whose PATH_PROBE is out; its answer makes it ACTIVE again. */
    public static final int PROBING = 3;

    private PathState() {
    }

    /** Whether a path in {@code state} may carry data (ACTIVE or SUSPECT). */
    public static boolean inService(int state) {
        return state == ACTIVE || state == SUSPECT;
    }

    /** A stable upper-case name. */
    public static String name(int state) {
        return switch (state) {
            case ACTIVE -> "ACTIVE";
            case SUSPECT -> "SUSPECT";
            case FAILED -> "FAILED";
            case PROBING -> "PROBING";
            default -> "UNKNOWN(" + state + ")";
        };
    }
}
