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
    /**
     * Set by the driver, once: whether it can send a datagram whose payload is left in registered
     * memory ({@link #headerLength}). False (the default): every datagram is whole in {@link #buffer}.
     */
    public boolean gatherPayload;
    /**
     * 0 when the datagram is whole in {@link #buffer}. Otherwise (only with {@link #gatherPayload})
     * a DATA datagram whose payload was not copied: {@link #buffer} holds the bytes before the
     * payload at {@code [0, headerLength)} and those after it (the checksum trailer) at
     * {@code [headerLength, length - payloadLength)}; the payload's {@link #payloadLength} bytes
     * are at the native address {@link #payloadAddress}, in a registered memory region. The driver
     * sends the three pieces as one datagram (a gathering system call) within the same drive: the
     * checksum covers the region's bytes as they were when the datagram was polled.
     */
    public int headerLength;
    /** Native address of the payload left in registered memory (valid when {@link #headerLength} is not 0). */
    public long payloadAddress;
    /** Bytes of the payload left in registered memory (valid when {@link #headerLength} is not 0). */
    public int payloadLength;

    /** A transmit that writes into {@code buffer}, which must hold the largest datagram. */
    public Transmit(ByteBuffer buffer) {
        this.buffer = buffer;
    }
}
