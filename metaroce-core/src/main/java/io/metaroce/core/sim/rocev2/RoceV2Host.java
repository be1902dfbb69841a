package io.metaroce.core.sim.rocev2;

import io.metaroce.core.api.Transmit;
import io.metaroce.core.sim.SimTransport;
import java.nio.ByteBuffer;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * Adapts a {@link RoceV2Endpoint} (one simulated NIC) to {@link SimTransport} and plays the
 * application on it: the endpoint's listener calls land here, synchronously inside the endpoint's
 * input calls, and are handed to the flow that owns the queue pair, which posts its next message at
 * once. Each queue pair gets a fresh queue pair number; its socket (its UDP source port, so its
 * one ECMP route) is the protocol's choice.
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public final class RoceV2Host implements SimTransport, RoceV2Listener {
    private final int host;
    private final RoceV2Endpoint endpoint;
    private final Int2ObjectHashMap<RoceV2Flow> byQpn = new Int2ObjectHashMap<>();
    private int nextQpn = 1;

    RoceV2Host(int host, RoceV2Config config) {
        this.host = host;
        this.endpoint = new RoceV2Endpoint(config, this);
    }

    /** The host's index. */
    public int host() {
        return host;
    }

    /** The endpoint this host drives. */
    public RoceV2Endpoint endpoint() {
        return endpoint;
    }

    int takeQpn() {
        return nextQpn++;
    }

    void own(int qpn, RoceV2Flow flow) {
        byQpn.put(qpn, flow);
    }

    @Override
    public void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
            Object remoteAddress, int ecn) {
        endpoint.handleDatagram(nowNanos, datagram, offset, length, localSocket, remoteAddress, ecn);
    }

    @Override
    public boolean pollTransmit(long nowNanos, Transmit out) {
        return endpoint.pollTransmit(nowNanos, out);
    }

    @Override
    public long pollTimeoutNanos() {
        return endpoint.pollTimeoutNanos();
    }

    @Override
    public void handleTimeout(long nowNanos) {
        endpoint.handleTimeout(nowNanos);
    }

    @Override
    public void onMessageCompleted(int qpn, long nowNanos, int bytes) {
        RoceV2Flow flow = byQpn.get(qpn);
        if (flow != null) {
            flow.onCompleted(bytes);
        }
    }

    @Override
    public void onMessageDelivered(int qpn, long nowNanos, int bytes) {
        RoceV2Flow flow = byQpn.get(qpn);
        if (flow != null) {
            flow.onDelivered(bytes);
        }
    }

    @Override
    public void onQueuePairFailed(int qpn, long nowNanos) {
        RoceV2Flow flow = byQpn.get(qpn);
        if (flow != null && flow.sourceHost() == host) {
            flow.onFailed();
        }
    }
}
