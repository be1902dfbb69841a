package io.metaroce.bench.conformance;

/**
 * Thrown by a case when the implementation under test broke a rule: the case FAILs with this
 * message, which says what was expected and what was seen.
 *
 * <p>Immutable; thread-safe.
 */
public final class CaseFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}. */
    public CaseFailure(String message) {
        super(message, null, false, false);
    }
}
