package io.metaroce.bench.cli.perf;

/**
 * A SEND of a fresh pattern ({@link Pattern#receivedKey}) on the slot's stream; the server checks
 * it when its receive completes ({@link ReceiveVerifier}). Thread-safety: event loop only.
 */
final class SendOp implements SlotOp {
    @Override
    public int post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        long sequence = ctx.nextReceiveSequence(stream);
        long offset = ctx.fillForReceive(slot, stream, sequence);
        return ctx.connection.postSendDirect(stream, slot, ctx.region, offset, ctx.size);
    }

    @Override
    public int complete(SlotContext ctx, int slot, int status, long byteLength) {
        return ctx.receiverMessageCompleted(slot, status, byteLength, MessageKind.SEND);
    }
}
