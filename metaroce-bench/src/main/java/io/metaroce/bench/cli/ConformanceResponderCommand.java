package io.metaroce.bench.cli;

import io.metaroce.bench.cli.perf.DatapathConverter;
import io.metaroce.bench.cli.perf.HostPort;
import io.metaroce.bench.conformance.ConformanceResponder;
import io.metaroce.bench.conformance.ResponderContract;
import io.metaroce.netty.Datapath;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce conformance-responder}: runs this implementation as the implementation under
 * test of the conformance suite, keeping the responder contract of docs/spec.md chapter 14. Not
 * thread-safe (a picocli command).
 */
@Command(name = "conformance-responder", mixinStandardHelpOptions = true,
        description = {"Runs this implementation as a conformance responder (the suite's target).",
                "Listens for the conformance suite ('metaroce conformance --target') and keeps the responder "
                + "contract of docs/spec.md chapter 14: every SEND on stream 0 is echoed back, stream 1 takes "
                + "the suite's commands (region, post, connect), stream 2 gets receives only when told. Prints 'listening on "
                + "ADDR:PORT' once bound and runs until stopped (or for --seconds)."})
public final class ConformanceResponderCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bind", paramLabel = "ADDR[:PORT]", defaultValue = "127.0.0.1",
            description = "Address to listen on (default ${DEFAULT-VALUE}, port " + ResponderContract.DEFAULT_PORT
                    + " if none is given; port 0 picks a free one).")
    String bind;

    @Option(names = "--port", description = "Port to listen on (overrides the port of --bind).")
    Integer port;

    @Option(names = "--capacity", defaultValue = "" + ResponderContract.CAPACITY_BYTES_PER_SECOND,
            description = "Receive capacity, bytes/s, divided among the senders; 0 turns the allocator off "
                    + "(default ${DEFAULT-VALUE}).")
    long capacity;

    @Option(names = "--min-rto-ms", defaultValue = "20",
            description = "Minimum retransmission timeout, ms (default ${DEFAULT-VALUE}, [SPEC-CONF-5]).")
    long minRtoMillis;

    @Option(names = "--keep-alive-ms", defaultValue = "" + ResponderContract.KEEP_ALIVE_MILLIS,
            description = "Keep-alive interval, ms: a connection that sent nothing this long sends a PATH_PROBE; 0 never"
                    + " (default ${DEFAULT-VALUE}, [SPEC-CONF-13]).")
    long keepAliveMillis;

    @Option(names = "--idle-timeout-ms", defaultValue = "" + ResponderContract.IDLE_TIMEOUT_MILLIS,
            description = "Idle timeout, ms: a connection that received nothing this long ends; above --keep-alive-ms"
                    + " (default ${DEFAULT-VALUE}, [SPEC-CONF-13]).")
    long idleTimeoutMillis;

    @Option(names = "--fair-share-period-ms", defaultValue = "0",
            description = "The allocator's fairSharePeriodNanos, ms; 0 (the default): the engine's 100 µs. The suite's"
                    + " fair-share case needs 20 or more, and the same value given to it ([SPEC-CONF-25]).")
    long fairSharePeriodMillis;

    @Option(names = "--max-ack-delay-us", defaultValue = "0",
            description = "The receivers' maxAckDelayNanos, µs; 0 (the default): the engine's 20 µs. The suite's"
                    + " first-packet case needs 10,000 or more, and the same value given to it ([SPEC-CONF-28]).")
    long maxAckDelayMicros;

    @Option(names = "--max-consecutive-timeouts", defaultValue = "0",
            description = "A connection whose path timed out this many times in a row, nothing answered, ends; 0 (the"
                    + " default): the engine's 12. The suite's unreachable-peer case needs few enough that the back-off"
                    + " ends well within --idle-timeout-ms, and the same values given to it ([SPEC-CONF-30]).")
    int maxConsecutiveTimeouts;

    @Option(names = "--datapath", defaultValue = "auto", converter = DatapathConverter.class,
            completionCandidates = DatapathConverter.Names.class,
            description = "Socket layer: ${COMPLETION-CANDIDATES} (default auto: Linux where it runs, which reads ECN).")
    Datapath datapath;

    @Option(names = "--seconds", description = "Stop after this many seconds (default: run until stopped).")
    Long seconds;

    /** Runs; see the command's description. */
    @Override
    public Integer call() throws InterruptedException {
        InetSocketAddress address;
        try {
            address = HostPort.parse(bind, ResponderContract.DEFAULT_PORT);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (port != null) {
            if (port < 0 || port > 65_535) {
                throw new ParameterException(spec.commandLine(), "--port must be in [0, 65535]");
            }
            address = new InetSocketAddress(address.getAddress(), port);
        }
        if (capacity < 0 || minRtoMillis < 1) {
            throw new ParameterException(spec.commandLine(), "--capacity must be >= 0 and --min-rto-ms >= 1");
        }
        if (fairSharePeriodMillis < 0 || maxAckDelayMicros < 0) {
            throw new ParameterException(spec.commandLine(), "--fair-share-period-ms and --max-ack-delay-us must be >= 0 (0: the engine's)");
        }
        if (maxConsecutiveTimeouts < 0) {
            throw new ParameterException(spec.commandLine(), "--max-consecutive-timeouts must be >= 0 (0: the engine's)");
        }
        if (keepAliveMillis < 0 || idleTimeoutMillis <= keepAliveMillis) {
            throw new ParameterException(spec.commandLine(), "--keep-alive-ms must be >= 0 (0: off) and below"
                    + " --idle-timeout-ms");
        }
        PrintWriter out = spec.commandLine().getOut();
        long keepAlive = TimeUnit.MILLISECONDS.toNanos(keepAliveMillis);
        long idle = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMillis);
        long minRto = TimeUnit.MILLISECONDS.toNanos(minRtoMillis);
        try (ConformanceResponder responder = ConformanceResponder.on(address).capacityBytesPerSecond(capacity)
                .minRtoNanos(minRto).keepAliveNanos(keepAlive).idleTimeoutNanos(idle)
                .fairSharePeriodNanos(TimeUnit.MILLISECONDS.toNanos(fairSharePeriodMillis))
                .maxAckDelayNanos(TimeUnit.MICROSECONDS.toNanos(maxAckDelayMicros))
                .maxConsecutiveTimeouts(maxConsecutiveTimeouts).datapath(datapath).start()) {
            InetSocketAddress local = responder.localAddress();
            out.println("listening on " + local.getHostString() + ":" + local.getPort() + " (datapath "
                    + responder.endpoint().datapathName() + ", ECN " + (responder.endpoint().ecnCapable() ? "read" : "not read")
                    + ", capacity " + capacity + " bytes/s)");
            out.flush();
            CountDownLatch forever = new CountDownLatch(1);
            if (seconds == null) {
                forever.await();
            } else {
                forever.await(seconds, TimeUnit.SECONDS);
            }
            out.println("accepted " + responder.accepted() + " connections, echoed " + responder.echoed() + " messages");
            out.flush();
        }
        return 0;
    }
}
