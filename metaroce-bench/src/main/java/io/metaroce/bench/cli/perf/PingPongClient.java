package io.metaroce.bench.cli.perf;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of a latency run: one ping outstanding. Each round posts a cleared receive for
 * the echo, then SENDs a fresh {@link Pattern#pingKey} pattern on stream 1; the server checks it
 * and SENDs it back ({@link EchoServer}); the client checks the echo and records the time from
 * posting the SEND to the echo's completion. The next round starts once the echo is in and the
 * SEND of the round before has completed: two buffers of each kind alternate, so no send buffer is
 * rewritten while the transport may still need it and a stale echo never passes. Both posts are
 * direct, under the round's number; the completion's opcode tells them apart.
 *
 * <p>Thread-safety: {@link #start()}, {@link #stop()}, {@link #active()} from any thread; rounds
 * run on the connection's event loop.
 */
final class PingPongClient implements ClientTraffic, DirectTraffic {
    static final int STREAM = 1;

    private final UdpConnection connection;
    private final int size;
    private final Pattern pattern;
    private final RunCounters counters;
    private final LatencyRecorder latency;
    private final MemorySegment memory;
    private final MemoryRegion region;
    private final AtomicInteger active = new AtomicInteger();
    private volatile boolean stopping;
    private volatile long completedRounds;

    // ---- event-loop state ----
    /** The round in flight (-1 before the first). */
    private long current = -1;
    private boolean echoIn;
    /** Per send buffer (round parity): whether the SEND last posted from it has completed. */
    private final boolean[] sendDone = {true, true};
    private long sendStart;
    private boolean failed;

    PingPongClient(UdpConnection connection, RunParams params, Pattern pattern, RunCounters counters,
            LatencyRecorder latency, Arena arena) {
        this.connection = connection;
        this.size = params.size();
        this.pattern = pattern;
        this.counters = counters;
        this.latency = latency;
        this.memory = arena.allocate(4L * size, 8);
        this.region = connection.endpoint().register(memory, Access.LOCAL_WRITE);
    }

    @Override
    public void start() {
        active.set(1);
        connection.endpoint().eventLoop().execute(this::nextRound);
    }

    @Override
    public void stop() {
        stopping = true;
    }

    /** 1 while a round is in flight, 0 once stopped. */
    @Override
    public int active() {
        return active.get();
    }

    /** Rounds completed: the pings the server must have checked. */
    @Override
    public long receiverMessages() {
        return completedRounds;
    }

    private void nextRound() {
        long q = ++current;
        echoIn = false;
        sendDone[(int) (q & 1)] = false;
        long sendOffset = (q & 1) * size;
        long echoOffset = (2 + (q & 1)) * size;
        Pattern.poison(memory, echoOffset, size);
        int posted = connection.postRecvDirect(STREAM, q, region, echoOffset, size);
        if (posted != PostResult.OK) {
            fail("echo receive " + q + " refused: " + PostResult.name(posted));
            return;
        }
        pattern.fill(memory, sendOffset, size, Pattern.pingKey(q));
        sendStart = System.nanoTime();
        posted = connection.postSendDirect(STREAM, q, region, sendOffset, size);
        if (posted != PostResult.OK) {
            fail("ping SEND " + q + " refused: " + PostResult.name(posted));
        }
    }

    @Override
    public void onCompletion(int streamId, long q, int opcode, int status, long byteLength, int immediate,
            boolean hasImmediate) {
        if (failed) {
            return;
        }
        if (opcode == WorkOpcode.SEND) {
            if (status != CompletionStatus.SUCCESS || byteLength != size) {
                fail("ping SEND " + q + ": " + CompletionStatus.name(status) + ", " + byteLength + " bytes");
                return;
            }
            sendDone[(int) (q & 1)] = true;
        } else {
            long echoAt = System.nanoTime();
            if (q != current || status != CompletionStatus.SUCCESS || byteLength != size) {
                fail("echo receive " + q + " (round " + current + "): " + CompletionStatus.name(status) + ", "
                        + byteLength + " bytes");
                return;
            }
            latency.record(echoAt - sendStart);
            counters.completed(MessageKind.PING, 2L * size);
            long echoOffset = (2 + (q & 1)) * size;
            boolean matched = pattern.matches(memory, echoOffset, size, Pattern.pingKey(q));
            counters.checked(matched, matched ? null : "echo of ping " + q);
            completedRounds = q + 1;
            echoIn = true;
        }
        advance();
    }

    /**
     * Starts the next round once the echo is in and the SEND of the round before has completed
     * (its buffer is the next round's); when stopping, ends once this round's SEND has completed too.
     */
    private void advance() {
        if (!echoIn || !sendDone[(int) ((current - 1) & 1)]) {
            return;
        }
        if (!stopping) {
            nextRound();
        } else if (sendDone[(int) (current & 1)]) {
            active.set(0);
        }
    }

    private void fail(String what) {
        failed = true;
        counters.failed(what);
        active.set(0);
    }
}
