package io.metaroce.bench.cli.perf;

import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Completion;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.MemorySegment;

/**
 * The server side of a latency run: keeps a receive posted on stream 1; when a ping lands it
 * checks the bytes ({@link Pattern#pingKey}) and SENDs the same buffer back. The pings land in a
 * ring of {@link ServerLayout#ECHO_BUFFERS} buffers; a buffer is posted for a receive again only
 * once its echo SEND has completed, so the transport never sends from a buffer being overwritten.
 *
 * <p>Thread-safety: {@link #start()} and the completions run on the connection's event loop.
 */
final class EchoServer {
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
            long offset = layout.echoOffset(buffer);
            connection.postRecv(PingPongClient.STREAM, q, region, offset, size)
                    .whenComplete((c, e) -> onPing(q, buffer, offset, c, e));
        }
    }

    private void onPing(long q, int buffer, long offset, Completion c, Throwable e) {
        if (e != null || !c.isSuccess() || c.byteLength() != size) {
            counters.failed("ping receive " + q + ": " + (e != null ? e : c));
            return;
        }
        received++;
        counters.completed(MessageKind.PING, size);
        counters.checked(pattern.matches(memory, offset, size, Pattern.pingKey(q)), "ping " + q);
        connection.postSend(PingPongClient.STREAM, q, region, offset, size).whenComplete((s, se) -> {
            if (se != null || !s.isSuccess()) {
                counters.failed("echo SEND " + q + ": " + (se != null ? se : s));
                return;
            }
            busy[buffer] = false;
            postReceives();
        });
        postReceives();
    }

    private static int index(long q) {
        return (int) (q % ServerLayout.ECHO_BUFFERS);
    }
}
