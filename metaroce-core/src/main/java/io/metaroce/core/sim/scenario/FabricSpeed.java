package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.RawTransport;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The simulator's own speed, without a transport engine in the loop: a permutation of
 * {@link RawTransport}s (every host blasting full-size datagrams at its NIC's line rate to a
 * distinct other host, over {@code paths} source ports) for the measured duration. The caller
 * times the run with a wall clock (the core has none) and divides {@code events} by it.
 *
 * <p>Stateless and thread-safe (each run builds its own network).
 */
public final class FabricSpeed {
    private FabricSpeed() {
    }

    /** Runs the raw permutation; metrics: events, datagrams delivered, tail drops. */
    public static ScenarioResult run(SimParameters p) {
        Network net = new Network(FabricFactory.fabric(p), p.seed(), Scenarios.PACKET_BUFFER_BYTES);
        int hosts = net.hostCount();
        RawTransport[] t = new RawTransport[hosts];
        for (int h = 0; h < hosts; h++) {
            t[h] = new RawTransport();
            net.attach(h, t[h]);
        }
        int[] to = Scenarios.derangement(hosts, p.seed());
        int[] sockets = new int[p.paths()];
        for (int i = 0; i < sockets.length; i++) {
            sockets[i] = i + 1;
        }
        for (int h = 0; h < hosts; h++) {
            t[h].sendTo(net.address(to[h], 0), Scenarios.DATAGRAM_BYTES, Long.MAX_VALUE, sockets);
            net.wake(h);
        }
        net.runUntil(p.durationNanos());
        long delivered = 0;
        for (RawTransport r : t) {
            delivered += r.received();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("events", net.eventsProcessed());
        m.put("datagrams_delivered", delivered);
        m.put("tail_drops", net.tailDrops());
        m.put("ce_marks", net.marks());
        return new ScenarioResult("speed", "raw", m, null, 0, p.linkGbps(), net.eventsProcessed(), net.now());
    }
}
