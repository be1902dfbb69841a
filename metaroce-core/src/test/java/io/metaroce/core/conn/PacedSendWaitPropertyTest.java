package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.harness.Pair;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pacing term of the next-timeout query ({@code Sender#nextPacedSendNanos}) reads the
 * idle-resend wait [SPEC-LOSS-8] only until it knows the due time comes at or after the next paced
 * send, and reads it after the paths' allowances rather than before. This checks, after every event
 * of random lossy runs ({@link RandomConnectionRun}: idle resends on in the cases with the
 * simulator's settings, up to six paths, AIMD or the fixed window), that its answer is exactly
 * the one computed with the whole wait read first, as before; and that the runs reach the states
 * where the wait may be cut short (a finite due time after the answer), over all cases together
 * (a case with idle resends on may end before one is due).
 */
class PacedSendWaitPropertyTest {
    /** Due times found after the answer, over every case run. */
    private static final AtomicLong DUE_AFTER_ANSWER = new AtomicLong();

    static LongStream seeds() {
        return PropertySeeds.of(12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theShortenedWaitGivesTheAnswerOfTheFullOne(long seed) {
        long[] counts = {0, 0};
        RandomConnectionRun.run(seed, 23, 25, "PacedSendWaitPropertyTest", (pair, where) -> check(pair, where, counts));
        assertThat(counts[0]).as("seed %d: pacing terms compared", seed).isPositive();
        DUE_AFTER_ANSWER.addAndGet(counts[1]);
    }

    @AfterAll
    static void theShortcutsCaseWasMet() {
        assertThat(DUE_AFTER_ANSWER.get()).as("due times after the pacing term, over all cases").isPositive();
    }

    /** Compares both ways on each side that paces; counts comparisons and due times past the answer in {@code counts}. */
    private static void check(Pair pair, String where, long[] counts) {
        long now = pair.now();
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            if (c.state() != ConnectionState.ESTABLISHED && c.state() != ConnectionState.CLOSE_PENDING) {
                continue;
            }
            Sender s = c.senderForTest();
            long full = s.nextPacedSendNanosWithFullWaitForTest(now);
            long shortened = s.nextPacedSendNanosForTest(now);
            assertThat(shortened).as("%s side at t=%d: pacing term (%s)", c.isClient() ? "client" : "server", now, where)
                    .isEqualTo(full);
            counts[0]++;
            long due = c.dataWriterForTest().idleResendDueNanos();
            if (due != Long.MAX_VALUE && due > full) {
                counts[1]++;
            }
        }
    }
}
