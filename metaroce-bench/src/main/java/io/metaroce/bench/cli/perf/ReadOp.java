package io.metaroce.bench.cli.perf;

/**
 * A READ of one buffer of the server's read area (which holds {@link Pattern#readAreaKey}
 * patterns) into the slot's destination buffer, cleared first so that a byte not placed is
 * caught; the client checks every byte. The buffer read moves round the area from message to
 * message. Thread-safety: event loop only.
 */
final class ReadOp implements SlotOp {
    @Override
    public int post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        int source = (int) ((slot + count) % ctx.params.depth());
        long offset = ctx.destinationOffset(slot);
        Pattern.poison(ctx.memory, offset, ctx.size);
        ctx.slotKey(slot, source);
        return ctx.connection.postReadDirect(stream, slot, ctx.region, offset, ctx.size, ctx.remoteKey,
                ctx.layout.readOffset(source));
    }

    @Override
    public int complete(SlotContext ctx, int slot, int status, long byteLength) {
        if (!ctx.succeeded(status, byteLength, ctx.size, "READ", slot)) {
            return FAILED;
        }
        ctx.counters.completed(MessageKind.READ, ctx.size);
        int source = (int) ctx.slotKey(slot);
        boolean matched = ctx.pattern.matches(ctx.memory, ctx.destinationOffset(slot), ctx.size,
                Pattern.readAreaKey(source));
        ctx.counters.checked(matched, matched ? null : "READ of server buffer " + source + " into client slot " + slot);
        return DONE;
    }
}
