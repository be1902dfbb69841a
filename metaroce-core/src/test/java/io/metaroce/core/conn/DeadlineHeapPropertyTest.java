package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link DeadlineHeap}, the endpoint's heaps of connection slots, against a plain array of keys:
 * random sets (insert, raise, lower, equal keys, {@link Long#MAX_VALUE} to remove), polls of the
 * minimum, clears and growth. After every operation the minimum, the size, membership and every
 * member's key must agree with the array's; a poll must return a slot holding the least key.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 40) runs
 * more and a failure names its seed.
 */
class DeadlineHeapPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(40);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void heapAgreesWithAnArrayOfKeys(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0x4EA9);
        DeadlineHeap heap = new DeadlineHeap();
        int slots = 1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 100);
        heap.ensureCapacity(slots);
        long[] expected = new long[slots];
        Arrays.fill(expected, Long.MAX_VALUE);
        // A small key range half the time, so that equal keys are common.
        long range = rnd.nextBoolean() ? 16 : Long.MAX_VALUE - 1;
        int polls = 0;
        for (int step = 0; step < 2_000; step++) {
            String where = "step " + step + " (seed " + seed + ", " + slots + " slots)";
            int op = rnd.nextInt(20);
            if (op == 0) {
                heap.clear();
                Arrays.fill(expected, Long.MAX_VALUE);
            } else if (op == 1 && slots < 200) {
                // Growth keeps what is in the heap.
                int grown = slots + 1 + rnd.nextInt(slots);
                heap.ensureCapacity(grown);
                expected = Arrays.copyOf(expected, grown);
                Arrays.fill(expected, slots, grown, Long.MAX_VALUE);
                slots = grown;
            } else if (op <= 5) {
                long min = minOf(expected);
                if (min != Long.MAX_VALUE) {
                    int s = heap.pollMin();
                    assertThat(expected[s]).as("key of the slot polled, %s", where).isEqualTo(min);
                    expected[s] = Long.MAX_VALUE;
                    polls++;
                }
            } else {
                int s = rnd.nextInt(slots);
                long k = rnd.nextInt(6) == 0 ? Long.MAX_VALUE : rnd.nextLong(range);
                heap.set(s, k);
                expected[s] = k;
            }
            assertThat(heap.minKey()).as("minimum after %s", where).isEqualTo(minOf(expected));
            int size = 0;
            for (int s = 0; s < slots; s++) {
                boolean in = expected[s] != Long.MAX_VALUE;
                assertThat(heap.contains(s)).as("slot %d in the heap after %s", s, where).isEqualTo(in);
                if (in) {
                    size++;
                    assertThat(heap.keyOf(s)).as("key of slot %d after %s", s, where).isEqualTo(expected[s]);
                }
            }
            assertThat(heap.size()).as("size after %s", where).isEqualTo(size);
        }
        assertThat(polls).as("minima polled (seed %d)", seed).isPositive();
        System.out.println("DeadlineHeapPropertyTest seed " + seed + ": " + slots + " slots, " + polls + " polls");
    }

    private static long minOf(long[] keys) {
        long m = Long.MAX_VALUE;
        for (long k : keys) {
            m = Math.min(m, k);
        }
        return m;
    }
}
