package io.metaroce.netty;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The socket benchmarks' receiver: counts what arrives and keeps nothing, so the loops under
 * measurement do only the datapath's work. {@code bytes} adds each datagram's ECN codepoint to its
 * length so that neither is dead to the JIT.
 */
final class DatagramCounter implements DatagramReceiver {
    long datagrams;
    long bytes;
    long ecnCodepoints;

    @Override
    public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress from, int ecn) {
        datagrams++;
        bytes += length + ecn;
        ecnCodepoints += ecn;
    }

    @Override
    public void onReadBatchComplete(int socketId) {
    }

    @Override
    public void onSocketError(int socketId, Throwable cause) {
    }
}
