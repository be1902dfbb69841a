package io.metaroce.bench.cli.perf;

import io.metaroce.core.EngineConfig;
import io.metaroce.netty.Datapath;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce perf loopback}: a perf server and a perf client in this process over
 * 127.0.0.1, exactly as {@code server} and {@code client} run apart. Not thread-safe (a picocli
 * command).
 */
@Command(name = "loopback", mixinStandardHelpOptions = true,
        description = {"A perf server and a perf client in this process over 127.0.0.1.",
                "Runs a perf server and a perf client in this process over 127.0.0.1 (each on its own "
                + "event loop, the client with one UDP socket per path), the same code as 'server' and "
                + "'client'. --drop applies to both sides. Every message carries a fresh pattern and every "
                + "received byte is checked; the exit code is non-zero on any mismatch or failed "
                + "completion."})
public final class PerfLoopbackCommand implements Callable<Integer> {
    private static final long SERVER_JOIN_SECONDS = 30;

    @Spec
    CommandSpec spec;

    @Mixin
    RunOptions options;

    /** Runs; see the command's description. */
    @Override
    public Integer call() throws InterruptedException {
        RunParams params = options.params(spec);
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "metaroce perf loopback: %s, drop %.1f%% each way, %s, 127.0.0.1%n",
                params.describe(), options.drop * 100, options.ccDescription());
        out.flush();
        try {
            PerfReport report = run(params, options.drop, options.config(), options.datapath.value,
                    options.datapath.busyPoll, options.cc.value, options.corruptEvery, out);
            return RunPrinter.finish(out, report, options.jsonFile);
        } catch (PerfException e) {
            spec.commandLine().getErr().println("metaroce perf loopback: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
    }

    /**
     * Runs {@code params} between a server and a client in this process, both dropping
     * {@code drop} of their outgoing datagrams; the server is quiet, the client prints to
     * {@code out}. The report includes the server's checks; a server that failed in a way the
     * client could not see is a failure too.
     */
    public static PerfReport run(RunParams params, double drop, EngineConfig config, PrintWriter out)
            throws InterruptedException {
        return run(params, drop, config, false, out);
    }

    /**
     * As {@link #run(RunParams, double, EngineConfig, PrintWriter)}; with {@code busyPoll} both
     * sides' event loops busy-poll.
     */
    public static PerfReport run(RunParams params, double drop, EngineConfig config, boolean busyPoll, PrintWriter out)
            throws InterruptedException {
        return run(params, drop, config, busyPoll, CongestionControl.AIMD, () -> { }, out);
    }

    /**
     * As {@link #run(RunParams, double, EngineConfig, boolean, PrintWriter)}, both sides with the
     * congestion controller {@code cc}, running {@code onWarm} on the client's thread when its
     * warm-up ends (after both sides' set-up).
     */
    public static PerfReport run(RunParams params, double drop, EngineConfig config, boolean busyPoll,
            CongestionControl cc, Runnable onWarm, PrintWriter out) throws InterruptedException {
        return run(params, drop, config, Datapath.AUTO, busyPoll, cc, 0, onWarm, out);
    }

    /** As {@link #run(RunParams, double, EngineConfig, PrintWriter)}, corrupting every {@code corruptEvery}-th payload. */
    static PerfReport run(RunParams params, double drop, EngineConfig config, Datapath datapath, boolean busyPoll,
            CongestionControl cc, int corruptEvery, PrintWriter out) throws InterruptedException {
        return run(params, drop, config, datapath, busyPoll, cc, corruptEvery, () -> { }, out);
    }

    private static PerfReport run(RunParams params, double drop, EngineConfig config, Datapath datapath,
            boolean busyPoll, CongestionControl cc, int corruptEvery, Runnable onWarm, PrintWriter out)
            throws InterruptedException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (PerfServer server = new PerfServer(new InetSocketAddress(loopback, 0), drop, config, datapath, busyPoll, cc)) {
            PrintWriter quiet = new PrintWriter(Writer.nullWriter());
            FutureTask<Integer> serving = new FutureTask<>(() -> server.serveOne(quiet));
            Thread thread = Thread.ofPlatform().name("perf-server").daemon(true).start(serving);
            PerfReport report;
            try {
                report = new PerfClient(params, server.localAddress(), loopback, drop, config, out)
                        .datapath(datapath).busyPoll(busyPoll).congestionControl(cc).corruptEvery(corruptEvery)
                        .onWarm(onWarm).run();
            } catch (RuntimeException e) {
                thread.interrupt(); // the server may still be waiting for the connection
                throw e;
            }
            try {
                serving.get(SERVER_JOIN_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                thread.interrupt(); // it has answered RESULT already; closing the endpoint ends it
            }
            out.println(DatapathLine.of("server", server.endpointStats()));
            out.flush();
            return report;
        }
    }
}
