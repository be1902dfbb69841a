package io.metaroce.core.harness;

/**
 * What the in-memory network between two endpoints does to datagrams. Each path keeps order (as
 * an ECMP path does); paths differ in delay, so packets of different paths arrive reordered.
 *
 * @param lossProbability chance a datagram is dropped
 * @param duplicateProbability chance a datagram is delivered twice
 * @param corruptProbability chance one random bit of a datagram is flipped
 * @param delayNanos one-way delay of path 0
 * @param jitterNanos extra random delay per datagram, never reordering within a path
 * @param pathSkewNanos path {@code i} adds a fixed random delay in {@code [0, pathSkewNanos]}, so
 *     paths reorder against each other
 * @param ceMarkProbability chance a datagram sent ECN-capable arrives CE-marked
 * @param inPathReorderNanos extra random delay per datagram that may reorder datagrams of the
 *     same path (as adaptive routing does); 0 keeps every path in order
 * @param ceMarkedPathsMask the paths {@code ceMarkProbability} applies to: bit {@code i} for path
 *     {@code i}; {@link #ALL_PATHS} (-1, the default) marks every path, paths 64 and above included
 */
public record NetworkConditions(
        double lossProbability,
        double duplicateProbability,
        double corruptProbability,
        long delayNanos,
        long jitterNanos,
        long pathSkewNanos,
        double ceMarkProbability,
        long inPathReorderNanos,
        long ceMarkedPathsMask) {

    /** {@code ceMarkedPathsMask} that marks every path. */
    public static final long ALL_PATHS = -1L;

    /** Validates the probabilities and delays. */
    public NetworkConditions {
        probability("lossProbability", lossProbability);
        probability("duplicateProbability", duplicateProbability);
        probability("corruptProbability", corruptProbability);
        probability("ceMarkProbability", ceMarkProbability);
        if (delayNanos < 0 || jitterNanos < 0 || pathSkewNanos < 0 || inPathReorderNanos < 0) {
            throw new IllegalArgumentException("delays must be >= 0");
        }
    }

    /** Conditions whose CE marking applies to every path. */
    public NetworkConditions(double lossProbability, double duplicateProbability, double corruptProbability,
            long delayNanos, long jitterNanos, long pathSkewNanos, double ceMarkProbability, long inPathReorderNanos) {
        this(lossProbability, duplicateProbability, corruptProbability, delayNanos, jitterNanos, pathSkewNanos,
                ceMarkProbability, inPathReorderNanos, ALL_PATHS);
    }

    /** Conditions under which every path keeps its order. */
    public NetworkConditions(double lossProbability, double duplicateProbability, double corruptProbability,
            long delayNanos, long jitterNanos, long pathSkewNanos, double ceMarkProbability) {
        this(lossProbability, duplicateProbability, corruptProbability, delayNanos, jitterNanos, pathSkewNanos,
                ceMarkProbability, 0);
    }

    /** A perfect network with a 5 us one-way delay. */
    public static NetworkConditions perfect() {
        return new NetworkConditions(0, 0, 0, 5_000, 0, 0, 0);
    }

    public NetworkConditions withLoss(double p) {
        return new NetworkConditions(p, duplicateProbability, corruptProbability, delayNanos, jitterNanos, pathSkewNanos, ceMarkProbability, inPathReorderNanos, ceMarkedPathsMask);
    }

    public NetworkConditions withDuplication(double p) {
        return new NetworkConditions(lossProbability, p, corruptProbability, delayNanos, jitterNanos, pathSkewNanos, ceMarkProbability, inPathReorderNanos, ceMarkedPathsMask);
    }

    public NetworkConditions withCorruption(double p) {
        return new NetworkConditions(lossProbability, duplicateProbability, p, delayNanos, jitterNanos, pathSkewNanos, ceMarkProbability, inPathReorderNanos, ceMarkedPathsMask);
    }

    public NetworkConditions withDelay(long delay, long jitter, long pathSkew) {
        return new NetworkConditions(lossProbability, duplicateProbability, corruptProbability, delay, jitter, pathSkew, ceMarkProbability, inPathReorderNanos, ceMarkedPathsMask);
    }

    public NetworkConditions withCeMarking(double p) {
        return new NetworkConditions(lossProbability, duplicateProbability, corruptProbability, delayNanos, jitterNanos, pathSkewNanos, p, inPathReorderNanos, ceMarkedPathsMask);
    }

    /**
     * CE-marks ECN-capable datagrams with probability {@code p} on the paths of {@code pathMask}
     * only (bit {@code i}: path {@code i}), in both directions; other paths are never marked.
     */
    public NetworkConditions withCeMarkingOnPaths(double p, long pathMask) {
        return new NetworkConditions(lossProbability, duplicateProbability, corruptProbability, delayNanos, jitterNanos, pathSkewNanos, p, inPathReorderNanos, pathMask);
    }

    /** Whether {@code ceMarkProbability} applies to path {@code pathId}. */
    public boolean ceMarksPath(int pathId) {
        return ceMarkedPathsMask == ALL_PATHS || (pathId >= 0 && pathId < 64 && (ceMarkedPathsMask >>> pathId & 1) != 0);
    }

    /** Lets datagrams of one path overtake each other by up to {@code nanos}. */
    public NetworkConditions withInPathReordering(long nanos) {
        return new NetworkConditions(lossProbability, duplicateProbability, corruptProbability, delayNanos, jitterNanos, pathSkewNanos, ceMarkProbability, nanos, ceMarkedPathsMask);
    }

    private static void probability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1], was " + p);
        }
    }
}
