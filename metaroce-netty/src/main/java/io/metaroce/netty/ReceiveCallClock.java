package io.metaroce.netty;

import java.util.function.LongSupplier;

/**
 * The engine's time of received datagrams: one clock reading per receive call a socket layer
 * announces ({@link DatagramReceiver#onReceiveCall}) serves all the datagrams of that call; a
 * datagram outside an announced call reads the clock itself. The reading belongs to one call:
 * every drive of the endpoint ends it, except a drive in the middle of the call's datagrams,
 * which moves it up to the drive's time (so the engine's clock never goes back) for the rest of
 * them. So a layer that stops announcing cannot leave a stale reading that later datagrams reuse.
 * Event loop only; not thread-safe.
 */
final class ReceiveCallClock {
    private static final long NONE = Long.MIN_VALUE;
    private final LongSupplier clock;
    /** The reading of the current call, or {@link #NONE} outside an announced call. */
    private long callNanos = NONE;

    /** Reads {@code clock} (the endpoint's, a bound reference made once) when a reading is due. */
    ReceiveCallClock(LongSupplier clock) {
        this.clock = clock;
    }

    /** A socket layer announced a receive call: one reading for the datagrams that follow. */
    void callStarted() {
        callNanos = clock.getAsLong();
    }

    /** The time of a datagram: its announced call's reading, else the clock's. */
    long datagramNanos() {
        return callNanos != NONE ? callNanos : clock.getAsLong();
    }

    /**
     * The endpoint drove the engine at {@code driveNanos}: {@code midCall} when a datagram of a
     * call drove it (more of the call's datagrams may follow, now at the drive's time); any other
     * drive comes after a call's datagrams and ends its reading.
     */
    void drove(long driveNanos, boolean midCall) {
        callNanos = midCall && callNanos != NONE ? driveNanos : NONE;
    }
}
