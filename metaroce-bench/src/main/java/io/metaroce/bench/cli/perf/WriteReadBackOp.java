package io.metaroce.bench.cli.perf;

import io.metaroce.core.api.PostResult;

/**
 * A plain WRITE of a fresh pattern ({@link Pattern#writeAreaKey}) into the slot's buffer of the
 * server's write area, then a READ of that buffer back into the slot's cleared destination
 * buffer: a plain WRITE gives the server no signal, so the client checks what landed by fetching
 * it. Counts two messages (a WRITE and a READ). Its step (0: the WRITE, 1: the READ back) lives
 * in the context. Thread-safety: event loop only.
 */
final class WriteReadBackOp implements SlotOp {
    @Override
    public int post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        long key = Pattern.writeAreaKey(slot, count);
        long source = ctx.sourceOffset(slot);
        ctx.fillSource(source, key);
        ctx.slotKey(slot, key);
        ctx.slotStep(slot, 0);
        return ctx.connection.postWriteDirect(stream, slot, ctx.region, source, ctx.size, ctx.remoteKey,
                ctx.layout.writeOffset(slot));
    }

    @Override
    public int complete(SlotContext ctx, int slot, int status, long byteLength) {
        long destination = ctx.destinationOffset(slot);
        if (ctx.slotStep(slot) == 0) {
            if (!ctx.succeeded(status, byteLength, ctx.size, "WRITE", slot)) {
                return FAILED;
            }
            ctx.counters.completed(MessageKind.WRITE, ctx.size);
            Pattern.poison(ctx.memory, destination, ctx.size);
            ctx.slotStep(slot, 1);
            int stream = ServerLayout.streamOf(slot, ctx.params.streams());
            int posted = ctx.connection.postReadDirect(stream, slot, ctx.region, destination, ctx.size, ctx.remoteKey,
                    ctx.layout.writeOffset(slot));
            if (posted != PostResult.OK) {
                ctx.counters.failed("slot " + slot + ": READ back refused: " + PostResult.name(posted));
                return FAILED;
            }
            return MORE;
        }
        if (!ctx.succeeded(status, byteLength, ctx.size, "READ back of a WRITE", slot)) {
            return FAILED;
        }
        ctx.counters.completed(MessageKind.READ, ctx.size);
        boolean matched = ctx.pattern.matches(ctx.memory, destination, ctx.size, ctx.slotKey(slot));
        ctx.counters.checked(matched, matched ? null : "WRITE read back from server write slot " + slot);
        return DONE;
    }
}
