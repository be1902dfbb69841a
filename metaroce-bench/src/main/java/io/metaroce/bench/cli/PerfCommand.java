package io.metaroce.bench.cli;

import io.metaroce.bench.cli.perf.PerfClientCommand;
import io.metaroce.bench.cli.perf.PerfLoopbackCommand;
import io.metaroce.bench.cli.perf.PerfServerCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce perf}: bandwidth and latency over real UDP sockets, in the shape of the perftest
 * tools ({@code ib_send_bw}, {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_lat}): a
 * {@code server} and a {@code client} (on different hosts if need be, the client telling the
 * server what to run), or both in one process ({@code loopback}). The machinery lives in
 * {@code io.metaroce.bench.cli.perf}. Not thread-safe (a picocli command).
 */
@Command(name = "perf", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "COMMAND",
        description = {"Bandwidth and latency over real UDP, in the shape of the perftest tools.",
                "Bandwidth and latency of MetaRoCE over real UDP sockets, in the shape of the perftest "
                + "tools (ib_send_bw, ib_write_bw, ib_read_bw, ib_send_lat): every byte checked, live "
                + "progress, a per-path table, optional JSON. Start 'perf server' on one host and 'perf "
                + "client --connect' on another, or run both in one process with 'perf loopback'."},
        subcommands = {PerfServerCommand.class, PerfClientCommand.class, PerfLoopbackCommand.class})
public final class PerfCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Invoked when no subcommand is given: that is a usage error. */
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand (server, client or loopback)");
    }
}
