package io.metaroce.netty;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * The select strategy of a busy-polling event loop: every turn polls the sockets without waiting
 * ({@code epoll_wait} or {@code selectNow} with a zero timeout) and then runs the loop's tasks, so
 * the loop never parks in the kernel and a datagram is handled as soon as it is in the socket,
 * without a wakeup. It costs a whole core per loop.
 *
 * <p>Not Netty's own {@link SelectStrategy#BUSY_WAIT}: that spins inside one native call until a
 * file descriptor is ready, so tasks handed to the loop from other threads and Netty's scheduled
 * tasks wait for the next I/O event. Here the loop goes round its task queue on every turn.
 *
 * <p>Thread-safe: stateless; one instance serves every loop.
 */
final class BusyPollStrategy implements SelectStrategy, SelectStrategyFactory {
    static final BusyPollStrategy INSTANCE = new BusyPollStrategy();

    private BusyPollStrategy() {
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        return selectSupplier.get(); // ready sockets now (0 or more), never a blocking wait
    }

    @Override
    public SelectStrategy newSelectStrategy() {
        return this;
    }
}
