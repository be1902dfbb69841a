package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link PolledLoopTimer}: the busy-polling loop's timer runs its task once per arming, when due. */
class PolledLoopTimerTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    @Test
    void aDueArmingRunsOnceAndAFutureOneNotYet() {
        int[] runs = new int[1];
        PolledLoopTimer timer = new PolledLoopTimer(() -> runs[0]++);
        timer.poll();
        assertThat(runs[0]).as("never armed").isZero();
        timer.arm(0);
        timer.poll();
        timer.poll();
        assertThat(runs[0]).as("armed once, due at once").isEqualTo(1);
        timer.arm(TimeUnit.HOURS.toNanos(1));
        timer.poll();
        assertThat(runs[0]).as("due in an hour").isEqualTo(1);
        timer.arm(0); // re-arming replaces the later deadline
        timer.poll();
        assertThat(runs[0]).isEqualTo(2);
    }

    @Test
    void cancelAndCloseDisarm() {
        int[] runs = new int[1];
        PolledLoopTimer timer = new PolledLoopTimer(() -> runs[0]++);
        timer.arm(0);
        timer.cancel();
        timer.poll();
        assertThat(runs[0]).as("cancelled").isZero();
        timer.arm(0);
        timer.close();
        timer.poll();
        timer.arm(0);
        timer.poll();
        assertThat(runs[0]).as("closed, and arming after close does nothing").isZero();
    }

    @Test
    void theTaskMayArmAgainFromInsideAndRunsOnTheNextTurn() {
        int[] runs = new int[1];
        PolledLoopTimer[] self = new PolledLoopTimer[1];
        self[0] = new PolledLoopTimer(() -> {
            if (++runs[0] < 3) {
                self[0].arm(0);
            }
        });
        self[0].arm(0);
        for (int turn = 0; turn < 10; turn++) {
            self[0].poll();
        }
        assertThat(runs[0]).isEqualTo(3);
    }
}
