package io.metaroce.netty;

/**
 * A {@link LoopTimer} for a busy-polling event loop: arming records a deadline, and the loop's
 * {@link BusyPollStrategy} calls {@link #poll()} on every turn, which runs the task once the
 * deadline has passed. No system call and no allocation per arming.
 *
 * <p>Confined to the event loop, except {@link #close()}, which the loop's owner may call once the
 * loop no longer runs the endpoint.
 */
final class PolledLoopTimer implements LoopTimer {
    private static final long DISARMED = Long.MAX_VALUE;

    private final Runnable task;
    /** {@link System#nanoTime()} at which the task is due; {@link #DISARMED} when none. */
    private long deadline = DISARMED;
    private volatile boolean closed;

    PolledLoopTimer(Runnable task) {
        this.task = task;
    }

    @Override
    public void arm(long delayNanos) {
        if (!closed) {
            deadline = System.nanoTime() + Math.max(0, delayNanos);
        }
    }

    @Override
    public void cancel() {
        deadline = DISARMED;
    }

    @Override
    public void close() {
        closed = true;
        deadline = DISARMED;
    }

    /** Runs the task if its deadline has passed (on the loop, once per turn). */
    void poll() {
        if (deadline != DISARMED && System.nanoTime() - deadline >= 0 && !closed) {
            deadline = DISARMED;
            task.run();
        }
    }

    /** {@inheritDoc} Here polled by the select strategy, in the turn that reads the sockets. */
    @Override
    public boolean firesInIoPass() {
        return true;
    }
}
