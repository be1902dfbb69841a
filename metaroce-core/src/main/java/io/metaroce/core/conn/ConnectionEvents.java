package io.metaroce.core.conn;

import io.metaroce.core.api.ConnectionListener;
import java.util.Arrays;

/**
 * Connection life-cycle events waiting for {@link Endpoint#pollEvents}, in order, as a ring of
 * parallel arrays: a path that changes state on every few timeouts under loss must not cost an
 * object per change (R-JAVA-2). The ring doubles when full, so it allocates only while the backlog
 * reaches a new peak.
 *
 * <p>Not thread-safe; owned by its endpoint.
 */
final class ConnectionEvents {
    static final byte CONNECTED = 0;
    static final byte ACCEPTED = 1;
    static final byte CLOSED = 2;
    static final byte PATH_STATE = 3;

    private Connection[] connection = new Connection[16];
    private byte[] kind = new byte[16];
    private int[] pathId = new int[16];
    private int[] pathState = new int[16];
    private int head;
    private int size;

    void add(Connection c, byte eventKind) {
        add(c, eventKind, -1, -1);
    }

    void add(Connection c, byte eventKind, int path, int state) {
        if (size == connection.length) {
            grow();
        }
        int i = (head + size) & (connection.length - 1);
        connection[i] = c;
        kind[i] = eventKind;
        pathId[i] = path;
        pathState[i] = state;
        size++;
    }

    /** Delivers every event to {@code listener}, oldest first (including any it adds meanwhile); returns how many. */
    int drainTo(ConnectionListener listener) {
        int n = 0;
        while (size > 0) {
            int i = head;
            Connection c = connection[i];
            connection[i] = null;
            head = (head + 1) & (connection.length - 1);
            size--;
            n++;
            switch (kind[i]) {
                case CONNECTED -> listener.onConnected(c);
                case ACCEPTED -> listener.onAccepted(c);
                case CLOSED -> listener.onClosed(c, c.closeReason());
                default -> listener.onPathStateChanged(c, pathId[i], pathState[i]);
            }
        }
        return n;
    }

    private void grow() {
        int n = connection.length * 2;
        Connection[] c = new Connection[n];
        byte[] k = new byte[n];
        int[] p = new int[n];
        int[] s = new int[n];
        for (int j = 0; j < size; j++) {
            int i = (head + j) & (connection.length - 1);
            c[j] = connection[i];
            k[j] = kind[i];
            p[j] = pathId[i];
            s[j] = pathState[i];
        }
        connection = c;
        kind = k;
        pathId = p;
        pathState = s;
        head = 0;
    }
}
