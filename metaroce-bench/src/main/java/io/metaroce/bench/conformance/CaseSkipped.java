package io.metaroce.bench.conformance;

/**
 * Thrown by a case that cannot judge the implementation under test (a feature the wire cannot
 * show from here, such as ECN counts from an implementation that cannot read ECN): the case is
 * SKIPped with this reason.
 *
 * <p>Immutable; thread-safe.
 */
public final class CaseSkipped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * The phrase in the reason of every case that gives up because the IUT's timer blurred all its
     * attempts on a host too slow for the IUT's minimum RTO ([SPEC-CONF-5]); a test that tolerates
     * those SKIPs matches on it, so that a SKIP for another reason stays visible.
     */
    public static final String HOST_TOO_SLOW = "the host is too slow";

    /** A skip for {@code reason}. */
    public CaseSkipped(String reason) {
        super(reason, null, false, false);
    }
}
