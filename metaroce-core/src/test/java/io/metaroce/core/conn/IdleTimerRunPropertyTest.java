package io.metaroce.core.conn;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.api.PathStats;
import io.metaroce.core.harness.Pair;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Connection#handleTimeout} returns at once, without looking at its paths, when its cached
 * deadlines are fresh and none has come (the paths' ACK deadlines aside) (an endpoint runs the timers of every connection whenever
 * one is due). That shortcut is only right if a full timer pass with nothing due changes nothing.
 * This checks that property directly: at every event of a randomly generated run (lossy,
 * reordering, CE-marking network, a path black-holed for a while so that it turns SUSPECT, fails
 * and is probed back, SENDs, WRITEs and READs, then a close or an abort), whenever a connection
 * has nothing due, a full timer pass (cache forgotten first) leaves its counters, every path's
 * statistics and its next timeout exactly as they were.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 8) runs
 * more and a failure names its seed.
 */
class IdleTimerRunPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(8);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aTimerPassWithNothingDueChangesNothing(long seed) {
        int[] checked = {0};
        RandomConnectionRun.run(seed, 11, 20, "IdleTimerRunPropertyTest",
                (pair, where) -> checked[0] += check(pair, where));
        assertThat(checked[0]).as("timer passes with nothing due were checked, seed %d", seed).isPositive();
    }

    /**
     * The shortcut also skips a pass while only ACK deadlines have come (the transmit poll sends a
     * due ACK, no timer acts on it): a full pass then must change nothing either. The pair sends a
     * due ACK at once, so at every event where a side has an ACK deadline pending and no timer due
     * until then, a full pass is run at that deadline.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aTimerPassWithOnlyAckDeadlinesDueChangesNothing(long seed) {
        int[] checked = {0};
        RandomConnectionRun.run(seed, 13, 20, "IdleTimerRunPropertyTest acks",
                (pair, where) -> checked[0] += checkAcksOnlyDue(pair, where));
        assertThat(checked[0]).as("timer passes with only ACK deadlines due were checked, seed %d", seed).isPositive();
    }

    /**
     * The shortcut decides by the cached timer deadline: at every event where a side's cache is
     * fresh, that deadline must be the one computed from scratch (earlier would only cost a pass;
     * later would skip a timer that is due).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theCachedTimerDeadlineIsTheOneComputedFromScratch(long seed) {
        int[] checked = {0};
        RandomConnectionRun.run(seed, 17, 20, "IdleTimerRunPropertyTest cached", (pair, where) -> {
            for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
                long cached = c.cachedTimerDeadlineNanosForTest();
                if (cached == Long.MIN_VALUE || c.state() != ConnectionState.ESTABLISHED) {
                    continue;
                }
                assertThat(cached).as("%s side's cached timer deadline at t=%d (%s)",
                        c.isClient() ? "client" : "server", pair.now(), where)
                        .isEqualTo(c.timerDeadlinesNanosUncached());
                checked[0]++;
            }
        });
        assertThat(checked[0]).as("fresh caches checked, seed %d", seed).isPositive();
    }

    /** Runs a full timer pass at each side's ACK deadline if no timer is due by then; returns how many it checked. */
    private static int checkAcksOnlyDue(Pair pair, String where) {
        int checked = 0;
        long now = pair.now();
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            long ack = c.ackDeadlinesNanos();
            if (ack == Long.MAX_VALUE || c.state() != ConnectionState.ESTABLISHED) {
                continue;
            }
            long at = Math.max(now, ack);
            long timers = c.timerDeadlinesNanosUncached();
            if (timers <= at) {
                continue;
            }
            String before = snapshot(c, now);
            c.forgetCachedTimeouts();
            c.handleTimeout(at);
            assertThat(snapshot(c, now)).as("%s side, pass at its ACK deadline t=%d, no timer before %d (%s)",
                    c.isClient() ? "client" : "server", at, timers, where).isEqualTo(before);
            checked++;
        }
        return checked;
    }

    /** Runs a full timer pass on every side with nothing due; returns how many it checked. */
    private static int check(Pair pair, String where) {
        int checked = 0;
        long now = pair.now();
        for (Connection c : new Connection[] {pair.clientConnection(), pair.serverConnection()}) {
            long next = c.nextTimeoutNanosUncached(now);
            if (next <= now || c.state() != ConnectionState.ESTABLISHED) {
                continue;
            }
            String before = snapshot(c, now);
            c.forgetCachedTimeouts();
            c.handleTimeout(now);
            assertThat(snapshot(c, now)).as("%s side at t=%d, nothing due before %d (%s)",
                    c.isClient() ? "client" : "server", now, next, where).isEqualTo(before);
            checked++;
        }
        return checked;
    }

    /** The connection's state, counters, every path's statistics and its next timeout, as text. */
    private static String snapshot(Connection c, long now) {
        StringBuilder s = new StringBuilder().append(c.state()).append(" next=").append(c.nextTimeoutNanosUncached(now));
        try {
            for (Field f : ConnectionStats.class.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    Object v = f.get(c.stats());
                    s.append(' ').append(f.getName()).append('=')
                            .append(v instanceof long[] a ? java.util.Arrays.toString(a) : String.valueOf(v));
                }
            }
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
        PathStats p = new PathStats();
        for (int i = 0; c.readPathStats(i, p); i++) {
            s.append("\n  path ").append(i).append(": ").append(p);
        }
        return s.toString();
    }
}
