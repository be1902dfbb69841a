package io.metaroce.core.conn;

/**
 * Counters of one connection, updated by the engine as it runs. Reads from another thread see
 * values that may be slightly stale; the engine itself never allocates to update them.
 */
public final class ConnectionStats {
    long packetsSent;
    long bytesSent;
    long dataPacketsSent;
    long retransmissions;
    long losses;
    long spuriousLosses;
    long timeouts;
    long overdue;
    long idleResends;
    long acksSent;
    long acksBundled;
    long acksShort;
    long acksReceived;
    long naksSent;
    long naksReceived;
    long naksDropped;
    long receiverNotReady;
    long receiverNotReadyNaks;
    long accessRefusals;
    long invalidRequests;
    long duplicatePackets;
    long spuriousRetransmissionsReceived;
    long beyondWindowPackets;
    long unknownPathPackets;
    long unexpectedPackets;
    long staleResponses;
    long sequenceWindowStalls;
    long handshakePacketsSent;
    long probesSent;
    long localProtectionErrors;

    /** Datagrams sent, of every type. */
    public long packetsSent() { return packetsSent; }
    /** Bytes sent in datagrams, headers included. */
    public long bytesSent() { return bytesSent; }
    /** DATA and READ_REQUEST transmissions, first and repeated. */
    public long dataPacketsSent() { return dataPacketsSent; }
    /** Retransmissions sent. */
    public long retransmissions() { return retransmissions; }
    /** Transmissions declared lost (by a SACK hole or a timeout). */
    public long losses() { return losses; }
    /** Losses of {@link #losses()} that a later ACK proved spurious: the original arrived [SPEC-LOSS-9]. */
    public long spuriousLosses() { return spuriousLosses; }
    /** Retransmission timeouts that fired. */
    public long timeouts() { return timeouts; }
    /** Times a path's oldest transmissions were declared lost as overdue, before their timeout ([SPEC-LOSS-7]). */
    public long overdue() { return overdue; }
    /** Retransmissions sent as idle resends: a duplicate of the oldest CSN awaiting its verdict while nothing new could be sent ([SPEC-LOSS-8]). */
    public long idleResends() { return idleResends; }
    /** ACKs sent. */
    public long acksSent() { return acksSent; }
    /** ACKs of {@link #acksSent()} that rode ahead of a DATA packet in its datagram [SPEC-SACK-13]. */
    public long acksBundled() { return acksBundled; }
    /** ACKs of {@link #acksSent()} sent in the short form, 84 bytes instead of 124 [SPEC-SACK-16]. */
    public long acksShort() { return acksShort; }
    /** ACKs received. */
    public long acksReceived() { return acksReceived; }
    /** NAKs sent (refusals). */
    public long naksSent() { return naksSent; }
    /** NAKs received. */
    public long naksReceived() { return naksReceived; }
    /** NAKs not sent because the NAK queue was full (they are advisory; the SACK hole covers them). */
    public long naksDropped() { return naksDropped; }
    /** Packets refused because no receive was posted. */
    public long receiverNotReady() { return receiverNotReady; }
    /** Receiver-not-ready NAKs received. */
    public long receiverNotReadyNaks() { return receiverNotReadyNaks; }
    /** Packets refused for an access violation (R-OOO-3). */
    public long accessRefusals() { return accessRefusals; }
    /** Packets refused as malformed requests (stream out of range, SEND longer than its receive). */
    public long invalidRequests() { return invalidRequests; }
    /** Reliable packets received again after they were admitted (harmless, R-SACK-4). */
    public long duplicatePackets() { return duplicatePackets; }
    /** Duplicates that were retransmissions: the sender resent a packet that had arrived. */
    public long spuriousRetransmissionsReceived() { return spuriousRetransmissionsReceived; }
    /** Packets dropped because their CSN was beyond the receive window (a sender bug). */
    public long beyondWindowPackets() { return beyondWindowPackets; }
    /** Packets naming a path that was not negotiated. */
    public long unknownPathPackets() { return unknownPathPackets; }
    /** Packets of a type the connection does not expect in its state. */
    public long unexpectedPackets() { return unexpectedPackets; }
    /** READ responses that arrived after their READ finished. */
    public long staleResponses() { return staleResponses; }
    /**
     * Transmit polls of this connection that found new data held back by a full connection-sequence
     * window (the endpoint polls a connection only when it may have something to send).
     */
    public long sequenceWindowStalls() { return sequenceWindowStalls; }
    /** CONNECT and ACCEPT packets sent. */
    public long handshakePacketsSent() { return handshakePacketsSent; }
    /** Work that found its local region deregistered; each aborts the connection. */
    public long localProtectionErrors() { return localProtectionErrors; }
    /** PATH_PROBE packets sent (keep-alives). */
    public long probesSent() { return probesSent; }
}
