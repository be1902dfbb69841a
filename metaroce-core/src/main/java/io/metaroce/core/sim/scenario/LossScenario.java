package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Random loss: {@code senders} endless bulk flows, host {@code i} to host {@code i + hosts/2}
 * (across the fabric), run twice with the same seed: once with no loss, once with every link
 * (both directions, host links included) losing each packet with probability {@code lossProbability}
 * from T0 on. So a packet crossing h links is lost end to end with probability
 * {@code 1 - (1-P)^h}. Metrics: {@code goodput_fraction} = bytes delivered with loss / bytes
 * delivered without, over the measured period; {@code bytes_lost_to_application} of the lossy run
 * after draining; the goodputs, drops and retransmissions.
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class LossScenario {
    /**
     * The messages each flow keeps posted in this scenario (the command line's default; the
     * other scenarios keep {@link SimParameters#defaults()}'s 32). A flow's messages complete in
     * order, so a message whose last packet is lost holds every slot posted after it; at 10%
     * loss per link a packet is lost end to end with 47% (six links) and a 16 KiB message takes
     * several round trips of copies to complete. With 32 slots (512 KiB, about five
     * bandwidth-delay products) the senders idled with every slot waiting for a last packet; 64
     * lift the lossy run (seed 1, 10%: 0.483 to 0.514 of the lossless goodput; 5%: 0.702 to
     * 0.738) and leave the lossless run, which the receivers' hints hold, unchanged
     * (docs/benchmarks.md, "Loss round (session 9)").
     */
    public static final int OUTSTANDING_MESSAGES = 64;

    private LossScenario() {
    }

    /** Runs the loss scenario with {@code p} and the protocol {@code protocol} makes. */
    public static Result run(SimParameters p, LongFunction<SimProtocol> protocol) {
        Run clean = once(p, protocol, 0);
        Run lossy = once(p, protocol, p.lossProbability());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("goodput_fraction", Scenarios.round(lossy.delivered / (double) Math.max(1, clean.delivered), 4));
        m.put("loss_per_link", p.lossProbability());
        m.put("goodput_gbps", Scenarios.round(lossy.delivered * 8.0 / p.durationNanos(), 3));
        m.put("goodput_gbps_without_loss", Scenarios.round(clean.delivered * 8.0 / p.durationNanos(), 3));
        m.put("drops", lossy.drops);
        m.put("retransmissions", lossy.x.retransmissions());
        m.put("bytes_lost_to_application", lossy.lost);
        m.put("verified", lossy.x.verified());
        Network net = lossy.x.network();
        ScenarioResult report = new ScenarioResult("loss", lossy.x.protocol().name(), m, lossy.x.telemetry(),
                lossy.x.baseRttNanos(Scenarios.DATAGRAM_BYTES), p.linkGbps(),
                net.eventsProcessed() + clean.x.network().eventsProcessed(), net.now() + clean.x.network().now());
        return new Result((double) m.get("goodput_fraction"), (long) m.get("bytes_lost_to_application"), report);
    }

    private record Run(Experiment x, long delivered, long drops, long lost) {
    }

    private static Run once(SimParameters p, LongFunction<SimProtocol> protocol, double loss) {
        Experiment x = new Experiment(p, protocol, Scenarios.PACKET_BUFFER_BYTES);
        Network net = x.network();
        int[][] pairs = Scenarios.crossPairs(net.hostCount(), p.senders());
        for (int[] pair : pairs) {
            x.open(pair[0], pair[1], Long.MAX_VALUE);
        }
        x.establish();
        long rtt = x.baseRttNanos(Scenarios.DATAGRAM_BYTES);
        int[] watch = new int[pairs.length];
        for (int i = 0; i < pairs.length; i++) {
            watch[i] = net.lastHopPort(pairs[i][1], 0);
        }
        x.startAll(Scenarios.bucketFor(rtt), watch);
        if (loss > 0) {
            net.schedule(x.startNanos(), () -> net.setLossEverywhere(loss));
        }
        x.runMeasured();
        long delivered = x.deliveredBytes();
        x.drain();
        return new Run(x, delivered, net.lossDrops() + net.tailDrops() + net.blackholeDrops(), x.bytesLostToApplication());
    }

    /**
     * The loss figures (goodput relative to the run without loss), and the full report.
     *
     * <p>Immutable and thread-safe to read.
     */
    public record Result(double goodputFraction, long bytesLostToApplication, ScenarioResult report) {
    }
}
