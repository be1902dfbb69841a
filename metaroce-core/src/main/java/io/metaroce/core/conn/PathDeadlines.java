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

    // ---- a path's hot entry: what a scan of the paths in service reads ----
    /** The least of the ACK, retransmission, probe and next-probe deadlines. */
    private static final int H_WITH_ACK = 0;
    /** The same without the ACK deadline (a timer pass's). */
    private static final int H_WITHOUT_ACK = 1;
    /** The oldest send time in flight ({@link Long#MAX_VALUE}: nothing in flight). */
    private static final int H_OLDEST = 2;
    /** When the oldest transmission is overdue, once something sent after it was acknowledged. */
    private static final int H_OVERDUE_AT = 3;
    private static final int HOT_WORDS = 4;

    private long[] entries = new long[0];
    /**
     * Per path, {@link #HOT_WORDS} words: what the scan of a probing connection (ESTABLISHED or
     * CLOSE_PENDING: every question of a busy connection) reads of its entry, the unconditional
     * deadlines folded into one minimum, so that it reads half the cache lines (a sending
     * connection of the permutation has 16 paths); the probe-overdue term is read from
     * {@link #entries} for the paths in {@link #probesOut} only.
     */
    private long[] hot = new long[0];
    private int count;
    /** Bit i: path i's entry may be stale. Meaningful while {@link #count} is at most 64. */
    private long marked = -1L;
    /** Bit i: path i has a health probe out ({@code PROBE_DEADLINE} not {@link Long#MAX_VALUE}). While {@link #count} is at most 64. */
    private long probesOut;

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
                hot = new long[n * HOT_WORDS];
            }
            count = n;
            marked = -1L;
            probesOut = 0; // every entry below n is refreshed now; none above it may be read
        }
        long[] e = entries;
        for (long m = n > Long.SIZE ? -1L : marked; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            if (i >= n) {
                break;
            }
            refresh(e, i * WORDS, paths.get(i), config, health);
            refreshHot(i);
        }
        if (n > Long.SIZE) {
            for (int i = Long.SIZE; i < n; i++) {
                refresh(e, i * WORDS, paths.get(i), config, health);
            }
        }
        marked = 0;
        return scan(latestAckedSentNanos, probing, true);
    }

    /** Path {@code i}'s (below 64) hot entry and probe bit, from its entry just refreshed. */
    private void refreshHot(int i) {
        long[] e = entries;
        int b = i * WORDS;
        int h = i * HOT_WORDS;
        long probeTerms = Math.min(e[b + PROBE_DEADLINE], e[b + NEXT_PROBE]);
        long withoutAck = Math.min(e[b + RTO], probeTerms);
        hot[h + H_WITH_ACK] = Math.min(e[b + ACK], withoutAck);
        hot[h + H_WITHOUT_ACK] = withoutAck;
        hot[h + H_OLDEST] = e[b + OLDEST];
        hot[h + H_OVERDUE_AT] = e[b + OVERDUE_AT];
        probesOut = e[b + PROBE_DEADLINE] != Long.MAX_VALUE ? probesOut | (1L << i) : probesOut & ~(1L << i);
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
        if (probing && count <= Long.SIZE) {
            return scanHot(latestAckedSentNanos, acks);
        }
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

    /**
     * {@link #scan} of a probing connection of at most 64 paths, from the hot entries: the same
     * minimum (the unconditional terms were folded at the refresh, min being associative), the
     * probe-overdue term read for the paths with a probe out.
     */
    private long scanHot(long latestAckedSentNanos, boolean acks) {
        long t = Long.MAX_VALUE;
        long[] h = hot;
        int column = acks ? H_WITH_ACK : H_WITHOUT_ACK;
        for (int b = 0; b < count * HOT_WORDS; b += HOT_WORDS) {
            t = Math.min(t, h[b + column]);
            // Path#overdueDeadlineNanos: only once something sent after the oldest was acknowledged.
            if (h[b + H_OLDEST] < latestAckedSentNanos) {
                t = Math.min(t, h[b + H_OVERDUE_AT]);
            }
        }
        long[] e = entries;
        for (long m = probesOut; m != 0; m &= m - 1) {
            int b = Long.numberOfTrailingZeros(m) * WORDS;
            // PathHealth#nextTimeoutNanos: the probe's deadline, earlier once it is overdue.
            if (latestAckedSentNanos > e[b + PROBE_SENT]) {
                t = Math.min(t, e[b + PROBE_OVERDUE_AT]);
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
