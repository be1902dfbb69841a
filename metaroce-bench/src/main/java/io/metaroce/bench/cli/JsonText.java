package io.metaroce.bench.cli;

import java.util.Locale;

/**
 * JSON text pieces the commands' hand-written reports share: every report writes its strings
 * through {@link #quote}, so they are escaped one way.
 *
 * <p>Stateless and thread-safe.
 */
public final class JsonText {
    private JsonText() {
    }

    /** A JSON string literal of {@code s} (null becomes {@code null}). */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
