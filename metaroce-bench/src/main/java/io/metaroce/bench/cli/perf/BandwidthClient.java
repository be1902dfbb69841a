package io.metaroce.bench.cli.perf;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of a bandwidth run: {@code depth} slots, each with one message in flight, each
 * posting its next message (the next op of the run's cycle, see {@link SlotOp#cycleOf}) as soon
 * as its last one completes, until {@link #stop()}.
 *
 * <p>Thread-safety: {@link #start()}, {@link #stop()}, {@link #active()} and
 * {@link #receiverMessages()} (after the slots have drained) may be called from any thread; the
 * slots run on the connection's event loop.
 */
final class BandwidthClient implements ClientTraffic {
    private final SlotContext ctx;
    private final SlotOp[] cycle;
    private final long[] slotCount;
    private final AtomicInteger active = new AtomicInteger();
    private volatile boolean stopping;
    private volatile long receiverMessages;

    BandwidthClient(SlotContext ctx) {
        this.ctx = ctx;
        this.cycle = SlotOp.cycleOf(ctx.params.op());
        this.slotCount = new long[ctx.params.depth()];
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

    private void next(int slot) {
        if (stopping) {
            retire();
            return;
        }
        long count = slotCount[slot]++;
        // Slots start at different points of the cycle, so every op is in flight from the start.
        SlotOp op = cycle[(int) ((slot + count) % cycle.length)];
        op.post(ctx, slot, count).whenComplete((goOn, e) -> {
            if (e != null) {
                ctx.counters.failed("slot " + slot + ": " + e);
                retire();
            } else if (goOn) {
                next(slot);
            } else {
                retire();
            }
        });
    }

    private void retire() {
        receiverMessages = ctx.receiverMessages();
        active.decrementAndGet();
    }
}
