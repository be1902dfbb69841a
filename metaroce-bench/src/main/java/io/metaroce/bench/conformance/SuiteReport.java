package io.metaroce.bench.conformance;

import io.metaroce.bench.cli.JsonText;
import java.util.List;
import java.util.Locale;

/**
 * The suite's summary and its JSON form.
 *
 * <p>Stateless; thread-safe.
 */
public final class SuiteReport {
    private SuiteReport() {
    }

    /** Counts of one run. */
    public record Counts(int pass, int fail, int skip) {
        /** Of {@code results}. */
        public static Counts of(List<CaseResult> results) {
            int p = 0;
            int f = 0;
            int s = 0;
            for (CaseResult r : results) {
                switch (r.verdict()) {
                    case PASS -> p++;
                    case FAIL -> f++;
                    case SKIP -> s++;
                }
            }
            return new Counts(p, f, s);
        }
    }

    /** {@code 21 cases: 20 passed, 0 failed, 1 skipped}. */
    public static String summary(List<CaseResult> results) {
        Counts c = Counts.of(results);
        return String.format(Locale.ROOT, "%d cases: %d passed, %d failed, %d skipped", results.size(), c.pass(),
                c.fail(), c.skip());
    }

    /** The JSON report: target, counts and one object per case. */
    public static String json(SuiteOptions options, List<CaseResult> results) {
        Counts c = Counts.of(results);
        StringBuilder b = new StringBuilder(4096);
        b.append("{\n  \"target\": ").append(JsonText.quote(options.target().getHostString() + ":"
                + options.target().getPort()));
        b.append(",\n  \"passed\": ").append(c.pass()).append(",\n  \"failed\": ").append(c.fail())
                .append(",\n  \"skipped\": ").append(c.skip()).append(",\n  \"cases\": [");
        for (int i = 0; i < results.size(); i++) {
            CaseResult r = results.get(i);
            b.append(i == 0 ? "\n" : ",\n").append("    {\"id\": ").append(JsonText.quote(r.id()))
                    .append(", \"verdict\": ").append(JsonText.quote(r.verdict().name()))
                    .append(", \"rules\": ").append(list(r.rules()))
                    .append(", \"requirements\": ").append(list(r.requirements()))
                    .append(", \"title\": ").append(JsonText.quote(r.title()))
                    .append(", \"detail\": ").append(JsonText.quote(r.detail()))
                    .append(", \"millis\": ").append(r.millis()).append('}');
        }
        return b.append("\n  ]\n}\n").toString();
    }

    private static String list(List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(JsonText.quote(items.get(i)));
        }
        return b.append(']').toString();
    }
}
