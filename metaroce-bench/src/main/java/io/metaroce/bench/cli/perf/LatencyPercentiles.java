package io.metaroce.bench.cli.perf;

/**
 * Round-trip percentiles of a latency run. Immutable and thread-safe.
 *
 * @param p50Us median, microseconds
 * @param p99Us 99th percentile, microseconds
 * @param p999Us 99.9th percentile, microseconds
 * @param samples round trips counted
 */
public record LatencyPercentiles(double p50Us, double p99Us, double p999Us, long samples) {
}
