package io.metaroce.bench.cli.perf;

import io.metaroce.netty.Datapath;
import picocli.CommandLine.Option;

/** {@code --datapath auto|linux|nio} and {@code --busy-poll}, shared by every side of {@code perf}. */
final class DatapathOption {
    @Option(names = "--datapath", description = "Socket layer: ${COMPLETION-CANDIDATES} (default auto: "
            + "the Linux layer where it runs, NIO elsewhere).", defaultValue = "auto",
            converter = DatapathConverter.class, completionCandidates = DatapathConverter.Names.class)
    Datapath value;

    @Option(names = "--busy-poll", description = "Event loops poll their sockets on every turn instead of "
            + "sleeping until a datagram arrives: lower latency, one busy core per loop.")
    boolean busyPoll;
}
