package io.metaroce.bench.cli.perf;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The once-a-second progress line: time since the start, messages, goodput over the last
 * interval, and whatever the caller adds (retransmits, a latency median). Not thread-safe: the
 * main thread's.
 */
final class ProgressPrinter {
    static final long INTERVAL_NANOS = 1_000_000_000L;

    private final PrintWriter out;
    private final long start;
    private long nextAt;
    private long lastAt;
    private long lastBytes;

    ProgressPrinter(PrintWriter out, long startNanos) {
        this.out = out;
        this.start = startNanos;
        this.nextAt = startNanos + INTERVAL_NANOS;
        this.lastAt = startNanos;
    }

    /** When the next line is due. */
    long nextAt() {
        return nextAt;
    }

    /** Whether a line is due at {@code now}. */
    boolean due(long now) {
        return now >= nextAt;
    }

    /** Prints a line for {@code now}: {@code messages} so far, {@code bytes} so far, and {@code extra}. */
    void print(long now, long messages, long bytes, String extra) {
        double gbps = (bytes - lastBytes) * 8.0 / Math.max(1, now - lastAt);
        out.printf(Locale.ROOT, "t=%5.1fs  messages %,11d  goodput %7.3f Gb/s%s%n", (now - start) / 1e9, messages, gbps,
                extra);
        out.flush();
        lastBytes = bytes;
        lastAt = now;
        while (nextAt <= now) {
            nextAt += INTERVAL_NANOS;
        }
    }
}
