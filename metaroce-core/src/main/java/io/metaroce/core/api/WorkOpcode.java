package io.metaroce.core.api;

/** What a completion is for. Values are stable; tools may print them by {@link #name(int)}. */
public final class WorkOpcode {
    /** A posted SEND finished. */
    public static final int SEND = 1;
    /** A posted WRITE finished. */
    public static final int WRITE = 2;
    /** A posted WRITE_WITH_IMM finished. */
    public static final int WRITE_WITH_IMM = 3;
    /** A posted READ finished: the bytes are in the local region. */
    public static final int READ = 4;
    /** A posted receive was filled by the peer's SEND. */
    public static final int RECV = 5;
    /** A posted receive was consumed by the peer's WRITE_WITH_IMM (the immediate is in the completion). */
    public static final int RECV_WRITE_WITH_IMM = 6;

    private WorkOpcode() {
    }

    /** A stable upper-case name. */
    public static String name(int opcode) {
        return switch (opcode) {
            case SEND -> "SEND";
            case WRITE -> "WRITE";
            case WRITE_WITH_IMM -> "WRITE_WITH_IMM";
            case READ -> "READ";
            case RECV -> "RECV";
            case RECV_WRITE_WITH_IMM -> "RECV_WRITE_WITH_IMM";
            default -> "UNKNOWN(" + opcode + ")";
        };
    }
}
