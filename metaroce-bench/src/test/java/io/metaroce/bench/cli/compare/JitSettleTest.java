package io.metaroce.bench.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link JitSettle}: waits while the compilers work, stops at the first quiet interval or at the cap. */
class JitSettleTest {
    /** A fake JIT: compiles {@code busyIntervals} intervals of {@code perInterval} ms each, then nothing. */
    private static final class FakeJit {
        long clockMillis;
        final long busyUntilMillis;
        final long perInterval;

        FakeJit(int busyIntervals, long perInterval) {
            this.busyUntilMillis = busyIntervals * JitSettle.INTERVAL_MILLIS;
            this.perInterval = perInterval;
        }

        long compileMillis() {
            long busy = Math.min(clockMillis, busyUntilMillis);
            return 1_000 + busy / JitSettle.INTERVAL_MILLIS * perInterval;
        }

        void sleep(long millis) {
            clockMillis += millis;
        }
    }

    @Test
    void waitsForTheFirstQuietIntervalWhateverTheBacklog() throws InterruptedException {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 200; i++) {
            int busy = random.nextInt(0, 30);
            long per = random.nextLong(JitSettle.QUIET_MILLIS + 1, 500);
            FakeJit jit = new FakeJit(busy, per);
            long waited = JitSettle.await(jit::compileMillis, 60_000, jit::sleep);
            // Busy intervals are waited through, then one quiet interval ends the wait.
            assertThat(waited).as("seed %d, busy %d", seed, busy).isEqualTo((busy + 1) * JitSettle.INTERVAL_MILLIS);
            assertThat(jit.clockMillis).isEqualTo(waited);
        }
    }

    @Test
    void stopsAtTheCapWhenTheCompilersNeverRest() throws InterruptedException {
        FakeJit jit = new FakeJit(Integer.MAX_VALUE / 1_000, 50);
        assertThat(JitSettle.await(jit::compileMillis, 1_100, jit::sleep)).isEqualTo(1_100);
        assertThat(JitSettle.await(jit::compileMillis, 0, jit::sleep)).isZero();
    }

    @Test
    void aLittleCompilationStillCountsAsQuiet() throws InterruptedException {
        FakeJit jit = new FakeJit(100, JitSettle.QUIET_MILLIS);
        assertThat(JitSettle.await(jit::compileMillis, 10_000, jit::sleep)).isEqualTo(JitSettle.INTERVAL_MILLIS);
    }

    @Test
    void doesNotWaitWhereTheJvmDoesNotReportCompilationTime() throws InterruptedException {
        long[] sleeps = {0};
        assertThat(JitSettle.await(() -> -1, 10_000, ms -> sleeps[0] += ms)).isZero();
        assertThat(sleeps[0]).isZero();
        assertThatThrownBy(() -> JitSettle.await(() -> 0, -1, ms -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMillis");
    }

    @Test
    void whereTheQueueIsKnownItDecidesEvenWhileALongCompileShowsNoTime() throws InterruptedException {
        // A C2 compile in progress adds nothing to the total time until it ends: the queue still says busy.
        FakeJit jit = new FakeJit(0, 0);
        long[] now = {0};
        long waited = JitSettle.await(() -> now[0] < 2_000 ? 1 : 0, jit::compileMillis, 60_000, ms -> {
            now[0] += ms;
            jit.sleep(ms);
        });
        assertThat(waited).isEqualTo(2_000);
        // Nothing pending: no wait at all, however busy the time says it was.
        FakeJit busy = new FakeJit(100, 400);
        assertThat(JitSettle.await(() -> 0, busy::compileMillis, 60_000, busy::sleep)).isZero();
        // Known queue, unknown compilation time: the queue still decides, and the wait happens.
        long[] clock = {0};
        assertThat(JitSettle.await(() -> clock[0] < 1_000 ? 2 : 0, () -> -1, 60_000, ms -> clock[0] += ms))
                .isEqualTo(1_000);
        // Unknown queue: the time decides, as without one.
        FakeJit three = new FakeJit(3, 100);
        assertThat(JitSettle.await(() -> -1, three::compileMillis, 60_000, three::sleep))
                .isEqualTo(4 * JitSettle.INTERVAL_MILLIS);
    }

    @Test
    void countsQueuedAndRunningCompilesOfAHotSpotListing() {
        String listing = """
                Current compiles:\u0020
                C2 CompilerThread0  4930       4       io.metaroce.bench.cli.perf.PingPongClient::onCompletion (225 bytes)

                C1 compile queue:
                Empty

                C2 compile queue:
                4771       4       java.lang.AbstractStringBuilder::newCapacity (49 bytes)
                4900   !   4       io.metaroce.netty.LinuxSyscalls::recvmmsg (24 bytes)
                 987       3       java.lang.String::hashCode (60 bytes)
                """;
        // The last id is below 1000: HotSpot pads it with a leading space.
        assertThat(JitSettle.pendingCompiles(listing)).isEqualTo(4);
        assertThat(JitSettle.pendingCompiles("Current compiles: \n\nC1 compile queue:\nEmpty\n\nC2 compile queue:\nEmpty\n"))
                .isZero();
        // This JVM (HotSpot) answers the diagnostic command.
        assertThat(JitSettle.pendingCompiles()).isGreaterThanOrEqualTo(0);
    }
}
