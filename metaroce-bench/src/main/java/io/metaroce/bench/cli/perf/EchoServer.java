package io.metaroce.bench.cli.perf;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.MemorySegment;

/**
 * The server side of a latency run: keeps a receive posted on stream 1; when a ping lands it
 * checks the bytes ({@link Pattern#pingKey}) and SENDs the same buffer back. The pings land in a
 * ring of {@link ServerLayout#ECHO_BUFFERS} buffers; a buffer is posted for a receive again only
 * once its echo SEND has completed, so the transport never sends from a buffer being overwritten.
 * Receive and echo are posted direct under the ping's number; the completion's opcode tells them
 * apart.
 *
 * <p>Thread-safety: {@link #start()} and the completions run on the connection's event loop.
 */
final class EchoServer implements DirectTraffic {
    private static final int AHEAD = 2;

    private final UdpConnection connection;
    private final MemorySegment memory;
    private final MemoryRegion region;
    private final ServerLayout layout;
    private final Pattern pattern;
    private final RunCounters counters;
    private final int size;
    private final boolean[] busy = new boolean[ServerLayout.ECHO_BUFFERS];
    private long nextReceive;
    private long received;

    EchoServer(UdpConnection connection, MemorySegment memory, MemoryRegion region, RunParams params, Pattern pattern,
            RunCounters counters) {
        this.connection = connection;
        this.memory = memory;
        this.region = region;
        this.layout = ServerLayout.of(params);
        this.pattern = pattern;
        this.counters = counters;
        this.size = params.size();
    }

    /** Posts the first receives. Event loop only. */
    void start() {
        postReceives();
    }

    private void postReceives() {
        while (nextReceive < received + AHEAD && !busy[index(nextReceive)]) {
            long q = nextReceive++;
            int buffer = index(q);
            busy[buffer] = true;
            int posted = connection.postRecvDirect(PingPongClient.STREAM, q, region, layout.echoOffset(buffer), size);
            if (posted != PostResult.OK) {
                counters.failed("ping receive " + q + " refused: " + PostResult.name(posted));
                return;
            }
        }
    }

    @Override
    public void onCompletion(int streamId, long q, int opcode, int status, long byteLength, int immediate,
            boolean hasImmediate) {
        int buffer = index(q);
        if (opcode == WorkOpcode.SEND) {
            if (status != CompletionStatus.SUCCESS) {
                counters.failed("echo SEND " + q + ": " + CompletionStatus.name(status));
                return;
            }
            busy[buffer] = false;
            postReceives();
            return;
        }
        if (status != CompletionStatus.SUCCESS || byteLength != size) {
            counters.failed("ping receive " + q + ": " + CompletionStatus.name(status) + ", " + byteLength + " bytes");
            return;
        }
        received++;
        counters.completed(MessageKind.PING, size);
        long offset = layout.echoOffset(buffer);
        boolean matched = pattern.matches(memory, offset, size, Pattern.pingKey(q));
        counters.checked(matched, matched ? null : "ping " + q);
        int posted = connection.postSendDirect(PingPongClient.STREAM, q, region, offset, size);
        if (posted != PostResult.OK) {
            counters.failed("echo SEND " + q + " refused: " + PostResult.name(posted));
            return;
        }
        postReceives();
    }

    private static int index(long q) {
        return (int) (q % ServerLayout.ECHO_BUFFERS);
    }
}
