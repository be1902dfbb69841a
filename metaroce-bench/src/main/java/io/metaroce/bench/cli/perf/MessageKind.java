package io.metaroce.bench.cli.perf;

/** The kinds of message a run counts, for the per-kind tallies. Thread-safe (an enum). */
public enum MessageKind {
    /** A SEND (client) or a receive it filled (server). */
    SEND,
    /** A plain WRITE (read back by the client in {@link Op#mixed}). */
    WRITE,
    /** A WRITE_WITH_IMM (client) or a receive it consumed (server). */
    WRITE_WITH_IMM,
    /** A READ. */
    READ,
    /** A ping-pong round trip. */
    PING
}
