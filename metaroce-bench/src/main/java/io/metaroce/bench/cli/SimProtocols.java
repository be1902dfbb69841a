package io.metaroce.bench.cli;

import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.sim.rocev2.RoceV2Protocol;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The protocols {@code metaroce sim} can run, by name: each a factory of a fresh
 * {@link SimProtocol} for a seed. A protocol becomes available by adding it to {@link #AVAILABLE};
 * {@link #KNOWN} lists every name the command accepts.
 *
 * <p>Immutable and thread-safe.
 */
final class SimProtocols {
    /** Every protocol name the command accepts, in output order. */
    static final String[] KNOWN = {"metaroce", "rocev2"};

    /** The protocols this build can run. */
    static final Map<String, LongFunction<SimProtocol>> AVAILABLE = available();

    private SimProtocols() {
    }

    private static Map<String, LongFunction<SimProtocol>> available() {
        Map<String, LongFunction<SimProtocol>> m = new LinkedHashMap<>();
        m.put("metaroce", seed -> MetaroceProtocol.withAimd(seed, false));
        m.put("rocev2", RoceV2Protocol::withDefaults);
        return Map.copyOf(m);
    }
}
