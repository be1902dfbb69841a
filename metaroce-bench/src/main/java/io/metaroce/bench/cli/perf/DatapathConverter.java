package io.metaroce.bench.cli.perf;

import io.metaroce.netty.Datapath;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;

/** Reads {@code --datapath auto|linux|nio} (any case) into a {@link Datapath}. */
public final class DatapathConverter implements ITypeConverter<Datapath> {
    @Override
    public Datapath convert(String value) {
        try {
            return Datapath.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected one of auto, linux, nio, not '" + value + "'");
        }
    }

    /** The names offered in help. */
    public static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(Datapath.values()).map(d -> d.name().toLowerCase(Locale.ROOT)).iterator();
        }
    }
}
