package io.metaroce.bench.cli.perf;

import java.util.concurrent.CompletableFuture;

/**
 * A SEND of a fresh pattern ({@link Pattern#receivedKey}) on the slot's stream; the server checks
 * it when its receive completes ({@link ReceiveVerifier}). Thread-safety: event loop only.
 */
final class SendOp implements SlotOp {
    @Override
    public CompletableFuture<Boolean> post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        long sequence = ctx.nextReceiveSequence(stream);
        long offset = ctx.sourceOffset(slot);
        ctx.fillSource(offset, Pattern.receivedKey(stream, sequence));
        return ctx.connection.postSend(stream, slot, ctx.region, offset, ctx.size).handle((c, e) -> {
            if (!ctx.succeeded(c, e, ctx.size, "SEND")) {
                return false;
            }
            ctx.counters.completed(MessageKind.SEND, ctx.size);
            ctx.receiverMessageCompleted();
            return true;
        });
    }
}
