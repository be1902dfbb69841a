package io.metaroce.bench.cli.perf;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Datapath;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpEndpoint;
import io.metaroce.netty.UdpEndpointStats;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The server side of perf runs, on a listening {@link UdpEndpoint}: takes one accepted
 * connection at a time, learns the run from the client's PARAMS control message, sets up what
 * the run needs (receive rings and their checker, the read area, the echo), answers READY with its
 * region's remote key, prints a progress line every second, and on the client's DONE waits
 * (bounded) until it has checked as many messages as the client completed, then answers RESULT.
 *
 * <p>Thread-safety: {@link #localAddress()} and {@link #close()} from any thread; {@link #serveOne}
 * from one thread at a time.
 */
final class PerfServer implements AutoCloseable {
    /** Longest wait for the client's PARAMS after it connected. */
    static final double PARAMS_SECONDS = 10;
    /** Slack beyond the announced warm-up and duration before the server gives up on DONE. */
    static final double DONE_SLACK_SECONDS = PerfClient.DRAIN_SECONDS + 30;
    /** Longest wait, after DONE, for the last receives to be checked. */
    static final double CHECK_SECONDS = 10;
    private static final double CLOSE_SECONDS = 10;
    /** Seed of the server datapath's drop decisions (the client's derives from the run's seed). */
    private static final long DROP_SEED = 0x5E27E2L;

    private final UdpEndpoint endpoint;
    private final BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
    private final PerfSink sink = new PerfSink();

    /**
     * Opens a listening endpoint.
     *
     * @param bind the address and port to listen on (port 0: an ephemeral port)
     * @param drop fraction of its own outgoing datagrams the server's datapath drops
     * @param config the engine configuration
     * @throws PerfException if the sockets cannot be opened
     */
    public PerfServer(InetSocketAddress bind, double drop, EngineConfig config) {
        this(bind, drop, config, Datapath.AUTO);
    }

    /** As {@link #PerfServer(InetSocketAddress, double, EngineConfig)}, on the socket layer {@code datapath}. */
    public PerfServer(InetSocketAddress bind, double drop, EngineConfig config, Datapath datapath) {
        this(bind, drop, config, datapath, false);
    }

    /**
     * As {@link #PerfServer(InetSocketAddress, double, EngineConfig, Datapath)}; with
     * {@code busyPoll} the server's event loop busy-polls (see {@link UdpEndpoint.Builder#busyPoll}).
     */
    public PerfServer(InetSocketAddress bind, double drop, EngineConfig config, Datapath datapath, boolean busyPoll) {
        this(bind, drop, config, datapath, busyPoll, CongestionControl.AIMD);
    }

    /**
     * As {@link #PerfServer(InetSocketAddress, double, EngineConfig, Datapath, boolean)}, each
     * accepted connection with the congestion controller {@code cc} (it governs what the server
     * sends: READ responses, control answers).
     */
    public PerfServer(InetSocketAddress bind, double drop, EngineConfig config, Datapath datapath, boolean busyPoll,
            CongestionControl cc) {
        try {
            endpoint = UdpEndpoint.builder().datapath(datapath).bindAddress(bind.getAddress()).listenPort(bind.getPort()).listening(true)
                    .config(config).dropProbability(drop).dropSeed(DROP_SEED)
                    .acceptListener(accepted::add).completionSink(sink).busyPoll(busyPoll)
                    .congestionController(cc.factory()).build();
        } catch (RuntimeException e) {
            throw new PerfException("cannot listen on " + PerfClient.address(bind) + ": " + e.getMessage(), e);
        }
    }

    /** A snapshot of the server endpoint's datapath counters (blocks until its event loop takes it). */
    public UdpEndpointStats endpointStats() {
        return endpoint.stats();
    }

    /** The address clients connect to. */
    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    /**
     * Waits for a client (as long as it takes) and serves its run. Returns 0 if everything the
     * server checked matched and nothing failed, 1 otherwise. Lines go to {@code out}.
     */
    public int serveOne(PrintWriter out) throws InterruptedException {
        UdpConnection connection = accepted.take();
        try (Arena arena = Arena.ofShared()) {
            Run run = new Run(connection, arena, out);
            try {
                return run.serve();
            } catch (PerfException e) {
                out.println("error: " + e.getMessage());
                out.flush();
                connection.abort();
                return 1;
            } finally {
                run.release();
            }
        }
    }

    /** Aborts whatever is open and closes the sockets. */
    @Override
    public void close() {
        endpoint.close();
    }

    /** One served run. */
    private final class Run {
        private final UdpConnection connection;
        private final Arena arena;
        private final PrintWriter out;
        private final RunCounters counters = new RunCounters();
        private ControlChannel control;
        private MemoryRegion region;

        Run(UdpConnection connection, Arena arena, PrintWriter out) {
            this.connection = connection;
            this.arena = arena;
            this.out = out;
        }

        int serve() {
            control = new ControlChannel(connection, arena);
            ControlMessage first = ControlChannel.await(control.expect(), PARAMS_SECONDS,
                    "waiting for the client's run parameters");
            RunParams params;
            try {
                params = first.toParams();
            } catch (IllegalArgumentException e) {
                refuse(e.getMessage());
                return 1;
            }
            String problem = params.problem();
            if (problem != null) {
                refuse(problem);
                return 1;
            }
            out.printf(Locale.ROOT, "client %s: %s%n", peer(), params.describe());
            out.flush();

            ServerLayout layout = ServerLayout.of(params);
            MemorySegment memory = arena.allocate(layout.regionBytes(), 8);
            region = endpoint.register(memory, Access.ALL);
            Pattern pattern = new Pattern(params.seed());
            if (params.latency()) {
                EchoServer echo = new EchoServer(connection, memory, region, params, pattern, counters);
                sink.attach(connection, echo);
                onLoop(echo::start);
            } else {
                if (params.op().readsServerMemory()) {
                    for (int slot = 0; slot < params.depth(); slot++) {
                        pattern.fill(memory, layout.readOffset(slot), params.size(), Pattern.readAreaKey(slot));
                    }
                }
                if (params.op().consumesReceives()) {
                    ReceiveVerifier verifier = new ReceiveVerifier(connection, memory, region, params, pattern, counters);
                    sink.attach(connection, verifier);
                    onLoop(verifier::postAll);
                }
            }
            CompletableFuture<ControlMessage> done = control.expect();
            ControlChannel.await(control.send(ControlMessage.ready(region.remoteKey(), layout.regionBytes(),
                    params.fullCheckEvery())),
                    PARAMS_SECONDS, "answering READY");

            // ---- the run: progress until DONE ----
            long start = System.nanoTime();
            long giveUp = start + (long) ((params.warmupNanos() + params.durationNanos()) + DONE_SLACK_SECONDS * 1e9);
            ProgressPrinter progress = new ProgressPrinter(out, start);
            while (!done.isDone() && !connection.closeFuture().isDone() && System.nanoTime() < giveUp) {
                try {
                    done.get(Math.max(1, progress.nextAt() - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException | ExecutionException | CancellationException e) {
                    // a progress line is due, or DONE failed (reported below)
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new PerfException("interrupted during the run", e);
                }
                long now = System.nanoTime();
                if (progress.due(now) && !done.isDone()) {
                    progress.print(now, counters.messages(), counters.bytes(),
                            String.format(Locale.ROOT, "  checked %,d", counters.verified()));
                }
            }
            if (!done.isDone()) {
                throw new PerfException(connection.closeFuture().isDone()
                        ? "the connection ended before the client said it was done: " + connection.closeFuture().getNow(null)
                        : "the client did not say it was done in time");
            }
            long expected = ControlChannel.await(done, 0.001, "the client's DONE").value(0);

            // ---- check that every message the client completed was checked here ----
            long checkUntil = System.nanoTime() + (long) (CHECK_SECONDS * 1e9);
            while (seen() < expected && System.nanoTime() < checkUntil) {
                sleepMillis(1);
            }
            if (seen() < expected) {
                counters.failed((expected - seen()) + " messages the client completed never reached a receive here");
            }
            ServerResult result = new ServerResult(counters.verified(), counters.mismatches(), counters.failures(),
                    connection.stats().retransmissions(), endpoint.stats().datagramsDropped(),
                    counters.firstFailure() == null ? "" : counters.firstFailure());
            counters.closing();
            try {
                ControlChannel.await(control.send(ControlMessage.result(result)), PARAMS_SECONDS, "sending the result");
            } catch (PerfException e) {
                // The client closes as soon as it has the RESULT; when its CLOSE overtakes its ACK of
                // the RESULT, the SEND completes as closed though the client has it. Any other end fails.
                if (!closedByClient()) {
                    throw e;
                }
            }
            try {
                ControlChannel.await(connection.closeFuture(), CLOSE_SECONDS, "waiting for the client to close");
            } catch (PerfException e) {
                connection.abort();
            }
            out.printf(Locale.ROOT, "served: %,d messages checked here, %,d retransmits: %s%n", result.verified(),
                    result.retransmits(), result.errors() == 0 ? "verified"
                            : "FAILED (" + result.mismatches() + " mismatches, " + result.failures() + " failures; first: "
                                    + result.firstFailure() + ")");
            out.flush();
            return result.errors() == 0 ? 0 : 1;
        }

        /** Whether the connection ends (within {@link #CLOSE_SECONDS}) by the client's graceful close. */
        private boolean closedByClient() {
            try {
                return connection.closeFuture().get((long) CLOSE_SECONDS, TimeUnit.SECONDS) == CloseReason.PEER_CLOSE;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while the client closed", e);
            } catch (ExecutionException | TimeoutException | CancellationException e) {
                return false;
            }
        }

        private long seen() {
            return counters.verified() + counters.mismatches() + counters.failures();
        }

        private void refuse(String reason) {
            out.println("refused a run: " + reason);
            out.flush();
            try {
                ControlChannel.await(control.send(ControlMessage.refused(reason)), PARAMS_SECONDS, "refusing");
            } finally {
                connection.close();
            }
        }

        /** Runs {@code task} on the event loop and waits until the posts it made have reached the engine. */
        private void onLoop(Runnable task) {
            var loop = endpoint.eventLoop();
            try {
                // Direct posts reach the engine at once; the drive they asked for runs after the task.
                loop.submit(task).get((long) PARAMS_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while setting up the run", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new PerfException("setting up the run on the event loop: " + e, e);
            }
        }

        private String peer() {
            PathStats[] paths = endpoint.pathStats(connection);
            Object remote = paths.length > 0 && paths[0] != null ? paths[0].remoteAddress : null;
            return remote instanceof InetSocketAddress a ? PerfClient.address(a) : "connection " + connection;
        }

        void release() {
            counters.closing();
            if (!connection.closeFuture().isDone()) {
                connection.abort();
                try {
                    connection.closeFuture().get((long) CLOSE_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the endpoint's close releases it in any case
                } catch (ExecutionException | TimeoutException e) {
                    // the endpoint's close releases it in any case
                }
            }
            try {
                if (region != null) {
                    endpoint.deregister(region);
                }
                if (control != null) {
                    control.release();
                }
            } catch (IllegalStateException e) {
                // interrupted or the endpoint is closing: its close releases the regions in any case
            }
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("interrupted", e);
        }
    }
}
