package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Multiplane with one degraded plane: on a multiplane fabric, {@code senders} endless bulk flows
 * across it (host {@code i} to {@code i + hosts/2}); from T0, plane 0 marks every ECT packet with
 * the extra probability {@code degradeMarkProbability} and its links lose packets with
 * {@code degradeLossProbability}. Metrics: {@code degraded_plane_share}: of the frame bytes the
 * senders' NICs sent during the measured period, the share sent on plane 0 (1/planes if the
 * protocol ignores the degradation; lower is better steering); {@code goodput_fraction}: delivered
 * bytes over {@code flows * planes * line rate * duration} (each host has one line-rate NIC port
 * per plane).
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class MultiplaneScenario {
    private MultiplaneScenario() {
    }

    /** Runs the degraded-plane scenario with {@code p} and the protocol {@code protocol} makes. */
    public static Result run(SimParameters p, LongFunction<SimProtocol> protocol) {
        if (p.topology() != TopologyKind.MULTIPLANE || p.planes() < 2) {
            throw new IllegalArgumentException("the multiplane scenario needs --topology multiplane and --planes >= 2");
        }
        Experiment x = new Experiment(p, protocol, Scenarios.PACKET_BUFFER_BYTES);
        Network net = x.network();
        int[][] pairs = Scenarios.crossPairs(net.hostCount(), p.senders());
        for (int[] pair : pairs) {
            x.open(pair[0], pair[1], Long.MAX_VALUE);
        }
        x.establish();
        long rtt = x.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        x.startAll(Scenarios.bucketFor(rtt), net.lastHopPort(pairs[0][1], 0));
        net.degradePlane(0, x.startNanos(), p.degradeMarkProbability(), p.degradeLossProbability());
        long[] before = senderPlaneBytes(net, pairs);
        x.runMeasured();
        long[] after = senderPlaneBytes(net, pairs);
        long total = 0;
        for (int pl = 0; pl < after.length; pl++) {
            total += after[pl] - before[pl];
        }
        long delivered = x.deliveredBytes();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("degraded_plane_share", Scenarios.round((after[0] - before[0]) / (double) Math.max(1, total), 4));
        m.put("goodput_fraction", Scenarios.round(delivered
                / (FabricFactory.bytesIn(p.linkGbps(), p.durationNanos()) * pairs.length * net.planes()), 4));
        m.put("planes", net.planes());
        m.put("fair_plane_share", Scenarios.round(1.0 / net.planes(), 4));
        m.put("degrade_mark_probability", p.degradeMarkProbability());
        m.put("degrade_loss_probability", p.degradeLossProbability());
        m.put("ce_marks", net.marks());
        m.put("retransmissions", x.retransmissions());
        m.put("base_rtt_us", Scenarios.round(rtt / 1000.0, 3));
        ScenarioResult report = new ScenarioResult("multiplane", x.protocol().name(), m, x.telemetry(), rtt, p.linkGbps(),
                net.eventsProcessed(), net.now());
        return new Result((double) m.get("degraded_plane_share"), (double) m.get("goodput_fraction"), report);
    }

    private static long[] senderPlaneBytes(Network net, int[][] pairs) {
        long[] bytes = new long[net.planes()];
        for (int[] pair : pairs) {
            for (int pl = 0; pl < net.planes(); pl++) {
                bytes[pl] += net.portTxBytes(net.hostPort(pair[0], pl));
            }
        }
        return bytes;
    }

    /**
     * The multiplane figures, and the full report.
     *
     * <p>Immutable and thread-safe to read.
     */
    public record Result(double degradedPlaneShare, double goodputFraction, ScenarioResult report) {
    }
}
