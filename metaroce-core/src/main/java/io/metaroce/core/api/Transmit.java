package io.metaroce.core.api;

import java.nio.ByteBuffer;

/**
 * One datagram to send, filled by {@link io.metaroce.core.conn.Endpoint#pollTransmit}. The driver
 * owns the buffer and reuses this object for every datagram, so polling allocates nothing.
 *
 * <p>Not thread-safe.
 */
public final class Transmit {
    /**
     * The driver's buffer; the datagram is written at index 0 and is {@link #length} bytes long.
     * The driver may point it at another buffer between two polls (a slot of its send batch, so
     * the datagram is encoded where the system call sends it from, with no copy); any buffer it
     * points at must hold the largest datagram. The engine keeps no reference to it across polls.
     */
    public ByteBuffer buffer;
    /** Datagram length in bytes. */
    public int length;
    /** The driver's id of the local socket to send from (the path's source port). */
    public int localSocket;
    /** The driver's address object to send to, as given to the engine. */
    public Object remoteAddress;
    /** ECN codepoint for the IP header: 2 (ECT(0)) for data, 0 (Not-ECT) otherwise. */
    public int ecn;
    /** Path the datagram belongs to, for the driver's counters. */
    public int pathId;

    /** A transmit that writes into {@code buffer}, which must hold the largest datagram. */
    public Transmit(ByteBuffer buffer) {
        this.buffer = buffer;
    }
}
