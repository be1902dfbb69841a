package io.metaroce.core.sim.rocev2;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The RoCEv2 baseline in the simulator: one {@link RoceV2Endpoint} per host, paced to the host's
 * NIC rate ({@link Network#hostNicBitsPerSecond}), with DCQCN on; each flow is one queue pair,
 * opened on both hosts at once (out of band), so each flow has exactly one ECMP route (see
 * {@link RoceV2Flow}). Each side's socket, hence UDP source port, is drawn from the seed among
 * {@link #SOURCE_PORTS} ports, as NICs derive a queue pair's source port from a hash of its
 * number: so queue pairs spread over ECMP routes and planes as they would on real NICs. Every other setting is
 * {@link RoceV2Config#defaults()} (docs/baseline-rocev2.md gives their sources).
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public final class RoceV2Protocol implements SimProtocol {
    /** Sockets (UDP source ports) a queue pair's port is drawn from: 1 to {@code SOURCE_PORTS}. */
    public static final int SOURCE_PORTS = 1024;

    private final RoceV2Config base;
    private final SplittableRandom ports;
    private Network network;
    private RoceV2Host[] hosts;

    /**
     * The baseline with {@code base}, whose line rate is replaced by each host's NIC rate, and
     * queue pairs' source ports drawn from {@code seed}.
     */
    public RoceV2Protocol(RoceV2Config base, long seed) {
        this.base = Objects.requireNonNull(base, "base");
        this.ports = new SplittableRandom(seed);
    }

    /** The baseline with {@link RoceV2Config#defaults()} (DCQCN on), ports drawn from {@code seed}. */
    public static RoceV2Protocol withDefaults(long seed) {
        return new RoceV2Protocol(RoceV2Config.defaults(), seed);
    }

    @Override
    public String name() {
        return "rocev2";
    }

    @Override
    public void install(Network net) {
        this.network = net;
        this.hosts = new RoceV2Host[net.hostCount()];
        for (int h = 0; h < hosts.length; h++) {
            RoceV2Config c = base.toBuilder().lineRateBitsPerSecond(net.hostNicBitsPerSecond(h)).build();
            hosts[h] = new RoceV2Host(h, c);
            net.attach(h, hosts[h]);
        }
    }

    @Override
    public SimFlow openFlow(int flowId, int sourceHost, int destinationHost, FlowSpec spec) {
        if (network == null) {
            throw new IllegalStateException("install the protocol on a network before opening flows");
        }
        if (sourceHost == destinationHost) {
            throw new IllegalArgumentException("a flow needs two distinct hosts, got " + sourceHost + " twice");
        }
        RoceV2Host from = hosts[sourceHost];
        RoceV2Host to = hosts[destinationHost];
        int sendSocket = 1 + ports.nextInt(SOURCE_PORTS);
        int receiveSocket = 1 + ports.nextInt(SOURCE_PORTS);
        int sendQpn = from.takeQpn();
        int receiveQpn = to.takeQpn();
        RoceV2Flow flow = new RoceV2Flow(flowId, from, to, spec, sendQpn);
        from.endpoint().openQueuePair(network.address(destinationHost, receiveSocket), sendSocket, sendQpn, receiveQpn);
        to.endpoint().openQueuePair(network.address(sourceHost, sendSocket), receiveSocket, receiveQpn, sendQpn);
        from.own(sendQpn, flow);
        to.own(receiveQpn, flow);
        return flow;
    }

    /** The baseline's host adapter of host {@code h}. */
    public RoceV2Host host(int h) {
        return hosts[h];
    }

    /** Whether the sender's queue pair of a flow this protocol opened has failed. */
    public boolean failed(SimFlow flow) {
        return ((RoceV2Flow) flow).failed();
    }
}
