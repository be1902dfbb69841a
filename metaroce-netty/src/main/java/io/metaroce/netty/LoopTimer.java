package io.metaroce.netty;

/**
 * The endpoint's one timer: runs its task on the event loop once the armed delay has passed.
 * Arming again replaces the deadline. The socket layer makes it ({@link SocketLayer#newTimer}):
 * the portable one schedules a Netty task per arming; the Linux layer re-arms one {@code timerfd}
 * and so allocates nothing.
 *
 * <p>Confined to the event loop, except {@link #close()}, which the loop's owner may call once the
 * loop no longer runs the endpoint.
 */
interface LoopTimer {
    /** Runs the task once {@code delayNanos} (0 or more) have passed, instead of any earlier arming. */
    void arm(long delayNanos);

    /** Disarms the timer; the task does not run until the next {@link #arm}. */
    void cancel();

    /** Disarms and releases the timer; it cannot be armed again. */
    void close();

    /**
     * Whether the task runs in the loop's I/O pass, where the loop reads its sockets (a
     * {@code timerfd} among the loop's descriptors, a busy-polling loop's deadline checked with
     * its reads), rather than as a task among the loop's others (a Netty scheduled task, which
     * runs after an I/O pass but may follow other tasks' drives in the same task pass). The
     * endpoint counts the drives that run without a look at the sockets by it ([SPEC-LOSS-12]).
     */
    boolean firesInIoPass();
}
