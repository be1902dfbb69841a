package io.metaroce.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;

/**
 * An event loop's I/O handler that tells a listener when each I/O pass starts and ends: Netty's
 * {@code SingleThreadIoEventLoop} runs one I/O pass ({@link IoHandler#run}: the selector's or
 * {@code epoll_wait}'s readiness, and the reads and timers it reports) before each pass over its
 * task queue, so what happens between the end of one and the start of the next ran as a task.
 * For tests that count the loop's own work rather than time.
 */
final class PassCountingIoHandler implements IoHandler {
    /** Told on the loop's thread, around every I/O pass. */
    interface PassListener {
        void passStarting();

        void passEnded();
    }

    private final IoHandler inner;
    private final PassListener listener;

    private PassCountingIoHandler(IoHandler inner, PassListener listener) {
        this.inner = inner;
        this.listener = listener;
    }

    /** A one-loop group of {@code ioHandlers}' kind whose I/O passes {@code listener} is told about. */
    static EventLoopGroup group(int threads, IoHandlerFactory ioHandlers, PassListener listener) {
        return new MultiThreadIoEventLoopGroup(threads, executor -> new PassCountingIoHandler(
                ioHandlers.newHandler(executor), listener));
    }

    @Override
    public void initialize() {
        inner.initialize();
    }

    @Override
    public int run(IoHandlerContext context) {
        listener.passStarting();
        try {
            return inner.run(context);
        } finally {
            listener.passEnded();
        }
    }

    @Override
    public void prepareToDestroy() {
        inner.prepareToDestroy();
    }

    @Override
    public void destroy() {
        inner.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return inner.register(handle);
    }

    @Override
    public void wakeup() {
        inner.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return inner.isCompatible(handleType);
    }
}
