package io.metaroce.core.api;

import io.metaroce.core.conn.Connection;

/**
 * Connection life-cycle and path health events from {@link io.metaroce.core.conn.Endpoint#pollEvents}.
 * Called on the endpoint's thread; implementations need not be thread-safe for the engine's sake.
 */
public interface ConnectionListener {
    /** An outgoing connection finished its handshake; work can be posted. */
    default void onConnected(Connection connection) {
    }

    /** An incoming connection was accepted; work can be posted. */
    default void onAccepted(Connection connection) {
    }

    /** A connection ended; every work request on it has completed. */
    default void onClosed(Connection connection, CloseReason reason) {
    }

    /**
     * Path {@code pathId} of {@code connection} changed health: {@code state} is a
     * {@link PathState} value (ACTIVE, SUSPECT, FAILED, PROBING) [SPEC-PATH-9]. Reported once per
     * change seen at the end of an input, timer or transmit call (a FAILED to PROBING to FAILED
     * round within one call is not reported). A driver may answer FAILED by moving the path to a
     * fresh source port with {@link Connection#repath} [SPEC-PATH-13].
     */
    default void onPathStateChanged(Connection connection, int pathId, int state) {
    }
}
