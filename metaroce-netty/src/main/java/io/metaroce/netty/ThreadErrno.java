package io.metaroce.netty;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads the calling thread's {@code errno} straight from the C library's thread-local variable,
 * after a call made without {@code errno} capture ({@link LinuxSyscalls#recvmmsgUncaptured}). The
 * reading is a hint: between the call's return and the reading the JVM may have set {@code errno}
 * itself (a safepoint it blocked for on the way back from native code), so a caller acts on it
 * only where a wrong value costs nothing, and otherwise repeats the call with the capture.
 *
 * <p>One per socket, used on its event loop: the location is looked up once per thread and kept.
 * A virtual thread has no fixed carrier, hence no fixed {@code errno}: it reads {@link #UNKNOWN}.
 */
final class ThreadErrno {
    /** What {@link #read} returns when it cannot tell (a virtual thread): not an {@code errno}. */
    static final int UNKNOWN = -1;
    /** Every address (the C library's {@code errno} is outside any segment the project owns). */
    private static final MemorySegment EVERYWHERE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Thread owner;
    private long location;

    /** The calling thread's {@code errno} now, or {@link #UNKNOWN}. */
    int read() {
        Thread current = Thread.currentThread();
        if (current != owner) {
            if (current.isVirtual()) {
                return UNKNOWN;
            }
            location = LinuxSyscalls.errnoLocation();
            owner = current;
        }
        return EVERYWHERE.get(ValueLayout.JAVA_INT, location);
    }
}
