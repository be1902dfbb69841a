package io.metaroce.core.api;

/**
 * A snapshot of one path's counters and telemetry, filled by
 * {@link io.metaroce.core.conn.Connection#readPathStats}. Reuse one instance to read without
 * allocating. Fields are plain values copied at the time of the call.
 *
 * <p>Not thread-safe: fill and read it on one thread (the endpoint's, or after a hand-off).
 */
public final class PathStats {
    /** The path's id within its connection. */
    public int pathId;
    /** The driver's id of the local socket (the UDP source port) the path sends from. */
    public int localSocket;
    /** The peer address the path sends to (the driver's object). */
    public Object remoteAddress;
    /** Datagrams sent on the path that carry data (first transmissions and retransmissions). */
    public long packetsSent;
    /** Bytes of those datagrams, headers included. */
    public long bytesSent;
    /** Reliable packets received on the path. */
    public long packetsReceived;
    /** Payload bytes of those packets. */
    public long bytesReceived;
    /** Retransmissions sent on the path. */
    public long retransmissions;
    /** Transmissions on the path declared lost. */
    public long losses;
    /** Retransmission timeouts that fired on the path. */
    public long timeouts;
    /** Times its oldest transmissions were declared lost as overdue, before their retransmission timeout. */
    public long overdue;
    /** Smoothed round-trip time. */
    public long smoothedRttNanos;
    /** Round-trip time variation. */
    public long rttVarianceNanos;
    /** Smallest round-trip time seen (the initial estimate before any sample). */
    public long minRttNanos;
    /** Bytes in flight on the path now. */
    public long bytesInFlight;
    /** This side's data packets the peer reported as arriving ECN-capable. */
    public long ectReported;
    /** Of those, the ones the peer reported CE-marked. */
    public long ceReported;
    /** Health of the path, a {@link PathState} value. */
    public int state;
    /** Timeouts (RTOs and unanswered health probes) in a row without progress. */
    public int consecutiveTimeouts;
    /** Times the path was declared FAILED. */
    public long failures;
    /** Health PATH_PROBEs sent on the path. */
    public long probesSent;
    /**
     * The path's send rate, datagram bytes per second of its DATA and READ_REQUEST packets, over the
     * {@code EngineConfig.pathRateWindowNanos} ending at the time of the read (the previous aligned
     * interval's bytes prorated, [SPEC-PATH-8]); 0 once the path has sent nothing for two windows.
     * The path's utilisation is this rate over the sum of the connection's paths' rates.
     */
    public long sendRateBytesPerSecond;

    /** Fraction of this side's ECN-capable packets that arrived CE-marked, as the peer reported it. */
    public double ecnFraction() {
        return ectReported == 0 ? 0 : (double) ceReported / ectReported;
    }

    @Override
    public String toString() {
        return "path " + pathId + ": sent " + packetsSent + " (" + bytesSent + " B), received " + packetsReceived
                + ", retransmitted " + retransmissions + ", lost " + losses + ", timeouts " + timeouts
                + ", overdue " + overdue
                + ", srtt " + smoothedRttNanos / 1000.0 + " us, ecn " + ecnFraction() + ", " + PathState.name(state)
                + ", rate " + sendRateBytesPerSecond + " B/s";
    }
}
