package io.metaroce.netty;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads the calling thread's {@code errno} straight from the C library's thread-local variable,
 * after a call made without {@code errno} capture ({@link LinuxSyscalls#recvmmsgUncaptured}). The
 * reading is a hint: between the call's return and the reading, Java or runtime code may have set
 * {@code errno} (class initialisation, the interpreter's calls into the runtime; the
 * {@code critical} handles themselves change no thread state and poll no safepoint on return), so
 * a caller acts on it only where a wrong value costs nothing, and otherwise repeats the call with
 * the capture.
 *
 * <p>One per socket, used on its event loop: the location is looked up once per thread and kept.
 * The first reading on a thread (and the first after another thread read) is {@link #UNKNOWN}:
 * the lookup, and the JVM linking this code's first run, may themselves set {@code errno}. A
 * virtual thread has no fixed carrier, hence no fixed {@code errno}: it always reads UNKNOWN.
 */
final class ThreadErrno {
    /** What {@link #read} returns when it cannot tell: not an {@code errno}. */
    static final int UNKNOWN = -1;
    /** Every address (the C library's {@code errno} is outside any segment the project owns). */
    private static final MemorySegment EVERYWHERE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Thread owner;
    private long location;

    /** The calling thread's {@code errno} now, or {@link #UNKNOWN}. */
    int read() {
        Thread current = Thread.currentThread();
        if (current == owner) {
            return EVERYWHERE.get(ValueLayout.JAVA_INT, location);
        }
        if (!current.isVirtual()) {
            location = LinuxSyscalls.errnoLocation();
            owner = current;
            EVERYWHERE.get(ValueLayout.JAVA_INT, location); // linked now, not after a call whose errno counts
        }
        return UNKNOWN;
    }
}
