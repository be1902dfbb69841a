package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Telemetry;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Plane scaling: the same workload on multiplane fabrics of several plane counts, at the same
 * per-plane link rate (each host has one line-rate NIC port per plane), to measure how aggregate
 * throughput grows with the plane count (the announcement: linearly from 4 to 8 planes with up to
 * 4,000 concurrent connections).
 *
 * <p>Workload: {@code connections} endless bulk flows ({@link SimParameters#senders()}), dealt
 * out over the hosts in rounds: connection {@code i} goes from host {@code s = i mod hosts} to
 * host {@code (s + 1 + (i / hosts) mod (hosts - 1)) mod hosts}. Every round is a permutation of
 * the hosts, so every host sends and receives the same number of connections (one more at most),
 * and every host pair carries about as many as every other: an all-to-all load that a
 * full-bisection fabric carries at every host's line rate. A connection's paths
 * ({@link SimParameters#paths()}) fall on the planes round-robin.
 *
 * <p>Metrics, per plane count {@code N} (keys end in {@code _N_planes}): {@code goodput_gbps}:
 * application bytes delivered over the steady half of the measured period (its second half: the
 * first holds the start of thousands of connections), in Gbit/s; {@code goodput_fraction}: that
 * over {@code hosts * N * line rate}; {@code jain_fairness} of the connections' rates over that
 * half (1 if all were idle in it, {@link Metrics#jain}); {@code connections_idle}: connections that delivered nothing in it; {@code drops} and
 * {@code ce_marks} over the measured period, {@code retransmissions}, {@code events}. Across plane counts: {@code scaling_A_to_B}:
 * goodput at {@code B} planes over goodput at {@code A} (ideal {@code B/A}), for consecutive
 * counts; {@code linear_scaling_efficiency}: goodput at the most planes over goodput at the
 * fewest, divided by the ratio of the plane counts (1 is linear).
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class PlaneScalingScenario {
    /** The plane counts the command line sweeps by default: the announcement's 4 and 8, and 2 below them. */
    public static final List<Integer> DEFAULT_PLANES = List.of(2, 4, 8);

    private PlaneScalingScenario() {
    }

    /** Runs the sweep over {@code planeCounts} with {@code p} and the protocol {@code protocol} makes; no draining. */
    public static Result run(SimParameters p, List<Integer> planeCounts, LongFunction<SimProtocol> protocol) {
        return run(p, planeCounts, protocol, false);
    }

    /**
     * Runs the sweep; with {@code drain}, after each measured period the connections stop posting
     * and the network runs until every posted message has completed (up to
     * {@link Experiment#DRAIN_NANOS}), and the report adds {@code bytes_lost_to_application_N_planes}
     * and {@code verified_N_planes}.
     */
    public static Result run(SimParameters p, List<Integer> planeCounts, LongFunction<SimProtocol> protocol,
            boolean drain) {
        List<Integer> counts = validated(p, planeCounts);
        Map<String, Object> m = new LinkedHashMap<>();
        List<PlaneRun> runs = new ArrayList<>();
        Experiment last = null;
        long events = 0;
        long simulated = 0;
        for (int planes : counts) {
            Experiment x = new Experiment(p.withTopology(TopologyKind.MULTIPLANE, p.k(), planes), protocol,
                    Scenarios.PACKET_BUFFER_BYTES);
            PlaneRun run = once(p, x, drain);
            runs.add(run);
            events += x.network().eventsProcessed();
            simulated += x.network().now();
            last = x;
        }
        Network net = last.network();
        int hosts = net.hostCount();
        m.put("connections", p.senders());
        m.put("hosts", hosts);
        m.put("connections_per_host", Scenarios.round(p.senders() / (double) hosts, 2));
        m.put("paths_per_connection", p.paths());
        m.put("link_gbps_per_plane", p.linkGbps());
        m.put("steady_from_us", Scenarios.round(runs.get(0).steadyFromNanos / 1000.0, 3));
        for (PlaneRun r : runs) {
            String n = "_" + r.planes + "_planes";
            m.put("goodput_gbps" + n, Scenarios.round(r.goodputGbps, 2));
            m.put("goodput_fraction" + n, Scenarios.round(r.goodputGbps / (p.linkGbps() * hosts * r.planes), 4));
            m.put("jain_fairness" + n, Scenarios.round(r.jain, 4));
            m.put("connections_idle" + n, r.idle);
            m.put("drops" + n, r.drops);
            m.put("ce_marks" + n, r.marks);
            m.put("retransmissions" + n, r.retransmissions);
            if (drain) {
                m.put("bytes_lost_to_application" + n, r.lostBytes);
                m.put("verified" + n, r.verified);
            }
            m.put("events" + n, r.events);
        }
        for (int i = 1; i < runs.size(); i++) {
            PlaneRun a = runs.get(i - 1);
            PlaneRun b = runs.get(i);
            m.put("scaling_" + a.planes + "_to_" + b.planes, Scenarios.round(ratio(b, a), 4));
        }
        PlaneRun fewest = runs.get(0);
        PlaneRun most = runs.get(runs.size() - 1);
        m.put("linear_scaling_efficiency", Scenarios.round(ratio(most, fewest) * fewest.planes / most.planes, 4));
        long rtt = last.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        m.put("base_rtt_us", Scenarios.round(rtt / 1000.0, 3));
        ScenarioResult report = new ScenarioResult("planes", last.protocol().name(), m, last.telemetry(), rtt,
                p.linkGbps(), events, simulated);
        double[] goodput = runs.stream().mapToDouble(r -> r.goodputGbps).toArray();
        return new Result(counts, goodput, (double) m.get("linear_scaling_efficiency"), report);
    }

    private static double ratio(PlaneRun b, PlaneRun a) {
        return a.goodputGbps > 0 ? b.goodputGbps / a.goodputGbps : 0;
    }

    private static List<Integer> validated(SimParameters p, List<Integer> planeCounts) {
        if (p.topology() != TopologyKind.MULTIPLANE) {
            throw new IllegalArgumentException("the planes scenario runs on the multiplane topology only");
        }
        if (planeCounts == null || planeCounts.size() < 2) {
            throw new IllegalArgumentException("the planes scenario needs at least two plane counts, e.g. --planes 4,8");
        }
        List<Integer> counts = new ArrayList<>(planeCounts);
        for (int i = 0; i < counts.size(); i++) {
            if (counts.get(i) < 1 || (i > 0 && counts.get(i) <= counts.get(i - 1))) {
                throw new IllegalArgumentException("plane counts must be >= 1 and increasing, got " + planeCounts);
            }
        }
        return List.copyOf(counts);
    }

    /**
     * The steady half of the measured period is its second half, in whole telemetry buckets: it
     * needs at least two (a shorter period has no bucket to take the half from), so a period
     * shorter than two buckets is refused before the run.
     */
    private static void requireTwoBuckets(SimParameters p, long bucketNanos, long baseRttNanos) {
        if (p.durationNanos() < 2 * bucketNanos) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, "the planes scenario measures over"
                    + " its second half in telemetry buckets of %.1f us (half the base RTT of %.1f us): the measured"
                    + " period must be at least two buckets, %.1f us, e.g. --duration-us %d; got %.3f us",
                    bucketNanos / 1000.0, baseRttNanos / 1000.0, 2 * bucketNanos / 1000.0,
                    (2 * bucketNanos + 999) / 1000, p.durationNanos() / 1000.0));
        }
    }

    private record PlaneRun(int planes, double goodputGbps, double jain, long idle, long drops, long marks,
            long retransmissions,
            long lostBytes, boolean verified, long events, long steadyFromNanos) {
    }

    private static PlaneRun once(SimParameters p, Experiment x, boolean drain) {
        Network net = x.network();
        int[][] pairs = connections(net.hostCount(), p.senders());
        for (int[] pair : pairs) {
            x.open(pair[0], pair[1], Long.MAX_VALUE);
        }
        x.establish();
        long rtt = x.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        long bucket = Scenarios.bucketFor(rtt);
        requireTwoBuckets(p, bucket, rtt);
        x.startAll(bucket, net.lastHopPort(pairs[0][1], 0));
        long drops = net.tailDrops();
        long marks = net.marks();
        x.runMeasured();
        Telemetry t = x.telemetry();
        int to = t.buckets();
        int from = to / 2;
        long steadyNanos = (to - from) * t.bucketNanos();
        double goodput = Metrics.deliveredIn(t, from, to) * 8.0 / steadyNanos;
        double[] rates = Metrics.meanRates(t, from, to);
        long idle = Arrays.stream(rates).filter(r -> r == 0).count();
        long dropped = net.tailDrops() - drops;
        long marked = net.marks() - marks;
        long retransmissions = x.retransmissions();
        long lost = 0;
        boolean verified = true;
        if (drain) {
            x.drain();
            lost = x.bytesLostToApplication();
            verified = x.verified();
        }
        return new PlaneRun(net.planes(), goodput, Metrics.jain(rates), idle, dropped, marked, retransmissions, lost,
                verified, net.eventsProcessed(), from * t.bucketNanos());
    }

    /**
     * {@code n} connections dealt out over {@code hosts} hosts in rounds: connection {@code i} from
     * host {@code i mod hosts} to the host {@code 1 + (i / hosts) mod (hosts - 1)} places further on.
     */
    public static int[][] connections(int hosts, int n) {
        if (hosts < 2) {
            throw new IllegalArgumentException("the planes scenario needs at least two hosts");
        }
        int[][] pairs = new int[n][];
        for (int i = 0; i < n; i++) {
            int s = i % hosts;
            int shift = 1 + (i / hosts) % (hosts - 1);
            pairs[i] = new int[] {s, (s + shift) % hosts};
        }
        return pairs;
    }

    /**
     * The sweep's figures, and the full report (its telemetry is that of the run with the most
     * planes).
     *
     * <p>Immutable and thread-safe to read.
     *
     * @param planes the plane counts, increasing
     * @param goodputGbps aggregate goodput over the steady half at each plane count
     * @param linearScalingEfficiency goodput ratio of the most to the fewest planes over their plane ratio
     * @param report every metric by its JSON name
     */
    public record Result(List<Integer> planes, double[] goodputGbps, double linearScalingEfficiency,
            ScenarioResult report) {
    }
}
