package io.metaroce.core.sim.rocev2;

/**
 * Told by a {@link RoceV2Endpoint}, synchronously inside its input calls, when messages complete
 * and when a queue pair fails, so a driver can measure completion times. Arguments are primitives:
 * calling it allocates nothing. A listener may post new messages from these methods.
 *
 * <p>Implementations are called on the thread that drives the endpoint.
 */
public interface RoceV2Listener {
    /** A listener that ignores everything. */
    RoceV2Listener NONE = new RoceV2Listener() { };

    /** Requester side: every packet of a message of {@code bytes} on queue pair {@code qpn} is acknowledged. */
    default void onMessageCompleted(int qpn, long nowNanos, int bytes) {
    }

    /** Responder side: the last packet of a message of {@code bytes} arrived in order on queue pair {@code qpn}. */
    default void onMessageDelivered(int qpn, long nowNanos, int bytes) {
    }

    /**
     * Queue pair {@code qpn} went to the error state after more than {@code retryCount} timeouts in a
     * row; the messages it had not completed are lost.
     */
    default void onQueuePairFailed(int qpn, long nowNanos) {
    }
}
