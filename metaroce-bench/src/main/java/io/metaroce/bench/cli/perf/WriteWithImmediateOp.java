package io.metaroce.bench.cli.perf;

import java.util.concurrent.CompletableFuture;

/**
 * A WRITE_WITH_IMM of a fresh pattern into the server's receive ring; the immediate is the
 * message's number on its stream, and the receive it consumes tells the server to check the bytes
 * ({@link ReceiveVerifier}). Thread-safety: event loop only.
 */
final class WriteWithImmediateOp implements SlotOp {
    @Override
    public CompletableFuture<Boolean> post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        long sequence = ctx.nextReceiveSequence(stream);
        long offset = ctx.sourceOffset(slot);
        ctx.fillSource(offset, Pattern.receivedKey(stream, sequence));
        return ctx.connection.postWriteWithImmediate(stream, slot, ctx.region, offset, ctx.size, ctx.remoteKey,
                ctx.layout.receiveOffset(stream, sequence), (int) sequence).handle((c, e) -> {
                    if (!ctx.succeeded(c, e, ctx.size, "WRITE_WITH_IMM")) {
                        return false;
                    }
                    ctx.counters.completed(MessageKind.WRITE_WITH_IMM, ctx.size);
                    ctx.receiverMessageCompleted();
                    return true;
                });
    }
}
