package io.metaroce.bench.jmh;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.CompletionSink;
import io.metaroce.netty.Datapath;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpEndpoint;
import java.lang.foreign.Arena;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * End to end over the UDP datapath on loopback: a client and a server {@link UdpEndpoint}, each on
 * its own event loop (the Linux socket layer where it runs), one connection, messages of
 * {@code messageBytes} kept {@code depth} deep with the zero-allocation path: each completion,
 * delivered to a {@link CompletionSink} on the client's loop, posts the next message there with
 * {@link UdpConnection#postWriteDirect} (or {@code postSendDirect}; the server's sink reposts
 * each receive the same way). One op is one message completed at the client, so the score is
 * messages per second and {@code gc.alloc.rate.norm} ({@code -prof gc}, every thread counted) is
 * bytes allocated per message by both endpoints, event loops, engines and sockets included.
 *
 * <p>The benchmark thread only waits (parking) until the loops have completed the invocation's
 * messages. Nothing is verified here (see {@code metaroce perf}); teardown fails the run if a
 * message failed or a post was refused.
 *
 * <p>JMH runs the trial's teardown inside the last measured iteration, before {@code -prof gc}
 * reads the allocation counters, so what closing the endpoints allocates counts as that
 * iteration's. The first close in a JVM loads classes and spins method handles (about 250 KB:
 * 0.5 to 2.7 B per message in every fork's last iteration, session 14), so setup runs and closes
 * a throwaway pair first, with the same traffic, and the last iteration carries only the close.
 *
 * <p>Thread safety: JMH runs it on one benchmark thread; the sinks run on the event loops.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UdpEndpointBenchmark {
    /** Messages per benchmark invocation. */
    private static final int MESSAGES = 2_000;
    private static final long PARK_NANOS = 100_000;

    /** {@code write} (WRITEs into a server region) or {@code send} (SENDs into posted receives). */
    @Param({"write", "send"})
    public String op;

    @Param({"8192"})
    public int messageBytes;

    @Param({"64"})
    public int depth;

    @Param({"1"})
    public int paths;

    private Arena arena;
    private UdpEndpoint server;
    private UdpEndpoint client;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile UdpConnection clientConnection;
    private volatile UdpConnection serverConnection;
    private MemoryRegion source;
    private MemoryRegion target;
    private volatile boolean stopping;
    private long posted;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        arena = Arena.ofShared();
        open();
        // The throwaway pair: its close takes the first-time costs of closing (see the class comment).
        long until = completed.get() + 2L * depth;
        while (completed.get() < until && failures.get() == 0) {
            LockSupport.parkNanos(PARK_NANOS);
        }
        closeEndpoints();
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " messages failed or posts were refused in the warm-up pair");
        }
        stopping = false;
        open();
    }

    /** Opens the two endpoints, connects them, registers the regions and starts the traffic. */
    private void open() throws Exception {
        boolean send = "send".equals(op);
        CompletableFuture<UdpConnection> accepted = new CompletableFuture<>();
        CompletionSink serverSink = (c, stream, id, opcode, status, bytes, imm, hasImm) -> {
            if (stopping) {
                return;
            }
            if (status != CompletionStatus.SUCCESS) {
                failures.incrementAndGet();
            } else if (send && c.postRecvDirect(stream, id, target, 0, messageBytes) != PostResult.OK) {
                failures.incrementAndGet();
            }
        };
        CompletionSink clientSink = (c, stream, id, opcode, status, bytes, imm, hasImm) -> {
            if (stopping) {
                return;
            }
            if (status != CompletionStatus.SUCCESS) {
                failures.incrementAndGet();
            }
            completed.lazySet(completed.get() + 1);
            postNext(c, stream);
        };
        server = UdpEndpoint.builder().datapath(Datapath.AUTO).listening(true).completionSink(serverSink)
                .acceptListener(accepted::complete).build();
        client = UdpEndpoint.builder().datapath(Datapath.AUTO).completionSink(clientSink).build();
        clientConnection = client.connect(server.localAddress(), paths).get(10, TimeUnit.SECONDS);
        serverConnection = accepted.get(10, TimeUnit.SECONDS);
        source = client.register(arena.allocate(messageBytes, 4096), Access.NONE);
        target = server.register(arena.allocate(messageBytes, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        if (send) {
            int[] refused = server.eventLoop().submit(() -> {
                int bad = 0;
                for (int i = 0; i < 4 * depth; i++) {
                    bad += serverConnection.postRecvDirect(i % 4, i, target, 0, messageBytes) == PostResult.OK ? 0 : 1;
                }
                return new int[] {bad};
            }).get(10, TimeUnit.SECONDS);
            if (refused[0] > 0) {
                throw new IllegalStateException(refused[0] + " receives refused");
            }
        }
        client.eventLoop().submit(() -> {
            for (int i = 0; i < depth; i++) {
                postNext(clientConnection, i % 4);
            }
        }).get(10, TimeUnit.SECONDS);
    }

    /** Stops the traffic (the sinks ignore what the close completes) and closes both endpoints. */
    private void closeEndpoints() {
        stopping = true;
        client.close();
        server.close();
    }

    /** On the client's loop: the next message on {@code stream}. */
    private void postNext(UdpConnection c, int stream) {
        long id = posted++;
        int result = "send".equals(op)
                ? c.postSendDirect(stream, id, source, 0, messageBytes)
                : c.postWriteDirect(stream, id, source, 0, messageBytes, target.remoteKey(), 0);
        if (result != PostResult.OK) {
            failures.incrementAndGet();
        }
    }

    /** Waits until the loops have completed {@value #MESSAGES} more messages. */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long messages() {
        long until = completed.get() + MESSAGES;
        long now;
        while ((now = completed.get()) < until) {
            if (failures.get() > 0) {
                throw new IllegalStateException(failures.get() + " messages failed or posts were refused");
            }
            LockSupport.parkNanos(PARK_NANOS);
        }
        return now;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stopping = true;
        try {
            if (failures.get() > 0) {
                throw new IllegalStateException(failures.get() + " messages failed or posts were refused");
            }
        } finally {
            closeEndpoints();
            arena.close();
        }
    }
}
