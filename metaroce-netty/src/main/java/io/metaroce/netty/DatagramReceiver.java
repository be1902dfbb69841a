package io.metaroce.netty;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Where a {@link SocketLayer} delivers what its sockets receive. Called on the endpoint's event
 * loop only.
 */
interface DatagramReceiver {
    /**
     * One datagram: {@code length} bytes of {@code data} from {@code offset}, borrowed for the
     * duration of the call only.
     *
     * @param ecn the ECN codepoint of the datagram's IP header, or 0 if the layer cannot read it
     */
    void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender, int ecn);

    /**
     * A system call has just read datagrams from the socket, and they follow ({@link #onDatagram}
     * each) before the next such call: all of them were in the socket when it returned, so one
     * clock reading serves them all. Contract: a layer either announces every call that read
     * datagrams, before its datagrams, or never calls this (one that reads one datagram at a time
     * need not; the receiver then reads the clock per datagram). The receiver ends a call's
     * reading when it drives the engine after the call's datagrams ({@link #onReadBatchComplete},
     * a busy-polling turn), so a layer that stopped announcing would not have its datagrams
     * stamped with a stale reading. By default nothing.
     */
    default void onReceiveCall(int socketId) {
    }

    /** The layer has delivered a batch of datagrams (one read wake-up): a good moment to respond. */
    void onReadBatchComplete(int socketId);

    /** The socket reported an error (a failed write, an ICMP error): a lost datagram, counted. */
    void onSocketError(int socketId, Throwable cause);
}
