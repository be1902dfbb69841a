package io.metaroce.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link LoopTimer} on a Linux {@code timerfd} registered on Netty's epoll event loop, like the
 * {@link LinuxUdpSocket}s: arming is one {@code timerfd_settime} on a preallocated
 * {@code itimerspec}, so moving the engine's deadline, which happens many times a second under
 * load (a delayed ACK before a retransmission timeout), allocates nothing, where a Netty scheduled
 * task costs an object per arming.
 *
 * <p>Confined to the event loop; {@link #close()} may also run when the loop shuts down.
 */
final class LinuxTimer implements LoopTimer {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private final int fd;
    private final FileDescriptor descriptor;
    private final Runnable task;
    private final Arena arena = Arena.ofShared();
    /** {@code struct itimerspec}: interval (0: one-shot), then the value. */
    private final MemorySegment spec = arena.allocate(32, 8);
    /** {@link #spec} as a buffer: a direct buffer's stores compile to far less code than a segment's. */
    private final ByteBuffer specView = spec.asByteBuffer().order(ByteOrder.nativeOrder());
    private final MemorySegment expirations = arena.allocate(8, 8);
    private IoRegistration registration;
    private boolean closed;

    private final EpollIoHandle ioHandle = new EpollIoHandle() {
        @Override
        public FileDescriptor fd() {
            return descriptor;
        }

        @Override
        public void handle(IoRegistration reg, IoEvent event) {
            if (closed) {
                return;
            }
            // Level-triggered: read the expiration count, or epoll reports the fd again.
            LinuxSyscalls.read(fd, expirations, 8);
            task.run();
        }

        @Override
        public void close() {
            closeNow();
        }
    };

    private LinuxTimer(int fd, Runnable task) {
        this.fd = fd;
        this.descriptor = new FileDescriptor(fd);
        this.task = task;
    }

    /** A timer for {@code loop} that runs {@code task} there; registered on the loop before the loop's next task. */
    static LinuxTimer open(IoEventLoop loop, Runnable task) {
        int fd = LinuxSyscalls.timerfdCreate();
        if (fd < 0) {
            throw new IllegalStateException("timerfd_create failed");
        }
        LinuxTimer timer = new LinuxTimer(fd, task);
        loop.register(timer.ioHandle).addListener(r -> {
            if (r.isSuccess()) {
                IoRegistration reg = (IoRegistration) r.getNow();
                timer.registration = reg;
                reg.submit(EpollIoOps.EPOLLIN);
            } else {
                timer.closeNow();
            }
        });
        return timer;
    }

    @Override
    public void arm(long delayNanos) {
        // 0 would disarm the timerfd: the earliest expiry is 1 ns from now.
        long delay = Math.max(1, delayNanos);
        set(delay / NANOS_PER_SECOND, delay % NANOS_PER_SECOND);
    }

    @Override
    public void cancel() {
        set(0, 0);
    }

    private void set(long seconds, long nanos) {
        if (closed) {
            return;
        }
        specView.putLong(16, seconds);
        specView.putLong(24, nanos);
        LinuxSyscalls.timerfdSettime(fd, spec);
    }

    @Override
    public void close() {
        closeNow();
    }

    private void closeNow() {
        if (closed) {
            return;
        }
        closed = true;
        if (registration != null) {
            registration.cancel();
        }
        try {
            descriptor.close();
        } catch (IOException e) {
            // Nothing is left to do with a timer that cannot be closed.
        }
        arena.close();
    }

    /** {@inheritDoc} Here a descriptor on the epoll loop: handled in the I/O pass, with the sockets. */
    @Override
    public boolean firesInIoPass() {
        return true;
    }
}
