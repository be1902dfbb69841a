package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Telemetry;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Failover: {@code senders} endless bulk flows across the fabric (host {@code i} to
 * {@code i + hosts/2}); at {@code T0 + duration/3} a failure strikes:
 * <ul>
 *   <li>single-plane fabrics: the highest-tier link on flow 0's first path (a core or spine
 *       link) fails, black-holing what ECMP hashes onto it; routing withdraws it
 *       {@code withdrawAfterNanos} later (if not negative);</li>
 *   <li>multiplane: every link of plane 0 fails (the transport must move off it by itself).</li>
 * </ul>
 * Metrics: {@code rtts_to_recover}: from the failure to the start of the first rate window
 * (aggregate over all flows) that reaches 90% of the pre-failure aggregate rate (measured from
 * {@code T0 + duration/6} to the failure) times the share of capacity that remains (1 for a
 * link, {@code (planes-1)/planes} for a plane), in base round trips (-1: never recovered);
 * {@code bytes_lost_to_application}: bytes posted that did not complete successfully after the
 * flows stop posting at the end and drain for up to {@link Experiment#DRAIN_NANOS}.
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class FailoverScenario {
    private FailoverScenario() {
    }

    /** Runs failover with {@code p} and the protocol {@code protocol} makes. */
    public static Result run(SimParameters p, LongFunction<SimProtocol> protocol) {
        Experiment x = new Experiment(p, protocol, Scenarios.PACKET_BUFFER_BYTES);
        Network net = x.network();
        int[][] pairs = Scenarios.crossPairs(net.hostCount(), p.senders());
        for (int[] pair : pairs) {
            x.open(pair[0], pair[1], Long.MAX_VALUE);
        }
        x.establish();
        long rtt = x.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        long bucket = Scenarios.bucketFor(rtt);
        int[] watch = new int[pairs.length];
        for (int i = 0; i < pairs.length; i++) {
            watch[i] = net.lastHopPort(pairs[i][1], 0);
        }
        x.startAll(bucket, watch);
        long failAt = x.startNanos() + p.durationNanos() / 3;
        String failed;
        double remaining;
        if (net.planes() > 1) {
            net.failPlane(0, failAt, p.withdrawAfterNanos());
            failed = "plane 0";
            remaining = (net.planes() - 1) / (double) net.planes();
        } else {
            int link = highestTierLink(net, net.trace(pairs[0][0], 1, pairs[0][1], 0));
            net.failLink(link, failAt, p.withdrawAfterNanos());
            failed = net.portName(2 * link);
            remaining = 1;
        }
        x.runMeasured();
        Telemetry t = x.telemetry();
        int failBucket = (int) ((failAt - x.startNanos()) / bucket);
        int before = (int) (p.durationNanos() / 6 / bucket);
        double preRate = Metrics.deliveredIn(t, before, failBucket) / (double) ((failBucket - before) * bucket);
        int w = Scenarios.windowBuckets(bucket, rtt, preRate / pairs.length, p.messageBytes());
        // The first window that starts after the failure and reaches the target; before a dip the
        // aggregate still counts bytes sent before the failure, so windows start at the failure.
        int r = Metrics.firstWindowReaching(t, failBucket, w, 0.9 * remaining * preRate);
        long blackholed = net.blackholeDrops();
        boolean drained = x.drain();

        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rtts_to_recover", r < 0 ? -1.0 : Scenarios.round((r - failBucket) * (double) bucket / rtt, 2));
        m.put("bytes_lost_to_application", x.bytesLostToApplication());
        m.put("failed", failed);
        m.put("withdraw_after_us", p.withdrawAfterNanos() < 0 ? -1.0 : p.withdrawAfterNanos() / 1000.0);
        m.put("pre_failure_gbps", Scenarios.round(Scenarios.gbps(preRate), 3));
        m.put("post_failure_gbps", Scenarios.round(Scenarios.gbps(
                Metrics.deliveredIn(t, failBucket, t.buckets()) / (double) ((t.buckets() - failBucket) * bucket)), 3));
        m.put("blackholed_packets", blackholed);
        m.put("drained", drained);
        m.put("retransmissions", x.retransmissions());
        m.put("window_us", Scenarios.round(w * bucket / 1000.0, 2));
        m.put("base_rtt_us", Scenarios.round(rtt / 1000.0, 3));
        m.put("verified", x.verified());
        ScenarioResult report = new ScenarioResult("failover", x.protocol().name(), m, t, rtt, p.linkGbps(), net.eventsProcessed(), net.now());
        return new Result((double) m.get("rtts_to_recover"), (long) m.get("bytes_lost_to_application"), report);
    }

    /** The link of the route whose switch ends sit highest (core over aggregation over edge). */
    static int highestTierLink(Network net, int[] route) {
        int best = -1;
        int bestTier = -1;
        for (int port : route) {
            int tier = Math.min(net.nodeTier(net.portNode(port)), net.nodeTier(net.portPeerNode(port)));
            if (tier > bestTier) {
                bestTier = tier;
                best = port / 2;
            }
        }
        return best;
    }

    /**
     * The failover figures ({@code rttsToRecover} is -1 if goodput never recovered), and the full report.
     *
     * <p>Immutable and thread-safe to read.
     */
    public record Result(double rttsToRecover, long bytesLostToApplication, ScenarioResult report) {
    }
}
