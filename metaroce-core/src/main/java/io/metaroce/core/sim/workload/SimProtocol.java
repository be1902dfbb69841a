package io.metaroce.core.sim.workload;

import io.metaroce.core.sim.fabric.Network;

/**
 * A transport protocol under test in the simulator: it installs a {@link io.metaroce.core.sim.SimTransport}
 * on each host and opens bulk flows between hosts. Scenarios are written against this interface
 * only, so a second protocol (the RoCEv2 baseline) plugs into every scenario by implementing it.
 *
 * <p>Lifecycle: {@link #install} once, then {@link #openFlow} for each flow (at time 0); the
 * scenario runs the network until every flow is {@link SimFlow#established()}, then starts them.
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public interface SimProtocol {
    /** Short name for tables and JSON keys, e.g. {@code metaroce}. */
    String name();

    /** Creates and {@link Network#attach attaches} a transport to every host of {@code network}. */
    void install(Network network);

    /** Opens flow {@code flowId} from {@code sourceHost} to {@code destinationHost} with {@code spec}. */
    SimFlow openFlow(int flowId, int sourceHost, int destinationHost, FlowSpec spec);
}
