package io.metaroce.netty;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * The select strategy of a busy-polling event loop: every turn polls the sockets without waiting
 * ({@code epoll_wait} or {@code selectNow} with a zero timeout) and then runs the loop's tasks, so
 * the loop never parks in the kernel and a datagram is handled as soon as it is in the socket,
 * without a wakeup. It costs a whole core per loop; a turn that found nothing to do yields the
 * core to any other runnable thread ({@code sched_yield}).
 *
 * <p>Not Netty's own {@link SelectStrategy#BUSY_WAIT}: that spins inside one native call until a
 * file descriptor is ready, so tasks handed to the loop from other threads and Netty's scheduled
 * tasks wait for the next I/O event. Here the loop goes round its task queue on every turn.
 *
 * <p>A loop that never sleeps needs no kernel timer: the endpoint's timer on such a loop is a
 * {@link PolledLoopTimer} that this strategy checks on every turn, so moving the engine's deadline
 * costs no system call (a {@code timerfd} costs one per move, and one read when it fires).
 *
 * <p>Thread-safety: one instance per event loop group of one endpoint; {@link #calculateStrategy}
 * and the timer run on that loop. {@link #timer} is set once, before the loop has any work.
 */
final class BusyPollStrategy implements SelectStrategy, SelectStrategyFactory {
    private volatile PolledLoopTimer timer;

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        PolledLoopTimer t = timer;
        if (t != null) {
            t.poll();
        }
        int ready = selectSupplier.get(); // ready sockets now (0 or more), never a blocking wait
        if (ready == 0 && !hasTasks) {
            // Nothing to do this turn: let another runnable thread have the core for a moment (on
            // a host with more runnable threads than cores, the peer this loop waits for may be
            // one); with the core to itself, the loop is back at once.
            Thread.yield();
        }
        return ready;
    }

    @Override
    public SelectStrategy newSelectStrategy() {
        return this;
    }

    /** The timer of the endpoint on this strategy's loop, running {@code task} there; one per strategy. */
    PolledLoopTimer timer(Runnable task) {
        if (timer != null) {
            throw new IllegalStateException("a busy-polling loop carries one endpoint's timer");
        }
        PolledLoopTimer t = new PolledLoopTimer(task);
        timer = t;
        return t;
    }
}
