package io.metaroce.bench.cli.perf;

import java.util.concurrent.CompletableFuture;

/**
 * One kind of client message, with its own way of producing the bytes and of having them checked.
 * Implementations are stateless; their state lives in the {@link SlotContext}. Thread-safety:
 * called on the connection's event loop only.
 */
interface SlotOp {
    /**
     * Posts the {@code count}-th message of {@code slot}; the future yields whether the slot may go
     * on (false after a failure, which the op has counted).
     */
    CompletableFuture<Boolean> post(SlotContext ctx, int slot, long count);

    /** The ops a run cycles through on every slot. */
    static SlotOp[] cycleOf(Op op) {
        return switch (op) {
            case send -> new SlotOp[] {new SendOp()};
            case write -> new SlotOp[] {new WriteWithImmediateOp()};
            case read -> new SlotOp[] {new ReadOp()};
            case mixed -> new SlotOp[] {new SendOp(), new WriteReadBackOp(), new WriteWithImmediateOp(), new ReadOp()};
        };
    }
}
