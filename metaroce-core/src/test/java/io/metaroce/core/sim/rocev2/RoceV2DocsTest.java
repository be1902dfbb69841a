package io.metaroce.core.sim.rocev2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/baseline-rocev2.md lists every {@link RoceV2Config} field, no other, with the default of the code. */
class RoceV2DocsTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| ([^|]+) \\|", Pattern.MULTILINE);

    private static Map<String, String> documentedDefaults() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "baseline-rocev2.md"));
        int start = doc.indexOf("## Defaults");
        int end = doc.indexOf("\n## ", start + 1);
        assertThat(start).as("docs/baseline-rocev2.md has a Defaults section").isPositive();
        Matcher m = ROW.matcher(doc.substring(start, end));
        Map<String, String> defaults = new LinkedHashMap<>();
        while (m.find()) {
            defaults.put(m.group(1), canonical(m.group(2).strip().replaceAll("[\\s\u202f\u00a0]", "")));
        }
        return defaults;
    }

    private static String canonical(String value) {
        if (value.equals("true") || value.equals("false")) {
            return value;
        }
        return new BigDecimal(value).stripTrailingZeros().toPlainString();
    }

    @Test
    void theDocumentListsEveryConfigFieldWithItsDefault() throws Exception {
        RoceV2Config defaults = RoceV2Config.defaults();
        Map<String, String> code = new LinkedHashMap<>();
        for (RecordComponent c : RoceV2Config.class.getRecordComponents()) {
            code.put(c.getName(), canonical(String.valueOf(c.getAccessor().invoke(defaults))));
        }
        assertThat(documentedDefaults()).as("docs/baseline-rocev2.md against RoceV2Config.defaults()").isEqualTo(code);
    }
}
