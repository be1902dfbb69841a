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
}
