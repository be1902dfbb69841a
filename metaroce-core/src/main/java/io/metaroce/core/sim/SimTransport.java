package io.metaroce.core.sim;

import io.metaroce.core.api.Transmit;
import java.nio.ByteBuffer;

/**
 * The driver contract a simulated host drives: the four sans-IO calls of a transport engine. The
 * MetaRoCE {@code Endpoint} plugs in through {@link io.metaroce.core.sim.metaroce.MetaroceHost};
 * any other transport (a RoCEv2-like baseline) implements these four methods directly.
 *
 * <p>Addresses handed to the transport are {@link SimAddress} objects (interned: one object per
 * host and socket, so equal addresses are also identical); a transport puts the {@code SimAddress}
 * of the destination into {@link Transmit#remoteAddress}. A local socket id is the host's socket,
 * whose UDP port is {@link SimAddress#port(int)}; the simulator hashes that port into ECMP and
 * the plane choice, so a transport picks routes by picking sockets.
 *
 * <p>Implementations are driven from the simulator's single thread only; they need not be
 * thread-safe.
 */
public interface SimTransport {
    /** One datagram arrived for this host, on {@code localSocket}, from {@code remoteAddress}, with ECN codepoint {@code ecn}. */
    void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
            Object remoteAddress, int ecn);

    /**
     * Fills {@code out} with the next datagram to send (at index 0 of its buffer) and returns true,
     * or returns false if nothing may be sent now. Called only when the host's NIC can take a packet.
     * {@code out} is a pooled packet's own {@code Transmit}, which the simulator forwards without
     * copying: its buffer and fields hold an earlier packet's values, so set {@code length},
     * {@code localSocket}, {@code remoteAddress} and {@code ecn}, and write every byte the
     * receiver will read (bytes not written keep an earlier packet's values); neither keep
     * {@code out} nor use it after returning.
     */
    boolean pollTransmit(long nowNanos, Transmit out);

    /**
     * The earliest virtual time {@link #handleTimeout} has work, or {@link Long#MAX_VALUE}. The
     * simulator reuses the answer until it next calls this transport, so the answer may change only
     * through the other three calls, or through work handed to the transport in a scheduled action
     * or between runs (then call {@link io.metaroce.core.sim.fabric.Network#wake}); not through
     * another host's calls.
     */
    long pollTimeoutNanos();

    /** Runs the timers due at {@code nowNanos}. */
    void handleTimeout(long nowNanos);
}
