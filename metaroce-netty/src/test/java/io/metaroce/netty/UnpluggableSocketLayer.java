package io.metaroce.netty;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The NIO socket layer with a cable that a test can pull: once {@link #unplug()} is called, every
 * datagram this endpoint sends or receives vanishes, as if the host had died without a word.
 */
final class UnpluggableSocketLayer extends ForwardingSocketLayer {
    private volatile boolean unplugged;

    UnpluggableSocketLayer() {
        super(NioSocketLayer.INSTANCE);
    }

    void unplug() {
        unplugged = true;
    }

    @Override
    public String name() {
        return "nio-unpluggable";
    }

    @Override
    DatagramReceiver receiver(DatagramReceiver endpoints) {
        return new ForwardingReceiver(endpoints) {
            @Override
            public void onDatagram(int id, ByteBuffer data, int offset, int length, InetSocketAddress sender, int ecn) {
                if (!unplugged) {
                    super.onDatagram(id, data, offset, length, sender, ecn);
                }
            }
        };
    }

    @Override
    UdpSocket socket(UdpSocket inners) {
        return new ForwardingSocket(inners) {
            @Override
            public boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn) {
                return unplugged || super.write(source, length, to, ecn);
            }
        };
    }
}
