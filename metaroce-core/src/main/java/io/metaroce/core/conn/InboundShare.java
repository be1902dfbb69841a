package io.metaroce.core.conn;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;

/**
 * One connection's side of the receiver's fair share ([SPEC-CC-11]): the reliable bytes its peer
 * sends here, counted per measurement window, when they last arrived, the demand the endpoint's
 * {@link FairShareAllocator} estimated from them, and the share it gave the peer, which every ACK
 * carries as the rate hint.
 *
 * <p>Plain fields; not thread-safe; owned by its connection, read and written by the allocator.
 */
final class InboundShare {
    /** Reliable datagram bytes received in the current measurement window. */
    long bytes;
    /** When the current measurement window opened. */
    long windowStartNanos;
    /** When the last reliable packet arrived, or {@link Long#MIN_VALUE}. */
    long lastArrivalNanos = Long.MIN_VALUE;
    /** The demand last estimated for the peer, bytes per second. */
    long demand;
    /** The peer's share, bytes per second (0: the allocator is off, no limit). */
    long shareBytesPerSecond;
    /** Whether the share was computed for the peer as an active sender. */
    boolean active;
    /** Whether a reliable packet has arrived on the connection (the advance count of [SPEC-CC-23] is not one). */
    boolean reliableSeen;
    /** The share this side's latest ACCEPT announced, bytes per second (0: none sent) [SPEC-CC-28]. */
    long announcedBytesPerSecond;
    /** Whether the share fell enough below the one announced to send the ACCEPT again [SPEC-CONN-17]. */
    boolean reannounceDue;

    /** Counts a DATA or READ_REQUEST that arrived at {@code nowNanos}, admitted or not. */
    void onArrival(Packet p, long nowNanos) {
        bytes += p.type == PacketType.DATA ? WireConstants.DATA_OVERHEAD_BYTES + p.payloadLength
                : WireConstants.READ_REQUEST_BYTES;
        lastArrivalNanos = nowNanos;
        reliableSeen = true;
        reannounceDue = false; // the peer sends: its ACKs carry the share from now on
    }

    /** Whether the peer sent a reliable packet at or after {@code sinceNanos}. */
    boolean arrivedSince(long sinceNanos) {
        return lastArrivalNanos != Long.MIN_VALUE && lastArrivalNanos >= sinceNanos;
    }

    /** The bytes of the current window; opens a new one at {@code nowNanos}. */
    long closeWindow(long nowNanos) {
        long b = bytes;
        bytes = 0;
        windowStartNanos = nowNanos;
        return b;
    }

    void share(long bytesPerSecond, boolean asActive) {
        this.shareBytesPerSecond = bytesPerSecond;
        this.active = asActive;
    }

    /**
     * After a recomputation: marks the ACCEPT due again if the peer has sent nothing yet, is still
     * counted as a sender in advance ({@code asActive}), and its share fell below
     * {@code percent}% of the share last announced to it [SPEC-CONN-17]. The announcement sizes
     * the peer's first flight ([SPEC-CC-28]); the connections accepted first of an incast were
     * told the share of a receiver with fewer senders.
     */
    void checkAnnouncement(int percent, boolean asActive) {
        if (percent > 0 && asActive && !reliableSeen && announcedBytesPerSecond > 0
                && shareBytesPerSecond * 100 < announcedBytesPerSecond * percent) {
            reannounceDue = true;
        }
    }
}
