package io.metaroce.core.wire;

/** DATA packet opcodes. Normative in {@code docs/spec.md}. */
public final class DataOpcode {
    public static final int SEND = 1;
    public static final int WRITE = 2;
    public static final int WRITE_WITH_IMM = 3;
    public static final int READ_RESPONSE = 4;

    private DataOpcode() {
    }

    /** Whether {@code opcode} is a known DATA opcode. */
    public static boolean isValid(int opcode) {
        return opcode >= SEND && opcode <= READ_RESPONSE;
    }
}
