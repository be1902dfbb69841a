package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;

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

    Paths(int count) {
        this.byId = new Path[count];
        this.count = count;
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
        byId[path.id] = path;
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
            byId[pathId] = path;
        } else if (path.localSocket != localSocket || !path.remoteAddress.equals(remoteAddress)) {
            // The peer moved the path (a new source port) or a NAT rebound it: answer where it now is.
            path.localSocket = localSocket;
            path.remoteAddress = remoteAddress;
        }
        return path;
    }

    /** Keeps only the first {@code granted} paths [SPEC-CONN-15]. */
    void limitTo(int granted) {
        for (int i = granted; i < count; i++) {
            byId[i] = null;
        }
        count = granted;
        nextForData = 0;
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
