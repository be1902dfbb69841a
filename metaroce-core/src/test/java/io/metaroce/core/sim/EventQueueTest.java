package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The event queue pops by time, ties in insertion order, whatever the push order. */
class EventQueueTest {

    private record Entry(long time, long seq) {
    }

    @Test
    void popsByTimeThenInsertionOrderForManySeeds() {
        for (long seed = 1; seed <= 100; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            EventQueue q = new EventQueue();
            List<Entry> reference = new ArrayList<>();
            List<Entry> popped = new ArrayList<>();
            long seq = 0;
            int ops = 50 + r.nextInt(1_500);
            for (int i = 0; i < ops; i++) {
                if (q.isEmpty() || r.nextInt(3) != 0) {
                    long t = r.nextInt(40); // few distinct times: many ties
                    q.push(t, seq);
                    reference.add(new Entry(t, seq++));
                } else {
                    popped.add(new Entry(q.peekTime(), q.peekPayload()));
                    q.pop();
                }
            }
            while (!q.isEmpty()) {
                popped.add(new Entry(q.peekTime(), q.peekPayload()));
                q.pop();
            }
            // Each pop must be the least (time, seq) of what was pending: replay against a sorted reference.
            List<Entry> pending = new ArrayList<>();
            int next = 0;
            SplittableRandom replay = new SplittableRandom(seed);
            int replayOps = 50 + replay.nextInt(1_500);
            int poppedIndex = 0;
            int pendingCount = 0;
            for (int i = 0; i < replayOps; i++) {
                if (pendingCount == 0 || replay.nextInt(3) != 0) {
                    replay.nextInt(40);
                    pending.add(reference.get(next++));
                    pendingCount++;
                } else {
                    Entry least = pending.stream().min(Comparator.comparingLong(Entry::time).thenComparingLong(Entry::seq)).orElseThrow();
                    assertThat(popped.get(poppedIndex++)).as("seed %d", seed).isEqualTo(least);
                    pending.remove(least);
                    pendingCount--;
                }
            }
            pending.sort(Comparator.comparingLong(Entry::time).thenComparingLong(Entry::seq));
            assertThat(popped.subList(poppedIndex, popped.size())).as("seed %d", seed).isEqualTo(pending);
            assertThat(q.popped()).isEqualTo(reference.size());
        }
    }

    @Test
    void popOnEmptyFailsWithAHint() {
        assertThatThrownBy(() -> new EventQueue().pop()).isInstanceOf(IllegalStateException.class).hasMessageContaining("isEmpty");
        assertThat(new EventQueue().peekTime()).isEqualTo(Long.MAX_VALUE);
    }
}
