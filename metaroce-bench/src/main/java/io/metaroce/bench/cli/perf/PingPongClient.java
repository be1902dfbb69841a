package io.metaroce.bench.cli.perf;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Completion;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of a latency run: one ping outstanding. Each round posts a cleared receive for
 * the echo, then SENDs a fresh {@link Pattern#pingKey} pattern on stream 1; the server checks it
 * and SENDs it back ({@link EchoServer}); the client checks the echo and records the time from
 * posting the SEND to the echo's completion. The next round starts once the echo is in and the
 * SEND of the round before has completed: two buffers of each kind alternate, so no send buffer is
 * rewritten while the transport may still need it and a stale echo never passes.
 *
 * <p>Thread-safety: {@link #start()}, {@link #stop()}, {@link #active()} from any thread; rounds
 * run on the connection's event loop.
 */
final class PingPongClient implements ClientTraffic {
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
    private long round;
    private CompletableFuture<Completion> lastPing = CompletableFuture.completedFuture(null);
    private volatile long completedRounds;

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
        if (stopping) {
            // The last ping's completion is still to be checked before the run may end.
            lastPing.whenComplete((c, e) -> {
                checkPing(lastPing, round - 1);
                active.set(0);
            });
            return;
        }
        long q = round++;
        long key = Pattern.pingKey(q);
        long sendOffset = (q & 1) * size;
        long echoOffset = (2 + (q & 1)) * size;
        Pattern.poison(memory, echoOffset, size);
        long[] echoAt = new long[1];
        CompletableFuture<Completion> echo = connection.postRecv(STREAM, q, region, echoOffset, size)
                .whenComplete((c, e) -> echoAt[0] = System.nanoTime());
        pattern.fill(memory, sendOffset, size, key);
        long start = System.nanoTime();
        CompletableFuture<Completion> ping = connection.postSend(STREAM, q, region, sendOffset, size);
        // The next round reuses the send buffer of the ping before this one: it waits for that
        // ping's completion (usually long done), not for this one's, whose ACK may be delayed.
        CompletableFuture<Completion> before = lastPing;
        lastPing = ping;
        echo.whenComplete((ignored, error) -> {
            if (!check(echo, "echo receive " + q)) {
                active.set(0);
                return;
            }
            latency.record(echoAt[0] - start);
            counters.completed(MessageKind.PING, 2L * size);
            counters.checked(pattern.matches(memory, echoOffset, size, key), "echo of ping " + q);
            completedRounds = q + 1;
            before.whenComplete((c, e) -> {
                if (checkPing(before, q - 1)) {
                    nextRound();
                } else {
                    active.set(0);
                }
            });
        });
    }

    /** Whether ping {@code q}'s SEND succeeded (true for the placeholder before the first round). */
    private boolean checkPing(CompletableFuture<Completion> f, long q) {
        return q < 0 || check(f, "ping SEND " + q);
    }

    private boolean check(CompletableFuture<Completion> f, String what) {
        if (f.isCompletedExceptionally()) {
            counters.failed(what + ": " + f.exceptionNow());
            return false;
        }
        Completion c = f.resultNow();
        if (!c.isSuccess() || c.byteLength() != size) {
            counters.failed(what + ": " + c);
            return false;
        }
        return true;
    }
}
