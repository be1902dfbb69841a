package io.metaroce.core.conn;

import io.metaroce.core.wire.DecodeError;

/**
 * Counters of one endpoint: datagrams in and out, and every datagram dropped, by reason. Bad
 * input is never thrown into user code; it ends up here (R-JAVA-4).
 */
public final class EndpointStats {
    final long[] decodeErrors = new long[DecodeError.COUNT];
    long datagramsReceived;
    long datagramsSent;
    long unknownConnection;
    long challengesSent;
    long challengesDropped;
    long invalidCookies;
    long connectionsAccepted;
    long connectionsRefused;
    long unexpectedHandshake;
    long replayedConnects;

    /** Datagrams handed to the endpoint. */
    public long datagramsReceived() { return datagramsReceived; }
    /** Datagrams the endpoint produced. */
    public long datagramsSent() { return datagramsSent; }
    /** Datagrams dropped for failing to decode with {@code code} (a {@link DecodeError} code). */
    public long decodeErrors(int code) { return decodeErrors[code]; }
    /** Datagrams dropped for failing to decode, all reasons. */
    public long malformedDatagrams() {
        long sum = 0;
        for (int i = 1; i < decodeErrors.length; i++) {
            sum += decodeErrors[i];
        }
        return sum;
    }
    /** Well-formed packets naming no connection of this endpoint. */
    public long unknownConnection() { return unknownConnection; }
    /** CHALLENGEs sent in answer to CONNECTs without a valid cookie. */
    public long challengesSent() { return challengesSent; }
    /** CHALLENGEs not sent because too many were waiting (a flood). */
    public long challengesDropped() { return challengesDropped; }
    /** CONNECTs whose cookie was forged, stale or for another address. */
    public long invalidCookies() { return invalidCookies; }
    /** Incoming connections created. */
    public long connectionsAccepted() { return connectionsAccepted; }
    /** Valid CONNECTs refused because the endpoint is at its connection limit or not listening. */
    public long connectionsRefused() { return connectionsRefused; }
    /** CONNECTs carrying a cookie issued before the connection it opened had ended (replays). */
    public long replayedConnects() { return replayedConnects; }
    /** Handshake packets that fit no connection attempt. */
    public long unexpectedHandshake() { return unexpectedHandshake; }
}
