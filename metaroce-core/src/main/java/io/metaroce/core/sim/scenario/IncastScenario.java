package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Telemetry;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Incast: {@code senders} hosts (drawn from the seed among all but host 0) each run an endless
 * bulk flow to host 0, all starting at the same instant T0. Metrics:
 * <ul>
 *   <li>{@code convergence_rtts}: convergence time ({@link Metrics}: every sender within ±10% of the
 *       fair share, {@code goodputCapacity / senders}, in every rate window from then to the end),
 *       in base round trips; -1 if the run never converges;</li>
 *   <li>{@code jain_fairness}: Jain's index of the senders' mean rates from convergence to the end
 *       (from the second half of the run if it never converges);</li>
 *   <li>{@code peak_queue_bytes}: the deepest the receiver's last-hop port(s) got over the same
 *       span; {@code bdp_bytes} is the link rate times the base round trip, for comparison;</li>
 *   <li>{@code drops}: packets dropped anywhere in the fabric during the run;
 *       {@code drops_after_convergence}: dropped at the receiver's last hop over the span;</li>
 *   <li>{@code goodput_fraction}: bytes delivered to the receiver over the measured period divided
 *       by what the receiver's link carries in that time at line rate.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class IncastScenario {
    private IncastScenario() {
    }

    private static double r(Map<String, Object> m, String key) {
        return (double) m.get(key);
    }

    /** Runs incast with {@code p} and the protocol {@code protocol} makes. */
    public static Result run(SimParameters p, LongFunction<SimProtocol> protocol) {
        Experiment x = new Experiment(p, protocol, Scenarios.PACKET_BUFFER_BYTES);
        Network net = x.network();
        int receiver = 0;
        for (int s : Scenarios.pickHosts(net.hostCount(), p.senders(), receiver, p.seed())) {
            x.open(s, receiver, Long.MAX_VALUE);
        }
        x.establish();
        long rtt = x.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        long bucket = Scenarios.bucketFor(rtt);
        int[] watch = new int[net.planes()];
        for (int pl = 0; pl < watch.length; pl++) {
            watch[pl] = net.lastHopPort(receiver, pl);
        }
        long dropsBefore = net.tailDrops() + net.blackholeDrops() + net.lossDrops();
        x.startAll(bucket, watch);
        x.runMeasured();
        Telemetry t = x.telemetry();

        double capacity = Scenarios.goodputCapacity(p.linkGbps()) * net.planes();
        double fair = capacity / p.senders();
        int w = Scenarios.windowBuckets(bucket, rtt, fair, p.messageBytes());
        int c = Metrics.convergenceBucket(t, fair, Scenarios.FAIR_SHARE_TOLERANCE, w,
                Scenarios.tailBuckets(bucket, fair, p.messageBytes()));
        int from = c >= 0 ? c : t.buckets() / 2;
        double[] rates = Metrics.meanRates(t, from, t.buckets());
        long delivered = Metrics.deliveredIn(t, 0, t.buckets());
        double lineBytes = FabricFactory.bytesIn(p.linkGbps(), p.durationNanos()) * net.planes();

        Map<String, Object> m = new LinkedHashMap<>();
        m.put("convergence_rtts", c < 0 ? -1.0 : Scenarios.round(c * (double) bucket / rtt, 2));
        m.put("jain_fairness", Scenarios.round(Metrics.jain(rates), 4));
        m.put("peak_queue_bytes", Metrics.peakDepthFrom(t, from));
        m.put("bdp_bytes", Math.round(FabricFactory.bytesIn(p.linkGbps(), rtt)));
        m.put("drops", net.tailDrops() + net.blackholeDrops() + net.lossDrops() - dropsBefore);
        m.put("drops_after_convergence", Metrics.dropsFrom(t, from));
        m.put("goodput_fraction", Scenarios.round(delivered / lineBytes, 4));
        m.put("peak_queue_bytes_overall", Metrics.peakDepthFrom(t, 0));
        m.put("converged", c >= 0);
        m.put("window_us", Scenarios.round(w * bucket / 1000.0, 2));
        m.put("base_rtt_us", Scenarios.round(rtt / 1000.0, 3));
        m.put("fair_share_gbps", Scenarios.round(Scenarios.gbps(fair), 3));
        m.put("ce_marks", net.marks());
        m.put("retransmissions", x.retransmissions());
        ScenarioResult report = new ScenarioResult("incast", x.protocol().name(), m, t, rtt, p.linkGbps(), net.eventsProcessed(), net.now());
        return new Result(r(m, "convergence_rtts"), r(m, "jain_fairness"), (long) m.get("peak_queue_bytes"), (long) m.get("drops"),
                r(m, "goodput_fraction"), report);
    }

    /**
     * The incast figures ({@code convergenceRtts} is -1 if the run never converged), and the full report.
     *
     * <p>Immutable and thread-safe to read.
     */
    public record Result(double convergenceRtts, double jainFairness, long peakQueueBytes, long drops, double goodputFraction, ScenarioResult report) {
    }
}
