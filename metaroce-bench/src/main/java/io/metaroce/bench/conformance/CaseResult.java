package io.metaroce.bench.conformance;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of one case.
 *
 * @param id the case's id
 * @param title what the case checks
 * @param rules the spec rules it checks
 * @param requirements the requirements it checks
 * @param verdict PASS, FAIL or SKIP
 * @param detail on FAIL what was seen, on SKIP why; empty on PASS
 * @param millis how long it ran
 *
 * <p>Immutable; thread-safe.
 */
public record CaseResult(String id, String title, List<String> rules, List<String> requirements, Verdict verdict,
        String detail, long millis) {

    /** The report line: {@code PASS  id  [rules]  title} and, on FAIL or SKIP, {@code -- detail}. */
    public String line() {
        String head = String.format(Locale.ROOT, "%-4s  %-34s %s", verdict, id, String.join(" ", rules));
        return detail.isEmpty() ? head : head + "\n      -- " + detail;
    }
}
