package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Telemetry;
import java.util.Map;

/**
 * The outcome of one protocol's run of a scenario: the scenario's metrics (ordered, named as in
 * the JSON output), the time series for plots, and the simulator's own work.
 *
 * <p>Immutable once made (the telemetry is no longer written); thread-safe to read.
 *
 * @param scenario scenario name
 * @param protocol protocol name
 * @param metrics metric name to value (Long, Double, Boolean or String), in output order
 * @param telemetry per-flow delivered bytes and watched queues over time
 * @param baseRttNanos the base round trip the RTT-denominated metrics use
 * @param linkGbps link rate, for rate plots
 * @param eventsProcessed simulator events of this run (all phases)
 * @param simulatedNanos virtual time this run covered
 */
public record ScenarioResult(String scenario, String protocol, Map<String, Object> metrics, Telemetry telemetry,
        long baseRttNanos, double linkGbps, long eventsProcessed, long simulatedNanos) {
    /** Metric {@code name} as a double (booleans as 0/1). */
    public double number(String name) {
        Object v = metrics.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no metric " + name + " in " + metrics.keySet());
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        return ((Number) v).doubleValue();
    }
}
