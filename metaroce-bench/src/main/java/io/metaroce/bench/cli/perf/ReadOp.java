package io.metaroce.bench.cli.perf;

import java.util.concurrent.CompletableFuture;

/**
 * A READ of one buffer of the server's read area (which holds {@link Pattern#readAreaKey}
 * patterns) into the slot's destination buffer, cleared first so that a byte not placed is
 * caught; the client checks every byte. The buffer read moves round the area from message to
 * message. Thread-safety: event loop only.
 */
final class ReadOp implements SlotOp {
    @Override
    public CompletableFuture<Boolean> post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        int source = (int) ((slot + count) % ctx.params.depth());
        long offset = ctx.destinationOffset(slot);
        Pattern.poison(ctx.memory, offset, ctx.size);
        return ctx.connection.postRead(stream, slot, ctx.region, offset, ctx.size, ctx.remoteKey,
                ctx.layout.readOffset(source)).handle((c, e) -> {
                    if (!ctx.succeeded(c, e, ctx.size, "READ")) {
                        return false;
                    }
                    ctx.counters.completed(MessageKind.READ, ctx.size);
                    ctx.counters.checked(ctx.pattern.matches(ctx.memory, offset, ctx.size, Pattern.readAreaKey(source)),
                            "READ of server buffer " + source + " into client slot " + slot);
                    return true;
                });
    }
}
