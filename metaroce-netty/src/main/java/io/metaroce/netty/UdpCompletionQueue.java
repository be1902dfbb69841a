package io.metaroce.netty;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * A completion queue in the verbs sense, for applications that poll rather than attach callbacks
 * to futures: give it to {@link UdpEndpoint.Builder#completionQueue} and every completion of the
 * endpoint's connections is entered here (as well as completing its work request's future), to be
 * polled from any thread.
 *
 * <p>Bounded, as a CQ is: the event loop never blocks, so a completion that finds the queue full
 * is not entered (its future still completes) and {@link #overflows()} counts it; size the
 * capacity for the work the application keeps posted, or poll faster.
 *
 * <p>Thread-safe: the endpoint's event loop adds, any number of threads poll.
 */
public final class UdpCompletionQueue implements CompletionListener {
    private final BlockingQueue<Entry> entries;
    private final AtomicLong overflows = new AtomicLong();

    /** One queued completion and the connection it belongs to. */
    public record Entry(UdpConnection connection, Completion completion) {
    }

    /** A queue that holds up to {@code capacity} completions. */
    public UdpCompletionQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity is " + capacity + " but must be at least 1");
        }
        this.entries = new ArrayBlockingQueue<>(capacity);
    }

    /** Called by the endpoint on its event loop; applications do not call it. */
    @Override
    public void onCompletion(UdpConnection connection, Completion completion) {
        if (!entries.offer(new Entry(connection, completion))) {
            overflows.incrementAndGet();
        }
    }

    /** The oldest completion, or null if there is none now. */
    public Entry poll() {
        return entries.poll();
    }

    /** The oldest completion, waiting up to {@code timeout} for one; null if none came. */
    public Entry poll(long timeout, TimeUnit unit) throws InterruptedException {
        return entries.poll(timeout, unit);
    }

    /** Hands up to {@code max} queued completions to {@code handler}, oldest first; returns how many. */
    public int poll(BiConsumer<UdpConnection, Completion> handler, int max) {
        int n = 0;
        Entry e;
        while (n < max && (e = entries.poll()) != null) {
            handler.accept(e.connection(), e.completion());
            n++;
        }
        return n;
    }

    /** Completions waiting to be polled. */
    public int size() {
        return entries.size();
    }

    /** Completions that found the queue full and were not entered. */
    public long overflows() {
        return overflows.get();
    }
}
