package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.MaxMinFairShare;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The receiving endpoint's fair-share allocator (R-CC-2, [SPEC-CC-10] to [SPEC-CC-12]): every
 * {@code fairSharePeriodNanos} it divides {@code receiveCapacityBytesPerSecond} max-min fairly
 * among its active senders (connections that delivered reliable packets here in the current or
 * the previous period) by their demand, and each connection writes its sender's share into every
 * ACK as the rate hint.
 *
 * <p>Demand is measured, not declared: a sender's arrival rate over its measurement window, which
 * closes at a recomputation once it spans {@link #WINDOW_DATAGRAMS} datagrams or
 * {@link #WINDOW_PERIODS} periods (so a slow sender's rate is not a count of one or two packets;
 * until its window closes a sender keeps its previous demand). A sender that used at least 1/2 of
 * the share it was given is held back by that share, so its demand is the whole capacity (it
 * would take more); any other sender's demand is 5/4 of its rate (at least one datagram per
 * period), room to grow by a quarter per window. Capacity left over once every demand is met is
 * divided equally among the active senders on top of their demands, so a receiver with room never
 * holds a sender to its measured rate. A sender that just became active has no share
 * to compare with and asks for the whole capacity. A connection that is not
 * active is told the share it would get if it joined: {@code capacity / (active + 1)}, so a sender
 * that starts does not burst at line rate into a receiver that is already shared.
 *
 * <p>Recomputed lazily, at the first input at or after each period boundary, and at once when a
 * connection becomes an active sender, in O(connections) with the max-min level in expected
 * O(active senders), with no allocation once its arrays have grown to the number of connections.
 * Not thread-safe; owned by its endpoint.
 */
final class FairShareAllocator {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** A measurement window closes once it holds this many of the largest datagrams... */
    static final int WINDOW_DATAGRAMS = 8;
    /** ...or spans this many periods. */
    static final int WINDOW_PERIODS = 8;

    private final long capacity;
    private final long periodNanos;
    private final long minDemand;
    private final long windowBytes;
    /** [SPEC-CONN-17]: re-announce a share fallen below this percent of the announced one (0: never). */
    private final int reannouncePercent;
    private final MaxMinFairShare maxMin = new MaxMinFairShare();
    private long[] demands = new long[16];
    private long nextNanos;
    private int activeSenders;

    FairShareAllocator(EngineConfig config, long nowNanos) {
        this.capacity = config.receiveCapacityBytesPerSecond();
        this.periodNanos = config.fairSharePeriodNanos();
        long perPeriod = (long) (config.maxDatagramBytes() * ((double) NANOS_PER_SECOND / periodNanos));
        this.minDemand = Math.clamp(perPeriod, 1, Math.max(1, capacity));
        this.windowBytes = (long) WINDOW_DATAGRAMS * config.maxDatagramBytes();
        this.reannouncePercent = config.acceptReannouncePercent();
        this.nextNanos = nowNanos + periodNanos;
    }

    /** Whether the allocator is on (a capacity is configured). */
    boolean enabled() {
        return capacity > 0;
    }

    /** Senders counted active at the last recomputation. */
    int activeSenders() {
        return activeSenders;
    }

    /** Recomputes every connection's share if a period boundary has passed; returns whether it did. */
    boolean maybeRecompute(long nowNanos, ArrayList<Connection> connections) {
        if (capacity == 0 || nowNanos < nextNanos) {
            return false;
        }
        recompute(nowNanos, connections);
        return true;
    }

    /**
     * Recomputes every connection's share now: at a period boundary, and as soon as a connection
     * that was not an active sender delivers a packet, so that every sender learns the new division
     * from its next ACK instead of a period later (an incast's senders all start at once).
     */
    void recompute(long nowNanos, ArrayList<Connection> connections) {
        if (capacity == 0) {
            return;
        }
        nextNanos = nowNanos + periodNanos;
        int n = connections.size();
        if (n > demands.length) {
            demands = Arrays.copyOf(demands, Math.max(n, demands.length * 2));
        }
        long activeSince = nowNanos - 2 * periodNanos;
        int active = 0;
        for (int i = 0; i < n; i++) {
            InboundShare in = connections.get(i).inbound();
            if (!in.arrivedSince(activeSince)) {
                in.closeWindow(nowNanos);
                in.demand = capacity;
                demands[i] = -1; // not a sender now
                continue;
            }
            long elapsed = nowNanos - in.windowStartNanos;
            if (in.active && in.bytes < windowBytes && elapsed < WINDOW_PERIODS * periodNanos) {
                demands[i] = in.demand; // window still open: keep the last estimate
            } else {
                long bytes = in.closeWindow(nowNanos);
                long rate = (long) Math.min(capacity, bytes * ((double) NANOS_PER_SECOND / Math.max(1, elapsed)));
                long share = in.shareBytesPerSecond;
                // Half, not more: a sender that trims its rate under ECN marks ([SPEC-CC-18]) keeps above
                // half its share, so the allocator does not read its restraint as a smaller demand.
                boolean heldBack = !in.active || rate >= share >> 1;
                demands[i] = heldBack ? capacity : Math.clamp(rate + (rate >> 2), minDemand, capacity);
                in.demand = demands[i];
            }
            active++;
        }
        // Compact the active demands to the front, solve, then hand the shares back in order.
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (demands[i] >= 0) {
                demands[k++] = demands[i];
            }
        }
        long level = maxMin.waterLevel(demands, k, capacity);
        // Capacity the demands leave unused goes to every active sender in equal parts: demand is
        // measured, so a sender held below its demand by loss or a slow start elsewhere would
        // otherwise be told its own rate back and never grow [SPEC-CC-20].
        long allotted = 0;
        for (int i = 0; i < k; i++) {
            allotted += Math.min(demands[i], level);
        }
        long spare = active == 0 ? 0 : Math.max(0, capacity - allotted) / active;
        long newcomer = capacity / (active + 1);
        k = 0;
        for (int i = 0; i < n; i++) {
            InboundShare in = connections.get(i).inbound();
            if (in.arrivedSince(activeSince)) {
                in.share(Math.max(1, Math.min(capacity, Math.min(demands[k++], level) + spare)), true);
                in.checkAnnouncement(reannouncePercent, true);
            } else {
                in.share(Math.max(1, newcomer), false);
            }
        }
        activeSenders = active;
    }
}
