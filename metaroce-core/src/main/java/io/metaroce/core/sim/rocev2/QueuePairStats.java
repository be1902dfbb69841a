package io.metaroce.core.sim.rocev2;

/**
 * Live counters of one queue pair, both its requester (sending) and responder (receiving) side.
 * The endpoint updates this very object; read it between calls into the endpoint.
 *
 * <p>Not thread-safe: read it on the thread that drives the endpoint.
 */
public final class QueuePairStats {
    long bytesPosted;
    long messagesPosted;
    long bytesAcknowledged;
    long messagesCompleted;
    long dataPacketsSent;
    long dataBytesSent;
    long retransmittedPackets;
    long timeouts;
    long acksReceived;
    long naksReceived;
    long staleAcknowledgements;
    long cnpsReceived;

    long dataPacketsReceived;
    long bytesDelivered;
    long messagesDelivered;
    long outOfOrderDropped;
    long duplicatesReceived;
    long ceMarkedReceived;
    long acksSent;
    long naksSent;
    long cnpsSent;
    long protocolViolations;

    QueuePairStats() {
    }

    /** Payload bytes posted with {@code postSend}. */
    public long bytesPosted() { return bytesPosted; }

    /** Messages posted. */
    public long messagesPosted() { return messagesPosted; }

    /** Payload bytes the responder has acknowledged (requester side). */
    public long bytesAcknowledged() { return bytesAcknowledged; }

    /** Messages whose every packet is acknowledged (requester side). */
    public long messagesCompleted() { return messagesCompleted; }

    /** SEND packets sent, first transmissions and retransmissions. */
    public long dataPacketsSent() { return dataPacketsSent; }

    /** Datagram bytes (headers included) of those packets. */
    public long dataBytesSent() { return dataBytesSent; }

    /** SEND packets sent again (go-back-N resends everything from the rewind point). */
    public long retransmittedPackets() { return retransmittedPackets; }

    /** Retransmission timeouts that fired. */
    public long timeouts() { return timeouts; }

    /** ACKs received (requester side). */
    public long acksReceived() { return acksReceived; }

    /** PSN sequence error NAKs received (requester side). */
    public long naksReceived() { return naksReceived; }

    /** ACKs and NAKs whose PSN acknowledged nothing new (late or duplicated). */
    public long staleAcknowledgements() { return staleAcknowledgements; }

    /** CNPs received (requester side: the reaction point). */
    public long cnpsReceived() { return cnpsReceived; }

    /** SEND packets received, in order or not (responder side). */
    public long dataPacketsReceived() { return dataPacketsReceived; }

    /** Payload bytes delivered to the application in order (responder side). */
    public long bytesDelivered() { return bytesDelivered; }

    /** Messages delivered whole and in order (responder side). */
    public long messagesDelivered() { return messagesDelivered; }

    /** SEND packets dropped because their PSN was ahead of the expected one. */
    public long outOfOrderDropped() { return outOfOrderDropped; }

    /** SEND packets with a PSN already received (dropped, acknowledged again if asked). */
    public long duplicatesReceived() { return duplicatesReceived; }

    /** SEND packets that arrived marked CE. */
    public long ceMarkedReceived() { return ceMarkedReceived; }

    /** ACKs sent (responder side). */
    public long acksSent() { return acksSent; }

    /** NAKs sent (responder side): one per gap. */
    public long naksSent() { return naksSent; }

    /** CNPs sent (responder side: the notification point). */
    public long cnpsSent() { return cnpsSent; }

    /** In-sequence SEND packets dropped because their opcode broke the message framing. */
    public long protocolViolations() { return protocolViolations; }
}
