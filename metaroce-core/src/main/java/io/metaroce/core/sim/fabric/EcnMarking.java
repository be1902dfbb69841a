package io.metaroce.core.sim.fabric;

/**
 * How a switch output port marks ECN-capable packets with CE, judged at enqueue on the bytes
 * already queued at that port ({@code q}, excluding the arriving packet):
 * <ul>
 *   <li>{@code q < minBytes}: never;</li>
 *   <li>{@code q >= maxBytes}: always;</li>
 *   <li>between: with probability {@code maxProbability * (q - minBytes) / (maxBytes - minBytes)}.</li>
 * </ul>
 * {@link #threshold(long)} is the DCTCP rule (a single threshold K: {@code min = max = K}); a
 * wider range with {@code maxProbability < 1} is the RED-like option (mark with a probability that
 * grows linearly from min to max, then always). Packets whose ECN codepoint is Not-ECT are never
 * marked (they are only subject to tail drop).
 *
 * <p>Immutable and thread-safe.
 *
 * @param minBytes queue depth where marking starts
 * @param maxBytes queue depth from which every ECT packet is marked
 * @param maxProbability marking probability just below {@code maxBytes}
 */
public record EcnMarking(long minBytes, long maxBytes, double maxProbability) {
    /** Never marks. */
    public static final EcnMarking OFF = new EcnMarking(Long.MAX_VALUE, Long.MAX_VALUE, 0);

    /** Validates the range. */
    public EcnMarking {
        if (minBytes < 0 || maxBytes < minBytes || !(maxProbability >= 0 && maxProbability <= 1)) {
            throw new IllegalArgumentException("ECN marking needs 0 <= minBytes <= maxBytes and maxProbability in [0, 1],"
                    + " got min " + minBytes + ", max " + maxBytes + ", p " + maxProbability);
        }
    }

    /** DCTCP-style: mark every ECT packet that finds at least {@code kBytes} queued. */
    public static EcnMarking threshold(long kBytes) {
        return new EcnMarking(kBytes, kBytes, 1);
    }

    /** RED-like: linear probability from {@code minBytes} to {@code maxProbability} at {@code maxBytes}, then always. */
    public static EcnMarking red(long minBytes, long maxBytes, double maxProbability) {
        return new EcnMarking(minBytes, maxBytes, maxProbability);
    }
}
