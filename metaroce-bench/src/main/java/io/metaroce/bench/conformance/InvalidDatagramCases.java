package io.metaroce.bench.conformance;

import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Cases of invalid datagrams ([SPEC-WIRE-27], [SPEC-WIRE-28]): each is built from a DATA that
 * would start a new message, broken one way, and sent on its own PSN; then the same message is
 * sent validly. The implementation under test must not acknowledge or deliver the broken ones,
 * must deliver the valid one once, and the connection must go on.
 *
 * <p>Stateless; thread-safe.
 */
final class InvalidDatagramCases {
    private InvalidDatagramCases() {
    }

    /** One way to break a valid DATA datagram (resealing where the check under test is not the checksum). */
    private record Breakage(String name, UnaryOperator<byte[]> breaker) {
    }

    static List<ConformanceCase> all() {
        return List.of(
                invalid("wire.bad-checksum", "a datagram whose CRC32C trailer does not match is dropped",
                        "SPEC-WIRE-9, SPEC-WIRE-10, SPEC-WIRE-28, SPEC-STATE-10",
                        new Breakage("last trailer byte flipped", d -> flip(d, d.length - 1)),
                        new Breakage("a payload byte flipped", d -> flip(d, WireConstants.DATA_HEADER_BYTES + 3)),
                        new Breakage("a header byte flipped", d -> flip(d, 20))),
                invalid("wire.truncated", "truncated datagrams are dropped",
                        "SPEC-WIRE-2, SPEC-WIRE-10, SPEC-WIRE-27, SPEC-WIRE-28, SPEC-WIRE-29",
                        new Breakage("the last byte cut", d -> Arrays.copyOf(d, d.length - 1)),
                        new Breakage("cut to 35 bytes (TOO_SHORT)", d -> Arrays.copyOf(d, 35)),
                        new Breakage("cut to 1 byte", d -> Arrays.copyOf(d, 1)),
                        new Breakage("cut to 107 bytes and resealed (BAD_LENGTH)", d -> reseal(Arrays.copyOf(d, 107)))),
                invalid("wire.bad-version", "a packet with a version other than 1 is dropped",
                        "SPEC-WIRE-3, SPEC-WIRE-27, SPEC-WIRE-28",
                        new Breakage("version 2", d -> reseal(set(d, 0, 2))),
                        new Breakage("version 0", d -> reseal(set(d, 0, 0))),
                        new Breakage("version 255", d -> reseal(set(d, 0, 255)))),
                invalid("wire.unknown-type", "a packet of an unknown type is dropped",
                        "SPEC-WIRE-11, SPEC-WIRE-27, SPEC-WIRE-28",
                        new Breakage("type 0", d -> reseal(set(d, 1, 0))),
                        new Breakage("type 11", d -> reseal(set(d, 1, 11))),
                        new Breakage("type 255", d -> reseal(set(d, 1, 255)))),
                invalid("wire.bad-field", "a DATA breaking a rule of its layout is dropped",
                        "SPEC-WIRE-7, SPEC-WIRE-13, SPEC-WIRE-14, SPEC-WIRE-15, SPEC-WIRE-27, SPEC-WIRE-28",
                        new Breakage("opcode 9", d -> reseal(set(d, 32, 9))),
                        new Breakage("the top bit of connectionSequence set", d -> reseal(set(d, 16, d[16] | 0x80))),
                        new Breakage("the top bit of pathSequence set", d -> reseal(set(d, 24, d[24] | 0x80))),
                        new Breakage("a payload beyond its messageLength", d -> reseal(putLong(d, 56, 10))),
                        new Breakage("messageLength above 2^62", d -> reseal(putLong(d, 56, (1L << 62) + 1)))),
                invalid("routing.unknown-connection", "a valid packet for a connection id the receiver does not have"
                                + " is dropped", "SPEC-CONN-3, SPEC-WIRE-6",
                        new Breakage("destinationConnectionId changed", d -> reseal(set(d, 15, d[15] ^ 0x5A))),
                        new Breakage("destinationConnectionId 0", d -> reseal(putLong(d, 8, 0)))));
    }

    private static ConformanceCase invalid(String id, String title, String rules, Breakage... breakages) {
        return ConformanceCase.of(id, title, rules, "R-JAVA-4", c -> run(c, List.of(breakages)));
    }

    private static void run(CaseContext c, List<Breakage> breakages) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(s.payloadSize() / 2, 41);
        Segment seg = s.send(ResponderContract.ECHO_STREAM, m).getFirst();
        for (Breakage b : breakages) {
            long psn = s.skipPsn(0);
            byte[] valid = s.encode(seg, 0, psn, WireConstants.FLAG_ACK_NOW);
            byte[] broken = b.breaker().apply(valid);
            s.sendRaw(0, broken, broken.length, psn, seg.connectionSequence(), false);
        }
        c.quiet(s);
        if (!s.acks(0).isEmpty()) {
            throw new CaseFailure("the receiver acknowledged a broken datagram (" + describe(s, breakages)
                    + ") [SPEC-WIRE-28]");
        }
        Checks.check(s.echoes().isEmpty(), "the receiver delivered a broken datagram [SPEC-WIRE-28]");
        Sent ok = s.send(seg, 0);
        Scenarios.awaitAckOf(s, 0, ok.pathSequence());
        Scenarios.awaitEchoes(s, 1, "the valid packet sent after the broken ones");
        Scenarios.checkEcho(s, 0, m, "the valid packet sent after the broken ones");
        Scenarios.checkAllAcks(s);
        c.quiet(s);
        Checks.check(s.echoes().size() == 1, "%d messages were delivered for one valid SEND and %d broken copies of it",
                s.echoes().size(), breakages.size());
    }

    private static String describe(WireSession s, List<Breakage> breakages) {
        StringBuilder b = new StringBuilder();
        Received first = s.acks(0).getFirst();
        for (int i = 0; i < breakages.size(); i++) {
            if (Scenarios.acknowledges(first.packet(), i)) {
                b.append(b.isEmpty() ? "" : "; ").append(breakages.get(i).name()).append(" at PSN ").append(i);
            }
        }
        return b.isEmpty() ? "an ACK came with bits " + Arrays.toString(first.packet().sackBits) : b.toString();
    }

    private static byte[] flip(byte[] d, int index) {
        d[index] ^= 0x10;
        return d;
    }

    private static byte[] set(byte[] d, int index, int value) {
        d[index] = (byte) value;
        return d;
    }

    private static byte[] putLong(byte[] d, int index, long value) {
        ByteBuffer.wrap(d).putLong(index, value);
        return d;
    }

    private static byte[] reseal(byte[] d) {
        new PacketCodec().reseal(ByteBuffer.wrap(d), 0, d.length);
        return d;
    }
}
