package io.metaroce.bench.conformance;

/** The outcome of one conformance case. Immutable; thread-safe. */
public enum Verdict {
    /** The implementation under test behaved as every rule of the case requires. */
    PASS,
    /** It broke a rule; the case's detail says which and what was seen. */
    FAIL,
    /** The case could not judge it; the detail says why. */
    SKIP
}
