package io.metaroce.bench.conformance;

import java.util.List;

/**
 * One case of the conformance suite: a scripted exchange with the implementation under test and
 * the rules of docs/spec.md ({@code [SPEC-...]} ids) and requirements ({@code R-...} ids) it
 * judges.
 *
 * @param id a stable name, {@code area.what} (for {@code --case} and reports)
 * @param title one line saying what the implementation under test must do
 * @param rules the spec rules checked
 * @param requirements the requirements checked
 * @param body the script; it FAILs with {@link CaseFailure}, SKIPs with {@link CaseSkipped}
 *
 * <p>Immutable; thread-safe (the body is run by one thread at a time).
 */
public record ConformanceCase(String id, String title, List<String> rules, List<String> requirements, Body body) {

    /** The script of a case. */
    @FunctionalInterface
    public interface Body {
        /** Runs the case against the implementation under test reached through {@code context}. */
        void run(CaseContext context);
    }

    /** A case; rules and requirements are given as comma-separated ids. */
    public static ConformanceCase of(String id, String title, String rules, String requirements, Body body) {
        return new ConformanceCase(id, title, List.of(rules.split(",\\s*")), List.of(requirements.split(",\\s*")), body);
    }
}
