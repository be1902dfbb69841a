package io.metaroce.bench.cli.perf;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * {@code --cc aimd|fixed}, shared by every side of {@code perf} (a picocli mixin). Not thread-safe:
 * filled by picocli, read by the command.
 */
public final class CongestionControlOption {
    @Option(names = "--cc", description = "Congestion controller: ${COMPLETION-CANDIDATES} (default aimd, the "
            + "engine's: AIMD per path on ECN marks, or queueing delay where ECN is not read, and on loss (halving); fixed: "
            + "congestion control off, a fixed --window, the ceiling of a link nothing else shares).",
            defaultValue = "aimd", converter = Converter.class, completionCandidates = Names.class)
    public CongestionControl value;

    /** Reads {@code aimd} or {@code fixed} (any case). */
    public static final class Converter implements ITypeConverter<CongestionControl> {
        @Override
        public CongestionControl convert(String text) {
            try {
                return CongestionControl.valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("expected aimd or fixed, not '" + text + "'");
            }
        }
    }

    /** The names offered in help. */
    public static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(CongestionControl.values()).map(CongestionControl::label).iterator();
        }
    }
}
