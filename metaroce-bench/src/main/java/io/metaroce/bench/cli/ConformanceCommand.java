package io.metaroce.bench.cli;

import io.metaroce.bench.cli.perf.HostPort;
import io.metaroce.bench.conformance.CaseResult;
import io.metaroce.bench.conformance.ConformanceCase;
import io.metaroce.bench.conformance.ConformanceSuite;
import io.metaroce.bench.conformance.ResponderContract;
import io.metaroce.bench.conformance.SuiteOptions;
import io.metaroce.bench.conformance.SuiteReport;
import io.metaroce.bench.conformance.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce conformance}: the wire conformance suite (R-SPEC-2) against an implementation
 * under test that runs a conformance responder (docs/spec.md chapter 14), reached over UDP. One
 * line per case, a summary, optionally a JSON report; the exit code is 1 if a case failed. Not
 * thread-safe (a picocli command).
 */
@Command(name = "conformance", mixinStandardHelpOptions = true,
        description = {"Checks an implementation's behaviour on the wire against docs/spec.md.",
                "Runs the wire conformance suite against an implementation under test that runs a conformance "
                + "responder (docs/spec.md chapter 14; 'metaroce conformance-responder' is the reference one). "
                + "The suite speaks the wire format itself over plain UDP sockets, case by case, and prints one "
                + "line per case: PASS, FAIL or SKIP, the case, the [SPEC-...] rules it checks and, for a FAIL, "
                + "what was seen. Exits with 1 if any case failed."})
public final class ConformanceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--target", paramLabel = "HOST:PORT",
            description = "The implementation under test's responder (port " + ResponderContract.DEFAULT_PORT
                    + " if none is given).")
    String target;

    @Option(names = "--case", paramLabel = "ID", split = ",",
            description = "Run only these cases (ids or prefixes such as 'handshake'); see --list.")
    List<String> cases = List.of();

    @Option(names = "--list", description = "List the cases with their rules and exit.")
    boolean list;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON to FILE.")
    Path json;

    @Option(names = "--wait-ms", defaultValue = "2000",
            description = "How long to wait for one expected answer (default ${DEFAULT-VALUE}).")
    long waitMillis;

    @Option(names = "--quiet-ms", defaultValue = "200",
            description = "How long to listen to make sure something does not happen (default ${DEFAULT-VALUE}).")
    long quietMillis;

    @Option(names = "--capacity", defaultValue = "" + ResponderContract.CAPACITY_BYTES_PER_SECOND,
            description = "The receive capacity, bytes/s, the responder divides [SPEC-CONF-4]: 0 if its allocator is "
                    + "off, -1 if unknown (default ${DEFAULT-VALUE}).")
    long capacity;

    @Option(names = "--require-ecn", description = "Fail, instead of skipping, the ECN case when the implementation "
            + "reports no ECN counts.")
    boolean requireEcn;

    @Option(names = "--min-rto-ms", defaultValue = "20", description = "The responder's minimum retransmission "
            + "timeout in ms, as its operator runs it (SPEC-CONF-5); the timer cases check its copies against it "
            + "(default: ${DEFAULT-VALUE}).")
    long minRtoMillis;

    @Option(names = "--max-ack-delay-us", defaultValue = "20", description = "The responder's maxAckDelayNanos in "
            + "microseconds (spec section 12.1; default: ${DEFAULT-VALUE}).")
    long maxAckDelayMicros;

    @Option(names = "--keep-alive-ms", defaultValue = "" + ResponderContract.KEEP_ALIVE_MILLIS, description = "The"
            + " responder's keepAliveNanos in milliseconds ([SPEC-CONF-13]; default: ${DEFAULT-VALUE}).")
    long keepAliveMillis;

    @Option(names = "--idle-timeout-ms", defaultValue = "" + ResponderContract.IDLE_TIMEOUT_MILLIS, description = "The"
            + " responder's idleTimeoutNanos in milliseconds ([SPEC-CONF-13]; default: ${DEFAULT-VALUE}).")
    long idleTimeoutMillis;

    @Option(names = "--fair-share-period-ms", defaultValue = "0", description = "The responder's fairSharePeriodNanos"
            + " in milliseconds, " + SuiteOptions.MIN_FAIR_SHARE_PERIOD_MILLIS + " or more ([SPEC-CONF-25]); 0 (the"
            + " default): not given, and the fair-share case SKIPs.")
    long fairSharePeriodMillis;

    @Option(names = "--max-consecutive-timeouts", defaultValue = "" + SuiteOptions.DEFAULT_MAX_CONSECUTIVE_TIMEOUTS,
            description = "The responder's maxConsecutiveTimeouts ([SPEC-CONF-30]; default: ${DEFAULT-VALUE}, spec"
                    + " section 12.1): the unreachable-peer case counts the IUT's timeouts against it.")
    int maxConsecutiveTimeouts;

    @Option(names = "--max-rto-ms", defaultValue = "" + SuiteOptions.DEFAULT_MAX_RTO_MILLIS, description = "The"
            + " responder's maxRtoNanos in milliseconds ([SPEC-CONF-30]; default: ${DEFAULT-VALUE}, spec section 12.1).")
    long maxRtoMillis;

    @Option(names = "--seed", description = "Seed of the suite's connection ids and shuffles (default: drawn at random"
            + " and printed; a server ignores a CONNECT that reuses the id of one of its connections that ended"
            + " after the cookie was issued, [SPEC-CONN-16], so two runs should not share a seed).")
    Long seed;

    /** Runs; see the command's description. */
    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            for (ConformanceCase c : ConformanceSuite.cases()) {
                out.printf("%-34s %s%n    %s; %s%n", c.id(), c.title(), String.join(" ", c.rules()),
                        String.join(" ", c.requirements()));
            }
            out.flush();
            return 0;
        }
        if (target == null) {
            throw new ParameterException(spec.commandLine(), "--target HOST:PORT is required (or --list)");
        }
        InetSocketAddress address;
        SuiteOptions options;
        try {
            address = HostPort.parse(target, ResponderContract.DEFAULT_PORT);
            long s = seed != null ? seed : new SecureRandom().nextLong();
            options = new SuiteOptions(address, waitMillis, quietMillis, capacity, requireEcn, cases, s, minRtoMillis,
                    maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, fairSharePeriodMillis, maxConsecutiveTimeouts,
                    Math.max(minRtoMillis, maxRtoMillis));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (ConformanceSuite.cases().stream().noneMatch(c -> options.selects(c.id()))) {
            throw new ParameterException(spec.commandLine(), "--case " + cases + " selects no case; see --list");
        }
        out.println("conformance suite against " + address.getHostString() + ":" + address.getPort() + " (seed "
                + options.seed() + ")");
        out.flush();
        List<CaseResult> results = ConformanceSuite.run(options, r -> {
            out.println(r.line());
            out.flush();
        });
        out.println(SuiteReport.summary(results));
        out.flush();
        if (json != null) {
            Files.writeString(json, SuiteReport.json(options, results), StandardCharsets.UTF_8);
        }
        return results.stream().anyMatch(r -> r.verdict() == Verdict.FAIL) ? 1 : 0;
    }
}
