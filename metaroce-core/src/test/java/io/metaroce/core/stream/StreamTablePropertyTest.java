package io.metaroce.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * {@link StreamTable} against a model of plain {@code long}/{@code int}/{@code boolean} columns:
 * the narrow layout (32-bit counters with a high column made on demand, a pause column made on
 * demand and dropped, a bit set for the round-robin flag) reads back exactly what was written,
 * across the 2^32 boundary of the counters too; and its size per used stream stays within the
 * goal of 64 bytes at every count, not only at the counts just under a growth.
 */
class StreamTablePropertyTest {
    static final int MAX_STREAMS = 4096;
    static final long STREAM_GOAL_BYTES = 64;

    /** The columns as they were before the narrow layout, for comparison. */
    static final class Model {
        final long[] sendNextMessage = new long[MAX_STREAMS];
        final long[] sendNextReceive = new long[MAX_STREAMS];
        final long[] recvNextMessage = new long[MAX_STREAMS];
        final long[] recvPosted = new long[MAX_STREAMS];
        final long[] paused = new long[MAX_STREAMS];
        final boolean[] scheduled = new boolean[MAX_STREAMS];
        final int[] workHead = filled();
        final int[] workTail = filled();
        final int[] sendCursor = filled();
        final int[] recvHead = filled();
        final int[] recvTail = filled();

        private static int[] filled() {
            int[] a = new int[MAX_STREAMS];
            Arrays.fill(a, StreamTable.NONE);
            return a;
        }
    }

    /** A counter value near one of the interesting edges (0, 2^31, 2^32, 2^33, 2^63) or anywhere in u63. */
    private static long counter(SplittableRandom r) {
        long[] edges = {0, 1L << 31, 1L << 32, 1L << 33, Long.MAX_VALUE - 8};
        return switch (r.nextInt(3)) {
            case 0 -> Math.max(0, edges[r.nextInt(edges.length)] - 3 + r.nextInt(6));
            case 1 -> r.nextLong(1L << 40);
            default -> r.nextLong(Long.MAX_VALUE - 16);
        };
    }

    @Property(tries = 200)
    void readsBackWhatWasWritten(@ForAll long seed, @ForAll @IntRange(min = 1, max = 300) int streams) {
        SplittableRandom r = new SplittableRandom(seed);
        StreamTable t = new StreamTable(MAX_STREAMS);
        Model m = new Model();
        int highest = -1;
        long now = 0;
        for (int op = 0; op < 2000; op++) {
            int s = r.nextInt(streams);
            t.ensure(s);
            highest = Math.max(highest, s);
            assertThat(t.capacity()).isGreaterThan(highest);
            switch (r.nextInt(12)) {
                case 0 -> assertThat(t.takeSendMessageSequence(s)).isEqualTo(m.sendNextMessage[s]++);
                case 1 -> assertThat(t.takeSendReceiveSequence(s)).isEqualTo(m.sendNextReceive[s]++);
                case 2 -> assertThat(t.takeRecvPosted(s)).isEqualTo(m.recvPosted[s]++);
                case 3 -> {
                    long v = counter(r);
                    t.recvNextMessage(s, v);
                    m.recvNextMessage[s] = v;
                }
                case 4 -> {
                    long v = counter(r);
                    t.countersForTest(s, v);
                    m.sendNextMessage[s] = v;
                    m.sendNextReceive[s] = v;
                    m.recvPosted[s] = v;
                    m.recvNextMessage[s] = v;
                }
                case 5 -> {
                    long v = r.nextInt(4) == 0 ? 0 : now + r.nextLong(1000);
                    t.pausedUntilNanos(s, v);
                    m.paused[s] = v;
                }
                case 6 -> {
                    now += r.nextLong(500);
                    t.forgetPausesBefore(now);
                    boolean anyAhead = false;
                    for (long until : m.paused) {
                        anyAhead |= until > now;
                    }
                    if (anyAhead) {
                        assertThat(t.holdsPauses()).as("a pause still ahead keeps the column").isTrue();
                    } else {
                        // Every pause has passed: the column goes and each stream reads as never paused.
                        assertThat(t.holdsPauses()).isFalse();
                        Arrays.fill(m.paused, 0);
                    }
                }
                case 7 -> {
                    boolean v = r.nextBoolean();
                    t.scheduled(s, v);
                    m.scheduled[s] = v;
                }
                case 8 -> {
                    int v = r.nextInt(-1, 1000);
                    t.workHead(s, v);
                    m.workHead[s] = v;
                    t.sendCursor(s, v);
                    m.sendCursor[s] = v;
                }
                case 9 -> {
                    int v = r.nextInt(-1, 1000);
                    t.workTail(s, v);
                    m.workTail[s] = v;
                }
                case 10 -> {
                    int v = r.nextInt(-1, 1000);
                    t.recvHead(s, v);
                    m.recvHead[s] = v;
                    t.recvTail(s, v + 1);
                    m.recvTail[s] = v + 1;
                }
                default -> {
                    // growth to a random higher id keeps every value
                    int to = Math.min(MAX_STREAMS - 1, highest + r.nextInt(200));
                    t.ensure(to);
                    highest = Math.max(highest, to);
                }
            }
            check(t, m, s);
            check(t, m, r.nextInt(highest + 1));
        }
        for (int x = 0; x <= highest; x++) {
            check(t, m, x);
        }
    }

    private static void check(StreamTable t, Model m, int x) {
        assertThat(t.recvNextMessage(x)).as("recvNextMessage %d", x).isEqualTo(m.recvNextMessage[x]);
        assertThat(t.recvPosted(x)).as("recvPosted %d", x).isEqualTo(m.recvPosted[x]);
        assertThat(t.pausedUntilNanos(x)).as("pausedUntilNanos %d", x).isEqualTo(m.paused[x]);
        assertThat(t.scheduled(x)).as("scheduled %d", x).isEqualTo(m.scheduled[x]);
        assertThat(t.workHead(x)).as("workHead %d", x).isEqualTo(m.workHead[x]);
        assertThat(t.workTail(x)).as("workTail %d", x).isEqualTo(m.workTail[x]);
        assertThat(t.sendCursor(x)).as("sendCursor %d", x).isEqualTo(m.sendCursor[x]);
        assertThat(t.recvHead(x)).as("recvHead %d", x).isEqualTo(m.recvHead[x]);
        assertThat(t.recvTail(x)).as("recvTail %d", x).isEqualTo(m.recvTail[x]);
    }

    /**
     * What a SEND and its RECV do to a stream's row: each counter taken once, the message list
     * filled and emptied, the round-robin flag set and cleared.
     */
    private static void use(StreamTable t, int s) {
        t.ensure(s);
        t.takeSendMessageSequence(s);
        t.takeSendReceiveSequence(s);
        t.takeRecvPosted(s);
        t.recvNextMessage(s, t.recvNextMessage(s) + 1);
        t.scheduled(s, true);
        t.scheduled(s, false);
    }

    /**
     * Bytes per used stream, (size(n) - size(1)) / (n - 1) with streams 0..n-1 used in turn, for
     * every n from 2 to 2,048: the growth slack included, so the bound holds at the counts just
     * past a growth (the worst ones), not only at 1,000. Streams used out of order (the highest id
     * first) cost the same.
     */
    @Test
    void bytesPerUsedStreamStayWithinTheGoalAtEveryCount() {
        StreamTable t = new StreamTable(MAX_STREAMS);
        use(t, 0);
        long one = GraphLayout.parseInstance(t).totalSize();
        double worst = 0;
        int worstAt = 0;
        for (int n = 2; n <= 2048; n++) {
            use(t, n - 1);
            double perStream = (GraphLayout.parseInstance(t).totalSize() - one) / (double) (n - 1);
            if (perStream > worst) {
                worst = perStream;
                worstAt = n;
            }
            assertThat(perStream).as("bytes per used stream at %d streams", n).isLessThanOrEqualTo(STREAM_GOAL_BYTES);
        }
        System.out.printf("StreamTable: worst %.1f B per used stream, at %d streams (2..2048)%n", worst, worstAt);
    }

    /** The same bound when a connection's first stream is a high id: it grows straight to that id, no further. */
    @Property(tries = 50)
    void aHighIdFirstGrowsToThatIdOnly(@ForAll @IntRange(min = 4, max = 4000) int id) {
        StreamTable t = new StreamTable(MAX_STREAMS);
        use(t, 0);
        long one = GraphLayout.parseInstance(t).totalSize();
        use(t, id);
        assertThat(t.capacity()).isEqualTo(Math.max(id + 1, 6));
        assertThat((GraphLayout.parseInstance(t).totalSize() - one) / (double) id).isLessThanOrEqualTo(STREAM_GOAL_BYTES);
    }
}
