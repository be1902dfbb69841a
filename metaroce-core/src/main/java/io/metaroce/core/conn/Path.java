package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.path.RttEstimator;
import io.metaroce.core.sack.PathReceiveTracker;
import io.metaroce.core.sack.SendScoreboard;
import org.agrona.collections.LongArrayQueue;

/**
 * One path of a connection: its own sequence space in each direction, the scoreboard of what is
 * in flight on it, the receive tracker that its ACKs are made from, its RTT and its counters.
 * A path is an id plus the driver's local socket (the UDP source port that gives it its route
 * through ECMP) and the peer address it talks to.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class Path {
    final int id;
    int localSocket;
    Object remoteAddress;
    final PathReceiveTracker receiveTracker = new PathReceiveTracker();
    final SendScoreboard scoreboard;
    final RttEstimator rtt;
    /** CSNs lost on this path, to be retransmitted on it. */
    final LongArrayQueue retransmitQueue = new LongArrayQueue(8, -1L);
    int consecutiveTimeouts;
    long reportedEctCount;
    long reportedCeCount;

    long packetsSent;
    long bytesSent;
    long packetsReceived;
    long bytesReceived;
    long retransmissions;
    long losses;
    long timeouts;

    Path(int id, int localSocket, Object remoteAddress, EngineConfig config) {
        this.id = id;
        this.localSocket = localSocket;
        this.remoteAddress = remoteAddress;
        this.scoreboard = new SendScoreboard(id, config.pathWindowPackets());
        this.rtt = new RttEstimator(config.initialRttNanos());
    }

    long rtoNanos(EngineConfig config) {
        return rtt.rtoNanos(config.maxAckDelayNanos(), config.minRtoNanos(), config.maxRtoNanos(), consecutiveTimeouts);
    }

    /** When the oldest packet in flight times out, or {@link Long#MAX_VALUE}. */
    long rtoDeadlineNanos(EngineConfig config) {
        long oldest = scoreboard.oldestSentAtNanos();
        return oldest == Long.MAX_VALUE ? Long.MAX_VALUE : oldest + rtoNanos(config);
    }
}
