package io.metaroce.bench.cli.perf;

/**
 * A WRITE_WITH_IMM of a fresh pattern into the server's receive ring; the immediate is the
 * message's number on its stream, and the receive it consumes tells the server to check the bytes
 * ({@link ReceiveVerifier}). Thread-safety: event loop only.
 */
final class WriteWithImmediateOp implements SlotOp {
    @Override
    public int post(SlotContext ctx, int slot, long count) {
        int stream = ServerLayout.streamOf(slot, ctx.params.streams());
        long sequence = ctx.nextReceiveSequence(stream);
        long offset = ctx.fillForReceive(slot, stream, sequence);
        return ctx.connection.postWriteWithImmediateDirect(stream, slot, ctx.region, offset, ctx.size, ctx.remoteKey,
                ctx.layout.receiveOffset(stream, sequence), (int) sequence);
    }

    @Override
    public int complete(SlotContext ctx, int slot, int status, long byteLength) {
        return ctx.receiverMessageCompleted(slot, status, byteLength, MessageKind.WRITE_WITH_IMM);
    }
}
