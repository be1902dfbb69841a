package io.metaroce.bench.cli.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One message of the perf control exchange, carried by a SEND on the reserved stream 0:
 * <pre>
 *   client                               server
 *     PARAMS (the RunParams)      ---&gt;
 *                                 &lt;---   READY (the region's remote key and the check it
 *                                          applies) or REFUSED (why)
 *     ... data on streams 1..n ...
 *     DONE (messages the server   ---&gt;
 *           should have checked)
 *                                 &lt;---   RESULT (what the server checked and found)
 *     close
 * </pre>
 * Encoded in {@link #BYTES} bytes: a magic word naming the format and its version, the type, up to
 * {@link #MAX_VALUES} longs, and a short UTF-8 text. Immutable and thread-safe (the value array is
 * a private copy).
 *
 * @param type one of the {@code *} type constants
 * @param values the numbers of the message, meaning by type
 * @param text a reason or a first failure, possibly empty
 */
record ControlMessage(int type, long[] values, String text) {
    /** Size of every control message and of every control receive. */
    public static final int BYTES = 256;
    /** "MRPERF01": the control format, version 1. */
    static final long MAGIC = 0x4D52_5045_5246_3031L;
    static final int PARAMS = 1;
    static final int READY = 2;
    static final int REFUSED = 3;
    static final int DONE = 4;
    static final int RESULT = 5;
    private static final int MAX_VALUES = 12;
    private static final int TEXT_OFFSET = 128;
    private static final int MAX_TEXT_BYTES = BYTES - TEXT_OFFSET - 4;

    /** Validates and copies. */
    public ControlMessage {
        values = values.clone();
        if (values.length > MAX_VALUES) {
            throw new IllegalArgumentException("at most " + MAX_VALUES + " values, got " + values.length);
        }
        text = text == null ? "" : text;
    }

    /** The run parameters, client to server. */
    public static ControlMessage params(RunParams p) {
        return new ControlMessage(PARAMS, new long[] {p.op().ordinal(), p.size(), p.streams(), p.paths(), p.depth(),
            p.durationNanos(), p.warmupNanos(), p.latency() ? 1 : 0, p.seed(), p.fullCheckEvery(),
            p.receiveRingFactor()}, "");
    }

    /**
     * The server is ready: its region's remote key and length, and the {@link RunParams#fullCheckEvery}
     * it applies. The third value announces that the server knows the sampled check: a server from
     * before it sends two values, ignores the tenth PARAMS value and checks every byte, which the
     * ends-only messages of a sampled client would fail ({@link #sampledCheckProblem}).
     */
    public static ControlMessage ready(int remoteKey, long regionBytes, int fullCheckEvery) {
        return new ControlMessage(READY, new long[] {remoteKey, regionBytes, fullCheckEvery}, "");
    }

    /**
     * Why the server that sent this {@link #READY} cannot run {@code p}, or null: a sampled run
     * ({@link RunParams#sampled}) needs a server that announces the same {@code fullCheckEvery}.
     */
    public String sampledCheckProblem(RunParams p) {
        long applied = values.length > 2 ? values[2] : 1;
        if (!p.sampled() || applied == p.fullCheckEvery()) {
            return null;
        }
        return "the server does not apply --full-check-every " + p.fullCheckEvery() + " ("
                + (values.length > 2 ? "it announced " + applied : "it is older than the sampled check and checks every byte")
                + "); run a perf server of this version, or drop --full-check-every";
    }

    /** The server will not run these parameters, and why. */
    public static ControlMessage refused(String reason) {
        return new ControlMessage(REFUSED, new long[0], reason);
    }

    /** The client stopped: the server should have checked {@code expected} messages. */
    public static ControlMessage done(long expected) {
        return new ControlMessage(DONE, new long[] {expected}, "");
    }

    /** What the server checked and found. */
    public static ControlMessage result(ServerResult r) {
        return new ControlMessage(RESULT, new long[] {r.verified(), r.mismatches(), r.failures(), r.retransmits(),
            r.droppedOnPurpose()}, r.firstFailure());
    }

    /** The run parameters of a {@link #PARAMS} message; throws if the numbers are not a valid op. */
    public RunParams toParams() {
        expectType(PARAMS, 9);
        Op[] ops = Op.values();
        if (values[0] < 0 || values[0] >= ops.length) {
            throw new IllegalArgumentException("unknown op " + values[0]);
        }
        return new RunParams(ops[(int) values[0]], (int) values[1], (int) values[2], (int) values[3], (int) values[4],
                values[5], values[6], values[7] != 0, values[8],
                values.length > 9 ? (int) Math.min(Integer.MAX_VALUE, Math.max(0, values[9])) : 1,
                values.length > 10 ? (int) Math.min(Integer.MAX_VALUE, Math.max(-1, values[10])) : 0);
    }

    /**
     * Why the server that sent this {@link #READY} did not lay out its region as {@code p} asks, or
     * null: its region's length must be {@code p}'s {@link ServerLayout#regionBytes}. A server older
     * than {@link RunParams#receiveRingFactor} ignores that value and keeps the deep rings, so its
     * WRITE_WITH_IMM targets would not be where the client aims.
     */
    public String layoutProblem(RunParams p) {
        long expected = ServerLayout.of(p).regionBytes();
        if (values.length < 2 || values[1] == expected) {
            return null;
        }
        return "the server's region is " + values[1] + " bytes but this run's layout needs " + expected
                + (p.receiveRingFactor() != 0 ? " (receive ring factor " + p.receiveRingFactor()
                        + "; the server may be older than that setting)" : "")
                + "; run a perf server of this version";
    }

    /** The result of a {@link #RESULT} message. */
    public ServerResult toResult() {
        expectType(RESULT, 5);
        return new ServerResult(values[0], values[1], values[2], values[3], values[4], text);
    }

    /** Value {@code i}. */
    public long value(int i) {
        return values[i];
    }

    private void expectType(int wanted, int count) {
        if (type != wanted || values.length < count) {
            throw new IllegalArgumentException("expected control message type " + wanted + " with " + count
                    + " values, got type " + type + " with " + values.length);
        }
    }

    /** Writes the message into {@link #BYTES} bytes at {@code offset}. */
    public void encode(MemorySegment segment, long offset) {
        MemorySegment m = segment.asSlice(offset, BYTES);
        m.fill((byte) 0);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, MAGIC);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 8, type);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 12, values.length);
        for (int i = 0; i < values.length; i++) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 16 + 8L * i, values[i]);
        }
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(t.length, MAX_TEXT_BYTES);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, TEXT_OFFSET, n);
        MemorySegment.copy(t, 0, m, ValueLayout.JAVA_BYTE, TEXT_OFFSET + 4, n);
    }

    /**
     * Reads a message of {@code length} bytes at {@code offset}.
     *
     * @throws IllegalArgumentException if it is not a control message of this version
     */
    public static ControlMessage decode(MemorySegment segment, long offset, long length) {
        if (length != BYTES) {
            throw new IllegalArgumentException("a control message has " + BYTES + " bytes, this one " + length
                    + " (is the peer a metaroce perf of the same version?)");
        }
        MemorySegment m = segment.asSlice(offset, BYTES);
        if (m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != MAGIC) {
            throw new IllegalArgumentException("not a metaroce perf control message of this version (magic 0x"
                    + Long.toHexString(m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)) + ")");
        }
        int type = m.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
        int count = m.get(ValueLayout.JAVA_INT_UNALIGNED, 12);
        int textLength = m.get(ValueLayout.JAVA_INT_UNALIGNED, TEXT_OFFSET);
        if (count < 0 || count > MAX_VALUES || textLength < 0 || textLength > MAX_TEXT_BYTES) {
            throw new IllegalArgumentException("malformed control message (" + count + " values, " + textLength
                    + " text bytes)");
        }
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 16 + 8L * i);
        }
        byte[] t = new byte[textLength];
        MemorySegment.copy(m, ValueLayout.JAVA_BYTE, TEXT_OFFSET + 4, t, 0, textLength);
        return new ControlMessage(type, values, new String(t, StandardCharsets.UTF_8));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ControlMessage c && c.type == type && Arrays.equals(c.values, values) && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * type + Arrays.hashCode(values)) + text.hashCode();
    }

    @Override
    public String toString() {
        return "ControlMessage[type=" + type + ", values=" + Arrays.toString(values) + ", text=" + text + "]";
    }
}
