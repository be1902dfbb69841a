package io.metaroce.core.sim.scenario;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * The scenario catalogue and the helpers they share (workload shapes, rates, windows).
 *
 * <p>Stateless and thread-safe.
 */
public final class Scenarios {
    /** The datagram size the fabric figures assume (the engine's default maximum). */
    public static final int DATAGRAM_BYTES = EngineConfig.defaults().maxDatagramBytes();
    /** Packet buffers of the simulated network: room for any datagram up to a jumbo frame. */
    public static final int PACKET_BUFFER_BYTES = 9_216;
    /** Fair-share tolerance of the convergence criterion. */
    public static final double FAIR_SHARE_TOLERANCE = 0.10;

    private Scenarios() {
    }

    /**
     * Runs scenario {@code name} ({@code incast}, {@code loss}, {@code failover}, {@code permutation},
     * {@code multiplane}, {@code planes}); {@code planes} sweeps {@link PlaneScalingScenario#DEFAULT_PLANES}
     * ({@link PlaneScalingScenario#run} takes other plane counts).
     */
    public static ScenarioResult run(String name, SimParameters p, LongFunction<SimProtocol> protocol) {
        return switch (name) {
            case "incast" -> IncastScenario.run(p, protocol).report();
            case "loss" -> LossScenario.run(p, protocol).report();
            case "failover" -> FailoverScenario.run(p, protocol).report();
            case "permutation" -> PermutationScenario.run(p, protocol).report();
            case "multiplane" -> MultiplaneScenario.run(p, protocol).report();
            case "planes" -> PlaneScalingScenario.run(p, PlaneScalingScenario.DEFAULT_PLANES, protocol).report();
            default -> throw new IllegalArgumentException("unknown scenario '" + name
                    + "': use incast, loss, failover, permutation, multiplane or planes");
        };
    }

    /**
     * Application bytes per ns a link of {@code gbps} carries at most with full datagrams:
     * the line rate times {@code payload / (datagram + frame overhead + wire gap)}.
     */
    public static double goodputCapacity(double gbps) {
        int payload = EngineConfig.payloadBytesFor(DATAGRAM_BYTES);
        int wire = DATAGRAM_BYTES + io.metaroce.core.sim.fabric.Network.FRAME_OVERHEAD_BYTES
                + io.metaroce.core.sim.fabric.Network.WIRE_GAP_BYTES;
        return gbps / 8.0 * payload / wire;
    }

    /** Telemetry bucket for a base round trip: half of it, at least 1 us. */
    static long bucketFor(long baseRttNanos) {
        return Math.max(1_000L, (baseRttNanos / 2 / 100) * 100);
    }

    /**
     * Buckets in a rate window: long enough for 4 base round trips and for a flow at
     * {@code perFlowRate} bytes/ns to complete 8 messages (delivery is counted per message).
     */
    static int windowBuckets(long bucket, long baseRtt, double perFlowRate, int messageBytes) {
        double nanos = Math.max(4.0 * baseRtt, perFlowRate > 0 ? 8.0 * messageBytes / perFlowRate : 0);
        return (int) Math.max(1, Math.ceil(nanos / bucket));
    }

    /**
     * Buckets at the end of a run that the convergence check leaves out: 5/4 of one message's time
     * at {@code perFlowRate} bytes/ns. A flow at its share completes a message within that time
     * before the end, so every window checked lies where its delivery curve is interpolated
     * between completions ({@link Metrics#interpolatedDelivered}).
     */
    static int tailBuckets(long bucket, double perFlowRate, int messageBytes) {
        return perFlowRate > 0 ? (int) Math.ceil(1.25 * messageBytes / perFlowRate / bucket) : 0;
    }

    /** {@code n} distinct hosts other than {@code exclude}, in an order drawn from {@code seed}. */
    static int[] pickHosts(int hosts, int n, int exclude, long seed) {
        if (n > hosts - 1) {
            throw new IllegalArgumentException(n + " senders need " + (n + 1) + " hosts, the fabric has " + hosts
                    + ": raise --k or lower --senders");
        }
        int[] all = new int[hosts - 1];
        for (int h = 0, i = 0; h < hosts; h++) {
            if (h != exclude) {
                all[i++] = h;
            }
        }
        shuffle(all, seed);
        return java.util.Arrays.copyOf(all, n);
    }

    /** A permutation of {@code 0..n-1} with no fixed point, drawn from {@code seed}. */
    static int[] derangement(int n, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        // Sattolo's algorithm: a uniformly random cyclic permutation, hence no fixed point.
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static void shuffle(int[] a, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = a.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    /** Host pairs {@code i -> i + hosts/2} for {@code i < n}: flows that cross the middle of the fabric. */
    static int[][] crossPairs(int hosts, int n) {
        if (n > hosts / 2) {
            throw new IllegalArgumentException(n + " flows need " + (2 * n) + " hosts, the fabric has " + hosts
                    + ": raise --k or lower --senders");
        }
        int[][] pairs = new int[n][];
        for (int i = 0; i < n; i++) {
            pairs[i] = new int[] {i, i + hosts / 2};
        }
        return pairs;
    }

    static double gbps(double bytesPerNano) {
        return bytesPerNano * 8;
    }

    static double round(double v, int digits) {
        double s = Math.pow(10, digits);
        return Math.round(v * s) / s;
    }
}
