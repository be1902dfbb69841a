package io.metaroce.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the specification and the compliance table honest (R-SPEC-1, R-SPEC-2).
 *
 * <ul>
 *   <li>{@code docs/spec.md}: every rule id {@code [SPEC-AREA-n]} is defined exactly once (a
 *       definition is the id in bold, {@code **[SPEC-AREA-n]}), and every bracketed reference to a
 *       rule id names a defined rule.</li>
 *   <li>{@code docs/compliance.md}: every requirement row ({@code | R-XXX-n ... |}) appears once and
 *       has a status of implemented, partial or planned; every requirement marked implemented names
 *       at least one test as {@code Class#method}; every test it names (in any row) exists as a
 *       class file under a {@code src/test/java} of this project and declares that method; every
 *       rule id it cites is defined in the specification.</li>
 * </ul>
 *
 * Paths are relative to the module directory (Maven's working directory for tests).
 */
class ComplianceTraceTest {
    private static final Path SPEC = Path.of("../docs/spec.md");
    private static final Path COMPLIANCE = Path.of("../docs/compliance.md");
    private static final Path OWN_TESTS = Path.of("src/test/java");
    private static final Path PROJECT_ROOT = Path.of("..");

    private static final Pattern RULE_DEFINITION = Pattern.compile("\\*\\*\\[(SPEC-[A-Z]+-\\d+)]");
    private static final Pattern RULE_REFERENCE = Pattern.compile("\\[(SPEC-[A-Z]+-\\d+)]");
    private static final Pattern REQUIREMENT_ID = Pattern.compile("R-[A-Z]+-\\d+");
    private static final Pattern TEST_REFERENCE = Pattern.compile("\\b([A-Za-z_][\\w.]*)#([A-Za-z_]\\w*)");
    private static final Set<String> STATUSES = Set.of("implemented", "partial", "planned");

    @Test
    void specRuleIdsAreDefinedOnceAndEveryReferenceResolves() {
        String spec = read(SPEC);
        Map<String, Integer> definitions = new LinkedHashMap<>();
        Matcher d = RULE_DEFINITION.matcher(spec);
        while (d.find()) {
            definitions.merge(d.group(1), 1, Integer::sum);
        }
        List<String> problems = new ArrayList<>();
        if (definitions.isEmpty()) {
            problems.add("no rule definitions (**[SPEC-AREA-n]**) found in " + SPEC);
        }
        definitions.forEach((id, count) -> {
            if (count > 1) {
                problems.add(id + " is defined " + count + " times in spec.md (define each rule id once)");
            }
        });
        for (String id : references(spec)) {
            if (!definitions.containsKey(id)) {
                problems.add(id + " is referenced in spec.md but never defined");
            }
        }
        assertThat(problems).as(report("docs/spec.md rule ids", problems)).isEmpty();
    }

    @Test
    void implementedRequirementsNameTestsThatExist() {
        List<Row> rows = complianceRows();
        Set<String> definedRules = new TreeSet<>();
        Matcher d = RULE_DEFINITION.matcher(read(SPEC));
        while (d.find()) {
            definedRules.add(d.group(1));
        }
        List<Path> testRoots = testSourceRoots();
        List<String> problems = new ArrayList<>();
        if (rows.isEmpty()) {
            problems.add("no requirement rows (| R-XXX-n ... |) found in " + COMPLIANCE);
        }
        Set<String> seen = new LinkedHashSet<>();
        for (Row row : rows) {
            if (!seen.add(row.id)) {
                problems.add(row.id + ": appears in more than one row");
            }
            if (!STATUSES.contains(row.status)) {
                problems.add(row.id + ": status '" + row.status + "' is not one of " + new TreeSet<>(STATUSES));
            }
            List<String[]> tests = new ArrayList<>();
            Matcher t = TEST_REFERENCE.matcher(row.tests);
            while (t.find()) {
                tests.add(new String[] {t.group(1), t.group(2)});
            }
            if (row.status.equals("implemented") && tests.isEmpty()) {
                problems.add(row.id + ": marked implemented but names no test as Class#method");
            }
            for (String[] test : tests) {
                String missing = checkTest(testRoots, test[0], test[1]);
                if (missing != null) {
                    problems.add(row.id + ": " + test[0] + "#" + test[1] + ": " + missing);
                }
            }
            for (String rule : references(row.line)) {
                if (!definedRules.contains(rule)) {
                    problems.add(row.id + ": cites " + rule + ", which spec.md does not define");
                }
            }
        }
        assertThat(problems).as(report("docs/compliance.md traceability", problems)).isEmpty();
    }

    // ---------------------------------------------------------------------------------------

    private record Row(String id, String status, String tests, String line) { }

    /** Table rows whose first cell starts with a requirement id: requirement | status | code | tests. */
    private static List<Row> complianceRows() {
        List<Row> rows = new ArrayList<>();
        for (String line : read(COMPLIANCE).split("\n")) {
            String trimmed = line.trim();
            if (!trimmed.startsWith("|")) {
                continue;
            }
            String[] cells = trimmed.substring(1).split("\\|", -1);
            if (cells.length < 4) {
                continue;
            }
            String first = cells[0].replace("*", "").trim();
            Matcher id = REQUIREMENT_ID.matcher(first);
            if (!id.lookingAt()) {
                continue;
            }
            String statusCell = cells[1].replace("*", "").trim().toLowerCase(Locale.ROOT);
            String status = statusCell.split("[^a-z]", 2)[0];
            rows.add(new Row(id.group(), status, cells[3], trimmed));
        }
        return rows;
    }

    /** This module's test sources first, then every other module's {@code src/test/java}. */
    private static List<Path> testSourceRoots() {
        Set<Path> roots = new LinkedHashSet<>();
        roots.add(OWN_TESTS.toAbsolutePath().normalize());
        try (Stream<Path> modules = Files.list(PROJECT_ROOT)) {
            modules.map(m -> m.resolve("src/test/java").toAbsolutePath().normalize())
                    .filter(Files::isDirectory)
                    .sorted()
                    .forEach(roots::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(roots);
    }

    /** Null if {@code className} (simple or package-qualified) declares {@code method}; else what is wrong. */
    private static String checkTest(List<Path> roots, String className, String method) {
        String relative = className.replace('.', '/') + ".java";
        List<Path> files = new ArrayList<>();
        for (Path root : roots) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(p -> p.toString().replace('\\', '/').endsWith("/" + relative))
                        .forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (files.isEmpty()) {
            return "no file " + relative + " under any src/test/java";
        }
        Pattern declaration = Pattern.compile("\\bvoid\\s+" + Pattern.quote(method) + "\\s*\\(");
        for (Path file : files) {
            if (declaration.matcher(read(file)).find()) {
                return null;
            }
        }
        return "no method 'void " + method + "(' in " + files;
    }

    private static Set<String> references(String text) {
        Set<String> ids = new LinkedHashSet<>();
        Matcher r = RULE_REFERENCE.matcher(text);
        while (r.find()) {
            ids.add(r.group(1));
        }
        return ids;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file.toAbsolutePath().normalize()
                    + " (tests run from the module directory)", e);
        }
    }

    private static String report(String what, List<String> problems) {
        return what + ": " + problems.size() + " problem(s):\n  " + String.join("\n  ", problems) + "\n";
    }
}
