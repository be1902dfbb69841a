package io.metaroce.bench.cli.perf;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Round-trip times of a latency run in an HdrHistogram (nanoseconds, 3 significant digits): the
 * event loop records, the main thread takes a one-second interval for the progress line and adds
 * it to the total once the warm-up is over.
 *
 * <p>Thread-safety: {@link #record} from one thread (the event loop); the other methods from
 * another single thread (the main thread).
 */
final class LatencyRecorder {
    private final Recorder recorder = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private Histogram interval;

    /** Records one round trip. */
    void record(long nanos) {
        recorder.recordValue(Math.max(1, nanos));
    }

    /**
     * Takes what was recorded since the last call; adds it to the total if {@code counted} (false
     * during the warm-up). Returns the interval's median in microseconds, or NaN if it is empty.
     */
    double takeInterval(boolean counted) {
        interval = recorder.getIntervalHistogram(interval);
        if (counted) {
            total.add(interval);
        }
        return interval.getTotalCount() == 0 ? Double.NaN : interval.getValueAtPercentile(50) / 1000.0;
    }

    /** Percentiles of the counted round trips, in microseconds; null if none was counted. */
    LatencyPercentiles percentiles() {
        if (total.getTotalCount() == 0) {
            return null;
        }
        return new LatencyPercentiles(total.getValueAtPercentile(50) / 1000.0, total.getValueAtPercentile(99) / 1000.0,
                total.getValueAtPercentile(99.9) / 1000.0, total.getTotalCount());
    }
}
