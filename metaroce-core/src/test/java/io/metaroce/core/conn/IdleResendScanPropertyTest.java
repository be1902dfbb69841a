package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.harness.Pair;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The idle-resend scans [SPEC-LOSS-8] stop early, at the first CSN from which nothing can have
 * left earlier than what they found ({@code PacketTable#sentNoEarlierThanFrom}), instead of walking
 * the whole sequence window at every next-timeout query. This checks, after every event of random
 * lossy runs ({@link RandomConnectionRun}: idle resends on in the cases with the simulator's
 * settings), that both scans give exactly what a scan of the whole window gives: the time the
 * next idle resend is due, and the oldest candidate sent by each of several times (every send time
 * on record and a few around the present); and that the wait kept per path equals one read from
 * every path.
 */
class IdleResendScanPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void earlyStoppingScansEqualFullScans(long seed) {
        long[] found = {0, 0};
        boolean[] idleResend = {false};
        RandomConnectionRun.run(seed, 17, 25, "IdleResendScanPropertyTest", (pair, where) -> {
            check(pair, where, found);
            idleResend[0] |= pair.clientConnection().dataWriterForTest().idleResendOn();
        });
        // Half the cases run the engine defaults, where idle resends are off and none is ever due.
        assertThat(found[0] > 0).as("seed %d: an idle resend was due at some point", seed).isEqualTo(idleResend[0]);
        assertThat(found[1]).as("seed %d: candidates were found", seed).isPositive();
    }

    /** Compares both scans with full ones on both sides; counts the due times and candidates found in {@code found}. */
    private static void check(Pair pair, String where, long[] found) {
        long now = pair.now();
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            DataWriter w = c.dataWriterForTest();
            String side = c.isClient() ? "client" : "server";
            // The wait kept per path, updated at each ACK and state change, against a read of every path.
            assertThat(w.resendWaitNanosForTest()).as("%s side at t=%d: idle resend wait (%s)", side, now, where)
                    .isEqualTo(w.resendWaitNanosByWalkForTest());
            long due = w.idleResendDueNanos();
            assertThat(due).as("%s side at t=%d: idle resend due (%s)", side, now, where)
                    .isEqualTo(w.idleResendDueNanosByFullScan());
            if (due != Long.MAX_VALUE) {
                found[0]++;
            }
            for (long sentBy : w.sendTimesForTest(now)) {
                long oldest = w.oldestResendCandidateForTest(sentBy);
                assertThat(oldest).as("%s side at t=%d: oldest candidate sent by %d (%s)", side, now, sentBy, where)
                        .isEqualTo(w.oldestResendCandidateByFullScan(sentBy));
                if (oldest >= 0) {
                    found[1]++;
                }
            }
        }
    }
}
