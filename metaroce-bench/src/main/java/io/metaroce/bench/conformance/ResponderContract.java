package io.metaroce.bench.conformance;

/**
 * The conformance responder contract of docs/spec.md chapter 14 ([SPEC-CONF-1] to
 * [SPEC-CONF-5]): what an implementation under test runs so that the suite can make it send.
 *
 * <p>Constants only; thread-safe.
 */
public final class ResponderContract {
    /** The stream whose SENDs the responder echoes ([SPEC-CONF-2]). */
    public static final int ECHO_STREAM = 0;
    /** Length of every receive the responder posts on the echo stream ([SPEC-CONF-2]). */
    public static final int RECEIVE_BYTES = 65_536;
    /** Receives posted ahead on the echo stream, at least ([SPEC-CONF-2]). */
    public static final int RECEIVES_AHEAD = 16;
    /** The receive capacity the responder divides among its senders by default ([SPEC-CONF-4]), bytes per second. */
    public static final long CAPACITY_BYTES_PER_SECOND = 1_000_000_000L;
    /** Conventional UDP port of a responder. */
    public static final int DEFAULT_PORT = 7_480;

    private ResponderContract() {
    }
}
