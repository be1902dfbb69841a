package io.metaroce.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link InboundMessages} against a map from (stream, message sequence) to slot: whatever the
 * order of creates, look-ups, removes, clears and idle shrinks, {@link InboundMessages#find} finds
 * exactly the messages held, at the slot {@link InboundMessages#create} gave them, and nothing
 * else. The table keeps its last-created slot out of its hash index until the next create, and
 * looks up nothing while the index is empty; the sequences drawn mix the patterns that exercise
 * those shortcuts (a message of one packet created and removed before the next, several held at
 * once, a removal of an older one while the newest is still unindexed, sequence numbers past 2^32).
 */
class InboundMessagesPropertyTest {

    private record Key(int stream, long msn) {
    }

    /** A fresh table's capacity (its initial size). */
    private static final int INITIAL = new InboundMessages().capacity();

    /**
     * {@link InboundMessages#grown} is false on a fresh table, true once more messages are held
     * than its initial size, and false again after {@link InboundMessages#shrinkIfIdle} once they
     * are removed [SPEC-CONN-18].
     */
    @Property(tries = 20)
    void grownUntilAnIdleShrink(@ForAll @IntRange(min = 1, max = 64) int burst) {
        InboundMessages t = new InboundMessages();
        assertThat(t.grown()).as("fresh").isFalse();
        int[] slots = new int[burst];
        for (int i = 0; i < burst; i++) {
            slots[i] = t.create(0, i, WorkRequests.SEND, 64);
        }
        boolean grew = burst > INITIAL;
        assertThat(t.grown()).as("%d held", burst).isEqualTo(grew);
        assertThat(t.shrinkIfIdle()).as("shrinkIfIdle while %d held", burst).isFalse();
        assertThat(t.grown()).as("after a refused shrink").isEqualTo(grew);
        for (int slot : slots) {
            t.remove(slot);
        }
        assertThat(t.shrinkIfIdle()).as("shrinkIfIdle once empty").isEqualTo(grew);
        assertThat(t.grown()).as("after shrinkIfIdle").isFalse();
        assertThat(t.capacity()).isEqualTo(INITIAL);
        assertThat(t.find(0, 0)).as("nothing found after the shrink").isEqualTo(StreamTable.NONE);
    }

    @Property(tries = 300)
    void findsExactlyTheMessagesHeld(@ForAll long seed, @ForAll @IntRange(min = 1, max = 12) int maxHeld,
            @ForAll @IntRange(min = 1, max = 4) int streams) {
        SplittableRandom r = new SplittableRandom(seed);
        InboundMessages t = new InboundMessages();
        Map<Key, Integer> model = new HashMap<>();
        List<Key> held = new ArrayList<>();
        // Odd streams start just under 2^32, so their sequence numbers cross it. (The index keys a
        // message by the low 32 bits of its sequence number, as the receive window allows: no two
        // messages held, nor looked up, here are 2^32 apart.)
        long[] firstMsn = new long[streams];
        for (int s = 1; s < streams; s += 2) {
            firstMsn[s] = (1L << 32) - 5;
        }
        long[] nextMsn = firstMsn.clone();
        for (int op = 0; op < 3000; op++) {
            int kind = r.nextInt(20);
            if (kind < 7 && held.size() < maxHeld) {
                int s = r.nextInt(streams);
                long msn = nextMsn[s]++;
                Key k = new Key(s, msn);
                if (model.containsKey(k)) {
                    continue;
                }
                assertThat(t.find(s, msn)).as("find before create %s", k).isEqualTo(StreamTable.NONE);
                int slot = t.create(s, msn, WorkRequests.SEND, 64);
                assertThat(model.containsValue(slot)).as("slot %d handed out twice", slot).isFalse();
                model.put(k, slot);
                held.add(k);
            } else if (kind < 12 && !held.isEmpty()) {
                // Remove the newest (the one-packet message's pattern) or any other.
                Key k = r.nextBoolean() ? held.get(held.size() - 1) : held.get(r.nextInt(held.size()));
                int slot = model.remove(k);
                held.remove(k);
                assertThat(t.find(k.stream(), k.msn())).isEqualTo(slot);
                t.remove(slot);
                assertThat(t.find(k.stream(), k.msn())).as("find after remove %s", k).isEqualTo(StreamTable.NONE);
            } else if (kind == 12) {
                t.clear();
                model.clear();
                held.clear();
            } else if (kind == 13) {
                int capacityBefore = t.capacity();
                assertThat(t.grown()).as("grown() at capacity %d", capacityBefore).isEqualTo(capacityBefore > INITIAL);
                boolean shrank = t.shrinkIfIdle();
                assertThat(shrank).as("shrank, %d held, capacity %d", held.size(), capacityBefore)
                        .isEqualTo(held.isEmpty() && capacityBefore > INITIAL);
                assertThat(t.capacity()).as("capacity after shrinkIfIdle").isEqualTo(shrank ? INITIAL : capacityBefore);
                assertThat(t.grown()).as("grown() after shrinkIfIdle").isEqualTo(!shrank && capacityBefore > INITIAL);
            } else {
                // Look-ups of a message held, of one removed, or of one never created.
                int s = r.nextInt(streams);
                long msn = firstMsn[s] + r.nextLong(nextMsn[s] - firstMsn[s] + 2);
                Key k = new Key(s, msn);
                assertThat(t.find(s, msn)).as("find %s", k).isEqualTo(model.getOrDefault(k, StreamTable.NONE));
            }
            assertThat(t.size()).isEqualTo(model.size());
        }
        for (Map.Entry<Key, Integer> e : model.entrySet()) {
            assertThat(t.find(e.getKey().stream(), e.getKey().msn())).isEqualTo(e.getValue());
            assertThat(t.stream[e.getValue()]).isEqualTo(e.getKey().stream());
            assertThat(t.messageSequence[e.getValue()]).isEqualTo(e.getKey().msn());
        }
    }
}
