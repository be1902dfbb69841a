package io.metaroce.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The NIO socket layer with a cable that a test can pull: once {@link #unplug()} is called, every
 * datagram this endpoint sends or receives vanishes, as if the host had died without a word.
 */
final class UnpluggableSocketLayer implements SocketLayer {
    private volatile boolean unplugged;

    void unplug() {
        unplugged = true;
    }

    @Override
    public String name() {
        return "nio-unpluggable";
    }

    @Override
    public boolean readsEcn() {
        return false;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int threads) {
        return NioSocketLayer.INSTANCE.newEventLoopGroup(threads);
    }

    @Override
    public Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
            DatagramReceiver receiver) {
        DatagramReceiver filtered = new DatagramReceiver() {
            @Override
            public void onDatagram(int id, ByteBuffer data, int offset, int length, InetSocketAddress sender, int ecn) {
                if (!unplugged) {
                    receiver.onDatagram(id, data, offset, length, sender, ecn);
                }
            }

            @Override
            public void onReadBatchComplete(int id) {
                receiver.onReadBatchComplete(id);
            }

            @Override
            public void onSocketError(int id, Throwable cause) {
                receiver.onSocketError(id, cause);
            }
        };
        Promise<UdpSocket> promise = loop.newPromise();
        NioSocketLayer.INSTANCE.bind(loop, local, socketId, options, filtered).addListener(f -> {
            if (f.isSuccess()) {
                UdpSocket inner = (UdpSocket) f.getNow();
                promise.setSuccess(new UdpSocket() {
                    @Override
                    public InetSocketAddress localAddress() {
                        return inner.localAddress();
                    }

                    @Override
                    public boolean isOpen() {
                        return inner.isOpen();
                    }

                    @Override
                    public boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn) {
                        return unplugged || inner.write(source, length, to, ecn);
                    }

                    @Override
                    public int flush() {
                        return inner.flush();
                    }

                    @Override
                    public Future<?> close() {
                        return inner.close();
                    }
                });
            } else {
                promise.setFailure(f.cause());
            }
        });
        return promise;
    }
}
