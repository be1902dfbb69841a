package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;

/**
 * A connection's per-path timer deadlines, kept between next-timeout queries so that a query
 * after an input that touched one path reads that path's objects (receive tracker, scoreboard,
 * RTT estimator, loss detector) again and the other paths' deadlines from one small array. A
 * sending connection has eight paths of about five objects each: reading them all on every query
 * was the engine's largest cost in the simulator, a cache miss per object.
 *
 * <p>Each path's entry holds what its deadlines are made of, less the connection's
 * {@code latestAckedSentNanos}, which moves with every ACK of any path and is applied when the
 * entries are read: the ACK and retransmission deadlines, the oldest send time in flight and
 * when it becomes overdue, and the health probe's deadlines. An entry is refreshed when its path
 * is marked ({@link #mark}) or everything is ({@link #markAll}). {@link #earliestNanos} gives
 * exactly the per-path part of what {@code Connection#deadlinesNanos} computes from scratch,
 * {@code TimeoutCachePropertyTest} and {@code PathDeadlinesPropertyTest} check that against it.
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class PathDeadlines {
    /** The retransmission deadline. */
    private static final int RTO = 0;
    /** The oldest send time in flight ({@link Long#MAX_VALUE}: nothing in flight). */
    private static final int OLDEST = 1;
    /** When the oldest transmission is overdue, once something sent after it was acknowledged. */
    private static final int OVERDUE_AT = 2;
    /** The health probe's deadline ({@link Long#MAX_VALUE}: no probe out). */
    private static final int PROBE_DEADLINE = 3;
    /** When the probe out went. */
    private static final int PROBE_SENT = 4;
    /** When the probe out is overdue, once something sent after it was acknowledged. */
    private static final int PROBE_OVERDUE_AT = 5;
    /** When the next probe of a FAILED path goes out. */
    private static final int NEXT_PROBE = 6;
    /** The ACK deadline: the transmit poll's, not a timer pass's ({@link #timerEarliestNanos}). */
    private static final int ACK = 7;
    private static final int WORDS = 8;

    private long[] entries = new long[0];
    private int count;
    /** Bit i: path i's entry may be stale. Meaningful while {@link #count} is at most 64. */
    private long marked = -1L;

    /** Every entry may be stale. */
    void markAll() {
        marked = -1L;
    }

    /** Path {@code pathId}'s entry may be stale (an id outside the table marks everything). */
    void mark(int pathId) {
        if (pathId < 0 || pathId >= Long.SIZE) {
            marked = -1L;
        } else {
            marked |= 1L << pathId;
        }
    }

    /**
     * The earliest per-path deadline of {@code paths}: every path's ACK, retransmission and overdue
     * deadlines, and with {@code probing} its health deadlines; refreshes the marked entries
     * first.
     */
    long earliestNanos(Paths paths, EngineConfig config, PathHealth health, long latestAckedSentNanos,
            boolean probing) {
        int n = paths.count();
        if (n != count || n > Long.SIZE) {
            if (entries.length < n * WORDS) {
                entries = new long[n * WORDS];
            }
            count = n;
            marked = -1L;
        }
        long[] e = entries;
        for (long m = n > Long.SIZE ? -1L : marked; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            if (i >= n) {
                break;
            }
            refresh(e, i * WORDS, paths.get(i), config, health);
        }
        if (n > Long.SIZE) {
            for (int i = Long.SIZE; i < n; i++) {
                refresh(e, i * WORDS, paths.get(i), config, health);
            }
        }
        marked = 0;
        return scan(latestAckedSentNanos, probing, true);
    }

    /**
     * The earliest per-path deadline a timer pass acts on: that of the last {@link #earliestNanos}
     * without the paths' ACK deadlines (a due ACK is the transmit poll's work), from the entries it
     * read.
     */
    long timerEarliestNanos(long latestAckedSentNanos, boolean probing) {
        return scan(latestAckedSentNanos, probing, false);
    }

    private long scan(long latestAckedSentNanos, boolean probing, boolean acks) {
        long t = Long.MAX_VALUE;
        long[] e = entries;
        for (int b = 0; b < count * WORDS; b += WORDS) {
            if (acks) {
                t = Math.min(t, e[b + ACK]);
            }
            t = Math.min(t, e[b + RTO]);
            // Path#overdueDeadlineNanos: only once something sent after the oldest was acknowledged.
            if (e[b + OLDEST] < latestAckedSentNanos) {
                t = Math.min(t, e[b + OVERDUE_AT]);
            }
            if (probing) {
                // PathHealth#nextTimeoutNanos: the probe's deadline, earlier once it is overdue.
                long probe = e[b + PROBE_DEADLINE];
                if (probe != Long.MAX_VALUE && latestAckedSentNanos > e[b + PROBE_SENT]) {
                    probe = Math.min(probe, e[b + PROBE_OVERDUE_AT]);
                }
                t = Math.min(t, Math.min(probe, e[b + NEXT_PROBE]));
            }
        }
        return t;
    }

    private static void refresh(long[] e, int b, Path p, EngineConfig config, PathHealth health) {
        if (p == null) {
            e[b + RTO] = Long.MAX_VALUE;
            e[b + ACK] = Long.MAX_VALUE;
            e[b + OLDEST] = Long.MAX_VALUE;
            e[b + OVERDUE_AT] = Long.MAX_VALUE;
            e[b + PROBE_DEADLINE] = Long.MAX_VALUE;
            e[b + PROBE_SENT] = Long.MAX_VALUE;
            e[b + PROBE_OVERDUE_AT] = Long.MAX_VALUE;
            e[b + NEXT_PROBE] = Long.MAX_VALUE;
            return;
        }
        long oldest = p.scoreboard.oldestSentAtNanos();
        e[b + ACK] = p.receiveTracker.ackDeadlineNanos();
        e[b + RTO] = p.rtoDeadlineNanos(config);
        e[b + OLDEST] = oldest;
        e[b + OVERDUE_AT] = oldest == Long.MAX_VALUE ? Long.MAX_VALUE : oldest + p.overdueNanos(config);
        e[b + PROBE_DEADLINE] = p.probeDeadlineNanos;
        e[b + PROBE_SENT] = p.probeSentAtNanos;
        e[b + PROBE_OVERDUE_AT] = p.probeDeadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE : health.probeOverdueAtNanos(p);
        e[b + NEXT_PROBE] = p.nextProbeNanos;
    }
}
