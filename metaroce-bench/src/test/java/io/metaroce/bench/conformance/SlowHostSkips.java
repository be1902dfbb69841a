package io.metaroce.bench.conformance;

import java.util.Set;

/** What the suite's tests allow of a case on a host too slow for the IUT's timers. */
public final class SlowHostSkips {
    /**
     * The cases that SKIP by design after their attempts were all blurred by the IUT's timer on a
     * host too slow for its minimum RTO ([SPEC-CONF-5]): a slow build machine (a fresh 2-core box)
     * may SKIP them; a FAIL stays a failure, and so does a SKIP for another reason (such as a FAIL the
     * suite turned into a SKIP because the host dropped datagrams).
     */
    public static final Set<String> CASES = Set.of("cc.ecn-cut", "cc.loss-cut", "sack.bundled-ack",
            "sack.short-ack", "cc.paced",
            "send.hole-resent-on-its-path", "send.repeated-ack", "rnr.sender-waits", "cc.fair-share",
            "cc.announced-share", "handshake.replay-after-close", "cc.held-back", "send.ack-now-when-lossy",
            "cc.delay-cut", "close.closing", "timer.first-ack-at-once", "timer.peer-unreachable", "timer.progress-resets",
            "cc.restart-after-failure", "cc.spurious-undo");

    private SlowHostSkips() {
    }

    /** Whether a case's SKIP, {@code id} and its {@code detail}, is one a slow host may cause. */
    public static boolean allowed(String id, String detail) {
        return CASES.contains(id) && detail.contains(CaseSkipped.HOST_TOO_SLOW)
                && !detail.contains(ConformanceSuite.ASSUMES_NO_LOSS);
    }
}
