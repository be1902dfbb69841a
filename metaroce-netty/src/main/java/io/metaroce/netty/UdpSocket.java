package io.metaroce.netty;

import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One bound UDP socket of a {@link SocketLayer}. Called on the endpoint's event loop only.
 */
interface UdpSocket {
    /** The address the socket is bound to. */
    InetSocketAddress localAddress();

    /** Whether the socket is open and can send. */
    boolean isOpen();

    /**
     * Queues one datagram: {@code length} bytes of {@code source} from index 0, to {@code to},
     * with ECN codepoint {@code ecn} where the layer can set it per datagram. The bytes are copied
     * (or sent) before this returns, so the caller may reuse {@code source}.
     *
     * @return false if the datagram could not be queued (it is lost; the engine recovers)
     */
    boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn);

    /**
     * Queues the datagram of {@code length} bytes encoded in place in a slot of the endpoint's
     * {@link SendSlots} ({@code slot}, at native address {@code slotAddress}). A layer that sends
     * in place ({@link SocketLayer#sendsInPlace()}) sends it from there without copying, so the
     * slot must keep its bytes until this socket's next {@link #flush}; by default the bytes are
     * copied as by {@link #write}.
     *
     * @return false if the datagram could not be queued (it is lost; the engine recovers)
     */
    default boolean writeInPlace(ByteBuffer slot, long slotAddress, int length, InetSocketAddress to, int ecn) {
        return write(slot, length, to, ecn);
    }

    /**
     * Hands everything queued by {@link #write} to the kernel.
     *
     * @return how many queued datagrams the kernel refused (a full send buffer): lost, to be
     *     recovered by the engine
     */
    int flush();

    /**
     * Reads what the socket holds now, without waiting for the event loop to report it readable,
     * handing each datagram to the socket's receiver; for a busy-polling loop, which then drives
     * the engine itself (no {@link DatagramReceiver#onReadBatchComplete}).
     *
     * @return the datagrams (or coalesced buffers) read, 0 if none; -1 if this layer's sockets
     *     are read only when the event loop's selector reports them (the default)
     */
    default int readNow() {
        return -1;
    }

    /** Closes the socket; the future completes when it is closed. */
    Future<?> close();

    /**
     * Sends so far that carried several datagrams as one segmentation-offload run (Linux GSO);
     * 0 for a layer without offload. Read on the socket's event loop.
     */
    default long offloadSends() {
        return 0;
    }

    /** Datagrams carried by the {@link #offloadSends()}; 0 for a layer without offload. */
    default long offloadDatagrams() {
        return 0;
    }

    /** System calls that sent datagrams so far; 0 for a layer that does not count them. */
    default long sendCalls() {
        return 0;
    }

    /** System calls that read datagrams so far; 0 for a layer that does not count them. */
    default long receiveCalls() {
        return 0;
    }

    /** Buffers read that held several datagrams coalesced by the kernel (Linux GRO); 0 without. */
    default long offloadReceives() {
        return 0;
    }

    /** Datagrams held by the {@link #offloadReceives()}; 0 for a layer without receive offload. */
    default long offloadReceivedDatagrams() {
        return 0;
    }
}
