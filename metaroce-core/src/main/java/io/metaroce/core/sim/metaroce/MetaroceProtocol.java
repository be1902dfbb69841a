package io.metaroce.core.sim.metaroce;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.Endpoint;
import io.metaroce.core.sim.SimAddress;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * MetaRoCE in the simulator: one listening {@link Endpoint} per host (with the AIMD congestion
 * controller unless told otherwise), and flows that open a connection with one path per
 * requested UDP source port and post WRITE_WITH_IMM messages (see {@link MetaroceFlow}).
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public final class MetaroceProtocol implements SimProtocol {
    private final EngineConfig config;
    private final Function<EngineConfig, CongestionController> congestion;
    private final long seed;
    private final boolean verify;
    private Network network;
    private MetaroceHost[] hosts;
    private final List<MetaroceFlow> flows = new ArrayList<>();

    /**
     * MetaRoCE with {@code config}, the given controller factory, endpoints seeded from
     * {@code seed}, and (if {@code verify}) every delivered message checked byte for byte.
     */
    public MetaroceProtocol(EngineConfig config, Function<EngineConfig, CongestionController> congestion, long seed,
            boolean verify) {
        this.config = config;
        this.congestion = congestion;
        this.seed = seed;
        this.verify = verify;
    }

    /** MetaRoCE with the simulator's engine configuration ({@link #simulatorConfig()}) and {@link AimdController}. */
    public static MetaroceProtocol withAimd(long seed, boolean verify) {
        return new MetaroceProtocol(simulatorConfig(), AimdController::new, seed, verify);
    }

    /**
     * The engine configuration the scenarios run: the defaults, with the round-trip estimate before
     * the first sample and the minimum retransmission timeout scaled to a fabric whose round trips
     * are microseconds (the defaults, 100 us and 1 ms, suit real networks with slower hosts).
     */
    public static EngineConfig simulatorConfig() {
        return EngineConfig.builder().initialRttNanos(20_000L).minRtoNanos(200_000L).build();
    }

    @Override
    public String name() {
        return "metaroce";
    }

    @Override
    public void install(Network net) {
        if (config.maxDatagramBytes() > 9_000) {
            throw new IllegalArgumentException("maxDatagramBytes above a jumbo frame does not fit the simulated NIC");
        }
        this.network = net;
        this.hosts = new MetaroceHost[net.hostCount()];
        SplittableRandom random = new SplittableRandom(seed);
        for (int h = 0; h < hosts.length; h++) {
            byte[] secret = new byte[32];
            random.nextBytes(secret);
            Endpoint.Builder b = Endpoint.builder(new SplittableRandom(random.nextLong()), secret, SimAddressCodec.INSTANCE)
                    .config(config).listening(true);
            if (congestion != null) {
                b.congestionController(congestion);
            }
            hosts[h] = new MetaroceHost(h, b.build());
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
        MetaroceHost from = hosts[sourceHost];
        MetaroceHost to = hosts[destinationHost];
        MetaroceFlow flow = new MetaroceFlow(flowId, from, to, spec, verify, seed * 31 + flowId);
        SimAddress target = network.address(destinationHost, MetaroceHost.LISTEN_SOCKET);
        Connection c = from.endpoint().connect(network.now(), target, from.takeSockets(spec.paths()));
        from.sending(c, flow);
        to.expectConnection(c.localId(), flow);
        flows.add(flow);
        network.wake(sourceHost);
        return flow;
    }

    /** The MetaRoCE host adapter of host {@code h}. */
    public MetaroceHost host(int h) {
        return hosts[h];
    }

    /** The sender-side connection of a flow this protocol opened. */
    public Connection senderConnection(SimFlow flow) {
        return ((MetaroceFlow) flow).sender();
    }
}
