package io.metaroce.bench.conformance;

import java.util.Locale;

/**
 * The assertions of the cases: each fails the case ({@link CaseFailure}) with a message that
 * says what the rule wanted and what the implementation under test did.
 *
 * <p>Stateless; thread-safe.
 */
public final class Checks {
    private Checks() {
    }

    /** Fails the case with the formatted message unless {@code condition} holds. */
    public static void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new CaseFailure(String.format(Locale.ROOT, format, args));
        }
    }

    /** Fails the case if {@code actual} differs from {@code expected}, naming {@code what}. */
    public static void checkEquals(long expected, long actual, String what) {
        if (expected != actual) {
            throw new CaseFailure(what + " is " + actual + ", expected " + expected);
        }
    }

    /** A programming error in a case (not a verdict on the implementation under test). */
    static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
