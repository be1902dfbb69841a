package io.metaroce.bench.cli.perf;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.FixedWindowController;
import java.util.Locale;
import java.util.function.Function;

/**
 * The congestion controller a perf, compare or demo run uses ({@code --cc aimd|fixed}), named in its
 * report. Immutable and thread-safe.
 */
public enum CongestionControl {
    /** The engine's default: ECN AIMD per path, delay standing in for marks where ECN is unreadable. */
    AIMD(AimdController::new),
    /** Congestion control off: a fixed window of {@code --window} bytes, the ceiling of an unshared link. */
    FIXED(FixedWindowController::new);

    private final Function<EngineConfig, CongestionController> factory;

    CongestionControl(Function<EngineConfig, CongestionController> factory) {
        this.factory = factory;
    }

    /** Makes each connection's controller from the engine configuration. */
    public Function<EngineConfig, CongestionController> factory() {
        return factory;
    }

    /** The name the option takes and the report shows: {@code aimd} or {@code fixed}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
