package io.metaroce.core.api;

import io.metaroce.core.conn.Connection;

/** Connection life-cycle events from {@link io.metaroce.core.conn.Endpoint#pollEvents}. */
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
}
