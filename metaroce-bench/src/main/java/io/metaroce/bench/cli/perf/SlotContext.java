package io.metaroce.bench.cli.perf;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What the client's {@link SlotOp}s share: the connection, the client's memory (a source buffer
 * and a destination buffer per slot), the server's region key and layout, the patterns, the
 * counters, the per-stream count of receive-consuming messages (which tells SEND and
 * WRITE_WITH_IMM which server buffer and pattern their message has), and each slot's in-flight
 * state (a key and a step) that an op needs again when its completion comes.
 *
 * <p>Thread-safety: after construction, used only on the connection's event loop.
 */
final class SlotContext {
    final UdpConnection connection;
    final RunParams params;
    final ServerLayout layout;
    final int remoteKey;
    final Pattern pattern;
    final RunCounters counters;
    final int size;
    final MemorySegment memory;
    final MemoryRegion region;
    /** Per data stream (index = stream id): receive-consuming messages posted so far. */
    private final long[] receiveSequence;
    /** Receive-consuming messages that completed successfully: what the server should have checked. */
    private long receiverMessages;
    /** Testing aid: every this many payloads one byte is flipped after the pattern is written (0: never). */
    private final int corruptEvery;
    private long payloads;
    /** Per slot: what its op must remember until the completion (a pattern key, a buffer number). */
    private final long[] slotKeys;
    /** Per slot: which step of a several-step op is in flight. */
    private final int[] slotSteps;

    SlotContext(UdpConnection connection, RunParams params, int remoteKey, Pattern pattern, RunCounters counters,
            Arena arena, int corruptEvery) {
        this.corruptEvery = corruptEvery;
        this.connection = connection;
        this.params = params;
        this.layout = ServerLayout.of(params);
        this.remoteKey = remoteKey;
        this.pattern = pattern;
        this.counters = counters;
        this.size = params.size();
        this.memory = arena.allocate(2L * params.depth() * size, 8);
        this.region = connection.endpoint().register(memory, Access.LOCAL_WRITE);
        this.receiveSequence = new long[params.streams() + 1];
        this.slotKeys = new long[params.depth()];
        this.slotSteps = new int[params.depth()];
    }

    long slotKey(int slot) {
        return slotKeys[slot];
    }

    void slotKey(int slot, long value) {
        slotKeys[slot] = value;
    }

    int slotStep(int slot) {
        return slotSteps[slot];
    }

    void slotStep(int slot, int value) {
        slotSteps[slot] = value;
    }

    /** Offset of a slot's source buffer (what SENDs and WRITEs carry). */
    long sourceOffset(int slot) {
        return (long) slot * size;
    }

    /** Offset of a slot's destination buffer (where READs land). */
    long destinationOffset(int slot) {
        return ((long) params.depth() + slot) * size;
    }

    /**
     * Writes the pattern of {@code key} into the source buffer of a slot (what a SEND or WRITE
     * carries), then, if corruption was asked for and this payload's turn has come, flips a byte.
     */
    void fillSource(long offset, long key) {
        pattern.fill(memory, offset, size, key);
        corruptIfDue(offset);
    }

    /** If corruption was asked for and this payload's turn has come, flips a byte of the source at {@code offset}. */
    private void corruptIfDue(long offset) {
        if (corruptEvery > 0 && ++payloads % corruptEvery == 0) {
            long at = offset + (payloads * 31) % size;
            memory.set(ValueLayout.JAVA_BYTE, at, (byte) ~memory.get(ValueLayout.JAVA_BYTE, at));
        }
    }

    /** The next receive-consuming message number of {@code stream}. */
    long nextReceiveSequence(int stream) {
        return receiveSequence[stream]++;
    }

    /**
     * Fills {@code slot}'s source with the pattern of receive {@code sequence} on {@code stream}
     * ({@link Pattern#receivedKey}), which the server checks when that receive completes; only its
     * ends when the run's sampled check leaves this message out ({@link RunParams#checksInFull});
     * returns the slot's source offset.
     */
    long fillForReceive(int slot, int stream, long sequence) {
        long offset = sourceOffset(slot);
        if (params.checksInFull(sequence)) {
            fillSource(offset, Pattern.receivedKey(stream, sequence));
        } else {
            pattern.fillEnds(memory, offset, size, Pattern.receivedKey(stream, sequence));
            corruptIfDue(offset);
        }
        return offset;
    }

    /**
     * The completion of a receive-consuming message of {@code slot} ({@code kind}): counted and, since the server must then have checked it, counted
     * as checked; {@link SlotOp#DONE}, or {@link SlotOp#FAILED} if it failed.
     */
    int receiverMessageCompleted(int slot, int status, long byteLength, MessageKind kind) {
        if (!succeeded(status, byteLength, size, kind.name(), slot)) {
            return SlotOp.FAILED;
        }
        counters.completed(kind, size);
        receiverMessages++;
        return SlotOp.DONE;
    }

    long receiverMessages() {
        return receiverMessages;
    }

    /**
     * Whether a work request of {@code slot} succeeded with {@code expectedBytes}; if not, counts
     * the failure (the message is built only then).
     */
    boolean succeeded(int status, long byteLength, long expectedBytes, String what, int slot) {
        if (status == CompletionStatus.SUCCESS && byteLength == expectedBytes) {
            return true;
        }
        counters.failed("slot " + slot + ": " + what + ": " + CompletionStatus.name(status) + ", " + byteLength
                + " bytes (expected " + expectedBytes + ")");
        return false;
    }
}
