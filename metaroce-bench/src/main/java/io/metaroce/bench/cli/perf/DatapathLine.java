package io.metaroce.bench.cli.perf;

import io.metaroce.netty.UdpEndpointStats;
import java.util.Locale;

/**
 * One line on how an endpoint's datagrams went through the kernel: system calls per datagram each
 * way, and how many datagrams a segmentation-offload send (GSO) and a coalesced receive buffer
 * (GRO) carried, and how often the event loop drove the engine outside its timer (passed
 * deadlines, application posts, the end of a read: each drive may flush). On loopback the kernel's cost is per call and per buffer more than per byte, so
 * these counts say how much of the offload a run used. Stateless; thread-safe.
 */
final class DatapathLine {
    private DatapathLine() {
    }

    /** For example {@code client datapath: sent 1,200 datagrams in 50 calls (24.0 a call; GSO 48 sends of 25.0), ...}. */
    static String of(String who, UdpEndpointStats s) {
        return String.format(Locale.ROOT, "%s datapath: sent %,d datagrams in %,d calls (%.1f a call; GSO %,d sends"
                + " of %.1f), received %,d in %,d calls (%.1f a call; GRO %,d buffers of %.1f); loop tasks: %,d passed"
                + " deadlines (%,d through the timer), %,d drives for posts, %,d at the end of a read", who,
                s.datagramsSent(), s.sendCalls(), per(s.datagramsSent(), s.sendCalls()), s.offloadSends(),
                per(s.offloadDatagrams(), s.offloadSends()), s.datagramsReceived(), s.receiveCalls(),
                per(s.datagramsReceived(), s.receiveCalls()), s.offloadReceives(),
                per(s.offloadReceivedDatagrams(), s.offloadReceives()), s.dueDeadlinesRun(), s.dueDeadlinesDeferred(),
                s.postDrivesRun(), s.readEndDrives());
    }

    private static double per(long count, long calls) {
        return calls == 0 ? 0 : (double) count / calls;
    }
}
