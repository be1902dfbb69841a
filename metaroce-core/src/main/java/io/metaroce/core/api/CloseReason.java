package io.metaroce.core.api;

/** Why a connection ended. Values are stable. */
public enum CloseReason {
    /** This side closed it and the peer acknowledged. */
    LOCAL_CLOSE,
    /** The peer closed it. */
    PEER_CLOSE,
    /** This side aborted it. */
    LOCAL_ABORT,
    /** The peer aborted it. */
    PEER_ABORT,
    /** Nothing was heard from the peer for the idle timeout. */
    IDLE_TIMEOUT,
    /** Retransmissions went unanswered: the peer or every path to it is gone. */
    PEER_UNREACHABLE,
    /** The handshake did not finish in time. */
    HANDSHAKE_TIMEOUT,
    /** The peer broke the protocol. */
    PROTOCOL_VIOLATION
}
