package io.metaroce.core.sim.rocev2;

/**
 * Live counters of a {@link RoceV2Endpoint} that belong to no queue pair. Read them between calls
 * into the endpoint.
 *
 * <p>Not thread-safe: read it on the thread that drives the endpoint.
 */
public final class RoceV2EndpointStats {
    long datagramsReceived;
    long datagramsSent;
    long bytesSent;
    long unknownQueuePair;
    long droppedInErrorState;
    final long[] malformed = new long[RoceV2DecodeError.COUNT];

    RoceV2EndpointStats() {
    }

    /** Datagrams handed to {@link RoceV2Endpoint#handleDatagram}. */
    public long datagramsReceived() { return datagramsReceived; }

    /** Datagrams returned by {@link RoceV2Endpoint#pollTransmit}. */
    public long datagramsSent() { return datagramsSent; }

    /** Bytes of those datagrams. */
    public long bytesSent() { return bytesSent; }

    /** Valid datagrams addressed to a queue pair number this endpoint does not have. */
    public long unknownQueuePair() { return unknownQueuePair; }

    /** Valid datagrams for a queue pair in the error state (ignored). */
    public long droppedInErrorState() { return droppedInErrorState; }

    /** Datagrams dropped as malformed with reason {@code code} ({@link RoceV2DecodeError}). */
    public long malformed(int code) { return malformed[code]; }

    /** Datagrams dropped as malformed, every reason. */
    public long malformedTotal() {
        long n = 0;
        for (int i = 1; i < malformed.length; i++) {
            n += malformed[i];
        }
        return n;
    }
}
