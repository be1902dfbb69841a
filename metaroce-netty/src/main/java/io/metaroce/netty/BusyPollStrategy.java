package io.metaroce.netty;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * The select strategy of a busy-polling event loop: every turn checks the endpoint's timer, reads
 * the endpoint's sockets and drives its engine, all on the loop's thread before Netty's own I/O
 * and task processing (run to completion: a datagram read here is answered, its response and ACK
 * flushed, in the same turn, with no task hand-off), then runs the loop's tasks. The loop never
 * parks in the kernel. It costs a whole core per loop; turns that find nothing to do spin, and
 * yield the core to any other runnable thread ({@code sched_yield}) once the loop has been idle for
 * {@link UdpEndpoint.Builder#BUSY_POLL_IDLE_SPIN_NANOS} (see {@link IdleSpin}).
 *
 * <p>Reading: where the socket layer can read its sockets directly ({@link UdpSocket#readNow}, the
 * Linux layer) and the endpoint has at most {@link #DIRECT_POLL_MAX_SOCKETS} sockets, a turn reads
 * each one that can carry traffic (path sockets; listen sockets when the endpoint listens) with
 * one {@code recvmmsg} and asks the selector ({@code epoll_wait} with a zero timeout)
 * only every {@link #SELECT_EVERY_TURNS} turns (for the rest of what is registered on the loop):
 * a datagram is then read by the same system call that notices it, not by an {@code epoll_wait}
 * that reports it and a {@code recvmmsg} after it, as Aeron's receiver polls a few channels
 * directly rather than through a selector. Otherwise (NIO, or many sockets) every turn polls the
 * selector without waiting ({@code epoll_wait} or {@code selectNow}) and Netty reads what it
 * reports.
 *
 * <p>Not Netty's own {@link SelectStrategy#BUSY_WAIT}: that spins inside one native call until a
 * file descriptor is ready, so tasks handed to the loop from other threads and Netty's scheduled
 * tasks wait for the next I/O event. Here the loop goes round its task queue on every turn.
 *
 * <p>A loop that never sleeps needs no kernel timer: the endpoint's timer on such a loop is a
 * {@link PolledLoopTimer} that this strategy checks on every turn, so moving the engine's deadline
 * costs no system call (a {@code timerfd} costs one per move, and one read when it fires).
 *
 * <p>Thread-safety: one instance per event loop group of one endpoint; {@link #calculateStrategy},
 * the timer and the poller run on that loop. {@link #timer} and {@link #poller} are set once,
 * before the loop has any work.
 */
final class BusyPollStrategy implements SelectStrategy, SelectStrategyFactory {
    /**
     * Most sockets read directly on every turn; with more, one {@code epoll_wait} is cheaper than a
     * {@code recvmmsg} per socket (Aeron's receiver switches to a selector above 5 channels).
     */
    static final int DIRECT_POLL_MAX_SOCKETS = 4;
    /**
     * Turns between two selector polls while the sockets are read directly: the selector then
     * serves only what else is registered on the loop (nothing, for an endpoint's own loop), so
     * it may lag by a few microseconds.
     */
    static final int SELECT_EVERY_TURNS = 16;

    /** One turn's direct reads and drive, by the endpoint on this loop. */
    @FunctionalInterface
    interface Poller {
        /**
         * Reads the endpoint's sockets directly and drives its engine if anything came.
         *
         * @return the datagrams read (0 if none), or -1 if the sockets must be read through the
         *     selector this turn (a layer that cannot read directly, or too many sockets)
         */
        int poll();
    }

    private volatile PolledLoopTimer timer;
    private volatile Poller poller;
    /** Turns since the selector was last polled (loop only). */
    private int turnsSinceSelect;
    /** What an idle turn does (loop only). */
    private final IdleSpin idleSpin = new IdleSpin();

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        PolledLoopTimer t = timer;
        if (t != null) {
            t.poll();
        }
        Poller p = poller;
        int direct = p == null ? -1 : p.poll();
        int ready = 0;
        if (direct < 0 || ++turnsSinceSelect >= SELECT_EVERY_TURNS) {
            turnsSinceSelect = 0;
            ready = selectSupplier.get(); // ready sockets now (0 or more), never a blocking wait
        }
        if (ready == 0 && direct <= 0 && !hasTasks) {
            idleSpin.idle();
        } else {
            idleSpin.busy();
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

    /** Sets the endpoint's poller, called on every turn; once per strategy. */
    void poller(Poller value) {
        if (poller != null) {
            throw new IllegalStateException("a busy-polling loop polls one endpoint's sockets");
        }
        poller = value;
    }
}
