package io.metaroce.netty;

import java.net.InetSocketAddress;

/**
 * When a long read must drive the engine in its middle: once the datagrams of one path handed
 * over since the last drive reach the bound. An ACK selects the 256 PSNs below the highest one
 * received on its path ([SPEC-SACK-1]), so what bounds a read is each path's count, not the
 * read's: a read that brings the datagrams of four paths in turn needs no more drives (and ACKs)
 * than one that brings one path's. A path arrives on one local socket from one peer address
 * ([SPEC-PATH-1]), so the count is kept per (socket, sender) pair; two paths that share a pair
 * share its count, which only drives sooner.
 *
 * <p>Pairs are compared by identity first (the Linux layer hands over one cached address
 * instance per peer), then by {@code equals} (a layer that makes a new address per datagram).
 * At most {@link #PAIRS} pairs are counted on their own; the datagrams of any further pair
 * between two drives share one count, so no pair ever passes the bound. Confined to the event
 * loop; allocates nothing.
 */
final class ReadDriveBound {
    /** Pairs counted on their own between two drives: the paths of a few connections. */
    static final int PAIRS = 8;

    private final int bound;
    private final int[] sockets = new int[PAIRS];
    private final InetSocketAddress[] senders = new InetSocketAddress[PAIRS];
    private final int[] counts = new int[PAIRS];
    private int pairs;
    /** Datagrams of pairs that found the table full, counted together. */
    private int overflow;

    /** @param bound datagrams of one path after which the read drives the engine */
    ReadDriveBound(int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("bound must be at least 1, got " + bound);
        }
        this.bound = bound;
    }

    /**
     * Counts one datagram from {@code sender} on local socket {@code socket}; returns true when a
     * drive is due (its pair reached the bound). The caller drives and then calls {@link #reset()}.
     */
    boolean count(int socket, InetSocketAddress sender) {
        int n = pairs;
        for (int i = 0; i < n; i++) {
            if (senders[i] == sender && sockets[i] == socket) {
                return ++counts[i] >= bound;
            }
        }
        for (int i = 0; i < n; i++) {
            if (sockets[i] == socket && sender.equals(senders[i])) {
                return ++counts[i] >= bound;
            }
        }
        if (n < PAIRS) {
            sockets[n] = socket;
            senders[n] = sender;
            counts[n] = 1;
            pairs = n + 1;
            return 1 >= bound;
        }
        return ++overflow >= bound;
    }

    /** A drive ran: every count starts again. */
    void reset() {
        for (int i = 0; i < pairs; i++) {
            senders[i] = null; // no address kept alive past its read
        }
        pairs = 0;
        overflow = 0;
    }

    /** The largest count of one pair (or of the pairs counted together) since the last drive. */
    int largestCount() {
        int largest = overflow;
        for (int i = 0; i < pairs; i++) {
            largest = Math.max(largest, counts[i]);
        }
        return largest;
    }
}
