package io.metaroce.bench.cli.perf;

/**
 * One row of the per-path table (the client connection's view). Immutable and thread-safe.
 *
 * @param path path id
 * @param srcPort the UDP source port the path sends from
 * @param packets data packets sent on the path (first transmissions and retransmissions)
 * @param bytes bytes of those packets, headers included
 * @param srttUs smoothed round-trip time, microseconds
 * @param ecnFraction fraction of the path's ECN-capable packets the peer saw CE-marked
 * @param state the path's state (for now the connection's state, see {@link PerfClient})
 */
public record PathRow(int path, int srcPort, long packets, long bytes, double srttUs, double ecnFraction,
        String state) {
}
