package io.metaroce.netty;

import io.metaroce.core.conn.ConnectionState;
import java.util.Arrays;

/**
 * A snapshot of one connection's counters, taken on the event loop. Immutable and thread-safe
 * (the arrays are copies; do not modify them).
 *
 * @param state connection state at the time of the snapshot
 * @param pathCount negotiated paths
 * @param packetsSent packets sent, all paths
 * @param retransmissions retransmissions, all paths
 * @param losses losses detected, all paths
 * @param timeouts retransmission timeouts
 * @param pathPacketsSent packets sent per path id (-1 for a path not open)
 * @param pathRetransmissions retransmissions per path id (-1 for a path not open)
 * @param localSocketPorts UDP ports of the local sockets this connection sends from: one per path
 *     on the connecting side; the endpoint's listen sockets (one per plane) on the accepting side
 * @param localSocketDatagramsReceived datagrams received on each of those sockets (on the accepting
 *     side the listen socket is shared by every accepted connection)
 * @param spuriousLosses losses of {@code losses} that a later ACK proved spurious (the original arrived)
 * @param acksBundled ACKs sent ahead of a DATA packet in its datagram
 */
public record UdpConnectionStats(ConnectionState state, int pathCount, long packetsSent, long retransmissions,
        long losses, long timeouts, long[] pathPacketsSent, long[] pathRetransmissions, int[] localSocketPorts,
        long[] localSocketDatagramsReceived, long spuriousLosses, long acksBundled) {

    @Override
    public String toString() {
        return "UdpConnectionStats[state=" + state + ", paths=" + pathCount + ", packetsSent=" + packetsSent
                + ", retransmissions=" + retransmissions + ", losses=" + losses + ", timeouts=" + timeouts
                + ", pathPacketsSent=" + Arrays.toString(pathPacketsSent)
                + ", pathRetransmissions=" + Arrays.toString(pathRetransmissions)
                + ", localSocketPorts=" + Arrays.toString(localSocketPorts)
                + ", localSocketDatagramsReceived=" + Arrays.toString(localSocketDatagramsReceived)
                + ", spuriousLosses=" + spuriousLosses + ", acksBundled=" + acksBundled + "]";
    }
}
