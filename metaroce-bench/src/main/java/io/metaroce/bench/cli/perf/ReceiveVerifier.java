package io.metaroce.bench.cli.perf;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.MemorySegment;

/**
 * The server side of SEND and WRITE_WITH_IMM traffic: keeps a ring of receives posted on every
 * data stream ({@link ServerLayout#receiveOffset}) and, as each completes, checks the bytes of the
 * message that consumed it against {@link Pattern#receivedKey}(stream, its number on the stream),
 * byte for byte, or only its ends where the run's sampled check leaves it out
 * ({@link RunParams#checksInFull}):
 * a SEND's bytes land in the receive's buffer, and a WRITE_WITH_IMM's were written to the same
 * buffer by the client. Freed receives are posted again in batches of one stream-depth, so at
 * least the ring less one stream-depth stays posted ahead of the stream's oldest incomplete
 * message (see {@link ServerLayout} for why the ring is deep). Receives are posted direct, under
 * their number on the stream as work request id; their completions come through the endpoint's
 * {@link PerfSink}.
 *
 * <p>Thread-safety: {@link #postAll()} and the completions run on the connection's event loop;
 * construct it anywhere.
 */
final class ReceiveVerifier implements DirectTraffic {
    private final UdpConnection connection;
    private final MemorySegment memory;
    private final MemoryRegion region;
    private final ServerLayout layout;
    private final Pattern pattern;
    private final RunCounters counters;
    private final int size;
    private final RunParams params;
    private final int ring;
    private final int batch;
    private final long[] next;
    private final long[] lowest;
    private final boolean[][] done;

    ReceiveVerifier(UdpConnection connection, MemorySegment memory, MemoryRegion region, RunParams params,
            Pattern pattern, RunCounters counters) {
        this.connection = connection;
        this.memory = memory;
        this.region = region;
        this.layout = ServerLayout.of(params);
        this.pattern = pattern;
        this.counters = counters;
        this.size = params.size();
        this.params = params;
        this.ring = layout.ring();
        this.batch = layout.perStream();
        int streams = params.streams();
        this.next = new long[streams + 1];
        this.lowest = new long[streams + 1];
        this.done = new boolean[streams + 1][ring];
    }

    /** Posts every stream's ring. Event loop only. */
    void postAll() {
        for (int stream = 1; stream < next.length; stream++) {
            post(stream);
        }
    }

    private void post(int stream) {
        while (next[stream] < lowest[stream] + ring) {
            long sequence = next[stream]++;
            long offset = layout.receiveOffset(stream, sequence);
            int posted = connection.postRecvDirect(stream, sequence, region, offset, size);
            if (posted != PostResult.OK) {
                counters.failed("receive " + sequence + " on stream " + stream + " refused: " + PostResult.name(posted));
                return;
            }
        }
    }

    @Override
    public void onCompletion(int stream, long sequence, int opcode, int status, long byteLength, int immediate,
            boolean hasImmediate) {
        if (stream >= next.length || sequence < lowest[stream] || sequence >= next[stream]) {
            counters.failed("a completion for no posted receive: " + sequence + " on stream " + stream);
            return;
        }
        if (status != CompletionStatus.SUCCESS || byteLength != size) {
            counters.failed("receive " + sequence + " on stream " + stream + ": " + CompletionStatus.name(status) + ", "
                    + byteLength + " bytes");
            return;
        }
        MessageKind kind;
        if (opcode == WorkOpcode.RECV && !hasImmediate) {
            kind = MessageKind.SEND;
        } else if (opcode == WorkOpcode.RECV_WRITE_WITH_IMM && hasImmediate && immediate == (int) sequence) {
            kind = MessageKind.WRITE_WITH_IMM;
        } else {
            counters.failed("receive " + sequence + " on stream " + stream + ": unexpected " + WorkOpcode.name(opcode)
                    + (hasImmediate ? " with immediate " + immediate : ""));
            return;
        }
        counters.completed(kind, size);
        long offset = layout.receiveOffset(stream, sequence);
        long key = Pattern.receivedKey(stream, sequence);
        boolean matched = params.checksInFull(sequence) ? pattern.matches(memory, offset, size, key)
                : pattern.endsMatch(memory, offset, size, key);
        counters.checked(matched, matched ? null : kind + " " + sequence + " on stream " + stream);
        int index = (int) (sequence % ring);
        done[stream][index] = true;
        long before = lowest[stream];
        while (done[stream][(int) (lowest[stream] % ring)]) {
            done[stream][(int) (lowest[stream] % ring)] = false;
            lowest[stream]++;
        }
        if (lowest[stream] != before && lowest[stream] + ring - next[stream] >= batch) {
            post(stream);
        }
    }
}
