package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The datapath's calls without {@code errno} capture ({@link LinuxSyscalls#recvmmsgUncaptured},
 * {@link LinuxSyscalls#sendmmsgUncaptured}) and the thread's {@code errno} read after them
 * ({@link ThreadErrno}) agree with the capturing calls on the answers the socket acts on.
 */
class ThreadErrnoTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final int EBADF = 9;

    @BeforeAll
    static void linuxOnly() {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
    }

    @Test
    void anEmptySocketReadsEagainAndAClosedDescriptorEbadfAsTheCapturingCallsDo() {
        ThreadErrno thread = new ThreadErrno();
        assertThat(thread.read()).as("a thread's first reading").isEqualTo(ThreadErrno.UNKNOWN);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = LinuxSyscalls.newErrnoState(arena);
            MemorySegment headers = arena.allocate(LinuxSyscalls.MMSGHDR_BYTES, 8);
            int fd = LinuxSyscalls.socket(state, LinuxSyscalls.AF_INET,
                    LinuxSyscalls.SOCK_DGRAM | LinuxSyscalls.SOCK_NONBLOCK | LinuxSyscalls.SOCK_CLOEXEC, 0);
            assertThat(fd).as("socket()").isNotNegative();
            try {
                // The call's result and errno first, then the assertions (their code may set errno).
                int n = LinuxSyscalls.recvmmsgUncaptured(fd, headers, 1, LinuxSyscalls.MSG_DONTWAIT);
                int e = thread.read();
                assertThat(n).isEqualTo(-1);
                assertThat(e).as("errno after reading an empty socket").isEqualTo(LinuxSyscalls.EAGAIN);
                assertThat(LinuxSyscalls.recvmmsg(state, fd, headers, 1, LinuxSyscalls.MSG_DONTWAIT)).isEqualTo(-1);
                assertThat(LinuxSyscalls.errno(state)).isEqualTo(LinuxSyscalls.EAGAIN);
            } finally {
                LinuxSyscalls.close(state, fd);
            }
            // The descriptor is closed now: a different errno, and the same location still reads it.
            int n = LinuxSyscalls.sendmmsgUncaptured(fd, headers, 1, LinuxSyscalls.MSG_DONTWAIT);
            int e = thread.read();
            assertThat(n).isEqualTo(-1);
            assertThat(e).as("errno after sending on a closed descriptor").isEqualTo(EBADF);
            assertThat(LinuxSyscalls.sendmmsg(state, fd, headers, 1, LinuxSyscalls.MSG_DONTWAIT)).isEqualTo(-1);
            assertThat(LinuxSyscalls.errno(state)).isEqualTo(EBADF);
        }
    }

    @Test
    void eachPlatformThreadReadsItsOwnErrnoAndAVirtualThreadReadsUnknown() throws Exception {
        ThreadErrno shared = new ThreadErrno();
        AtomicInteger other = new AtomicInteger(Integer.MIN_VALUE);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment headers = arena.allocate(LinuxSyscalls.MMSGHDR_BYTES, 8);
            assertThat(shared.read()).as("a thread's first reading").isEqualTo(ThreadErrno.UNKNOWN);
            int n = LinuxSyscalls.recvmmsgUncaptured(-1, headers, 1, LinuxSyscalls.MSG_DONTWAIT);
            int e = shared.read();
            assertThat(n).isEqualTo(-1);
            assertThat(e).isEqualTo(EBADF);
            Thread t = Thread.ofPlatform().start(() -> {
                // A socket of this thread's own, empty: EAGAIN here, EBADF on the first thread.
                try (Arena own = Arena.ofConfined()) {
                    MemorySegment state = LinuxSyscalls.newErrnoState(own);
                    int fd = LinuxSyscalls.socket(state, LinuxSyscalls.AF_INET,
                            LinuxSyscalls.SOCK_DGRAM | LinuxSyscalls.SOCK_NONBLOCK, 0);
                    if (shared.read() == ThreadErrno.UNKNOWN) {
                        LinuxSyscalls.recvmmsgUncaptured(fd, headers, 1, LinuxSyscalls.MSG_DONTWAIT);
                        other.set(shared.read());
                    }
                    LinuxSyscalls.close(state, fd);
                }
            });
            t.join();
            assertThat(other.get()).as("the other thread's errno").isEqualTo(LinuxSyscalls.EAGAIN);
            assertThat(shared.read()).as("back on this thread: a first reading again").isEqualTo(ThreadErrno.UNKNOWN);
            int again = LinuxSyscalls.recvmmsgUncaptured(-1, headers, 1, LinuxSyscalls.MSG_DONTWAIT);
            int errnoAgain = shared.read();
            assertThat(again).isEqualTo(-1);
            assertThat(errnoAgain).as("this thread's errno again").isEqualTo(EBADF);
            AtomicInteger virtual = new AtomicInteger(Integer.MIN_VALUE);
            Thread.ofVirtual().start(() -> {
                shared.read();
                virtual.set(shared.read());
            }).join();
            assertThat(virtual.get()).isEqualTo(ThreadErrno.UNKNOWN);
        }
    }
}
