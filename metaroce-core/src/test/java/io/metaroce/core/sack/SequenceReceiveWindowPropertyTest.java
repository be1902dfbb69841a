package io.metaroce.core.sack;

import io.metaroce.core.PropertySeeds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SequenceReceiveWindow} against a model set of admitted CSNs and the highest floor seen:
 * classification ([SPEC-ADM-4]), the base ([SPEC-ADM-3]), floor jumps of every size and growth of
 * the bitmap.
 */
class SequenceReceiveWindowPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(60);
    }

    /** CSNs below {@code base} are final; {@code admitted} holds the admitted ones at or above it. */
    static final class Model {
        final int size;
        long base;
        final TreeSet<Long> admitted = new TreeSet<>();

        Model(int size) {
            this.size = size;
        }

        int classify(long csn) {
            if (csn < base || admitted.contains(csn)) {
                return SequenceReceiveWindow.DUPLICATE;
            }
            return csn - base >= size ? SequenceReceiveWindow.BEYOND_WINDOW : SequenceReceiveWindow.NEW;
        }

        void admit(long csn) {
            admitted.add(csn);
            settle();
        }

        void advanceTo(long floor) {
            base = Math.max(base, floor);
            settle();
        }

        private void settle() {
            while (admitted.contains(base)) {
                base++;
            }
            admitted.headSet(base).clear();
        }
    }

    private static String name(int c) {
        return switch (c) {
            case SequenceReceiveWindow.NEW -> "NEW";
            case SequenceReceiveWindow.DUPLICATE -> "DUPLICATE";
            case SequenceReceiveWindow.BEYOND_WINDOW -> "BEYOND_WINDOW";
            default -> "?" + c;
        };
    }

    private static void check(long seed, String when, SequenceReceiveWindow w, Model m, SplittableRandom rnd) {
        assertThat(w.base()).as("seed %d %s: base (size %d)", seed, when, m.size).isEqualTo(m.base);
        List<String> wrong = new ArrayList<>();
        long b = m.base;
        for (long c = Math.max(0, b - 3); c <= b + Math.min(m.size, 200) + 2; c++) {
            compare(w, m, c, wrong);
        }
        for (long c : new long[] {b + m.size - 2, b + m.size - 1, b + m.size, b + m.size + 1, b + 2L * m.size}) {
            compare(w, m, c, wrong);
        }
        for (int i = 0; i < 40; i++) {
            compare(w, m, b + rnd.nextLong(m.size + 64), wrong);
        }
        for (long c : m.admitted) {
            compare(w, m, c, wrong);
        }
        assertThat(wrong).as("seed %d %s: classify mismatches at base %d, size %d", seed, when, b, m.size).isEmpty();
    }

    private static void compare(SequenceReceiveWindow w, Model m, long c, List<String> wrong) {
        int exp = m.classify(c);
        int got = w.classify(c);
        if (exp != got && wrong.size() < 20) {
            wrong.add(c + ": expected " + name(exp) + " got " + name(got));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void classificationAndBaseMatchModel(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 0);
        int[] sizes = {64, 128, 256, 512, 1024, 8192, 65536};
        int size = sizes[rnd.nextInt(sizes.length)];
        SequenceReceiveWindow w = new SequenceReceiveWindow(size);
        Model m = new Model(size);
        check(seed, "initially", w, m, rnd);

        int steps = 800;
        for (int step = 0; step < steps; step++) {
            int op = rnd.nextInt(100);
            long b = m.base;
            String what;
            if (op < 45) {
                long csn = switch (rnd.nextInt(6)) {
                    case 0 -> b; // moves the base
                    case 1, 2 -> b + rnd.nextInt(Math.min(size, 64));
                    case 3 -> b + rnd.nextInt(Math.min(size, 300));
                    case 4 -> b + rnd.nextInt(size);
                    default -> b + size - 1 - rnd.nextInt(3); // the far edge: forces growth
                };
                int exp = m.classify(csn);
                int got = w.classify(csn);
                what = "admit " + csn;
                assertThat(name(got)).as("seed %d step %d: classify(%d) before admitting, base %d", seed, step, csn, b)
                        .isEqualTo(name(exp));
                if (exp == SequenceReceiveWindow.NEW) {
                    w.admit(csn);
                    m.admit(csn);
                    assertThat(name(w.classify(csn))).as("seed %d step %d: %d after admit", seed, step, csn)
                            .isEqualTo("DUPLICATE");
                }
            } else if (op < 60) {
                // a duplicate: an admitted CSN or one below the base
                long csn;
                if (!m.admitted.isEmpty() && rnd.nextBoolean()) {
                    Long above = m.admitted.ceiling(b + rnd.nextInt(size));
                    csn = above != null ? above : m.admitted.first();
                } else {
                    csn = Math.max(0, b - 1 - rnd.nextInt(1000));
                }
                what = "duplicate " + csn;
                if (csn < b || m.admitted.contains(csn)) {
                    assertThat(name(w.classify(csn))).as("seed %d step %d: classify(%d), base %d", seed, step, csn, b)
                            .isEqualTo("DUPLICATE");
                }
            } else if (op < 65) {
                long csn = b + size + rnd.nextInt(10_000);
                what = "beyond " + csn;
                assertThat(name(w.classify(csn))).as("seed %d step %d: classify(%d), base %d", seed, step, csn, b)
                        .isEqualTo("BEYOND_WINDOW");
            } else {
                long floor = switch (rnd.nextInt(8)) {
                    case 0 -> b - rnd.nextInt(100); // at or below the base: nothing changes
                    case 1, 2 -> b + 1 + rnd.nextInt(64);
                    case 3 -> b + 1 + rnd.nextInt(Math.min(size, 300));
                    case 4 -> b + 1 + rnd.nextInt(size); // maybe past the current bitmap
                    case 5 -> b + size - rnd.nextInt(3); // the whole window
                    case 6 -> b + size + 1 + rnd.nextInt(100_000); // beyond the window
                    default -> m.admitted.isEmpty() ? b + 1 : m.admitted.last() + rnd.nextInt(3) - 1; // around the top admitted
                };
                what = "advanceTo " + floor;
                w.advanceTo(floor);
                m.advanceTo(floor);
            }
            check(seed, "step " + step + " " + what, w, m, rnd);
        }
        // A huge jump and then ordinary use.
        long far = m.base + (1L << 40) + rnd.nextInt(1000);
        w.advanceTo(far);
        m.advanceTo(far);
        check(seed, "after a huge jump", w, m, rnd);
        for (int i = 0; i < 100; i++) {
            long csn = m.base + rnd.nextInt(size);
            if (m.classify(csn) == SequenceReceiveWindow.NEW) {
                w.admit(csn);
                m.admit(csn);
            }
        }
        check(seed, "after the huge jump and admits", w, m, rnd);
    }

    /** The bitmap starts at 256 CSNs and doubles; the CSNs admitted before it grew stay admitted. */
    @ParameterizedTest(name = "size {0}")
    @ValueSource(ints = {512, 1024, 4096, 65536})
    void growthKeepsEarlierBits(int size) {
        SplittableRandom rnd = new SplittableRandom(size);
        for (long start : new long[] {0, 200, 255, 256, 1000, 1L << 33}) {
            SequenceReceiveWindow w = new SequenceReceiveWindow(size);
            Model m = new Model(size);
            w.advanceTo(start);
            m.advanceTo(start);
            for (int i = 0; i < 100; i++) {
                long csn = start + 1 + rnd.nextInt(255); // base stays at start: start itself is missing
                if (m.classify(csn) == SequenceReceiveWindow.NEW) {
                    w.admit(csn);
                    m.admit(csn);
                }
            }
            check(size, "start " + start + " before growth", w, m, rnd);
            for (long csn : new long[] {start + 256, start + size / 2, start + size - 1}) {
                assertThat(w.classify(csn)).as("size %d start %d: classify(%d)", size, start, csn)
                        .isEqualTo(m.classify(csn));
                if (m.classify(csn) != SequenceReceiveWindow.NEW) {
                    continue;
                }
                w.admit(csn);
                m.admit(csn);
                check(size, "start " + start + " after admitting " + csn, w, m, rnd);
            }
            w.admit(start);
            m.admit(start);
            check(size, "start " + start + " after filling the base", w, m, rnd);
            assertThat(w.base()).as("size %d start %d", size, start).isGreaterThan(start);
        }
    }

    @Test
    void floorJumpsOfEverySize() {
        SequenceReceiveWindow w = new SequenceReceiveWindow(1024);
        w.admit(1);
        w.admit(3);
        w.advanceTo(1);
        assertThat(w.base()).isEqualTo(2);
        w.advanceTo(3);
        assertThat(w.base()).isEqualTo(4);
        w.admit(4 + 255); // still within the first bitmap
        w.advanceTo(4 + 300); // past the bitmap of 256: everything cleared
        assertThat(w.base()).isEqualTo(304);
        assertThat(w.classify(304 + 255)).isEqualTo(SequenceReceiveWindow.NEW);
        w.admit(304 + 1023);
        w.advanceTo(304 + 1023);
        assertThat(w.base()).as("the floor lands on an admitted CSN: the base moves past it").isEqualTo(304 + 1024);
        assertThat(w.classify(304 + 1023)).isEqualTo(SequenceReceiveWindow.DUPLICATE);
        w.advanceTo(5_000_000);
        assertThat(w.base()).isEqualTo(5_000_000);
        for (long c = 5_000_000; c < 5_000_000 + 1024; c++) {
            assertThat(w.classify(c)).as("csn %d", c).isEqualTo(SequenceReceiveWindow.NEW);
        }
        assertThat(w.classify(5_000_000 + 1024)).isEqualTo(SequenceReceiveWindow.BEYOND_WINDOW);
        assertThat(w.classify(4_999_999)).isEqualTo(SequenceReceiveWindow.DUPLICATE);
    }

    @Test
    void sizeMustBeAPowerOfTwoOfAtLeast64() {
        assertThatThrownBy(() -> new SequenceReceiveWindow(32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SequenceReceiveWindow(96)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SequenceReceiveWindow(0)).isInstanceOf(IllegalArgumentException.class);
        SequenceReceiveWindow w = new SequenceReceiveWindow(64);
        assertThat(w.classify(63)).isEqualTo(SequenceReceiveWindow.NEW);
        assertThat(w.classify(64)).isEqualTo(SequenceReceiveWindow.BEYOND_WINDOW);
    }
}
