package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Telemetry;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * One protocol's run of a scenario: the network, the flows, and the phases every scenario shares.
 * <ol>
 *   <li>{@link #open}: the flows' connections are opened at time 0;</li>
 *   <li>{@link #establish}: the network runs until every connection is set up;</li>
 *   <li>{@link #startAll}: at {@code T0} (the next whole microsecond) every flow starts posting at
 *       once, and telemetry sampling starts; metric times are relative to {@code T0};</li>
 *   <li>{@link #runMeasured}: the network runs for the measured duration;</li>
 *   <li>{@link #drain}: the flows stop posting and the network runs until every posted message has
 *       completed, or a deadline passes (what is then still outstanding counts as lost).</li>
 * </ol>
 *
 * <p>Not thread-safe.
 */
public final class Experiment {
    /** How long connection set-up may take before the run is declared failed. */
    public static final long ESTABLISH_DEADLINE_NANOS = 50_000_000L;
    /** How long after the measured period outstanding messages may take to complete. */
    public static final long DRAIN_NANOS = 200_000_000L;

    private final SimParameters parameters;
    private final Network network;
    private final SimProtocol protocol;
    private final List<SimFlow> flows = new ArrayList<>();
    private final List<String> flowNames = new ArrayList<>();
    private Telemetry telemetry;
    private long startNanos = -1;
    private long bucketNanos;

    /** Builds the network of {@code p} and installs the protocol {@code protocols} makes for {@code p.seed()}. */
    public Experiment(SimParameters p, LongFunction<SimProtocol> protocols, int maxDatagramBytes) {
        this.parameters = p;
        this.network = new Network(FabricFactory.fabric(p), p.seed(), maxDatagramBytes);
        this.protocol = protocols.apply(p.seed());
        protocol.install(network);
    }

    /** The network. */
    public Network network() {
        return network;
    }

    /** The protocol under test. */
    public SimProtocol protocol() {
        return protocol;
    }

    /** The flows opened, in order. */
    public List<SimFlow> flows() {
        return flows;
    }

    /** Opens a flow from {@code src} to {@code dst} with the parameters' workload. */
    public SimFlow open(int src, int dst, long totalBytes) {
        FlowSpec spec = new FlowSpec(parameters.paths(), parameters.messageBytes(), parameters.outstandingMessages(),
                totalBytes);
        SimFlow f = protocol.openFlow(flows.size(), src, dst, spec);
        flows.add(f);
        flowNames.add("h" + src + "->h" + dst);
        return f;
    }

    /** Runs until every flow is established; fails naming the seed if that takes too long. */
    public void establish() {
        boolean ok = network.runUntil(this::allEstablished, ESTABLISH_DEADLINE_NANOS);
        if (!ok) {
            long up = flows.stream().filter(SimFlow::established).count();
            throw new IllegalStateException(protocol.name() + ": only " + up + " of " + flows.size()
                    + " flows were established by t=" + network.now() + "ns (seed " + parameters.seed() + ")");
        }
    }

    /**
     * Starts every flow at {@code T0}, sampling telemetry every {@code bucket} ns until the end of
     * the measured period; {@code watch} names the ports to record (the receivers' last hops).
     */
    public void startAll(long bucket, int... watch) {
        this.bucketNanos = bucket;
        long t0 = (network.now() / 1000 + 1) * 1000;
        this.startNanos = t0;
        telemetry = new Telemetry(t0, bucket);
        for (int i = 0; i < flows.size(); i++) {
            telemetry.addFlow(flowNames.get(i), flows.get(i)::deliveredBytes);
        }
        for (int port : watch) {
            telemetry.watchPort(network.portName(port), port);
        }
        network.runUntil(t0 - 1);
        network.record(telemetry, t0 + parameters.durationNanos());
        network.schedule(t0, () -> {
            for (SimFlow f : flows) {
                f.start(t0);
            }
            for (SimFlow f : flows) {
                network.wake(f.sourceHost());
            }
        });
    }

    /** Runs the measured period. */
    public void runMeasured() {
        network.runUntil(startNanos + parameters.durationNanos());
    }

    /** Stops posting and runs until nothing is outstanding or {@link #DRAIN_NANOS} have passed; returns whether all completed. */
    public boolean drain() {
        for (SimFlow f : flows) {
            f.stopPosting();
        }
        return network.runUntil(this::nothingOutstanding, network.now() + DRAIN_NANOS);
    }

    // Plain loops: these run before every event.
    private boolean allEstablished() {
        for (int i = 0; i < flows.size(); i++) {
            if (!flows.get(i).established()) {
                return false;
            }
        }
        return true;
    }

    private boolean nothingOutstanding() {
        for (int i = 0; i < flows.size(); i++) {
            if (flows.get(i).outstandingMessages() != 0) {
                return false;
            }
        }
        return true;
    }

    /** {@code T0}: when the flows started. */
    public long startNanos() {
        return startNanos;
    }

    /** The telemetry of the measured period. */
    public Telemetry telemetry() {
        return telemetry;
    }

    /** Telemetry bucket width. */
    public long bucketNanos() {
        return bucketNanos;
    }

    /** The largest base round trip among the flows' routes (their first path). */
    public long baseRttNanos(int datagramBytes) {
        int hops = 0;
        for (SimFlow f : flows) {
            hops = Math.max(hops, network.trace(f.sourceHost(), 1, f.destinationHost(), 0).length);
        }
        return FabricFactory.baseRttNanos(hops, parameters.linkGbps(), parameters.linkDelayNanos(), datagramBytes);
    }

    /** Sum over flows of delivered bytes. */
    public long deliveredBytes() {
        return flows.stream().mapToLong(SimFlow::deliveredBytes).sum();
    }

    /** Sum over flows of retransmitted packets. */
    public long retransmissions() {
        return flows.stream().mapToLong(SimFlow::retransmissions).sum();
    }

    /**
     * Bytes posted that the application lost: per flow, posted minus the smaller of what the
     * receiver was delivered and what the sender saw complete (a message counts as lost if it never
     * reached the receiving application, or if its sender was told it failed or never heard back).
     */
    public long bytesLostToApplication() {
        return flows.stream().mapToLong(f -> f.postedBytes() - Math.min(f.deliveredBytes(), f.completedBytes())).sum();
    }

    /** Whether every flow's delivered bytes were verified. */
    public boolean verified() {
        return flows.stream().allMatch(SimFlow::verified);
    }
}
