package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one {@code compare} run. Immutable and thread-safe.
 *
 * @param date when it ran (ISO-8601, UTC)
 * @param durationSeconds measured seconds per run
 * @param warmupSeconds warm-up seconds before each measured part of the throughput runs
 * @param latencyWarmupSeconds warm-up seconds before each measured ping-pong
 * @param transport the raw UDP peer's event loops ({@code epoll} or {@code nio})
 * @param congestionControl MetaRoCE's congestion controller ({@code aimd} or {@code fixed})
 * @param sizes one result per message size, in the order given
 * @param latency 64-byte ping-pong percentiles by peer ({@code raw_udp}, {@code metaroce},
 *     {@code raw_udp_busy_poll}, {@code metaroce_busy_poll}, {@code tcp}, {@code aeron}); a null
 *     value where the peer could not run
 * @param latencyJitMillis per ping-pong (same keys), milliseconds the JIT compiled during its
 *     measured part; -1 where the JVM does not say
 * @param notes what could not run and why, and how peers were set up
 * @param metaroceFullCheckEvery how the MetaRoCE variants checked their messages: 1, every byte;
 *     N &gt; 1, every N-th message of a stream in full and the others by their ends
 *     ({@code perf --full-check-every})
 * @param rounds alternating rounds per size for the goodput verdict ({@link Rounds}); 0 for none
 * @param roundDurationSeconds measured seconds of each slice of a round
 * @param roundWarmupSeconds warm-up seconds before each slice of a round
 * @param goodputVerdictMethod how the goodput verdict is reached, in words
 * @param latencyOnly whether only the raw UDP and MetaRoCE ping-pongs ran ({@code --latency-only}):
 *     no sizes, no TCP or Aeron ping-pong
 */
record CompareResult(String date, double durationSeconds, double warmupSeconds, double latencyWarmupSeconds,
        String transport, String congestionControl, List<SizeResult> sizes, Map<String, LatencyPercentiles> latency,
        Map<String, Long> latencyJitMillis, List<String> notes, int metaroceFullCheckEvery, int rounds,
        double roundDurationSeconds, double roundWarmupSeconds, String goodputVerdictMethod, boolean latencyOnly) {

    /** Copies the collections. */
    CompareResult {
        sizes = List.copyOf(sizes);
        latency = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(latency));
        latencyJitMillis = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(latencyJitMillis));
        notes = List.copyOf(notes);
    }

    /**
     * MetaRoCE's latency over raw UDP's, like with like: {@code metaroce_over_raw_udp} (event loops
     * that sleep in the kernel) and {@code metaroce_busy_poll_over_raw_udp_busy_poll}; each value is
     * {p50 ratio, p99 ratio}, or null where either side is missing.
     */
    Map<String, double[]> latencyRatios() {
        Map<String, double[]> ratios = new java.util.LinkedHashMap<>();
        ratios.put("metaroce_over_raw_udp", ratio(latency.get("metaroce"), latency.get("raw_udp")));
        ratios.put("metaroce_busy_poll_over_raw_udp_busy_poll",
                ratio(latency.get(Comparison.METAROCE_BUSY_POLL), latency.get(Comparison.RAW_UDP_BUSY_POLL)));
        return ratios;
    }

    private static double[] ratio(LatencyPercentiles a, LatencyPercentiles b) {
        return a == null || b == null || !(b.p50Us() > 0) || !(b.p99Us() > 0) ? null
                : new double[] {a.p50Us() / b.p50Us(), a.p99Us() / b.p99Us()};
    }
}
