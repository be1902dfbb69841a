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
     * Set by a driver that can send a datagram gathered from two places ({@code sendmsg} with
     * several iovecs): then a DATA packet whose payload lies in native registered memory is not
     * copied into {@link #buffer}. The engine writes the header and the CRC32C trailer (which still
     * covers the payload, [SPEC-WIRE-9]) into {@link #buffer} and leaves the payload where it is,
     * described by {@link #payloadLength}, {@link #payloadAddress}, {@link #payloadSource} and
     * {@link #payloadIndex}. The payload's bytes must then reach the kernel before the driver next
     * delivers completions to the application (which may then reuse that memory). Default false:
     * every datagram is whole in {@link #buffer}.
     */
    public boolean gatherPayload;
    /**
     * 0 when the datagram is whole in {@link #buffer}. Otherwise ({@link #gatherPayload}) the bytes
     * of the payload left in registered memory; the datagram is then {@code buffer[0,
     * headerLength)}, the payload, and {@code buffer[headerLength, length - payloadLength)} (the
     * trailer), in that order. Set on every poll.
     */
    public int payloadLength;
    /** Bytes of the datagram before the payload, at the start of {@link #buffer}; meaningful when {@link #payloadLength} is not 0. */
    public int headerLength;
    /** Native address of the payload's first byte; meaningful when {@link #payloadLength} is not 0. */
    public long payloadAddress;
    /**
     * The registered memory's view holding the payload at {@link #payloadIndex}, for a driver that
     * has to copy it after all (absolute gets only: the view is shared); meaningful when
     * {@link #payloadLength} is not 0.
     */
    public ByteBuffer payloadSource;
    /** Index of the payload's first byte in {@link #payloadSource}. */
    public int payloadIndex;

    /** A transmit that writes into {@code buffer}, which must hold the largest datagram. */
    public Transmit(ByteBuffer buffer) {
        this.buffer = buffer;
    }
}
