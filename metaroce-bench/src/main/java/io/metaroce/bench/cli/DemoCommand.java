package io.metaroce.bench.cli;

import io.metaroce.bench.cli.perf.MessageKind;
import io.metaroce.bench.cli.perf.Op;
import io.metaroce.bench.cli.perf.PerfException;
import io.metaroce.bench.cli.perf.PerfLoopbackCommand;
import io.metaroce.bench.cli.perf.PerfReport;
import io.metaroce.bench.cli.perf.ReportPrinter;
import io.metaroce.bench.cli.perf.RunParams;
import io.metaroce.core.EngineConfig;
import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce demo}: a MetaRoCE server and client in this process move data over real UDP
 * sockets on 127.0.0.1, several paths, with loss injected by both datapaths; SEND, WRITE,
 * WRITE_WITH_IMM and READ in turn, every byte checked, live progress, the per-path table and a
 * one-screen summary. It is {@code perf loopback --op mixed} with the settings of a demo. Not
 * thread-safe (a picocli command).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"A server and a client move verified data over lossy UDP paths on 127.0.0.1.",
                "A MetaRoCE server and client in this process move data over real UDP on 127.0.0.1: "
                + "several paths (one UDP source port each), loss injected by both sides' datapaths, SEND, "
                + "WRITE, WRITE_WITH_IMM and READ in turn, every byte checked. Prints progress every "
                + "second, the per-path table and a summary; the exit code is non-zero on any mismatch or "
                + "failure."})
public final class DemoCommand implements Callable<Integer> {
    /**
     * The engine defaults are tuned for a data-centre fabric (100 us first RTT estimate, 1 ms least
     * retransmission timeout). On a small shared machine a cold JVM's event loops stall for
     * milliseconds at a time, so the demo starts from estimates that fit that host: with the
     * defaults, the first seconds were a storm of spurious timeouts, and a path whose every ACK
     * came after its packets had timed out once counted 12 timeouts in a row and closed a healthy
     * connection as unreachable. The loss recovery shown is the same code.
     */
    static final EngineConfig CONFIG = EngineConfig.defaults().toBuilder()
            .initialRttNanos(1_000_000L)
            .minRtoNanos(10_000_000L)
            .build();

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", description = "Seconds to run (default ${DEFAULT-VALUE}).", defaultValue = "10")
    double durationSeconds;

    @Option(names = "--paths", description = "Paths of the connection (default ${DEFAULT-VALUE}).", defaultValue = "4")
    int paths;

    @Option(names = "--streams", description = "Streams (default ${DEFAULT-VALUE}).", defaultValue = "8")
    int streams;

    @Option(names = {"--loss", "--drop"}, description = "Fraction of its own outgoing datagrams each side drops "
            + "(default ${DEFAULT-VALUE}).", defaultValue = "0.01")
    double loss;

    @Option(names = "--size", description = "Bytes per message (default ${DEFAULT-VALUE}).", defaultValue = "65536")
    int size;

    @Option(names = "--depth", description = "Messages in flight (default ${DEFAULT-VALUE}).", defaultValue = "16")
    int depth;

    @Option(names = "--seed", description = "Seed of the message patterns (default: random).")
    Long seed;

    /** Runs the demo; see the command's description. */
    @Override
    public Integer call() throws InterruptedException {
        if (!(durationSeconds > 0) || durationSeconds > 3600) {
            throw new ParameterException(spec.commandLine(), "--duration must be in (0, 3600] seconds");
        }
        if (!(loss >= 0 && loss < 1)) {
            throw new ParameterException(spec.commandLine(), "--loss must be in [0, 1)");
        }
        RunParams params = new RunParams(Op.mixed, size, streams, paths, depth, (long) (durationSeconds * 1e9), 0,
                false, seed != null ? seed : new SecureRandom().nextLong());
        String problem = params.problem();
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "metaroce demo: a server and a client in this process, real UDP on 127.0.0.1%n");
        out.printf(Locale.ROOT, "  %d paths (one UDP source port each), %d streams, %d messages of %,d bytes in flight,"
                + " %.1f%% of each side's datagrams dropped%n", paths, streams, depth, size, loss * 100);
        out.printf(Locale.ROOT, "  SEND, WRITE (read back), WRITE_WITH_IMM and READ in turn, every byte checked, %.0f s%n",
                durationSeconds);
        out.printf(Locale.ROOT, "  engine defaults (AIMD congestion control on) but a first RTT estimate of %.0f ms and a"
                + " least retransmission timeout of %.0f ms, for a small shared host%n", CONFIG.initialRttNanos() / 1e6,
                CONFIG.minRtoNanos() / 1e6);
        out.println();
        out.flush();
        PerfReport r;
        try {
            r = PerfLoopbackCommand.run(params, loss, CONFIG, out);
        } catch (PerfException e) {
            spec.commandLine().getErr().println("metaroce demo: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
        ReportPrinter.printPaths(out, r);
        out.println();
        out.println("summary");
        out.printf(Locale.ROOT, "  %-16s %,10d%n", "SEND", r.messages(MessageKind.SEND));
        out.printf(Locale.ROOT, "  %-16s %,10d  (each read back and compared)%n", "WRITE", r.messages(MessageKind.WRITE));
        out.printf(Locale.ROOT, "  %-16s %,10d%n", "WRITE_WITH_IMM", r.messages(MessageKind.WRITE_WITH_IMM));
        out.printf(Locale.ROOT, "  %-16s %,10d  (%,d of server patterns, %,d read-backs)%n", "READ",
                r.messages(MessageKind.READ), r.messages(MessageKind.READ) - r.messages(MessageKind.WRITE),
                r.messages(MessageKind.WRITE));
        out.printf(Locale.ROOT, "  %-16s %,10.1f MiB byte for byte: %,d mismatches, %,d failures%n", "checked",
                r.checkedBytes() / 1048576.0, r.mismatches(), r.failures());
        out.printf(Locale.ROOT, "  %-16s %10.3f Gb/s of payload over %.1f s (%,.0f messages/s)%n", "goodput",
                r.goodputGbps(), r.durationSeconds(), r.messagesPerSecond());
        out.printf(Locale.ROOT, "  %-16s %,10d datagrams dropped on purpose, %,d retransmitted (client %,d + server %,d)%n",
                "loss", r.droppedOnPurpose(), r.retransmits(), r.clientRetransmits(), r.serverRetransmits());
        out.printf(Locale.ROOT, "  %-16s %,10d retransmission timeouts, %,d transmissions declared lost (client side)%n",
                "recovery", r.clientTimeouts(), r.clientLosses());
        if (!r.verified()) {
            out.println("  first problem: " + r.firstFailure());
        }
        out.println(r.verified() ? "verified" : "FAILED: " + r.resultText());
        out.flush();
        return r.verified() ? 0 : 1;
    }
}
