package io.metaroce.core.conn;

import io.metaroce.core.api.PathState;

/**
 * What the pacing term of a connection's next timeout ({@code Sender#nextPacedSendNanos}) reads
 * from each path's own objects, kept between queries: whether the path may take a packet (in
 * service, with room in its scoreboard) and what it adds to the idle-resend wait (its smoothed
 * round trip plus the ACK delay its packets allow, if it may take new data). A sending connection
 * recomputes its pacing term after every ACK and every send, and reading a {@code Path}, its
 * scoreboard and its RTT estimator for each of eight paths each time cost a cache miss per
 * object; an ACK or a send changes one path's inputs.
 *
 * <p>The connection marks what its inputs may have changed, as it does for its per-path deadlines
 * ({@link PathDeadlines}): one path ({@link #mark}) or every path ({@link #markAll}); a change of
 * the paths' layout or states (a path opened or dropped, any state change, which also changes which
 * paths may take new data) marks every path by itself ({@link Paths#layoutVersion}). Each
 * answer reads its marked paths again when it is asked, and only then: a receiving connection, with
 * nothing in flight, needs neither. The controller's answers (allowance, next send time) are not kept
 * here: they move with the connection's clock and every path's sends.
 * {@code TimeoutCachePropertyTest} and {@code PathPacingInputsPropertyTest} check the pacing term
 * built from these entries against the one computed from the paths themselves.
 *
 * <p>Not thread-safe; owned by its connection's sender.
 */
final class PathPacingInputs {
    /** A path that may not take new data: no part of the idle-resend wait. */
    private static final long NOT_USABLE = -1;

    /** Bit i: path i's bit in {@link #sendable} may be stale. Meaningful while the connection has at most 64 paths. */
    private long sendableMarked = -1L;
    /** Bit i: path i's entry in {@link #resendWait} may be stale. */
    private long waitMarked = -1L;
    /** Bit i: path i is open, in service and has room for another transmission. */
    private long sendable;
    /** Per path: its part of the idle-resend wait, or {@link #NOT_USABLE}. */
    private long[] resendWait = new long[0];
    private int count = -1;
    private long layout = -1;

    /** Every path's entry may be stale. */
    void markAll() {
        sendableMarked = -1L;
        waitMarked = -1L;
    }

    /** Path {@code pathId}'s entry may be stale (an id outside the table marks everything). */
    void mark(int pathId) {
        if (pathId < 0 || pathId >= Long.SIZE) {
            markAll();
        } else {
            sendableMarked |= 1L << pathId;
            waitMarked |= 1L << pathId;
        }
    }

    /** Marks everything if the number of paths or their layout changed since the entries were read. */
    private void checkLayout(Paths paths) {
        int n = paths.count();
        long version = paths.layoutVersion();
        if (n != count || version != layout) {
            if (resendWait.length < n) {
                resendWait = new long[n];
            }
            count = n;
            layout = version;
            markAll();
        }
    }

    /**
     * Bit i: path i of {@code paths} may take a packet (open, in service, with room), reading the
     * marked paths again. Only for connections of at most 64 paths ({@link #covers}).
     */
    long sendable(Paths paths) {
        checkLayout(paths);
        int n = count;
        for (long m = sendableMarked; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            if (i >= n) {
                break;
            }
            Path p = paths.get(i);
            long bit = 1L << i;
            if (p != null && PathState.inService(p.state) && p.scoreboard.hasRoom()) {
                sendable |= bit;
            } else {
                sendable &= ~bit;
            }
        }
        sendableMarked = 0;
        return sendable;
    }

    /**
     * The idle-resend wait of {@code paths} ({@code DataWriter#resendWaitNanos()}, {@code writer}
     * giving each path's part), reading the marked paths again: the largest part of the paths that
     * may take new data, or {@link Long#MAX_VALUE} if none may. Only for connections of at most 64
     * paths ({@link #covers}).
     */
    long resendWaitNanos(Paths paths, DataWriter writer) {
        checkLayout(paths);
        int n = count;
        long[] w = resendWait;
        for (long m = waitMarked; m != 0; m &= m - 1) {
            int i = Long.numberOfTrailingZeros(m);
            if (i >= n) {
                break;
            }
            Path p = paths.get(i);
            w[i] = p != null && paths.usableForNewData(p) ? writer.resendWaitNanos(p) : NOT_USABLE;
        }
        waitMarked = 0;
        long wait = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            long due = w[i];
            if (due != NOT_USABLE) {
                wait = wait == Long.MAX_VALUE ? due : Math.max(wait, due);
            }
        }
        return wait;
    }

    /** Whether a connection with {@code pathCount} paths can use this table (64 paths or fewer). */
    static boolean covers(int pathCount) {
        return pathCount <= Long.SIZE;
    }
}
