package io.metaroce.netty;

/**
 * What a busy-polling loop does on a turn that found nothing to do: it spins on
 * ({@link Thread#onSpinWait}) while it has been idle for less than
 * {@link UdpEndpoint.Builder#BUSY_POLL_IDLE_SPIN_NANOS}, and yields the core on every idle turn
 * after that (on a host with more runnable threads than cores, the peer this loop waits for may be
 * one; with the core to itself, the loop is back at once). Not a yield on every idle turn: the
 * kernel may then hand the core to any runnable thread, even one at the lowest priority, until its
 * next tick (4 ms at 250 Hz), and a loop that waits a round trip for each reply would wait that
 * long for most of them on a host busy with other work.
 *
 * <p>Shared by the endpoint's busy-polling loops and the raw UDP side of the benchmarks, so that
 * the two compare like with like. Confined to one loop thread: not thread-safe.
 */
public final class IdleSpin {
    private static final long BUSY = Long.MIN_VALUE;

    /** {@link System#nanoTime()} of the first of the idle turns in a row; {@link #BUSY} after a busy turn. */
    private long idleSince = BUSY;

    /** The turn found work: the next idle turn starts a new idle spell. */
    public void busy() {
        idleSince = BUSY;
    }

    /** The turn found nothing: spins, or yields once the idle spell is long enough. */
    public void idle() {
        long now = System.nanoTime();
        if (idleSince == BUSY) {
            idleSince = now;
        }
        if (now - idleSince >= UdpEndpoint.Builder.BUSY_POLL_IDLE_SPIN_NANOS) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }
}
