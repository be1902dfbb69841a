package io.metaroce.netty;

/**
 * A snapshot of an endpoint's datapath counters, taken on the event loop. Immutable and thread-safe.
 *
 * @param datagramsReceived datagrams read from the sockets and handed to the engine
 * @param datagramsSent datagrams written to the sockets
 * @param datagramsDropped outgoing datagrams dropped on purpose ({@code dropProbability})
 * @param sendErrors datagrams the engine asked for that could not be written (socket missing,
 *     closed, or a write failure reported by the socket layer)
 * @param decodeFailures datagrams the engine dropped because they did not decode (bad length,
 *     checksum, version, type or field)
 * @param unknownConnection well-formed packets that named no connection of this endpoint
 * @param challengesSent CHALLENGEs sent in answer to CONNECTs without a valid cookie
 * @param invalidCookies CONNECTs dropped for a forged, stale or misaddressed cookie
 * @param connectionsAccepted incoming connections created
 * @param openConnections connections the engine holds (every state but CLOSED)
 * @param openSockets sockets open (the listen sockets and every path socket)
 * @param pathsRepathed failed paths moved to a fresh socket (a new source port)
 * @param datapath name of the socket layer ({@code nio}, ...)
 * @param ecnCapable whether the socket layer reads the ECN field of received datagrams
 * @param offloadSends sends that carried a run of several datagrams with segmentation offload
 *     (Linux GSO), summed over the sockets open now; 0 on layers without it. With
 *     {@code datagramsSent} it tells how many datagrams one trip through the kernel carried.
 * @param offloadDatagrams datagrams carried by the {@code offloadSends} (same sockets)
 * @param sendCalls system calls that sent datagrams ({@code sendmmsg}; one per datagram on layers
 *     that send one at a time), same sockets
 * @param receiveCalls system calls that read datagrams ({@code recvmmsg}), same sockets; a call
 *     that found the socket empty is not counted (since session 8; busy-polling loops make one
 *     every idle turn); 0 on layers that do not count them
 * @param offloadReceives buffers read that held a run of several datagrams coalesced by the
 *     kernel (Linux GRO), same sockets; 0 on layers without it
 * @param offloadReceivedDatagrams datagrams held by the {@code offloadReceives}
 * @param dueDeadlinesRun engine deadlines found already passed after a drive and run as the event
 *     loop's next task instead of through the timer (a saturated sender's pacing clock lagging)
 * @param dueDeadlinesDeferred passed deadlines sent through the timer instead, because
 *     {@code UdpEndpoint.DUE_DEADLINES_PER_LOOK} (16) drives (passed deadlines' and posts from
 *     application threads) had run as tasks in a row without the loop looking at its sockets
 *     (since session 11: before, a chain of them could hold the sockets unread for up to a second;
 *     since session 13 also when the bound is reached between the deadline's task being queued
 *     and its running)
 * @param readEndDrives drives run at the end of a read, within its handling, because the endpoint
 *     has one socket that carries traffic (since session 11: what the read completes is answered
 *     before the loop's queued tasks); an endpoint with several (multipath) queues one drive per
 *     loop turn instead and counts 0
 * @param postDrivesRun drives run as a loop task for posts from application threads; with the
 *     {@code dueDeadlinesRun} they make the chains {@code DUE_DEADLINES_PER_LOOK} bounds
 * @param postDrivesDeferred drive tasks for posts that found {@code DUE_DEADLINES_PER_LOOK} drives
 *     already run as tasks since the loop last looked at its sockets, and left their drive to the
 *     timer, which fires after the next look (since session 13: before, posts arriving one by one
 *     while the loop ran its tasks drove it past the bound, one drive each)
 */
public record UdpEndpointStats(long datagramsReceived, long datagramsSent, long datagramsDropped, long sendErrors,
        long decodeFailures, long unknownConnection, long challengesSent, long invalidCookies,
        long connectionsAccepted, int openConnections, int openSockets, long pathsRepathed, String datapath,
        boolean ecnCapable, long offloadSends, long offloadDatagrams, long sendCalls, long receiveCalls,
        long offloadReceives, long offloadReceivedDatagrams, long dueDeadlinesRun,
        long dueDeadlinesDeferred, long readEndDrives, long postDrivesRun, long postDrivesDeferred) {
}
