package io.metaroce.core.stream;

import io.metaroce.core.memory.MemoryRegion;
import java.util.Arrays;

/**
 * Resizing of the column arrays of the per-connection tables ({@link WorkRequests},
 * {@link InboundMessages}, {@link PostedReceives}): {@code n} slots, keeping the first ones when
 * the table had any ({@code keep > 0}, growth), fresh when it had none (construction and the idle
 * shrink, [SPEC-CONN-18]). Allocates; for growth and idle points, not the datapath.
 */
final class Columns {
    private Columns() {
    }

    static long[] resize(long[] a, int n, int keep) {
        return keep == 0 ? new long[n] : Arrays.copyOf(a, n);
    }

    static int[] resize(int[] a, int n, int keep) {
        return keep == 0 ? new int[n] : Arrays.copyOf(a, n);
    }

    static byte[] resize(byte[] a, int n, int keep) {
        return keep == 0 ? new byte[n] : Arrays.copyOf(a, n);
    }

    static boolean[] resize(boolean[] a, int n, int keep) {
        return keep == 0 ? new boolean[n] : Arrays.copyOf(a, n);
    }

    static MemoryRegion[] resize(MemoryRegion[] a, int n, int keep) {
        return keep == 0 ? new MemoryRegion[n] : Arrays.copyOf(a, n);
    }
}
