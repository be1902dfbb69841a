package io.metaroce.netty;

/**
 * A snapshot of an endpoint's datapath counters, taken on the event loop. Immutable and thread-safe.
 *
 * @param datagramsReceived datagrams read from the sockets and handed to the engine
 * @param datagramsSent datagrams written to the sockets
 * @param datagramsDropped outgoing datagrams dropped on purpose ({@code dropProbability})
 * @param sendErrors datagrams the engine asked for that could not be written (socket missing,
 *     closed, or a write failure reported by Netty)
 * @param decodeFailures datagrams the engine could not decode
 * @param openConnections connections the engine holds (every state but CLOSED)
 * @param openSockets sockets open (the listen socket and every path socket)
 */
public record UdpEndpointStats(long datagramsReceived, long datagramsSent, long datagramsDropped, long sendErrors,
        long decodeFailures, int openConnections, int openSockets) {
}
