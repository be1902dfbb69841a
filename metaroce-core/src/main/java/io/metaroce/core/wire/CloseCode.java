package io.metaroce.core.wire;

/** CLOSE codes. Normative in {@code docs/spec.md}. */
public final class CloseCode {
    /** Graceful close: every work request posted before the close has completed. */
    public static final int NO_ERROR = 0;
    /** The peer violated the protocol. */
    public static final int PROTOCOL_VIOLATION = 1;
    /** The application aborted the connection; outstanding work is flushed with an error. */
    public static final int APPLICATION_ABORT = 2;

    private CloseCode() {
    }

    /** Whether {@code code} is a known close code. */
    public static boolean isValid(int code) {
        return code >= NO_ERROR && code <= APPLICATION_ABORT;
    }
}
