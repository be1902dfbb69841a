package io.metaroce.core.sim.metaroce;

import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.Endpoint;
import io.metaroce.core.sim.SimTransport;
import java.nio.ByteBuffer;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * Adapts a MetaRoCE {@link Endpoint} to {@link SimTransport} and plays the application on it:
 * after every input it delivers the endpoint's events and completions to the flows they belong
 * to, which post the next work right away, so the application reacts at the same virtual instant.
 * The endpoint listens on socket 0; outgoing connections take fresh sockets from 1 up, one per
 * path.
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public final class MetaroceHost implements SimTransport {
    /** The socket every host listens on. */
    public static final int LISTEN_SOCKET = 0;

    private final int host;
    private final Endpoint endpoint;
    private final Long2ObjectHashMap<MetaroceFlow> byConnection = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<MetaroceFlow> awaitingAccept = new Long2ObjectHashMap<>();
    private int nextSocket = LISTEN_SOCKET + 1;

    private final CompletionHandler completions = this::onCompletion;
    private final ConnectionListener listener = new ConnectionListener() {
        @Override
        public void onAccepted(Connection connection) {
            MetaroceFlow flow = awaitingAccept.remove(connection.peerId());
            if (flow != null) {
                byConnection.put(connection.localId(), flow);
                flow.receiverConnection(connection);
            }
        }
    };

    MetaroceHost(int host, Endpoint endpoint) {
        this.host = host;
        this.endpoint = endpoint;
    }

    /** The host's index. */
    public int host() {
        return host;
    }

    /** The endpoint this host drives. */
    public Endpoint endpoint() {
        return endpoint;
    }

    /** Takes {@code count} fresh socket ids for a new connection's paths. */
    int[] takeSockets(int count) {
        int[] s = new int[count];
        for (int i = 0; i < count; i++) {
            s[i] = nextSocket++;
        }
        return s;
    }

    void expectConnection(long clientConnectionId, MetaroceFlow flow) {
        awaitingAccept.put(clientConnectionId, flow);
    }

    void sending(Connection c, MetaroceFlow flow) {
        byConnection.put(c.localId(), flow);
        flow.senderConnection(c);
    }

    @Override
    public void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
            Object remoteAddress, int ecn) {
        endpoint.handleDatagram(nowNanos, datagram, offset, length, localSocket, remoteAddress, ecn);
        afterInput();
    }

    @Override
    public boolean pollTransmit(long nowNanos, Transmit out) {
        return endpoint.pollTransmit(nowNanos, out);
    }

    @Override
    public long pollTimeoutNanos() {
        return endpoint.pollTimeoutNanos();
    }

    @Override
    public void handleTimeout(long nowNanos) {
        endpoint.handleTimeout(nowNanos);
        afterInput();
    }

    private void afterInput() {
        endpoint.pollEvents(listener);
        endpoint.pollCompletions(completions, Integer.MAX_VALUE);
    }

    private void onCompletion(long connectionId, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate) {
        MetaroceFlow flow = byConnection.get(connectionId);
        if (flow == null) {
            return;
        }
        if (opcode == WorkOpcode.RECV_WRITE_WITH_IMM || opcode == WorkOpcode.RECV) {
            flow.onReceiverCompletion(status, byteLength, immediate);
        } else {
            flow.onSenderCompletion(status, byteLength);
        }
    }
}
