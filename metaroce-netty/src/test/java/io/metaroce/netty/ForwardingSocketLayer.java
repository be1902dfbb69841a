package io.metaroce.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A socket layer that hands everything to another one, for tests that watch or change part of
 * what an endpoint's sockets do: a subclass overrides {@link #receiver} to see what the sockets
 * read, {@link #socket} to see what the endpoint writes, or any layer method.
 */
class ForwardingSocketLayer implements SocketLayer {
    final SocketLayer inner;

    ForwardingSocketLayer(SocketLayer inner) {
        this.inner = inner;
    }

    /** What the inner layer's socket delivers to, given the endpoint's receiver; by default that one. */
    DatagramReceiver receiver(DatagramReceiver endpoints) {
        return endpoints;
    }

    /** The socket the endpoint gets, given the inner layer's; by default that one. */
    UdpSocket socket(UdpSocket inners) {
        return inners;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public boolean readsEcn() {
        return inner.readsEcn();
    }

    @Override
    public boolean sendsInPlace() {
        return inner.sendsInPlace();
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int threads) {
        return inner.newEventLoopGroup(threads);
    }

    @Override
    public EventLoopGroup newBusyPollEventLoopGroup(int threads, BusyPollStrategy strategy) {
        return inner.newBusyPollEventLoopGroup(threads, strategy);
    }

    @Override
    public LoopTimer newTimer(EventLoop loop, Runnable task) {
        return inner.newTimer(loop, task);
    }

    @Override
    public Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId, SocketOptions options,
            DatagramReceiver receiver) {
        Promise<UdpSocket> promise = loop.newPromise();
        inner.bind(loop, local, socketId, options, receiver(receiver)).addListener(f -> {
            if (f.isSuccess()) {
                promise.setSuccess(socket((UdpSocket) f.getNow()));
            } else {
                promise.setFailure(f.cause());
            }
        });
        return promise;
    }

    /** A receiver that hands every call to another one; override what to watch or change. */
    static class ForwardingReceiver implements DatagramReceiver {
        final DatagramReceiver inner;

        ForwardingReceiver(DatagramReceiver inner) {
            this.inner = inner;
        }

        @Override
        public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                int ecn) {
            inner.onDatagram(socketId, data, offset, length, sender, ecn);
        }

        @Override
        public void onReceiveCall(int socketId) {
            inner.onReceiveCall(socketId);
        }

        @Override
        public void onReadBatchComplete(int socketId) {
            inner.onReadBatchComplete(socketId);
        }

        @Override
        public void onSocketError(int socketId, Throwable cause) {
            inner.onSocketError(socketId, cause);
        }
    }

    /** A socket that hands every call to another one; override what to watch or change. */
    static class ForwardingSocket implements UdpSocket {
        final UdpSocket inner;

        ForwardingSocket(UdpSocket inner) {
            this.inner = inner;
        }

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
            return inner.write(source, length, to, ecn);
        }

        @Override
        public boolean writeInPlace(ByteBuffer slot, long slotAddress, int length, InetSocketAddress to, int ecn) {
            return inner.writeInPlace(slot, slotAddress, length, to, ecn);
        }

        @Override
        public int flush() {
            return inner.flush();
        }

        @Override
        public int readNow() {
            return inner.readNow();
        }

        @Override
        public Future<?> close() {
            return inner.close();
        }

        @Override
        public long offloadSends() {
            return inner.offloadSends();
        }

        @Override
        public long offloadDatagrams() {
            return inner.offloadDatagrams();
        }

        @Override
        public long sendCalls() {
            return inner.sendCalls();
        }

        @Override
        public long receiveCalls() {
            return inner.receiveCalls();
        }

        @Override
        public long offloadReceives() {
            return inner.offloadReceives();
        }

        @Override
        public long offloadReceivedDatagrams() {
            return inner.offloadReceivedDatagrams();
        }
    }
}
