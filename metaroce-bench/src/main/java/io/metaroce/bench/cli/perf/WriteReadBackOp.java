package io.metaroce.bench.cli.perf;

import java.util.concurrent.CompletableFuture;

/**
 * A plain WRITE of a fresh pattern ({@link Pattern#writeAreaKey}) into the slot's buffer of the
 * server's write area, then a READ of that buffer back into the slot's cleared destination
 * buffer: a plain WRITE gives the server no signal, so the client checks what landed by fetching
 * it. Counts two messages (a WRITE and a READ). Thread-safety: event loop only.
 */
final class WriteReadBackOp implements SlotOp {
    @Override
    public CompletableFuture<Boolean> post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        long key = Pattern.writeAreaKey(slot, count);
        long source = ctx.sourceOffset(slot);
        long destination = ctx.destinationOffset(slot);
        long remote = ctx.layout.writeOffset(slot);
        ctx.fillSource(source, key);
        return ctx.connection.postWrite(stream, slot, ctx.region, source, ctx.size, ctx.remoteKey, remote)
                .handle((c, e) -> ctx.succeeded(c, e, ctx.size, "WRITE"))
                .thenCompose(written -> {
                    if (!written) {
                        return CompletableFuture.completedFuture(false);
                    }
                    ctx.counters.completed(MessageKind.WRITE, ctx.size);
                    Pattern.poison(ctx.memory, destination, ctx.size);
                    return ctx.connection.postRead(stream, slot, ctx.region, destination, ctx.size, ctx.remoteKey, remote)
                            .handle((c, e) -> {
                                if (!ctx.succeeded(c, e, ctx.size, "READ back of a WRITE")) {
                                    return false;
                                }
                                ctx.counters.completed(MessageKind.READ, ctx.size);
                                ctx.counters.checked(ctx.pattern.matches(ctx.memory, destination, ctx.size, key),
                                        "WRITE read back from server write slot " + slot);
                                return true;
                            });
                });
    }
}
