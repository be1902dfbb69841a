package io.metaroce.bench.conformance;

/**
 * The conformance responder contract of docs/spec.md chapter 14 ([SPEC-CONF-1] to
 * [SPEC-CONF-9]): what an implementation under test runs so that the suite can make it send,
 * expose a region to WRITE and READ, hold receives back and connect to the suite as a client.
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
    /** The stream of the suite's commands and the responder's replies ([SPEC-CONF-6]). */
    public static final int CONTROL_STREAM = 1;
    /** Receives posted ahead on the control stream, at least ([SPEC-CONF-6]). */
    public static final int CONTROL_RECEIVES_AHEAD = 4;
    /** The stream whose receives the responder posts only when told to ([SPEC-CONF-8]). */
    public static final int HELD_STREAM = 2;
    /** Length of the region every connection exposes ([SPEC-CONF-7]). */
    public static final int REGION_BYTES = 65_536;
    /** Command: announce the connection's region; reply {@code [1][u32 remoteKey][u64 length]} ([SPEC-CONF-7]). */
    public static final int COMMAND_REGION = 1;
    /** Command {@code [2][u16 n]}: post n receives on the held stream; reply {@code [2]} once posted ([SPEC-CONF-8]). */
    public static final int COMMAND_POST_HELD = 2;
    /**
     * Receives outstanding on the held stream, at most: a post command that would go beyond it is
     * not carried out and gets no reply ([SPEC-CONF-8]), so a peer cannot make the responder
     * allocate without bound.
     */
    public static final int MAX_HELD_RECEIVES = 64;
    /**
     * Command {@code [3][u8 paths][u16 port][u8 addressLength][address]}: open a client connection
     * of that many paths to that address; reply {@code [3]} once started ([SPEC-CONF-9]).
     */
    public static final int COMMAND_CONNECT = 3;
    /**
     * Command {@code [4]}: reply {@code [4]}, then close the connection gracefully: its CLOSE follows
     * once the reply is acknowledged, so the suite sees the IUT in CLOSING ([SPEC-CONF-27]).
     */
    public static final int COMMAND_CLOSE = 4;
    /** Length of the reply to {@link #COMMAND_REGION}. */
    public static final int REGION_REPLY_BYTES = 13;
    /** The keep-alive interval a responder SHOULD run with, milliseconds ([SPEC-CONF-13]). */
    public static final long KEEP_ALIVE_MILLIS = 400;
    /** The idle timeout a responder SHOULD run with, milliseconds ([SPEC-CONF-13]). */
    public static final long IDLE_TIMEOUT_MILLIS = 1_200;
    /**
     * The largest floor of a path's congestion window a responder may run with, datagram bytes
     * ([SPEC-CONF-16]): the §12.1 default of {@code aimdMinWindowBytes}. The congestion cases allow a
     * window this large however many cuts they asked for.
     */
    public static final long CC_MIN_WINDOW_BYTES = 8_192;
    /**
     * The {@code aimdEcnGainShift} a responder runs with for the congestion cases ([SPEC-CONF-16]):
     * the §12.1 default, an ECN gain of 1/16.
     */
    public static final int CC_ECN_GAIN_SHIFT = 4;
    /** Conventional UDP port of a responder. */
    public static final int DEFAULT_PORT = 7_480;

    private ResponderContract() {
    }

    /** Byte {@code offset} of a connection's region before anything is written to it: {@code offset mod 251} ([SPEC-CONF-7]). */
    public static byte regionByte(long offset) {
        return (byte) (offset % 251);
    }
}
