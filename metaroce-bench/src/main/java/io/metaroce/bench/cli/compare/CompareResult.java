package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one {@code compare} run. Immutable and thread-safe.
 *
 * @param date when it ran (ISO-8601, UTC)
 * @param durationSeconds measured seconds per run
 * @param warmupSeconds warm-up seconds before each measured part
 * @param transport the raw UDP peer's event loops ({@code epoll} or {@code nio})
 * @param sizes one result per message size, in the order given
 * @param latency 64-byte ping-pong percentiles by peer ({@code raw_udp}, {@code metaroce}, {@code tcp},
 *     {@code aeron}); a null value where the peer could not run
 * @param notes what could not run and why, and how peers were set up
 */
record CompareResult(String date, double durationSeconds, double warmupSeconds, String transport,
        List<SizeResult> sizes, Map<String, LatencyPercentiles> latency, List<String> notes) {

    /** Copies the collections. */
    CompareResult {
        sizes = List.copyOf(sizes);
        latency = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(latency));
        notes = List.copyOf(notes);
    }
}
