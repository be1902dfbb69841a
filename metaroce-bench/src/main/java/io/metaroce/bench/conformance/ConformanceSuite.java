package io.metaroce.bench.conformance;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The wire conformance suite (R-SPEC-2): every case, run one after the other against the
 * implementation under test, each on connections of its own. A case PASSes when its script ran
 * through and nothing the implementation sent on its connections broke a sender's rule
 * ({@link WireSession#senderViolations()}).
 *
 * <p>Stateless; thread-safe (each run uses its own sockets).
 */
public final class ConformanceSuite {
    /**
     * In the reason of a case whose FAIL became a SKIP because the host dropped datagrams: the
     * suite cannot judge on a lossy network, whatever the case saw.
     */
    static final String ASSUMES_NO_LOSS = "the suite assumes a network that loses nothing";

    private ConformanceSuite() {
    }

    /** Every case, in the order the suite runs them. */
    public static List<ConformanceCase> cases() {
        List<ConformanceCase> all = new ArrayList<>();
        all.addAll(HandshakeCases.all());
        all.addAll(ReceiverCases.all());
        all.addAll(LossyPathCases.all());
        all.addAll(InvalidDatagramCases.all());
        all.addAll(SenderCases.all());
        all.addAll(ControlCases.all());
        all.addAll(MemoryCases.all());
        all.addAll(RnrCases.all());
        all.addAll(TimerCases.all());
        all.addAll(UnreachableCases.all());
        all.addAll(PathCases.all());
        all.addAll(ClientCases.all());
        all.addAll(HintCases.all());
        all.addAll(CongestionCases.all());
        return all;
    }

    /** Runs the selected cases, telling {@code onResult} about each as it ends. */
    public static List<CaseResult> run(SuiteOptions options, Consumer<CaseResult> onResult) {
        List<CaseResult> results = new ArrayList<>();
        for (ConformanceCase c : cases()) {
            if (!options.selects(c.id())) {
                continue;
            }
            CaseResult r = runOne(c, options);
            results.add(r);
            onResult.accept(r);
        }
        return results;
    }

    /** Runs one case. */
    public static CaseResult runOne(ConformanceCase c, SuiteOptions options) {
        long start = System.nanoTime();
        Verdict verdict = Verdict.PASS;
        String detail = "";
        boolean targetLocal = UdpDrops.local(options.target().getAddress());
        long targetDropsBefore = targetLocal ? UdpDrops.at(options.target().getPort()) : -1;
        try (CaseContext context = new CaseContext(options, c.id())) {
            try {
                c.body().run(context);
            } catch (CaseFailure f) {
                verdict = Verdict.FAIL;
                detail = f.getMessage();
            } catch (CaseSkipped s) {
                verdict = Verdict.SKIP;
                detail = s.getMessage();
            } catch (UncheckedIOException e) {
                verdict = Verdict.FAIL;
                detail = "socket error: " + e.getMessage();
            } catch (RuntimeException e) {
                // A case that trips over what it received (an index it expected) still judges: FAIL, with the cause.
                verdict = Verdict.FAIL;
                detail = "the case could not go on: " + e;
            }
            // Checked whatever way the body ended: a wire rule the sender broke before the case skipped (or
            // before it passed) is a failure; a skip only says the case could not judge its own rule.
            if (verdict != Verdict.FAIL) {
                String violation = firstViolation(context);
                if (violation != null) {
                    detail = verdict == Verdict.SKIP ? violation + " (before the case skipped: " + detail + ")" : violation;
                    verdict = Verdict.FAIL;
                }
            }
            if (verdict == Verdict.FAIL) {
                String loss = lossSeen(context, targetDropsBefore, options);
                if (loss != null) {
                    verdict = Verdict.SKIP;
                    detail = loss + "; " + ASSUMES_NO_LOSS + ", so it cannot judge (it saw: " + detail + ")";
                }
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new CaseResult(c.id(), c.title(), c.rules(), c.requirements(), verdict, detail, millis);
    }

    /**
     * What the host's kernel dropped during the case at the suite's sockets and, for a target on
     * this host, at its port ({@link UdpDrops}), or null when nothing was dropped (or the host does
     * not say).
     */
    private static String lossSeen(CaseContext context, long targetDropsBefore, SuiteOptions options) {
        long suite = UdpDrops.at(context.ports());
        long target = targetDropsBefore < 0 ? 0 : Math.max(0, UdpDrops.at(options.target().getPort()) - targetDropsBefore);
        if (suite <= 0 && target == 0) {
            return null;
        }
        return "the host dropped " + Math.max(0, suite) + " datagram(s) at the suite's sockets and " + target
                + " at the target's port during the case (full receive buffers, /proc/net/udp)";
    }

    /** The first sender violation any of the case's sessions saw (and how many more), or null. */
    private static String firstViolation(CaseContext context) {
        for (WireSession s : context.sessions()) {
            List<String> violations = s.senderViolations();
            if (!violations.isEmpty()) {
                return violations.getFirst() + (violations.size() > 1 ? " (and " + (violations.size() - 1) + " more)" : "");
            }
        }
        return null;
    }
}
