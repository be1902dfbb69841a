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

    /** A skip for {@code reason}. */
    public CaseSkipped(String reason) {
        super(reason, null, false, false);
    }
}
