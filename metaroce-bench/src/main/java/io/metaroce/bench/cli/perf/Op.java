package io.metaroce.bench.cli.perf;

/**
 * What a bandwidth run posts. Lower case so the option reads {@code --op send}. Thread-safe (an enum).
 */
public enum Op {
    /** SENDs into receives the server keeps posted; the server checks each message. */
    send,
    /**
     * WRITEs with immediate data into the server's memory; each consumes a posted receive, which is
     * how the server learns that a message landed and checks its bytes (a plain WRITE gives the
     * receiver no signal to check by).
     */
    write,
    /** READs of patterns the server wrote into its memory; the client checks each message. */
    read,
    /**
     * SEND, WRITE (read back and checked by the client), WRITE_WITH_IMM and READ in turn on every
     * slot: what {@code metaroce demo} runs.
     */
    mixed;

    /** Whether this op has the server post receives (SEND and WRITE_WITH_IMM consume them). */
    boolean consumesReceives() {
        return this == send || this == write || this == mixed;
    }

    /** Whether the server needs a read area filled with patterns. */
    boolean readsServerMemory() {
        return this == read || this == mixed;
    }
}
