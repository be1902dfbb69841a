package io.metaroce.core.wire;

/** NAK codes. Normative in {@code docs/spec.md}. */
public final class NakCode {
    /** A SEND or WRITE_WITH_IMM found no posted receive; retry after the advertised delay. */
    public static final int RECEIVER_NOT_READY = 1;
    /** A WRITE or READ named an unknown key, fell outside the region, or lacked the access right. */
    public static final int REMOTE_ACCESS_ERROR = 2;
    /** A SEND was longer than the posted receive buffer, or a request was malformed. */
    public static final int REMOTE_INVALID_REQUEST = 3;

    private NakCode() {
    }

    /** Whether {@code code} is a known NAK code. */
    public static boolean isValid(int code) {
        return code >= RECEIVER_NOT_READY && code <= REMOTE_INVALID_REQUEST;
    }
}
