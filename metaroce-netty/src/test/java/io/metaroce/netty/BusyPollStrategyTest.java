package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link BusyPollStrategy}: what one turn asks of the endpoint's poller, of the selector and of the
 * timer. With a poller that reads directly, the selector is asked only every
 * {@link BusyPollStrategy#SELECT_EVERY_TURNS} turns; with one that cannot (or none), on every turn;
 * what the selector reports is what the turn returns, so Netty reads those sockets.
 */
class BusyPollStrategyTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    @Test
    void aDirectPollerIsAskedEveryTurnAndTheSelectorOnlyEverySelectEveryTurns() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        BusyPollStrategy strategy = new BusyPollStrategy();
        int[] polls = {0};
        strategy.poller(() -> {
            polls[0]++;
            return random.nextInt(3); // 0, 1 or 2 datagrams read directly
        });
        int[] selects = {0};
        int turns = 10 * BusyPollStrategy.SELECT_EVERY_TURNS + random.nextInt(BusyPollStrategy.SELECT_EVERY_TURNS);
        for (int i = 0; i < turns; i++) {
            int ready = strategy.calculateStrategy(() -> {
                selects[0]++;
                return 1;
            }, false);
            boolean selectTurn = (i + 1) % BusyPollStrategy.SELECT_EVERY_TURNS == 0;
            assertThat(ready).as("turn %d, seed %d", i, seed).isEqualTo(selectTurn ? 1 : 0);
        }
        assertThat(polls[0]).isEqualTo(turns);
        assertThat(selects[0]).as("seed %d", seed).isEqualTo(turns / BusyPollStrategy.SELECT_EVERY_TURNS);
    }

    @Test
    void withoutADirectPollerEveryTurnAsksTheSelectorAndReturnsWhatItReports() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        BusyPollStrategy none = new BusyPollStrategy();
        BusyPollStrategy selectorOnly = new BusyPollStrategy();
        selectorOnly.poller(() -> -1); // a layer that cannot read directly
        for (BusyPollStrategy strategy : new BusyPollStrategy[] {none, selectorOnly}) {
            for (int i = 0; i < 100; i++) {
                int reported = random.nextInt(4);
                int[] selects = {0};
                int ready = strategy.calculateStrategy(() -> {
                    selects[0]++;
                    return reported;
                }, random.nextBoolean());
                assertThat(selects[0]).as("turn %d, seed %d", i, seed).isEqualTo(1);
                assertThat(ready).as("turn %d, seed %d", i, seed).isEqualTo(reported);
            }
        }
    }

    @Test
    void theTimerRunsOnTheFirstTurnPastItsDeadlineAndThePollerAfterIt() throws Exception {
        BusyPollStrategy strategy = new BusyPollStrategy();
        StringBuilder order = new StringBuilder();
        PolledLoopTimer timer = strategy.timer(() -> order.append('t'));
        strategy.poller(() -> {
            order.append('p');
            return 0;
        });
        timer.arm(0);
        strategy.calculateStrategy(() -> 0, false);
        strategy.calculateStrategy(() -> 0, false);
        assertThat(order.toString()).isEqualTo("tpp");
    }

    @Test
    void oneEndpointPerStrategy() {
        BusyPollStrategy strategy = new BusyPollStrategy();
        strategy.poller(() -> 0);
        assertThatThrownBy(() -> strategy.poller(() -> 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("one endpoint");
    }
}
