package io.metaroce.core.sack;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PacketTable} against a model map of the issued CSNs: the floor ([SPEC-ADM-1]), the window
 * check, growth and the per-CSN data; {@code finishOutstanding} of an outstanding CSN as {@code finish}.
 */
class PacketTableTest {

    static LongStream seeds() {
        return PropertySeeds.of(60);
    }

    /** What the table should hold for one CSN. */
    static final class Entry {
        byte state = PacketTable.OUTSTANDING;
        final int owner;
        final int generation;
        final long offset;
        final int length;
        boolean queued;

        Entry(int owner, int generation, long offset, int length) {
            this.owner = owner;
            this.generation = generation;
            this.offset = offset;
            this.length = length;
        }
    }

    static final class Model {
        final int window;
        final TreeMap<Long, Entry> live = new TreeMap<>(); // [floor, next)
        long floor;
        long next;

        Model(int window) {
            this.window = window;
        }

        boolean canIssue(int peerWindow) {
            return next - floor < Math.min(window, peerWindow);
        }

        void finish(long csn, byte state) {
            live.get(csn).state = state;
            while (floor < next && live.get(floor).state != PacketTable.OUTSTANDING) {
                live.remove(floor);
                floor++;
            }
        }

        List<Long> outstanding() {
            List<Long> out = new ArrayList<>();
            live.forEach((c, e) -> {
                if (e.state == PacketTable.OUTSTANDING) {
                    out.add(c);
                }
            });
            return out;
        }
    }

    private static void check(long seed, String when, PacketTable t, Model m, int peerWindow) {
        assertThat(t.floor()).as("seed %d %s: floor", seed, when).isEqualTo(m.floor);
        assertThat(t.next()).as("seed %d %s: next", seed, when).isEqualTo(m.next);
        List<String> wrong = new ArrayList<>();
        for (int w : new int[] {1, 2, 3, peerWindow, m.window - 1, m.window, m.window + 1, Integer.MAX_VALUE}) {
            if (w > 0 && t.canIssue(w) != m.canIssue(w)) {
                wrong.add("canIssue(" + w + ") = " + t.canIssue(w));
            }
        }
        for (long c = m.floor - 3; c < m.next + 3; c++) {
            Entry e = m.live.get(c);
            byte exp = e == null ? PacketTable.FREE : e.state;
            if (t.state(c) != exp) {
                wrong.add("state(" + c + ") = " + t.state(c) + ", expected " + exp);
            }
            if (e != null && e.state == PacketTable.OUTSTANDING) {
                if (t.owner(c) != e.owner || t.ownerGeneration(c) != e.generation || t.messageOffset(c) != e.offset
                        || t.payloadLength(c) != e.length || t.queued(c) != e.queued) {
                    wrong.add("data of " + c + ": owner " + t.owner(c) + "/" + e.owner + " generation " + t.ownerGeneration(c)
                            + "/" + e.generation + " offset " + t.messageOffset(c) + "/" + e.offset + " length "
                            + t.payloadLength(c) + "/" + e.length + " queued " + t.queued(c) + "/" + e.queued);
                }
            }
            if (wrong.size() > 20) {
                break;
            }
        }
        assertThat(wrong).as("seed %d %s: floor %d, next %d, window %d", seed, when, m.floor, m.next, m.window).isEmpty();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void issueAndFinishInRandomOrderMatchModel(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        int[] windows = {1, 2, 4, 16, 32, 64, 256, 1024};
        int window = windows[rnd.nextInt(windows.length)];
        PacketTable t = new PacketTable(window);
        Model m = new Model(window);
        int peerWindow = pickPeerWindow(rnd, window);
        check(seed, "initially", t, m, peerWindow);

        int steps = 1500;
        for (int step = 0; step < steps; step++) {
            int op = rnd.nextInt(100);
            String what;
            // Phases of filling and draining, so the table reaches the window and grows.
            boolean fill = (step / 200) % 2 == 0;
            if (op < (fill ? 60 : 35)) {
                if (m.canIssue(peerWindow)) {
                    int owner = rnd.nextInt(1000);
                    int gen = rnd.nextInt();
                    long offset = rnd.nextLong(1L << 40);
                    int length = rnd.nextInt(65_536);
                    long csn = t.issue(owner, gen, offset, length);
                    what = "issue " + csn;
                    assertThat(csn).as("seed %d step %d: issued csn", seed, step).isEqualTo(m.next);
                    m.live.put(csn, new Entry(owner, gen, offset, length));
                    m.next++;
                } else {
                    what = "window full";
                    assertThat(t.canIssue(peerWindow)).as("seed %d step %d: canIssue(%d) with %d outstanding span, window %d",
                            seed, step, peerWindow, m.next - m.floor, window).isFalse();
                }
            } else if (op < 92) {
                List<Long> out = m.outstanding();
                what = "finish nothing";
                if (!out.isEmpty()) {
                    long csn = rnd.nextInt(4) == 0 ? out.get(0) : out.get(rnd.nextInt(out.size()));
                    byte st = rnd.nextBoolean() ? PacketTable.DELIVERED : PacketTable.ABANDONED;
                    // An outstanding CSN finishes alike through finish and through finishOutstanding
                    // (the acknowledgement path's, which skips the state look-up).
                    boolean known = rnd.nextBoolean();
                    what = (known ? "finishOutstanding " : "finish ") + csn + " as " + st;
                    if (known) {
                        t.finishOutstanding(csn, st);
                    } else {
                        t.finish(csn, st);
                    }
                    m.finish(csn, st);
                }
            } else if (op < 98) {
                List<Long> out = m.outstanding();
                what = "queue nothing";
                if (!out.isEmpty()) {
                    long csn = out.get(rnd.nextInt(out.size()));
                    boolean q = rnd.nextBoolean();
                    t.queued(csn, q);
                    m.live.get(csn).queued = q;
                    what = "queued " + csn + " " + q;
                }
            } else {
                peerWindow = pickPeerWindow(rnd, window);
                what = "peer window " + peerWindow;
            }
            check(seed, "step " + step + " " + what, t, m, peerWindow);
        }
        // Drain in random order: the floor ends at next.
        List<Long> out = m.outstanding();
        while (!out.isEmpty()) {
            long csn = out.remove(rnd.nextInt(out.size()));
            t.finish(csn, PacketTable.DELIVERED);
            m.finish(csn, PacketTable.DELIVERED);
            check(seed, "drain " + csn, t, m, peerWindow);
        }
        assertThat(t.floor()).as("seed %d: drained", seed).isEqualTo(t.next());
    }

    private static int pickPeerWindow(SplittableRandom rnd, int window) {
        return switch (rnd.nextInt(5)) {
            case 0 -> 1 + rnd.nextInt(window);
            case 1 -> Math.max(1, window / 2);
            case 2 -> window * 2;
            case 3 -> Integer.MAX_VALUE;
            default -> window;
        };
    }

    /** Filling the whole window grows the ring from 16 to the window; every CSN keeps its data. */
    @ParameterizedTest(name = "window {0}")
    @ValueSource(ints = {1, 2, 8, 16, 32, 128, 4096})
    void growthKeepsOwnersOffsetsAndLengths(int window) {
        SplittableRandom rnd = new SplittableRandom(window);
        PacketTable t = new PacketTable(window);
        Model m = new Model(window);
        // Move the floor off zero first so the ring wraps while it grows.
        int warm = 5 + rnd.nextInt(20);
        for (int i = 0; i < warm; i++) {
            long c = t.issue(0, 0, 0, 0);
            m.live.put(c, new Entry(0, 0, 0, 0));
            m.next++;
            t.finish(c, PacketTable.DELIVERED);
            m.finish(c, PacketTable.DELIVERED);
        }
        for (int i = 0; i < window; i++) {
            assertThat(t.canIssue(window)).as("window %d: room for %d", window, i).isTrue();
            Entry e = new Entry(i, i * 7, 1000L * i, i % 9000);
            long c = t.issue(e.owner, e.generation, e.offset, e.length);
            m.live.put(c, e);
            m.next++;
            if (i % 3 == 0) {
                t.queued(c, true);
                e.queued = true;
            }
        }
        assertThat(t.canIssue(window)).as("window %d: full", window).isFalse();
        assertThat(t.canIssue(Integer.MAX_VALUE)).as("window %d: own window applies", window).isFalse();
        check(window, "full", t, m, window);
        // Finish everything but the first: the floor stays.
        List<Long> out = m.outstanding();
        long first = out.remove(0);
        for (long c : out) {
            t.finish(c, PacketTable.ABANDONED);
            m.finish(c, PacketTable.ABANDONED);
        }
        check(window, "all but the first finished", t, m, window);
        assertThat(t.floor()).as("window %d", window).isEqualTo(first);
        assertThat(t.canIssue(window)).as("window %d", window).isFalse();
        t.finish(first, PacketTable.DELIVERED);
        m.finish(first, PacketTable.DELIVERED);
        assertThat(t.floor()).as("window %d", window).isEqualTo(t.next());
        assertThat(t.canIssue(window)).as("window %d", window).isTrue();
        check(window, "empty", t, m, window);
    }

    @Test
    void stateIsFreeBelowTheFloorAndFromNext() {
        PacketTable t = new PacketTable(64);
        assertThat(t.state(0)).isEqualTo(PacketTable.FREE);
        assertThat(t.state(-1)).isEqualTo(PacketTable.FREE);
        for (int i = 0; i < 40; i++) {
            t.issue(i, 1, i, 1);
        }
        t.finish(0, PacketTable.DELIVERED);
        t.finish(1, PacketTable.ABANDONED);
        t.finish(5, PacketTable.DELIVERED);
        assertThat(t.floor()).isEqualTo(2);
        assertThat(t.state(0)).isEqualTo(PacketTable.FREE);
        assertThat(t.state(1)).isEqualTo(PacketTable.FREE);
        assertThat(t.state(2)).isEqualTo(PacketTable.OUTSTANDING);
        assertThat(t.state(5)).isEqualTo(PacketTable.DELIVERED);
        assertThat(t.state(39)).isEqualTo(PacketTable.OUTSTANDING);
        assertThat(t.state(40)).isEqualTo(PacketTable.FREE);
        assertThat(t.state(40 + 64)).isEqualTo(PacketTable.FREE);
        assertThat(t.state(Long.MAX_VALUE)).isEqualTo(PacketTable.FREE);
        assertThat(t.canIssue(38)).as("38 = next - floor").isFalse();
        assertThat(t.canIssue(39)).isTrue();
    }

    @Test
    void windowMustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new PacketTable(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PacketTable(48)).isInstanceOf(IllegalArgumentException.class);
    }
}
