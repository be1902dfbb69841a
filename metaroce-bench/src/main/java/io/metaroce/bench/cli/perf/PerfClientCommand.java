package io.metaroce.bench.cli.perf;

import java.io.PrintWriter;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce perf client}: runs against a {@code metaroce perf server} elsewhere, which learns
 * the run from the client. Not thread-safe (a picocli command).
 */
@Command(name = "client", mixinStandardHelpOptions = true,
        description = {"Runs against a perf server, which learns the run from here.",
                "Connects to a 'metaroce perf server' and runs: the server learns the operation, size, "
                + "streams, duration and --lat from this side, so it needs only its address. Every received "
                + "byte is checked (by the server for send/write, here for read and --lat echoes); the exit "
                + "code is non-zero on any mismatch or failed completion, or if no server answers."})
public final class PerfClientCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RunOptions options;

    @Option(names = "--connect", required = true, paramLabel = "ADDR[:PORT]",
            description = "The server's address (port " + HostPort.DEFAULT_PORT + " if none is given).")
    String connect;

    @Option(names = "--bind", paramLabel = "ADDR", description = "Local address of the path sockets "
            + "(default: the loopback address for a loopback server, else the wildcard address).")
    String bind;

    /** Runs; see the command's description. */
    @Override
    public Integer call() {
        RunParams params = options.params(spec);
        InetSocketAddress server;
        InetAddress local;
        try {
            server = HostPort.parse(connect, HostPort.DEFAULT_PORT);
            local = bind != null ? HostPort.address(bind) : defaultBind(server.getAddress());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (server.getPort() == 0) {
            throw new ParameterException(spec.commandLine(), "--connect needs the server's port, not 0");
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "metaroce perf client: %s, drop %.1f%%, %s, to %s%n", params.describe(),
                options.drop * 100, options.ccDescription(), PerfClient.address(server));
        out.flush();
        try {
            PerfReport report = new PerfClient(params, server, local, options.drop, options.config(), out)
                    .datapath(options.datapath.value).busyPoll(options.datapath.busyPoll)
                    .congestionControl(options.cc.value).corruptEvery(options.corruptEvery).run();
            return RunPrinter.finish(out, report, options.jsonFile);
        } catch (PerfException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("metaroce perf client: " + e.getMessage());
            err.flush();
            return 1;
        }
    }

    /** The loopback address for a loopback server, else the wildcard address, of the server's family. */
    static InetAddress defaultBind(InetAddress server) {
        boolean v6 = server instanceof Inet6Address;
        if (server.isLoopbackAddress()) {
            return HostPort.address(v6 ? "::1" : "127.0.0.1");
        }
        return HostPort.address(v6 ? "::" : "0.0.0.0");
    }
}
