package io.metaroce.bench.cli.perf;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce perf server}: listens, learns each run from its client, checks what it
 * receives, and reports back. Not thread-safe (a picocli command).
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Serves perf runs, learning each run from its client.",
                "Listens for a 'metaroce perf client' and serves its run: the client sends the operation, "
                + "size, streams, duration and --lat, so only the address is needed here. Prints 'listening "
                + "on ADDR:PORT' once bound (with port 0, the port the system chose), a progress line every "
                + "second and what it checked. Serves one run and exits (non-zero if anything it checked "
                + "failed), or with --forever one run after another (when stopped, the exit code is "
                + "non-zero if any run failed)."})
public final class PerfServerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bind", paramLabel = "ADDR[:PORT]", defaultValue = "0.0.0.0",
            description = "Address to listen on (default ${DEFAULT-VALUE}, port " + HostPort.DEFAULT_PORT
                    + " if none is given; port 0 picks a free one).")
    String bind;

    @Option(names = "--drop", description = "Fraction of its own outgoing datagrams the server's datapath drops "
            + "(default ${DEFAULT-VALUE}); give the client --drop too for both directions.", defaultValue = "0")
    double drop;

    @Option(names = "--window", description = "Window of each connection with --cc fixed, bytes (default ${DEFAULT-VALUE}).",
            defaultValue = "16777216")
    long windowBytes;

    @Mixin
    DatapathOption datapath;

    @Mixin
    CongestionControlOption cc;

    @Option(names = "--forever", description = "Serve one run after another until stopped (default: one run, then exit).")
    boolean forever;

    /** Runs; see the command's description. */
    @Override
    public Integer call() {
        InetSocketAddress address;
        try {
            address = HostPort.parse(bind, HostPort.DEFAULT_PORT);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        RunOptions.checkDrop(spec, drop);
        if (windowBytes < 65_536) {
            throw new ParameterException(spec.commandLine(), "--window must be at least 65536");
        }
        PrintWriter out = spec.commandLine().getOut();
        PerfServer server;
        try {
            server = new PerfServer(address, drop, io.metaroce.core.EngineConfig.defaults().toBuilder()
                    .congestionWindowBytes(windowBytes).build(), datapath.value, datapath.busyPoll, cc.value);
        } catch (PerfException e) {
            spec.commandLine().getErr().println("metaroce perf server: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
        try (server) {
            out.println("listening on " + PerfClient.address(server.localAddress()));
            out.flush();
            int worst = 0;
            int served = 0;
            do {
                try {
                    worst = Math.max(worst, server.serveOne(out));
                    served++;
                } catch (InterruptedException e) {
                    // Stopped while waiting for a client: the runs served so far decide the exit code.
                    out.println("stopped after " + served + " run" + (served == 1 ? "" : "s"));
                    out.flush();
                    return served == 0 ? 1 : worst;
                }
            } while (forever);
            return worst;
        }
    }
}
