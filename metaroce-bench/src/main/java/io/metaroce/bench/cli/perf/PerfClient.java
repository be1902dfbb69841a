package io.metaroce.bench.cli.perf;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PathStats;
import io.metaroce.netty.Datapath;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpConnectionStats;
import io.metaroce.netty.UdpEndpoint;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The client side of a perf run, over its own {@link UdpEndpoint}: connects to a perf server,
 * sends it the {@link RunParams} on the control stream, runs the traffic (a
 * {@link BandwidthClient} or a {@link PingPongClient}) with a progress line every second, drains
 * it, collects the server's RESULT and the per-path counters, closes, and returns the
 * {@link PerfReport}.
 *
 * <p>Every wait is bounded: the connection attempt by the engine's handshake timeout, the control
 * answers by {@link #CONTROL_SECONDS}, the drain by {@link #DRAIN_SECONDS}; a run whose connection
 * ends early stops at once and reports the failure.
 *
 * <p>Thread-safety: one run per instance, driven by the calling thread.
 */
final class PerfClient {
    /** Longest wait for a control answer (READY, RESULT). */
    static final double CONTROL_SECONDS = 30;
    /** Longest wait for the messages in flight at the end. */
    static final long DRAIN_SECONDS = 20;
    private static final double CLOSE_SECONDS = 10;

    private final RunParams params;
    private final InetSocketAddress server;
    private final InetAddress bind;
    private final double drop;
    private final EngineConfig config;
    private final PrintWriter out;
    /** Told when the warm-up ends: a meter of the measured part starts there. */
    private Runnable onWarm = () -> { };
    private int corruptEvery;
    private Datapath datapath = Datapath.AUTO;
    private boolean busyPoll;
    private CongestionControl cc = CongestionControl.AIMD;
    private final PerfSink sink = new PerfSink();

    /**
     * A client for one run.
     *
     * @param params what to run (validated: {@link RunParams#problem()} must be null)
     * @param server the perf server's address
     * @param bind the local address the client's path sockets bind to
     * @param drop fraction of its own outgoing datagrams the client's datapath drops
     * @param config the engine configuration
     * @param out where progress and messages go
     */
    public PerfClient(RunParams params, InetSocketAddress server, InetAddress bind, double drop, EngineConfig config,
            PrintWriter out) {
        String problem = params.problem();
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        this.params = params;
        this.server = server;
        this.bind = bind;
        this.drop = drop;
        this.config = config;
        this.out = out;
    }

    /** Runs {@code listener} on the client's thread when the warm-up ends (not at all without one); returns this. */
    public PerfClient onWarm(Runnable listener) {
        this.onWarm = java.util.Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Testing aid: flips one byte of every {@code n}-th SEND or WRITE payload after its pattern is
     * written (0: never), so that a run shows its checks catch corruption. Returns this.
     */
    PerfClient datapath(Datapath value) {
        this.datapath = value;
        return this;
    }

    /** Whether the client's event loop busy-polls (see {@link UdpEndpoint.Builder#busyPoll}). Returns this. */
    PerfClient busyPoll(boolean value) {
        this.busyPoll = value;
        return this;
    }

    /** The client connection's congestion controller (default {@link CongestionControl#AIMD}). Returns this. */
    PerfClient congestionControl(CongestionControl value) {
        this.cc = value;
        return this;
    }

    PerfClient corruptEvery(int n) {
        this.corruptEvery = n;
        return this;
    }

    /**
     * Runs. Returns the report (which says whether everything was verified).
     *
     * @throws PerfException if the run could not take place (no server, refused, the peer went away
     *     before the end)
     */
    public PerfReport run() {
        UdpEndpoint endpoint;
        try {
            endpoint = UdpEndpoint.builder().datapath(datapath).bindAddress(bind).config(config).dropProbability(drop)
                    .dropSeed(params.seed() ^ 0xC11E_17L).completionSink(sink).busyPoll(busyPoll)
                    .congestionController(cc.factory()).build();
        } catch (RuntimeException e) {
            throw new PerfException("cannot open UDP sockets on " + bind.getHostAddress() + ": " + e.getMessage(), e);
        }
        try (Arena arena = Arena.ofShared()) {
            try {
                return run(endpoint, arena);
            } finally {
                endpoint.close(); // before the arena frees the memory the engine may still hold
            }
        }
    }

    private PerfReport run(UdpEndpoint endpoint, Arena arena) {
        double handshakeSeconds = config.handshakeTimeoutNanos() / 1e9;
        UdpConnection connection = ControlChannel.await(endpoint.connect(server, params.paths()),
                handshakeSeconds + 5, "no MetaRoCE perf server answered at " + address(server)
                        + " (is 'metaroce perf server' running there, and is UDP let through?)");
        RunCounters counters = new RunCounters();
        ControlChannel control = new ControlChannel(connection, arena);
        var readyFuture = control.expect();
        ControlChannel.await(control.send(ControlMessage.params(params)), CONTROL_SECONDS, "sending the run parameters");
        ControlMessage ready = ControlChannel.await(readyFuture, CONTROL_SECONDS, "waiting for the server to get ready");
        if (ready.type() == ControlMessage.REFUSED) {
            connection.abort();
            throw new PerfException("the server refused the run: " + ready.text());
        }
        if (ready.type() != ControlMessage.READY) {
            connection.abort();
            throw new PerfException("the server answered with " + ready + " instead of READY");
        }
        String checkProblem = ready.sampledCheckProblem(params);
        if (checkProblem == null) {
            checkProblem = ready.layoutProblem(params);
        }
        if (checkProblem != null) {
            connection.abort();
            throw new PerfException(checkProblem);
        }
        int remoteKey = (int) ready.value(0);
        Pattern pattern = new Pattern(params.seed());
        LatencyRecorder latency = params.latency() ? new LatencyRecorder() : null;
        ClientTraffic traffic;
        if (params.latency()) {
            PingPongClient pingPong = new PingPongClient(connection, params, pattern, counters, latency, arena);
            sink.attach(connection, pingPong);
            traffic = pingPong;
        } else {
            BandwidthClient bandwidth = new BandwidthClient(
                    new SlotContext(connection, params, remoteKey, pattern, counters, arena, corruptEvery));
            sink.attach(connection, bandwidth);
            traffic = bandwidth;
        }

        // ---- the timed part ----
        long start = System.nanoTime();
        traffic.start();
        long warmupEnd = start + params.warmupNanos();
        long end = warmupEnd + params.durationNanos();
        boolean warm = params.warmupNanos() == 0;
        long baseMessages = 0;
        long baseBytes = 0;
        CpuMeter cpu = new CpuMeter();
        ProgressPrinter progress = new ProgressPrinter(out, start);
        long now = start;
        while (now < end && traffic.active() > 0 && !connection.closeFuture().isDone()) {
            if (!warm && now >= warmupEnd) {
                warm = true;
                baseMessages = counters.messages();
                baseBytes = counters.bytes();
                warmupEnd = now;
                cpu.start();
                onWarm.run();
                if (latency != null) {
                    latency.takeInterval(false); // what was recorded so far is warm-up
                }
                out.printf(Locale.ROOT, "warm-up done after %.1f s (%,d messages, not counted)%n", (now - start) / 1e9,
                        baseMessages);
                out.flush();
            }
            if (progress.due(now)) {
                String extra = String.format(Locale.ROOT, "  retransmits %,9d", connection.stats().retransmissions());
                if (latency != null) {
                    extra += String.format(Locale.ROOT, "  p50 %8.1f us", latency.takeInterval(warm));
                }
                progress.print(now, counters.messages(), counters.bytes(), extra);
            }
            sleepUntil(Math.min(warm ? end : warmupEnd, Math.min(end, progress.nextAt())));
            now = System.nanoTime();
        }
        traffic.stop();
        long stoppedAt = System.nanoTime();
        long measuredMessages = counters.messages() - baseMessages;
        String cpuLine = cpu.line(measuredMessages);
        long measuredBytes = counters.bytes() - baseBytes;
        double seconds = (stoppedAt - (warm ? warmupEnd : start)) / 1e9;
        if (latency != null) {
            latency.takeInterval(warm);
        }
        if (connection.closeFuture().isDone()) {
            counters.failed("the connection ended during the run: " + connection.closeFuture().getNow(null));
        } else if (now < end && counters.failures() == 0) {
            counters.failed("every slot stopped before the end (see the first failure)");
        }

        // ---- drain, then the server's RESULT ----
        long drainEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
        while (traffic.active() > 0 && System.nanoTime() < drainEnd) {
            sleepUntil(System.nanoTime() + 1_000_000L);
        }
        if (traffic.active() > 0) {
            counters.failed(traffic.active() + " messages still in flight " + DRAIN_SECONDS + " s after the end");
        }
        ServerResult result = new ServerResult(0, 0, 0, 0, 0, "");
        if (!connection.closeFuture().isDone()) {
            try {
                var resultFuture = control.expect();
                ControlChannel.await(control.send(ControlMessage.done(traffic.receiverMessages())), CONTROL_SECONDS,
                        "telling the server the run is over");
                result = ControlChannel.await(resultFuture, CONTROL_SECONDS, "waiting for the server's result")
                        .toResult();
            } catch (PerfException | IllegalArgumentException e) {
                // Still report what this side saw; without the server's checks the run is not verified.
                counters.failed("no result from the server: " + e.getMessage());
            }
        }

        UdpConnectionStats stats = connection.stats();
        List<PathRow> rows = pathRows(endpoint.pathStats(connection), stats);
        long dropped = endpoint.stats().datagramsDropped() + result.droppedOnPurpose();
        // Before the close: the connection's path sockets, and their counters, go with it.
        String datapathLine = DatapathLine.of("client", endpoint.stats());
        counters.closing();
        try {
            ControlChannel.await(connection.close(), CLOSE_SECONDS, "closing the connection");
        } catch (PerfException e) {
            out.println("warning: " + e.getMessage());
        }
        long[] byKind = new long[MessageKind.values().length];
        for (MessageKind k : MessageKind.values()) {
            byKind[k.ordinal()] = counters.messages(k);
        }
        out.println("client: spurious losses " + stats.spuriousLosses() + " of " + stats.losses()
                + ", ACKs bundled with data " + stats.acksBundled());
        out.println(datapathLine);
        out.println(cpuLine);
        long checkedMessages = counters.verified() + result.verified();
        String first = counters.firstFailure() != null ? counters.firstFailure()
                : result.firstFailure().isEmpty() ? null : "server: " + result.firstFailure();
        return new PerfReport(params, seconds, measuredBytes * 8.0 / seconds / 1e9, measuredMessages / seconds,
                counters.messages(), byKind, checkedMessages * params.size(), stats.retransmissions(), stats.timeouts(),
                stats.losses(), result.retransmits(), dropped, counters.mismatches() + result.mismatches(),
                counters.failures() + result.failures(), first, rows, latency == null ? null : latency.percentiles(),
                endpoint.datapathName(), cc.label());
    }

    /** The per-path table from the client connection's counters (path states as the engine reports them). */
    private static List<PathRow> pathRows(PathStats[] paths, UdpConnectionStats stats) {
        List<PathRow> rows = new ArrayList<>();
        int[] ports = stats.localSocketPorts();
        for (int i = 0; i < paths.length; i++) {
            PathStats s = paths[i];
            int port = i < ports.length ? ports[i] : -1;
            rows.add(s == null ? new PathRow(i, port, 0, 0, 0, 0, "closed")
                    : new PathRow(i, port, s.packetsSent, s.bytesSent, s.smoothedRttNanos / 1000.0, s.ecnFraction(),
                            PathState.name(s.state).toLowerCase(Locale.ROOT)));
        }
        return rows;
    }

    static String address(InetSocketAddress a) {
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    private static void sleepUntil(long deadline) {
        long wait = deadline - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted", e);
            }
        }
    }
}
