package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The event queue pops by time, ties in insertion order, whatever the push order, and whether an
 * event waits in the timing wheel or in the heap of far events.
 */
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

    /**
     * Pushes as a simulation does (mostly just ahead of the last popped time, some far ahead, a few
     * in the past, bursts at one instant) into a small wheel, so events wrap round it, fall
     * outside it and tie across the wheel and the heap; every pop must match a reference queue.
     */
    @Test
    void matchesAReferenceQueueAcrossWheelWrapsAndFarEvents() {
        for (int wheelBits : new int[] {6, 7, 10}) {
            for (long seed = 1; seed <= 60; seed++) {
                SplittableRandom r = new SplittableRandom(seed * 31 + wheelBits);
                EventQueue q = new EventQueue(wheelBits);
                PriorityQueue<Entry> reference = new PriorityQueue<>(
                        Comparator.comparingLong(Entry::time).thenComparingLong(Entry::seq));
                long now = 0;
                long seq = 0;
                int ops = 200 + r.nextInt(5_000);
                for (int i = 0; i < ops; i++) {
                    if (q.isEmpty() || r.nextInt(5) < 3) {
                        int burst = r.nextInt(8) == 0 ? 1 + r.nextInt(6) : 1;
                        long t = switch (r.nextInt(10)) {
                            case 0 -> now + (1L << wheelBits) - 1 + r.nextInt(3 << wheelBits); // at or beyond the wheel's end
                            case 1 -> Math.max(0, now - r.nextInt(50)); // in the past
                            case 2 -> now; // now
                            default -> now + r.nextInt(1 << wheelBits);
                        };
                        for (int k = 0; k < burst; k++) {
                            q.push(t, seq);
                            reference.add(new Entry(t, seq++));
                        }
                    } else {
                        Entry least = reference.poll();
                        assertThat(new Entry(q.peekTime(), q.peekPayload())).as("wheelBits %d seed %d op %d", wheelBits, seed, i)
                                .isEqualTo(least);
                        if (r.nextBoolean()) {
                            q.pop();
                        } else {
                            // poll: the peek and the pop in one
                            assertThat(q.poll()).as("wheelBits %d seed %d op %d poll", wheelBits, seed, i).isEqualTo(least.seq());
                        }
                        now = Math.max(now, least.time());
                    }
                    assertThat(q.size()).isEqualTo(reference.size());
                }
                while (!reference.isEmpty()) {
                    Entry least = reference.poll();
                    assertThat(q.peekTime()).as("wheelBits %d seed %d drain", wheelBits, seed).isEqualTo(least.time());
                    assertThat(q.poll()).as("wheelBits %d seed %d drain", wheelBits, seed).isEqualTo(least.seq());
                }
                assertThat(q.isEmpty()).isTrue();
                assertThat(q.peekTime()).isEqualTo(Long.MAX_VALUE);
                assertThat(q.popped()).isEqualTo(seq);
            }
        }
    }

    @Test
    void rejectsAWheelOutsideItsRange() {
        assertThatThrownBy(() -> new EventQueue(5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wheelBits");
        assertThatThrownBy(() -> new EventQueue(25)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wheelBits");
    }

    @Test
    void popOnEmptyFailsWithAHint() {
        assertThatThrownBy(() -> new EventQueue().pop()).isInstanceOf(IllegalStateException.class).hasMessageContaining("isEmpty");
        assertThatThrownBy(() -> new EventQueue().poll()).isInstanceOf(IllegalStateException.class).hasMessageContaining("isEmpty");
        assertThat(new EventQueue().peekTime()).isEqualTo(Long.MAX_VALUE);
    }
}
