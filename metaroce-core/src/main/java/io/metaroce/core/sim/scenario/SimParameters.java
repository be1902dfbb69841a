package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.BufferPreset;

/**
 * Everything a scenario run depends on besides the protocol. Times in virtual nanoseconds.
 *
 * <p>Immutable and thread-safe.
 *
 * @param topology the fabric shape
 * @param k fat-tree arity (leaf-spine: k leaves of k/2 hosts, k/2 spines)
 * @param planes planes of a multiplane fabric (1 otherwise)
 * @param buffer switch buffer preset (buffer per port and ECN threshold)
 * @param linkGbps rate of every link
 * @param linkDelayNanos propagation delay of every link
 * @param seed seed of the network and the protocol
 * @param senders incast senders, or the number of flows of the loss, failover and multiplane scenarios, or the
 *     planes scenario's connections in total
 * @param lossProbability random loss on every link (loss scenario)
 * @param durationNanos measured time after every flow has started
 * @param paths UDP source ports (paths) per flow
 * @param messageBytes bytes per posted message
 * @param outstandingMessages messages kept posted per flow
 * @param withdrawAfterNanos failover: routing withdraws the failed link this long after it fails (negative: never)
 * @param degradeMarkProbability multiplane: extra CE-marking probability on the degraded plane
 * @param degradeLossProbability multiplane: loss probability on the degraded plane's links
 */
public record SimParameters(TopologyKind topology, int k, int planes, BufferPreset buffer, double linkGbps,
        long linkDelayNanos, long seed, int senders, double lossProbability, long durationNanos, int paths,
        int messageBytes, int outstandingMessages, long withdrawAfterNanos, double degradeMarkProbability,
        double degradeLossProbability) {

    /** Validates. */
    public SimParameters {
        if (topology == null || buffer == null) {
            throw new IllegalArgumentException("topology and buffer are required");
        }
        if (k < 2 || k % 2 != 0) {
            throw new IllegalArgumentException("--k must be even and >= 2, got " + k);
        }
        if (planes < 1 || (topology != TopologyKind.MULTIPLANE && planes != 1)) {
            throw new IllegalArgumentException("--planes is >= 1 and only differs from 1 on the multiplane topology, got " + planes);
        }
        if (!(linkGbps > 0) || linkDelayNanos < 0 || senders < 1 || durationNanos <= 0 || paths < 1
                || messageBytes < 1 || outstandingMessages < 1) {
            throw new IllegalArgumentException("link rate, senders, duration, paths, message size and outstanding"
                    + " messages must be positive (delay >= 0)");
        }
        if (!(lossProbability >= 0 && lossProbability < 1) || !(degradeMarkProbability >= 0 && degradeMarkProbability <= 1)
                || !(degradeLossProbability >= 0 && degradeLossProbability < 1)) {
            throw new IllegalArgumentException("probabilities must be in [0, 1)");
        }
    }

    /** Messages kept posted per flow by default (the loss scenario keeps its own count). */
    public static final int DEFAULT_OUTSTANDING_MESSAGES = 32;

    /**
     * The defaults: a shallow-buffer k=8 fat-tree at 100 Gbit/s with 500 ns links, seed 1, 64
     * senders, 8 paths per flow, 16 KiB messages with 32 outstanding, 5 ms measured, routing
     * withdrawal 1 ms after a failure, a degraded plane marking half its ECT packets.
     */
    public static SimParameters defaults() {
        return new SimParameters(TopologyKind.FAT_TREE, 8, 1, BufferPreset.SHALLOW, 100, 500, 1, 64, 0.01,
                5_000_000L, 8, 16 << 10, DEFAULT_OUTSTANDING_MESSAGES, 1_000_000L, 0.5, 0);
    }

    /** A copy with another topology and plane count. */
    public SimParameters withTopology(TopologyKind t, int k, int planes) {
        return new SimParameters(t, k, planes, buffer, linkGbps, linkDelayNanos, seed, senders, lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another buffer preset. */
    public SimParameters withBuffer(BufferPreset b) {
        return new SimParameters(topology, k, planes, b, linkGbps, linkDelayNanos, seed, senders, lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another link rate. */
    public SimParameters withLinkGbps(double g) {
        return new SimParameters(topology, k, planes, buffer, g, linkDelayNanos, seed, senders, lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another seed. */
    public SimParameters withSeed(long s) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, s, senders, lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another sender (flow) count. */
    public SimParameters withSenders(int n) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, seed, n, lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another link loss probability. */
    public SimParameters withLoss(double p) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, seed, senders, p,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another measured duration. */
    public SimParameters withDuration(long nanos) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, seed, senders, lossProbability,
                nanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another workload shape. */
    public SimParameters withWorkload(int pathsPerFlow, int bytesPerMessage, int outstanding) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, seed, senders, lossProbability,
                durationNanos, pathsPerFlow, bytesPerMessage, outstanding, withdrawAfterNanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another routing withdrawal delay (negative: never). */
    public SimParameters withWithdrawAfter(long nanos) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, seed, senders, lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, nanos, degradeMarkProbability,
                degradeLossProbability);
    }

    /** A copy with another plane degradation. */
    public SimParameters withDegradation(double markProbability, double lossProbability) {
        return new SimParameters(topology, k, planes, buffer, linkGbps, linkDelayNanos, seed, senders, this.lossProbability,
                durationNanos, paths, messageBytes, outstandingMessages, withdrawAfterNanos, markProbability,
                lossProbability);
    }
}
