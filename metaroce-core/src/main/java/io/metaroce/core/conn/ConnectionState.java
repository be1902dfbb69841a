package io.metaroce.core.conn;

/** Life-cycle states of a connection. Normative in {@code docs/spec.md}, section "Connection states". */
public enum ConnectionState {
    /** Client: CONNECT sent, waiting for ACCEPT (or a CHALLENGE to answer). */
    CONNECTING,
    /** Work can be posted and flows both ways. */
    ESTABLISHED,
    /** Graceful close asked: no new work; outstanding work finishes, then CLOSE is sent. */
    CLOSE_PENDING,
    /** CLOSE sent; waiting for the peer's reply. */
    CLOSING,
    /** The peer closed; answering its CLOSE retransmissions for a while. */
    DRAINING,
    /** Gone; every work request completed. */
    CLOSED
}
