package io.metaroce.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few libc calls the Linux socket layer makes, bound once through {@code java.lang.foreign}:
 * no JNI and no native code of the project's own. Constants and struct layouts are those of
 * x86_64 and aarch64 Linux with glibc (LP64), as recorded in docs/architecture.md.
 *
 * <p>Every call takes a segment of {@link #ERRNO_STATE_LAYOUT} where the call's {@code errno} is
 * captured, so a failure can be told apart without a second call; but such a call allocates a
 * slice of that segment per call ({@code SharedUtils.checkCaptureSegment}) unless C2 inlines the
 * whole call site and removes it, which it may never do. The datapath's calls, {@code recvmmsg},
 * {@code sendmmsg} and {@code sendmsg}, therefore also come without the capture
 * ({@link #recvmmsgUncaptured}, {@link #sendmmsgUncaptured}, {@link #sendmsgUncaptured}): the
 * caller reads the thread's {@code errno} itself ({@link ThreadErrno}) and trusts it only where a
 * wrong reading is harmless. Stateless and thread-safe.
 */
final class LinuxSyscalls {
    static final int AF_INET = 2;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int IPPROTO_IP = 0;
    static final int IP_TOS = 1;
    static final int IP_RECVTOS = 13;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_CTRUNC = 0x8;
    static final int SOL_UDP = 17;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EINVAL = 22;
    static final int EAGAIN = 11;

    /** {@code struct sockaddr_in}: family (native u16), port (big-endian u16), address (big-endian u32), zero. */
    static final int SOCKADDR_IN_BYTES = 16;
    /** {@code struct mmsghdr}: a {@code msghdr} (56 bytes) then {@code msg_len} (u32), padded. */
    static final int MMSGHDR_BYTES = 64;
    static final int MSG_NAME = 0;
    static final int MSG_NAMELEN = 8;
    static final int MSG_IOV = 16;
    static final int MSG_IOVLEN = 24;
    static final int MSG_CONTROL = 32;
    static final int MSG_CONTROLLEN = 40;
    static final int MSG_FLAGS = 48;
    static final int MSG_LEN = 56;
    /** {@code struct iovec}: base pointer, length. */
    static final int IOVEC_BYTES = 16;
    /** {@code struct cmsghdr}: length (size_t), level (int), type (int), then data. */
    static final int CMSG_HEADER_BYTES = 16;
    static final int CMSG_LEVEL = 8;
    static final int CMSG_TYPE = 12;
    /** {@code CMSG_SPACE} of a 1- to 8-byte payload: room for one TOS control message. */
    static final int CMSG_SPACE_SMALL = 24;

    static final StructLayout ERRNO_STATE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = ERRNO_STATE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle SOCKET;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle BIND;
    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle RECVMMSG;
    private static final MethodHandle SENDMMSG;
    private static final MethodHandle RECVMMSG_UNCAPTURED;
    private static final MethodHandle SENDMMSG_UNCAPTURED;
    private static final MethodHandle SENDMSG;
    private static final MethodHandle SENDMSG_UNCAPTURED;
    private static final MethodHandle ERRNO_LOCATION;
    private static final MethodHandle CLOSE;
    private static final MethodHandle STRERROR;
    private static final MethodHandle TIMERFD_CREATE;
    private static final MethodHandle TIMERFD_SETTIME;
    private static final MethodHandle READ;
    static final int CLOCK_MONOTONIC = 1;
    static final int TFD_NONBLOCK = 0x800;
    static final int TFD_CLOEXEC = 0x80000;

    static {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        ValueLayout.OfInt i = ValueLayout.JAVA_INT;
        var p = ValueLayout.ADDRESS;
        SOCKET = linker.downcallHandle(libc.findOrThrow("socket"), FunctionDescriptor.of(i, i, i, i), errno);
        SETSOCKOPT = linker.downcallHandle(libc.findOrThrow("setsockopt"), FunctionDescriptor.of(i, i, i, i, p, i),
                errno);
        BIND = linker.downcallHandle(libc.findOrThrow("bind"), FunctionDescriptor.of(i, i, p, i), errno);
        GETSOCKNAME = linker.downcallHandle(libc.findOrThrow("getsockname"), FunctionDescriptor.of(i, i, p, p), errno);
        RECVMMSG = linker.downcallHandle(libc.findOrThrow("recvmmsg"), FunctionDescriptor.of(i, i, p, i, i, p),
                errno, Linker.Option.critical(false));
        SENDMMSG = linker.downcallHandle(libc.findOrThrow("sendmmsg"), FunctionDescriptor.of(i, i, p, i, i),
                errno, Linker.Option.critical(false));
        RECVMMSG_UNCAPTURED = linker.downcallHandle(libc.findOrThrow("recvmmsg"),
                FunctionDescriptor.of(i, i, p, i, i, p), Linker.Option.critical(false));
        SENDMMSG_UNCAPTURED = linker.downcallHandle(libc.findOrThrow("sendmmsg"), FunctionDescriptor.of(i, i, p, i, i),
                Linker.Option.critical(false));
        // ssize_t sendmsg(int, const struct msghdr *, int): a flush of one datagram or GSO run.
        SENDMSG = linker.downcallHandle(libc.findOrThrow("sendmsg"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, i, p, i), errno, Linker.Option.critical(false));
        SENDMSG_UNCAPTURED = linker.downcallHandle(libc.findOrThrow("sendmsg"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, i, p, i), Linker.Option.critical(false));
        // glibc's int *__errno_location(void), the calling thread's errno; returned as a long so
        // that the call boxes no segment (LP64: a pointer comes back in the same register).
        ERRNO_LOCATION = linker.downcallHandle(libc.findOrThrow("__errno_location"),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG));
        CLOSE = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(i, i), errno);
        STRERROR = linker.downcallHandle(libc.findOrThrow("strerror"), FunctionDescriptor.of(p, i));
        // The timer's calls capture no errno: their failures need no reason, and the capture costs
        // a memory segment per call where the JIT does not remove it.
        TIMERFD_CREATE = linker.downcallHandle(libc.findOrThrow("timerfd_create"), FunctionDescriptor.of(i, i, i));
        TIMERFD_SETTIME = linker.downcallHandle(libc.findOrThrow("timerfd_settime"),
                FunctionDescriptor.of(i, i, i, p, p), Linker.Option.critical(false));
        READ = linker.downcallHandle(libc.findOrThrow("read"), FunctionDescriptor.of(ValueLayout.JAVA_LONG, i, p,
                ValueLayout.JAVA_LONG), Linker.Option.critical(false));
    }

    private LinuxSyscalls() {
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state, domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int setsockopt(MemorySegment state, int fd, int level, int name, MemorySegment value, int length) {
        try {
            return (int) SETSOCKOPT.invokeExact(state, fd, level, name, value, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int bind(MemorySegment state, int fd, MemorySegment address, int length) {
        try {
            return (int) BIND.invokeExact(state, fd, address, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int getsockname(MemorySegment state, int fd, MemorySegment address, MemorySegment length) {
        try {
            return (int) GETSOCKNAME.invokeExact(state, fd, address, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int recvmmsg(MemorySegment state, int fd, MemorySegment messages, int count, int flags) {
        try {
            return (int) RECVMMSG.invokeExact(state, fd, messages, count, flags, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int sendmmsg(MemorySegment state, int fd, MemorySegment messages, int count, int flags) {
        try {
            return (int) SENDMMSG.invokeExact(state, fd, messages, count, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code recvmmsg} without capturing {@code errno}: allocates nothing whatever the JIT does. On
     * -1, {@link ThreadErrno#read} right after the call is the call's {@code errno} unless Java or
     * runtime code that ran in between set it: a hint. The handle is {@code critical}, so the
     * return itself changes no thread state and polls no safepoint; but the caller may be
     * interpreted (runtime calls) or initialise a class before it reads, and either may make a
     * system call that sets {@code errno}.
     */
    static int recvmmsgUncaptured(int fd, MemorySegment messages, int count, int flags) {
        try {
            return (int) RECVMMSG_UNCAPTURED.invokeExact(fd, messages, count, flags, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code sendmmsg} without capturing {@code errno}, as {@link #recvmmsgUncaptured}. */
    static int sendmmsgUncaptured(int fd, MemorySegment messages, int count, int flags) {
        try {
            return (int) SENDMMSG_UNCAPTURED.invokeExact(fd, messages, count, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code sendmsg} of the {@code msghdr} at the start of {@code message} (an {@code mmsghdr}'s
     * first field): bytes sent, or -1 with {@code errno} in {@code state}.
     */
    static long sendmsg(MemorySegment state, int fd, MemorySegment message, int flags) {
        try {
            return (long) SENDMSG.invokeExact(state, fd, message, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code sendmsg} without capturing {@code errno}, as {@link #recvmmsgUncaptured}. */
    static long sendmsgUncaptured(int fd, MemorySegment message, int flags) {
        try {
            return (long) SENDMSG_UNCAPTURED.invokeExact(fd, message, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The address of the calling thread's {@code errno} (fixed for the thread's life). */
    static long errnoLocation() {
        try {
            return (long) ERRNO_LOCATION.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A non-blocking monotonic {@code timerfd}, or -1. */
    static int timerfdCreate() {
        try {
            return (int) TIMERFD_CREATE.invokeExact(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code timerfd_settime(fd, 0, spec, NULL)}: {@code spec} is a {@code struct itimerspec}. */
    static int timerfdSettime(int fd, MemorySegment spec) {
        try {
            return (int) TIMERFD_SETTIME.invokeExact(fd, 0, spec, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code read(fd, buffer, length)}: bytes read, or -1. */
    static long read(int fd, MemorySegment buffer, long length) {
        try {
            return (long) READ.invokeExact(fd, buffer, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The C library's message for {@code errno}, e.g. "Address already in use". */
    static String describe(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** A new errno capture segment in {@code arena}. */
    static MemorySegment newErrnoState(Arena arena) {
        return arena.allocate(ERRNO_STATE_LAYOUT);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
