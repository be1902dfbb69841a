package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import org.HdrHistogram.Histogram;

/**
 * Round-trip times of one ping-pong run, recorded after its warm-up. Not thread-safe: one thread
 * records, and reads happen after that thread is done.
 */
final class Latency {
    /** Three significant digits, up to 10 s: plenty for loopback round trips. */
    private final Histogram histogram = new Histogram(10_000_000_000L, 3);

    /** Records one round trip of {@code nanos}. */
    void record(long nanos) {
        histogram.recordValue(Math.max(1, Math.min(nanos, histogram.getHighestTrackableValue())));
    }

    /** Round trips recorded. */
    long samples() {
        return histogram.getTotalCount();
    }

    /** p50, p99 and p99.9 in microseconds. */
    LatencyPercentiles percentiles() {
        return new LatencyPercentiles(histogram.getValueAtPercentile(50) / 1e3,
                histogram.getValueAtPercentile(99) / 1e3, histogram.getValueAtPercentile(99.9) / 1e3,
                histogram.getTotalCount());
    }
}
