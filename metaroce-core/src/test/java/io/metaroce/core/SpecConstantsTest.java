package io.metaroce.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every constant lives in one validated record and in {@code docs/spec.md}: the spec's table of
 * {@link EngineConfig} fields names every field of the record, no other, with the record's default.
 */
class SpecConstantsTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| ([^|]+) \\|", Pattern.MULTILINE);

    private static Map<String, Long> specDefaults() throws IOException {
        String spec = Files.readString(Path.of("..", "docs", "spec.md"));
        int start = spec.indexOf("### 12.1");
        int end = spec.indexOf("### 12.2");
        assertThat(start).as("docs/spec.md has section 12.1 (EngineConfig)").isPositive();
        Matcher m = ROW.matcher(spec.substring(start, end));
        Map<String, Long> defaults = new LinkedHashMap<>();
        while (m.find()) {
            // "65 536 (2^16)" -> 65536: the first number, digits grouped by spaces.
            Matcher number = Pattern.compile("^[\\d\\s\u202f\u00a0]+").matcher(m.group(2).strip());
            assertThat(number.find()).as("default of %s is a number: %s", m.group(1), m.group(2)).isTrue();
            defaults.put(m.group(1), Long.parseLong(number.group().replaceAll("[\\s\u202f\u00a0]", "")));
        }
        return defaults;
    }

    @Test
    void theSpecListsEveryConfigFieldWithItsDefault() throws Exception {
        Map<String, Long> spec = specDefaults();
        EngineConfig defaults = EngineConfig.defaults();
        Map<String, Long> code = new LinkedHashMap<>();
        for (RecordComponent c : EngineConfig.class.getRecordComponents()) {
            Object value = c.getAccessor().invoke(defaults);
            // A boolean field's row gives 0 (false) or 1 (true).
            code.put(c.getName(), value instanceof Boolean b ? (b ? 1L : 0L) : ((Number) value).longValue());
        }
        assertThat(spec).as("docs/spec.md section 12.1 against EngineConfig.defaults()").isEqualTo(code);
    }
}
