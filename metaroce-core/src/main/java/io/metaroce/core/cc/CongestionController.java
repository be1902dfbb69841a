package io.metaroce.core.cc;

/**
 * The seam between a connection and its congestion control: one controller per connection sees
 * every path's sends, acknowledgements, losses, ECN feedback and the receiver's rate hint, and
 * decides how much each path may have in flight and when the next packet may leave.
 *
 * <p>Experimental SPI: implement it to try other algorithms. Called on the connection's thread
 * only; implementations must not allocate per call.
 */
public interface CongestionController {
    /**
     * Bytes path {@code pathId} may add to its flight now (0 or less: wait): for any transmission,
     * new data or a retransmission; {@link #carriesNewData} says which paths take new data.
     */
    long sendAllowanceBytes(int pathId, long nowNanos);

    /**
     * Whether path {@code pathId} is to take new data (a retransmission goes on the path that lost
     * it whatever this says, R-SACK-2): a controller may keep a small share on fewer paths than the
     * connection has in service [SPEC-CC-42]. Its answer changes only when one of the
     * {@code on...} methods is called (its first question may fix it); the connection asks it
     * before {@link #sendAllowanceBytes} when it picks a path for new data. Default: true.
     */
    default boolean carriesNewData(int pathId, long nowNanos) {
        return true;
    }

    /**
     * The paths (bit {@code i}: path {@code i}, below 64) whose {@link #carriesNewData} answers
     * {@link #newDataPathsMask} gives: a connection asking about many paths at once reads their
     * answers there, in one call, and asks {@link #carriesNewData} for the others. The set and the
     * answers hold until an {@code on...} method is called or a path outside the set is asked
     * about (either may change them), and no other question of this interface changes the answers
     * of the paths in the set. Default: none, every path is asked.
     */
    default long newDataPathsAnswered() {
        return 0;
    }

    /**
     * Bit {@code i} set: path {@code i} takes new data, what {@link #carriesNewData} would answer
     * for it at {@code nowNanos}, for the paths of {@link #newDataPathsAnswered} (the other bits
     * mean nothing); the call counts as a question at {@code nowNanos} as
     * {@link #carriesNewData} does. Default: every path.
     */
    default long newDataPathsMask(long nowNanos) {
        return -1L;
    }

    /** Earliest time the next packet may leave on {@code pathId} (pacing); at or before now means now. */
    long nextSendTimeNanos(int pathId, long nowNanos);

    /**
     * When a connection whose packets on {@code pathId} wait only for pacing should be woken to
     * send them: at or after {@link #nextSendTimeNanos}, late enough that the wake-up finds a batch
     * to send rather than one packet ([SPEC-CC-38]), but no later than the pacing time of the last
     * of the {@code readyBytes} (datagram bytes) that wait: 0 or one datagram's worth means the
     * pacing time itself. Default: {@link #nextSendTimeNanos}.
     */
    default long pacedWakeNanos(int pathId, long nowNanos, long readyBytes) {
        return nextSendTimeNanos(pathId, nowNanos);
    }

    /**
     * Bytes waiting at or beyond which {@link #pacedWakeNanos}'s answer no longer depends on its
     * {@code readyBytes}, so the connection need count no further; 0 (the default): it never
     * depends on them, and the connection passes 0 without counting.
     */
    default long pacedWakeReadyBytesCap() {
        return 0;
    }

    /**
     * Whether the connection may reuse this controller's pacing answers while none of its
     * {@code on...} methods is called: {@link #sendAllowanceBytes} and {@link #carriesNewData}
     * then return the same value at any time, and {@link #nextSendTimeNanos} returns {@code max(T, nowNanos)} for a {@code T} of
     * the path that does not depend on {@code nowNanos} once asked. A connection that asks for
     * its next wake-up after every input then walks its paths only when something changed (it
     * still repeats {@link #sendAllowanceBytes} for paths without allowance, so a controller may
     * note there that a window holds a path back). Default: false, every question is asked.
     */
    default boolean pacingAnswersReusable() {
        return false;
    }

    /**
     * Whether asking {@link #sendAllowanceBytes} for {@code pathId} again, at {@code nowNanos} or
     * later and before any {@code on...} method is called, would change nothing in this
     * controller: then a connection that reuses its pacing answers ({@link #pacingAnswersReusable})
     * need not repeat that question for the path. Asked right after {@link #sendAllowanceBytes}
     * returned no allowance for the path. Default: false, the question is always repeated.
     */
    default boolean allowanceQuestionSettled(int pathId, long nowNanos) {
        return false;
    }

    /**
     * The connection's local id, told once, before any question: a controller may derive from it
     * what must differ from connection to connection without a random source (which of its paths
     * take a small share, [SPEC-CC-42]). Default: nothing.
     */
    default void onConnectionId(long connectionId) {
    }

    /**
     * The earliest time at which asking {@link #sendAllowanceBytes} for {@code pathId} again,
     * before any {@code on...} method is called, could change something in this controller, or
     * {@link Long#MAX_VALUE} if it never could: an endpoint that serves only the connections with
     * something due asks a connection again then, as a walk of every connection on every input
     * would have. Default: {@link Long#MIN_VALUE}, at every chance (such a connection is served
     * on every call of its endpoint).
     */
    default long allowanceQuestionChangesNanos(int pathId) {
        return Long.MIN_VALUE;
    }

    /** A packet of {@code bytes} left on {@code pathId}. */
    void onPacketSent(int pathId, int bytes, long nowNanos);

    /** A packet of {@code bytes} was acknowledged on {@code pathId}; {@code rttNanos} is a sample or -1. */
    void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos);

    /** A packet of {@code bytes} was lost on {@code pathId}. */
    void onPacketLost(int pathId, int bytes, long nowNanos);

    /**
     * A transmission of {@code bytes} on {@code pathId} that was reported lost
     * ({@link #onPacketLost}) has been acknowledged after all: the loss was spurious (the packet
     * was slow, not lost) [SPEC-CC-27]. A controller that cut its window for that loss may undo the
     * cut (Eifel, F-RTO). Its bytes already left the flight with the loss. Default: nothing.
     */
    default void onSpuriousLoss(int pathId, int bytes, long nowNanos) {
    }

    /** A packet of {@code bytes} left the flight without a verdict (refused by the receiver). */
    void onPacketDiscarded(int pathId, int bytes, long nowNanos);

    /** New ECN feedback for {@code pathId}: packets newly reported ECN-capable and newly CE-marked. */
    void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos);

    /** The receiver's rate allocation for this sender, bytes per second (0: none). */
    void onRateHint(long bytesPerSecond, long nowNanos);

    /**
     * The share the server announced in its ACCEPT, bytes per second (0: none), before this side
     * sent anything [SPEC-CC-28]. It is not a hint (only an ACK ends the first flight): a controller
     * may size its first flight's spread by it. Default: nothing.
     */
    default void onAnnouncedShare(long bytesPerSecond, long nowNanos) {
    }

    /**
     * The connection is about to ask for its first send time ({@link #nextSendTimeNanos}) and its
     * first packet will be {@code datagramBytes} long (108 bytes of header and trailer with the
     * payload, or a READ_REQUEST's 84): called once, before that first question [SPEC-CC-16]. With
     * equal-length packets ([SPEC-MSG-3]) a packet is often shorter than {@code maxDatagramBytes}
     * (3,385 bytes for a 16 KiB message of 4,096-byte datagrams); a controller may size its first
     * flight's spread and its first pacing interval by it. Default: nothing.
     */
    default void onFirstPacketBytes(int datagramBytes, long nowNanos) {
    }

    /**
     * Path {@code pathId} was taken out of service (FAILED): everything in flight on it has been
     * reported lost, and it carries nothing until {@link #onPathRestored}. Default: nothing.
     */
    default void onPathFailed(int pathId, long nowNanos) {
    }

    /**
     * Path {@code pathId} answered a probe after a failure and is ACTIVE again; a controller with
     * per-path windows restarts it small. Default: nothing.
     */
    default void onPathRestored(int pathId, long nowNanos) {
    }

    /**
     * Path {@code pathId} stopped ({@code takesNewData} false) or resumed taking new data while it
     * stays in service: it turned SUSPECT while another path is ACTIVE, or came back
     * [SPEC-PATH-14]. A controller that shares a rate among the paths leaves such a path out of the
     * sharing, since it only carries probes and its own retransmissions. Default: nothing.
     */
    default void onPathNewData(int pathId, boolean takesNewData, long nowNanos) {
    }
}
