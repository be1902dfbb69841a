package io.metaroce.bench.cli.perf;

/**
 * One kind of client message, with its own way of producing the bytes and of having them checked.
 * Posts go through the zero-allocation {@code post...Direct} methods under the slot's number as
 * work request id; an op of several steps (a WRITE then its READ back) keeps its step in the
 * {@link SlotContext}. Implementations are stateless; their state lives in the context.
 * Thread-safety: called on the connection's event loop only.
 */
interface SlotOp {
    /** {@link #complete}: the message is done and checked; the slot may post its next one. */
    int DONE = 0;
    /** {@link #complete}: the op posted its next step; the slot waits for that one. */
    int MORE = 1;
    /** {@link #complete}: the message failed (counted); the slot stops. */
    int FAILED = 2;

    /**
     * Posts the first step of the {@code count}-th message of {@code slot}; returns the engine's
     * {@link io.metaroce.core.api.PostResult} code.
     */
    int post(SlotContext ctx, int slot, long count);

    /** A completion of {@code slot}'s message: {@link #DONE}, {@link #MORE} or {@link #FAILED}. */
    int complete(SlotContext ctx, int slot, int status, long byteLength);

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
