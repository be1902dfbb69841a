package io.metaroce.bench.cli.perf;

/**
 * A perf run could not go on (no server, a refused run, a peer that went away); the message says
 * what happened and is printed as is. Thread-safe (immutable once thrown).
 */
public final class PerfException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With a message for the user. */
    public PerfException(String message) {
        super(message);
    }

    /** With a message for the user and the underlying cause. */
    public PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}
