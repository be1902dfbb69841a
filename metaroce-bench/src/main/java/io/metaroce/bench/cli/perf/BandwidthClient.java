package io.metaroce.bench.cli.perf;

import io.metaroce.core.api.PostResult;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of a bandwidth run: {@code depth} slots, each with one message in flight, each
 * posting its next message (the next op of the run's cycle, see {@link SlotOp#cycleOf}) as soon
 * as its last one completes, until {@link #stop()}. Posts are direct (no future, no task): a
 * completion reaches {@link #onCompletion} through the endpoint's {@link PerfSink} with the slot
 * as work request id, and the slot's next post leaves in the same drive of the engine.
 *
 * <p>Thread-safety: {@link #start()}, {@link #stop()}, {@link #active()} and
 * {@link #receiverMessages()} (after the slots have drained) may be called from any thread; the
 * slots run on the connection's event loop.
 */
final class BandwidthClient implements ClientTraffic, DirectTraffic {
    private final SlotContext ctx;
    private final SlotOp[] cycle;
    private final long[] slotCount;
    /** Per slot: the op in flight. */
    private final SlotOp[] slotOps;
    private final AtomicInteger active = new AtomicInteger();
    private volatile boolean stopping;
    private volatile long receiverMessages;

    BandwidthClient(SlotContext ctx) {
        this.ctx = ctx;
        this.cycle = SlotOp.cycleOf(ctx.params.op());
        this.slotCount = new long[ctx.params.depth()];
        this.slotOps = new SlotOp[ctx.params.depth()];
    }

    /** Starts every slot (on the event loop). */
    @Override
    public void start() {
        active.set(ctx.params.depth());
        ctx.connection.endpoint().eventLoop().execute(() -> {
            for (int slot = 0; slot < slotCount.length; slot++) {
                next(slot);
            }
        });
    }

    /** Slots post nothing more; {@link #active()} falls to 0 as their messages complete. */
    @Override
    public void stop() {
        stopping = true;
    }

    /** Slots that still have a message in flight. */
    @Override
    public int active() {
        return active.get();
    }

    /**
     * Receive-consuming messages that completed at the client (so the server must have checked
     * them); exact once {@link #active()} is 0.
     */
    @Override
    public long receiverMessages() {
        return receiverMessages;
    }

    @Override
    public void onCompletion(int streamId, long workRequestId, int opcode, int status, long byteLength, int immediate,
            boolean hasImmediate) {
        if (workRequestId < 0 || workRequestId >= slotOps.length || slotOps[(int) workRequestId] == null) {
            ctx.counters.failed("a completion for no slot: wr " + workRequestId + " on stream " + streamId);
            return;
        }
        int slot = (int) workRequestId;
        int outcome = slotOps[slot].complete(ctx, slot, status, byteLength);
        if (outcome == SlotOp.DONE) {
            next(slot);
        } else if (outcome == SlotOp.FAILED) {
            retire(slot);
        }
    }

    private void next(int slot) {
        if (stopping) {
            retire(slot);
            return;
        }
        long count = slotCount[slot]++;
        // Slots start at different points of the cycle, so every op is in flight from the start.
        SlotOp op = cycle[(int) ((slot + count) % cycle.length)];
        slotOps[slot] = op;
        int posted = op.post(ctx, slot, count);
        if (posted != PostResult.OK) {
            ctx.counters.failed("slot " + slot + ": post refused: " + PostResult.name(posted));
            retire(slot);
        }
    }

    private void retire(int slot) {
        slotOps[slot] = null;
        receiverMessages = ctx.receiverMessages();
        active.decrementAndGet();
    }
}
