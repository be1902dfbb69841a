package io.metaroce.core.sim.workload;

import io.metaroce.core.api.Transmit;
import io.metaroce.core.sim.SimAddress;
import io.metaroce.core.sim.SimTransport;
import java.nio.ByteBuffer;

/**
 * A transport with no protocol: it sends datagrams of a fixed size to one destination as fast as
 * the NIC takes them (optionally no more than a given count), cycling over its source sockets, and
 * counts what it receives. It measures the fabric itself (timing, ECMP, queues, drops) and the
 * simulator's raw speed, with no engine in the loop. Every datagram is ECT(0) and carries its
 * sequence number in its first 8 bytes; nothing reads the rest, so it is not written (it holds
 * whatever the simulator's pooled buffer held).
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public final class RawTransport implements SimTransport {
    private SimAddress destination;
    private int datagramBytes;
    private int[] sockets = {1};
    private long limit;
    private long sent;
    private long received;
    private long receivedBytes;
    private long receivedCe;
    private long[] receivedFromSocket = new long[16];
    private long lastArrivalNanos = -1;
    private long firstArrivalNanos = -1;

    /** A transport that only receives until {@link #sendTo} is called. */
    public RawTransport() {
    }

    /**
     * Sends {@code count} datagrams ({@link Long#MAX_VALUE}: endless) of {@code bytes} to
     * {@code to}, from {@code fromSockets} in turn.
     */
    public RawTransport sendTo(SimAddress to, int bytes, long count, int... fromSockets) {
        if (bytes < 8 || count < 0 || fromSockets.length == 0) {
            throw new IllegalArgumentException("datagrams of at least 8 bytes, a count >= 0 and at least one socket");
        }
        this.destination = to;
        this.datagramBytes = bytes;
        this.limit = count;
        this.sockets = fromSockets.clone();
        return this;
    }

    @Override
    public void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
            Object remoteAddress, int ecn) {
        received++;
        receivedBytes += length;
        int from = ((SimAddress) remoteAddress).socket();
        if (from >= receivedFromSocket.length) {
            receivedFromSocket = java.util.Arrays.copyOf(receivedFromSocket, Math.max(from + 1, receivedFromSocket.length * 2));
        }
        receivedFromSocket[from]++;
        if (ecn == 3) {
            receivedCe++;
        }
        if (firstArrivalNanos < 0) {
            firstArrivalNanos = nowNanos;
        }
        lastArrivalNanos = nowNanos;
    }

    @Override
    public boolean pollTransmit(long nowNanos, Transmit out) {
        if (destination == null || sent >= limit) {
            return false;
        }
        out.buffer.putLong(0, sent);
        out.length = datagramBytes;
        out.localSocket = sockets[(int) (sent % sockets.length)];
        out.remoteAddress = destination;
        out.ecn = 2;
        out.pathId = 0;
        sent++;
        return true;
    }

    @Override
    public long pollTimeoutNanos() {
        return Long.MAX_VALUE;
    }

    @Override
    public void handleTimeout(long nowNanos) {
        // No timers.
    }

    /** Datagrams sent. */
    public long sent() {
        return sent;
    }

    /** Datagrams received. */
    public long received() {
        return received;
    }

    /** Datagrams received from source socket {@code socket} (of any host). */
    public long receivedFromSocket(int socket) {
        return socket < receivedFromSocket.length ? receivedFromSocket[socket] : 0;
    }

    /** Datagram bytes received. */
    public long receivedBytes() {
        return receivedBytes;
    }

    /** Datagrams received marked CE. */
    public long receivedCe() {
        return receivedCe;
    }

    /** Virtual time of the first arrival, or -1. */
    public long firstArrivalNanos() {
        return firstArrivalNanos;
    }

    /** Virtual time of the latest arrival, or -1. */
    public long lastArrivalNanos() {
        return lastArrivalNanos;
    }
}
