package io.metaroce.core.memory;

/**
 * Access rights of a {@link MemoryRegion}: {@code int} bit flags, combined with {@code |}.
 *
 * <p>Reading a region locally (as the source of a SEND or a WRITE, or to answer a READ once
 * {@link #REMOTE_READ} was checked) needs no right. Normative in {@code docs/spec.md}, section
 * "Memory", rules [SPEC-MEM-5] and [SPEC-MEM-6].
 */
public final class Access {
    /** No rights: the region can only be read locally. */
    public static final int NONE = 0;
    /** The local side may place incoming bytes here (RECV targets, READ targets). */
    public static final int LOCAL_WRITE = 1;
    /** A peer may WRITE / WRITE_WITH_IMM here. */
    public static final int REMOTE_WRITE = 2;
    /** A peer may READ from here. */
    public static final int REMOTE_READ = 4;
    /** Every right. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;
    /** The rights that let bytes be written into a region (refused on read-only memory). */
    public static final int ANY_WRITE = LOCAL_WRITE | REMOTE_WRITE;

    private Access() {
    }

    /** Whether {@code flags} holds only known bits. */
    public static boolean isValid(int flags) {
        return (flags & ~ALL) == 0;
    }

    /**
     * Throws {@link IllegalArgumentException} when {@code flags} holds an unknown bit.
     *
     * @return {@code flags}
     */
    public static int validate(int flags) {
        if (!isValid(flags)) {
            throw new IllegalArgumentException("unknown access bits 0x" + Integer.toHexString(flags & ~ALL)
                    + " in 0x" + Integer.toHexString(flags) + " (known: LOCAL_WRITE=1, REMOTE_WRITE=2, REMOTE_READ=4)");
        }
        return flags;
    }

    /**
     * Human-readable form, e.g. {@code "LOCAL_WRITE|REMOTE_READ"}; {@code "NONE"} for 0; unknown
     * bits are appended in hex, e.g. {@code "REMOTE_READ|0x8"}.
     */
    public static String describe(int flags) {
        if (flags == 0) {
            return "NONE";
        }
        StringBuilder sb = new StringBuilder(40);
        if ((flags & LOCAL_WRITE) != 0) {
            sb.append("LOCAL_WRITE");
        }
        if ((flags & REMOTE_WRITE) != 0) {
            if (!sb.isEmpty()) {
                sb.append('|');
            }
            sb.append("REMOTE_WRITE");
        }
        if ((flags & REMOTE_READ) != 0) {
            if (!sb.isEmpty()) {
                sb.append('|');
            }
            sb.append("REMOTE_READ");
        }
        int unknown = flags & ~ALL;
        if (unknown != 0) {
            if (!sb.isEmpty()) {
                sb.append('|');
            }
            sb.append("0x").append(Integer.toHexString(unknown));
        }
        return sb.toString();
    }
}
