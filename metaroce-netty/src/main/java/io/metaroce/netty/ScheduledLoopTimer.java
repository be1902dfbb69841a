package io.metaroce.netty;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LoopTimer} made of Netty scheduled tasks: one task (and one small allocation) per
 * arming. The portable timer, for the NIO layer.
 *
 * <p>Confined to the event loop.
 */
final class ScheduledLoopTimer implements LoopTimer {
    private final EventLoop loop;
    private final Runnable fire;
    private ScheduledFuture<?> scheduled;

    ScheduledLoopTimer(EventLoop loop, Runnable task) {
        this.loop = loop;
        this.fire = () -> {
            scheduled = null;
            task.run();
        };
    }

    @Override
    public void arm(long delayNanos) {
        cancel();
        scheduled = loop.schedule(fire, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void cancel() {
        if (scheduled != null) {
            scheduled.cancel(false);
            scheduled = null;
        }
    }

    @Override
    public void close() {
        cancel();
    }

    /** {@inheritDoc} Here a Netty scheduled task: it runs in a task pass. */
    @Override
    public boolean firesInIoPass() {
        return false;
    }
}
