package io.metaroce.bench.cli.perf;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The tallies of one side of a run: messages completed (per kind), payload bytes, messages whose
 * bytes were checked and matched, mismatches and failures. Written on an event loop, read by the
 * main thread for progress and the report. Thread-safe (atomics).
 */
final class RunCounters {
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong mismatches = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLongArray perKind = new AtomicLongArray(MessageKind.values().length);
    private final AtomicReference<String> firstFailure = new AtomicReference<>();
    private volatile boolean closing;

    /** A message of {@code kind} moving {@code length} payload bytes completed. */
    public void completed(MessageKind kind, long length) {
        messages.incrementAndGet();
        bytes.addAndGet(length);
        perKind.incrementAndGet(kind.ordinal());
    }

    /** A message's bytes were checked against their pattern. */
    public void checked(boolean matched, String what) {
        if (matched) {
            verified.incrementAndGet();
        } else if (mismatches.incrementAndGet() == 1) {
            firstFailure.compareAndSet(null, "bytes differ: " + what);
        }
    }

    /** A completion failed (or something timed out). Ignored once {@link #closing()} was called. */
    public void failed(String what) {
        if (closing) {
            return; // work still posted when the connection closes is flushed with an error: expected
        }
        failures.incrementAndGet();
        firstFailure.compareAndSet(null, what);
    }

    /** From now on failed completions are the close flushing posted work, not errors. */
    public void closing() {
        closing = true;
    }

    /** Messages completed. */
    public long messages() {
        return messages.get();
    }

    /** Payload bytes of the completed messages. */
    public long bytes() {
        return bytes.get();
    }

    /** Messages of one kind completed. */
    public long messages(MessageKind kind) {
        return perKind.get(kind.ordinal());
    }

    /** Messages checked and matched. */
    public long verified() {
        return verified.get();
    }

    /** Messages checked that did not match. */
    public long mismatches() {
        return mismatches.get();
    }

    /** Failed completions. */
    public long failures() {
        return failures.get();
    }

    /** The first mismatch or failure, or null. */
    public String firstFailure() {
        return firstFailure.get();
    }
}
