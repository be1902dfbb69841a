package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathState;

/**
 * The paths of one connection, by id: how many were negotiated, which are open, and where the
 * round-robin of new data stands. Shared by the connection's send side, receive side and control
 * output, because the server may grant fewer paths than the client asked for [SPEC-CONN-15].
 *
 * <p>Not thread-safe; owned by its connection.
 */
final class Paths {
    private final Path[] byId;
    private int count;
    /** The path new data tries first, so that new data spreads over the paths in turn. */
    private int nextForData;
    /** Where the search for a path to take a failed path's retransmissions starts. */
    private int nextForRescue;
    /** Open paths that are ACTIVE, and ACTIVE or SUSPECT (in service). */
    private int activeCount;
    /** Open paths, whatever their state. */
    private int openCount;
    private int inServiceCount;
    /** Set when a path changed state, until the connection has reported it. */
    private boolean stateChanged;
    /**
     * CSNs in all open paths' retransmission queues: while 0, the scans that look for a queued
     * retransmission (every transmit poll and pacing query) need not read each path's queue, a
     * cache miss per path of a connection with nothing to resend.
     */
    private int queuedRetransmissions;
    /**
     * Counts the changes of which paths are open and of their states: what decides which paths may
     * take new data ({@link #usableForNewData}). A cache of something computed over those paths
     * (the idle resend's wait, {@code DataWriter}) is valid while this has not moved.
     */
    private int membershipGeneration;
    /**
     * Bit i: path i is open and in service (ACTIVE or SUSPECT). Kept with the states, so that the
     * next-timeout query's walk of the paths ({@code Sender#nextPacedSendNanos}) need not read a
     * path object to skip it. Meaningful while {@link #count} is at most 64.
     */
    private long inServiceMask;
    /**
     * Bit i: path i is open and ACTIVE. With {@link #inServiceMask}, tells which paths may take new
     * data ({@link #usableForNewData}) without reading a path object. Meaningful while
     * {@link #count} is at most 64.
     */
    private long activeMask;
    /**
     * Per path, a lower bound on the transmissions its scoreboard still has room for: read from
     * the scoreboard ({@code SendScoreboard#room}) when it is used up, one less at each send
     * ({@link #sentOn}), as only a send takes room. While above 0 the path has room without its
     * scoreboard being read. 0 for a path just opened (its scoreboard not read yet).
     */
    private final long[] roomCredit;
    /**
     * Per path id, its receive tracker's ACK deadline ({@code PathReceiveTracker#ackDeadlineNanos},
     * which each open path's tracker keeps up to date here), {@link Long#MAX_VALUE} where no path is
     * open: the transmit poll's look for a due ACK reads this array, not every path's tracker.
     */
    private final long[] ackDeadlines;

    Paths(int count) {
        this.byId = new Path[count];
        this.count = count;
        this.roomCredit = new long[count];
        this.ackDeadlines = new long[count];
        java.util.Arrays.fill(ackDeadlines, Long.MAX_VALUE);
    }

    /** Number of paths negotiated. */
    int count() {
        return count;
    }

    /** Path {@code id} (below {@link #count()} or not), or null if it is not negotiated or not open yet. */
    Path get(int id) {
        return id < count ? byId[id] : null;
    }

    void open(Path path) {
        Path old = byId[path.id];
        if (old != null) {
            // Replaced: its counts go with it.
            countIn(old.state, -1);
            openCount--;
            queuedRetransmissions -= old.retransmitQueue.size();
            old.receiveTracker.publishAckDeadlineTo(null, 0);
        }
        byId[path.id] = path;
        path.receiveTracker.publishAckDeadlineTo(ackDeadlines, path.id);
        openCount++;
        countIn(path.state, 1);
        membershipGeneration++;
        roomCredit[path.id] = 0;
        maskInService(path.id, path.state);
    }

    private void maskInService(int id, int state) {
        if (id < Long.SIZE) {
            inServiceMask = PathState.inService(state) ? inServiceMask | (1L << id) : inServiceMask & ~(1L << id);
            activeMask = state == PathState.ACTIVE ? activeMask | (1L << id) : activeMask & ~(1L << id);
        }
    }

    /**
     * Whether path {@code id} (below {@link #count}) is open, in service and has room in its
     * scoreboard for another transmission: {@code get(id) != null}, {@code PathState.inService}
     * of its state and {@code scoreboard.hasRoom()}, mostly without reading the path's objects.
     */
    boolean inServiceWithRoom(int id) {
        if (count > Long.SIZE) {
            Path p = byId[id];
            return p != null && PathState.inService(p.state) && p.scoreboard.hasRoom();
        }
        if ((inServiceMask & (1L << id)) == 0) {
            return false;
        }
        return hasRoom(id);
    }

    /**
     * Whether path {@code id} (below {@link #count}) is open, may take new data and has room in its
     * scoreboard for another transmission: {@code get(id) != null}, {@link #usableForNewData} and
     * {@code scoreboard.hasRoom()}, mostly without reading the path's objects.
     */
    boolean usableForNewDataWithRoom(int id) {
        if (count > Long.SIZE) {
            Path p = byId[id];
            return p != null && usableForNewData(p) && p.scoreboard.hasRoom();
        }
        // usableForNewData: ACTIVE, or SUSPECT (in service) while no path is ACTIVE.
        long usable = activeCount > 0 ? activeMask : inServiceMask;
        if ((usable & (1L << id)) == 0) {
            return false;
        }
        return hasRoom(id);
    }

    /** Whether path {@code id} (below {@link #count}) is open with a retransmission queued on it. */
    boolean hasQueuedRetransmission(int id) {
        Path p;
        return queuedRetransmissions > 0 && (p = byId[id]) != null && !p.retransmitQueue.isEmpty();
    }

    /** Whether open path {@code id} (below 64) has room in its scoreboard, from its credit if above 0. */
    private boolean hasRoom(int id) {
        if (roomCredit[id] > 0) {
            return true;
        }
        long room = byId[id].scoreboard.room();
        roomCredit[id] = room;
        return room > 0;
    }

    /**
     * Path {@code id}'s ACK deadline (below {@link #count}): its tracker's
     * {@code ackDeadlineNanos()}, or {@link Long#MAX_VALUE} if the path is not open. An ACK is due
     * on the path at {@code now} exactly when this is at most {@code now}.
     */
    long ackDeadlineNanos(int id) {
        return ackDeadlines[id];
    }

    /** A transmission was recorded on path {@code id}'s scoreboard: it took room (see {@link #roomCredit}). */
    void sentOn(int id) {
        roomCredit[id]--;
    }

    private void countIn(int state, int delta) {
        if (state == PathState.ACTIVE) {
            activeCount += delta;
        }
        if (PathState.inService(state)) {
            inServiceCount += delta;
        }
    }

    /** Moves {@code path} to {@code state}, keeping the counts; the connection reports the change. */
    void state(Path path, int state) {
        if (path.state == state) {
            return;
        }
        if (byId[path.id] == path) {
            countIn(path.state, -1);
            countIn(state, 1);
        }
        path.state = state;
        stateChanged = true;
        membershipGeneration++;
        if (byId[path.id] == path) {
            maskInService(path.id, state);
        }
    }

    /** See {@link #membershipGeneration}: changes whenever a path opens, goes or changes state. */
    int membershipGeneration() {
        return membershipGeneration;
    }

    /** Whether a path changed state since the last call; clears the flag. */
    boolean takeStateChanged() {
        boolean changed = stateChanged;
        stateChanged = false;
        return changed;
    }

    /** Queues {@code csn} for retransmission on {@code path} (an open path). */
    void queueRetransmission(Path path, long csn) {
        path.retransmitQueue.addLong(csn);
        queuedRetransmissions++;
    }

    /** Takes the first CSN of {@code path}'s retransmission queue, which must not be empty. */
    long pollRetransmission(Path path) {
        queuedRetransmissions--;
        return path.retransmitQueue.pollLong();
    }

    /** CSNs queued for retransmission over all open paths (0: every queue is empty). */
    int queuedRetransmissions() {
        return queuedRetransmissions;
    }

    /**
     * Whether every open path is ACTIVE: then none is SUSPECT or FAILED, so none is due a health
     * probe, and the transmit poll need not read every path to find one.
     */
    boolean allOpenActive() {
        return activeCount == openCount;
    }

    /** Open paths that are ACTIVE or SUSPECT. */
    int inServiceCount() {
        return inServiceCount;
    }

    /**
     * Whether new data may go on {@code path}: it is ACTIVE, or SUSPECT while no path is ACTIVE
     * (the connection keeps trying the paths it has rather than stall).
     */
    boolean usableForNewData(Path path) {
        return path.state == PathState.ACTIVE || (path.state == PathState.SUSPECT && activeCount == 0);
    }

    /**
     * The path a CSN lost on {@code lost} is retransmitted on: {@code lost} itself while it is
     * ACTIVE (R-SACK-2), or while it is SUSPECT and no path is ACTIVE; else the next path in service
     * in turn, ACTIVE ones first (a doubtful path is tested by a probe, not with the data).
     */
    Path retransmitPathFor(Path lost) {
        if (lost.state == PathState.ACTIVE || (lost.state == PathState.SUSPECT && activeCount == 0)) {
            return lost;
        }
        Path fallback = null;
        for (int k = 0; k < count; k++) {
            int id = (nextForRescue + k) % count;
            Path p = byId[id];
            if (p == null || !PathState.inService(p.state)) {
                continue;
            }
            if (p.state == PathState.ACTIVE) {
                nextForRescue = (id + 1) % count;
                return p;
            }
            if (fallback == null) {
                fallback = p;
            }
        }
        return fallback != null ? fallback : lost;
    }

    /**
     * The path a packet that came in on path {@code pathId}, from {@code remoteAddress} to
     * {@code localSocket}, is to be answered on, opening it if new; null if no such path was
     * negotiated.
     */
    Path forInbound(int pathId, int localSocket, Object remoteAddress, EngineConfig config) {
        if (pathId >= count) {
            return null;
        }
        Path path = byId[pathId];
        if (path == null) {
            path = new Path(pathId, localSocket, remoteAddress, config);
            open(path);
        } else if (path.localSocket != localSocket
                || path.remoteAddress != remoteAddress && !path.remoteAddress.equals(remoteAddress)) {
            // The peer moved the path (a new source port) or a NAT rebound it: answer where it now is.
            path.localSocket = localSocket;
            path.remoteAddress = remoteAddress;
        }
        return path;
    }

    /** Keeps only the first {@code granted} paths [SPEC-CONN-15]. */
    void limitTo(int granted) {
        for (int i = granted; i < count; i++) {
            if (byId[i] != null) {
                countIn(byId[i].state, -1);
                openCount--;
                queuedRetransmissions -= byId[i].retransmitQueue.size();
                byId[i].receiveTracker.publishAckDeadlineTo(null, 0);
            }
            byId[i] = null;
            ackDeadlines[i] = Long.MAX_VALUE;
            if (i < Long.SIZE) {
                inServiceMask &= ~(1L << i);
                activeMask &= ~(1L << i);
            }
        }
        count = granted;
        nextForData = 0;
        membershipGeneration++;
    }

    /** The path in service with the lowest id, else the open path with the lowest id, or null. */
    Path firstInService() {
        for (int i = 0; i < count; i++) {
            if (byId[i] != null && PathState.inService(byId[i].state)) {
                return byId[i];
            }
        }
        return first();
    }

    /** The open path with the lowest id, or null. */
    Path first() {
        for (int i = 0; i < count; i++) {
            if (byId[i] != null) {
                return byId[i];
            }
        }
        return null;
    }

    int nextForData() {
        return nextForData;
    }

    void nextForData(int id) {
        nextForData = id;
    }
}
