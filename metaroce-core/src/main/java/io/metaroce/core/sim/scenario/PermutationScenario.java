package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Permutation: every host runs an endless bulk flow to a distinct other host (a random
 * derangement from the seed), so every host sends and receives one flow. Metric:
 * {@code goodput_fraction} = aggregate delivered bytes over the measured period divided by
 * {@code hosts * line rate * duration}: the share of the fabric's full-bisection capacity (every
 * host sending and receiving at line rate, which a full-bisection fabric allows) that the
 * protocol achieves. ECMP collisions and congestion control decide how far below 1 it falls.
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class PermutationScenario {
    /**
     * Paths (UDP source ports) per flow the command line runs the permutation with unless told
     * otherwise (the other scenarios: 8): a k=8 fat-tree has (k/2)^2 = 16 equal-cost routes between
     * two pods, and 16 hashed paths put fewer of a flow's paths on one crowded edge uplink than 8.
     * With the simulator's connection growing by at most 8 datagrams per round trip whatever its
     * paths ({@code aimdBalancedIncreaseMaxDatagrams}, [SPEC-CC-39]) the finer split does not make
     * it more aggressive: 2 ms, seeds 1 / 2, 0.8896 / 0.8864 against 0.8781 / 0.8695 with 8 paths,
     * with fewer drops (docs/benchmarks.md, "Permutation round (session 14)").
     */
    public static final int PATHS_PER_FLOW = 16;

    private PermutationScenario() {
    }

    /** Runs the permutation with {@code p} and the protocol {@code protocol} makes. */
    public static Result run(SimParameters p, LongFunction<SimProtocol> protocol) {
        Experiment x = new Experiment(p, protocol, Scenarios.PACKET_BUFFER_BYTES);
        Network net = x.network();
        int[] to = Scenarios.derangement(net.hostCount(), p.seed());
        for (int h = 0; h < to.length; h++) {
            x.open(h, to[h], Long.MAX_VALUE);
        }
        x.establish();
        long rtt = x.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        x.startAll(Scenarios.bucketFor(rtt), net.lastHopPort(to[0], 0));
        long drops = net.tailDrops();
        x.runMeasured();
        long delivered = x.deliveredBytes();
        double capacity = FabricFactory.bytesIn(p.linkGbps(), p.durationNanos()) * net.hostCount() * net.planes();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("goodput_fraction", Scenarios.round(delivered / capacity, 4));
        m.put("goodput_fraction_of_payload_capacity", Scenarios.round(delivered
                / (Scenarios.goodputCapacity(p.linkGbps()) * p.durationNanos() * net.hostCount() * net.planes()), 4));
        m.put("aggregate_gbps", Scenarios.round(delivered * 8.0 / p.durationNanos(), 2));
        m.put("flows", to.length);
        m.put("drops", net.tailDrops() - drops);
        m.put("ce_marks", net.marks());
        m.put("retransmissions", x.retransmissions());
        m.put("base_rtt_us", Scenarios.round(rtt / 1000.0, 3));
        ScenarioResult report = new ScenarioResult("permutation", x.protocol().name(), m, x.telemetry(), rtt, p.linkGbps(),
                net.eventsProcessed(), net.now());
        return new Result((double) m.get("goodput_fraction"), report);
    }

    /**
     * The permutation figure, and the full report.
     *
     * <p>Immutable and thread-safe to read.
     */
    public record Result(double goodputFraction, ScenarioResult report) {
    }
}
