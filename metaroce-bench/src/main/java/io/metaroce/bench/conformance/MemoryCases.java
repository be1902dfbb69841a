package io.metaroce.bench.conformance;

import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.NakCode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Cases of one-sided operations on the region the responder exposes ([SPEC-CONF-7]): WRITEs
 * placed at their offsets whatever the order of their packets, READs answered with the region's
 * bytes, and accesses the region does not allow refused with REMOTE_ACCESS_ERROR, nothing written.
 * The suite reads the region back with READs to see what a WRITE did.
 *
 * <p>Stateless; thread-safe.
 */
final class MemoryCases {
    /** The stream of these cases' WRITEs and READs: neither consumes a receive ([SPEC-MSG-7], [SPEC-MSG-11]). */
    private static final int STREAM = 3;

    private MemoryCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(
                ConformanceCase.of("mem.write-placement",
                        "a WRITE whose packets arrive shuffled lands at remoteOffset + payloadMessageOffset, and a READ"
                                + " after it on its stream sees it and the untouched bytes around it",
                        "SPEC-MSG-5, SPEC-MSG-7, SPEC-MSG-11, SPEC-MEM-6, SPEC-MEM-10, SPEC-CONF-7",
                        "R-OOO-1, R-OOO-3", MemoryCases::writePlacement),
                ConformanceCase.of("mem.read",
                        "a READ is answered by READ_RESPONSE packets cut by the rules, with the READ's stream and MSN,"
                                + " carrying the region's bytes, up to its last byte",
                        "SPEC-MSG-3, SPEC-MSG-11, SPEC-MEM-8, SPEC-WIRE-17, SPEC-PATH-5, SPEC-CONF-7",
                        "R-OOO-3, R-SACK-1", MemoryCases::read),
                ConformanceCase.of("mem.access-refused",
                        "a WRITE or READ beyond the region, or naming another key, is refused with REMOTE_ACCESS_ERROR,"
                                + " nothing written or read, and the stream goes on",
                        "SPEC-MEM-8, SPEC-MEM-9, SPEC-MEM-10, SPEC-MEM-11, SPEC-NAK-1, SPEC-NAK-2, SPEC-NAK-3,"
                                + " SPEC-NAK-7, SPEC-SACK-2",
                        "R-OOO-3, R-JAVA-4", MemoryCases::accessRefused),
                ConformanceCase.of("mem.write-with-imm",
                        "a WRITE_WITH_IMM whose packets arrive shuffled, one of them twice, between two SENDs of its"
                                + " stream is placed like a WRITE and completes its receive once, with its immediate,"
                                + " between the two SENDs' receives",
                        "SPEC-MSG-2, SPEC-MSG-8, SPEC-MSG-10, SPEC-WIRE-16, SPEC-ADM-5, SPEC-MEM-10, SPEC-CONF-7,"
                                + " SPEC-CONF-12",
                        "R-OOO-1, R-OOO-2, R-OOO-3", MemoryCases::writeWithImmediate));
    }

    /** The region's bytes {@code [offset, offset + length)} before anything was written ([SPEC-CONF-7]). */
    static byte[] pattern(long offset, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = ResponderContract.regionByte(offset + i);
        }
        return b;
    }

    private static void writePlacement(CaseContext c) {
        WireSession s = c.connect(1);
        Commands.Region region = Commands.region(s);
        long at = 1_000;
        byte[] bytes = Scenarios.bytes(5 * s.payloadSize() - 11, 81);
        List<Segment> segs = new ArrayList<>(s.write(STREAM, bytes, region.remoteKey(), at));
        Collections.shuffle(segs, new Random(c.options().seed()));
        if (segs.getFirst().payloadMessageOffset() == 0) {
            Collections.swap(segs, 0, segs.size() - 1); // the first packet to arrive is not the message's first
        }
        Sent last = null;
        for (Segment seg : segs) {
            last = s.transmit(seg, 0, WireConstants.FLAG_ACK_NOW, 0);
        }
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        int margin = 100;
        byte[] seen = readBack(s, region, at - margin, bytes.length + 2 * margin, "the WRITE's range and 100 bytes"
                + " either side");
        byte[] expected = pattern(at - margin, bytes.length + 2 * margin);
        System.arraycopy(bytes, 0, expected, margin, bytes.length);
        int differs = firstDifference(expected, seen);
        Checks.check(differs < 0, "after a WRITE of %d bytes at offset %d (its %d packets shuffled), a READ of [%d, %d)"
                + " differs from what the WRITE and the region held first at offset %d: byte %d, expected %d"
                + " [SPEC-MSG-7], [SPEC-MSG-5], [SPEC-MSG-11]", bytes.length, at, segs.size(), at - margin,
                at + bytes.length + margin, at - margin + differs, differs < 0 ? 0 : seen[differs],
                differs < 0 ? 0 : expected[differs]);
        Checks.check(s.ofType(0, PacketType.NAK).isEmpty(), "an access within the region was refused (NAK code %d)"
                + " [SPEC-MEM-9]", s.ofType(0, PacketType.NAK).isEmpty() ? 0 : s.ofType(0, PacketType.NAK).getFirst()
                        .packet().nakCode);
        Scenarios.checkAllAcks(s);
    }

    /**
     * A SEND (MSN 0, RSN 0), a WRITE_WITH_IMM (MSN 1, RSN 1) and a SEND (MSN 2, RSN 2) on the echo
     * stream, sent WRITE_WITH_IMM first (shuffled, one packet again as a retransmission), then the
     * second SEND, then the first: the receives must complete in MSN order ([SPEC-MSG-10]), the
     * WRITE_WITH_IMM's once, as the 8 bytes of its length with its immediate ([SPEC-CONF-12]).
     */
    private static void writeWithImmediate(CaseContext c) {
        int echo = ResponderContract.ECHO_STREAM;
        WireSession s = c.connect(1);
        Commands.Region region = Commands.region(s);
        int base = s.echoes().size(); // the region command's reply came first
        long at = 3_000;
        int immediate = 0x5EC0_0DE5 ^ (int) c.options().seed();
        byte[] first = Scenarios.bytes(300, 91);
        byte[] written = Scenarios.bytes(4 * s.payloadSize() - 9, 92);
        byte[] second = Scenarios.bytes(200, 93);
        List<Segment> a = s.send(echo, first);
        List<Segment> w = new ArrayList<>(s.writeWithImmediate(echo, written, region.remoteKey(), at, immediate));
        List<Segment> b = s.send(echo, second);
        Collections.shuffle(w, new Random(c.options().seed()));
        if (w.getFirst().payloadMessageOffset() == 0) {
            Collections.swap(w, 0, w.size() - 1);
        }
        for (Segment seg : w) {
            s.transmit(seg, 0, WireConstants.FLAG_ACK_NOW, 0);
        }
        s.resend(w.get(1), 0); // a duplicate of an admitted CSN: acknowledged, never delivered again [SPEC-ADM-5]
        Scenarios.sendAll(s, b, 0);
        Sent last = Scenarios.sendAll(s, a, 0).getLast();
        // Three echoes, or a second that is not the WRITE_WITH_IMM's: no need to wait for a third then.
        s.await(() -> s.messagesOn(echo).size() >= 3
                || (s.messagesOn(echo).size() == 2 && !s.messagesOn(echo).get(1).hasImmediate()));
        Scenarios.awaitAckOf(s, 0, last.pathSequence());
        List<WireSession.EchoMessage> echoes = s.messagesOn(echo);
        Checks.check(!echoes.isEmpty(), "no echo within %d ms of a SEND, a WRITE_WITH_IMM and a SEND on stream %d"
                + " [SPEC-CONF-2]", c.options().waitMillis(), echo);
        Scenarios.checkEcho(s, base, first, "the first SEND (MSN 0), sent after the WRITE_WITH_IMM and the second SEND");
        Checks.check(echoes.size() >= 2 && echoes.get(1).hasImmediate(), "the receive after the first SEND's completed"
                + " %s; the WRITE_WITH_IMM (MSN 1, RSN 1) consumes that receive and completes it, with its immediate,"
                + " before the SEND of MSN 2 [SPEC-MSG-8], [SPEC-MSG-10], [SPEC-CONF-12]", echoes.size() < 2
                        ? "not within " + c.options().waitMillis() + " ms"
                        : "as a SEND of " + echoes.get(1).bytes().length + " bytes without immediate");
        WireSession.EchoMessage imm = echoes.get(1);
        Checks.check(imm.immediate() == immediate, "the WRITE_WITH_IMM's receive completed with immediate 0x%08x, not"
                + " the 0x%08x it carried [SPEC-MSG-8]", imm.immediate(), immediate);
        Checks.check(imm.bytes().length == Long.BYTES && java.nio.ByteBuffer.wrap(imm.bytes()).getLong() == written.length,
                "the echo of the WRITE_WITH_IMM's receive is not the 8 bytes of its length %d: byteLength is the"
                + " message's length [SPEC-MSG-8], [SPEC-CONF-12]", written.length);
        Checks.check(echoes.size() >= 3, "the SEND of MSN 2 was not echoed within %d ms after the WRITE_WITH_IMM's"
                + " [SPEC-MSG-10]", c.options().waitMillis());
        Scenarios.checkEcho(s, base + 2, second, "the second SEND (MSN 2), sent before the first");
        c.quiet(s);
        long withImmediate = s.messagesOn(echo).stream().filter(WireSession.EchoMessage::hasImmediate).count();
        Checks.check(s.messagesOn(echo).size() == 3 && withImmediate == 1, "%d echoes (%d with an immediate) for two SENDs and"
                + " one WRITE_WITH_IMM one of whose packets came twice: a message is delivered once [SPEC-ADM-5],"
                + " [SPEC-MSG-8]", s.messagesOn(echo).size(), withImmediate);
        int margin = 100;
        byte[] seen = readBack(s, region, at - margin, written.length + 2 * margin, "the WRITE_WITH_IMM's range");
        byte[] expected = pattern(at - margin, written.length + 2 * margin);
        System.arraycopy(written, 0, expected, margin, written.length);
        int differs = firstDifference(expected, seen);
        Checks.check(differs < 0, "after a WRITE_WITH_IMM of %d bytes at offset %d, the region's byte at offset %d is"
                + " %d, expected %d: it is placed like a WRITE [SPEC-MSG-8], [SPEC-MSG-7]", written.length, at,
                at - margin + Math.max(0, differs), differs < 0 ? 0 : seen[differs], differs < 0 ? 0 : expected[differs]);
        Checks.check(s.ofType(0, PacketType.NAK).isEmpty(), "a NAK came for a valid SEND or WRITE_WITH_IMM");
        Scenarios.checkAllAcks(s);
    }

    private static void read(CaseContext c) {
        WireSession s = c.connect(1);
        Commands.Region region = Commands.region(s);
        int length = 3 * s.payloadSize() - 5;
        long last = ResponderContract.REGION_BYTES - length; // it ends at the region's end: in bounds [SPEC-MEM-8]
        Segment a = s.read(STREAM, region.remoteKey(), last, length);
        Segment b = s.read(STREAM, region.remoteKey(), 7, 1);
        Sent sa = s.send(a, 0);
        Sent sb = s.send(b, 0);
        boolean both = s.await(() -> s.readResponses().size() >= 2);
        Checks.check(both, "%d READ response(s) completed within %d ms for two READs [SPEC-MSG-11]",
                s.readResponses().size(), c.options().waitMillis());
        Scenarios.awaitAckOf(s, 0, sb.pathSequence());
        checkResponse(s, a, last, length, "a READ of the region's last " + length + " bytes");
        checkResponse(s, b, 7, 1, "a READ of 1 byte");
        for (Received r : s.data()) {
            Packet p = r.packet();
            if (p.streamId == ResponderContract.CONTROL_STREAM) {
                continue; // the reply to the region command
            }
            Checks.check(p.opcode == DataOpcode.READ_RESPONSE, "the responder sent opcode %d; it was only asked to"
                    + " READ [SPEC-CONF-2]", p.opcode);
            Checks.check(p.streamId == STREAM && p.receiveSequence == 0 && p.remoteKey == 0 && p.remoteOffset == 0,
                    "%s: a READ_RESPONSE has stream %d, receiveSequence %d, remoteKey %d, remoteOffset %d; expected"
                    + " the READ's stream %d and 0, 0, 0 [SPEC-MSG-11]", r, Integer.toUnsignedLong(p.streamId),
                    p.receiveSequence, p.remoteKey, p.remoteOffset, STREAM);
            long expectedLength = p.messageSequence == a.messageSequence() ? length : 1;
            Checks.check(p.messageLength == expectedLength, "%s: the READ_RESPONSE of MSN %d has messageLength %d,"
                    + " expected the READ's length %d [SPEC-MSG-11]", r, p.messageSequence, p.messageLength,
                    expectedLength);
        }
        Checks.check(sa.pathSequence() < sb.pathSequence(), "the suite's READs left out of order");
        Scenarios.checkAllAcks(s);
    }

    private static void checkResponse(WireSession s, Segment read, long offset, int length, String what) {
        WireSession.EchoMessage m = null;
        for (WireSession.EchoMessage r : s.readResponses()) {
            if (r.streamId() == STREAM && r.messageSequence() == read.messageSequence()) {
                m = r;
            }
        }
        Checks.check(m != null, "%s: no READ response with stream %d and the READ's MSN %d [SPEC-MSG-11]", what, STREAM,
                read.messageSequence());
        byte[] expected = pattern(offset, length);
        int differs = firstDifference(expected, m.bytes());
        Checks.check(m.bytes().length == length && differs < 0, "%s: the response's %d bytes differ from the region's"
                + " at offset %d [SPEC-MSG-11], [SPEC-CONF-7]", what, m.bytes().length, offset + Math.max(0, differs));
    }

    private static void accessRefused(CaseContext c) {
        WireSession s = c.connect(1);
        Commands.Region region = Commands.region(s);
        int p = s.payloadSize();
        long regionEnd = ResponderContract.REGION_BYTES;
        // (a) A WRITE of three packets whose message ends a packet beyond the region: its first packets lie
        // inside, but the check covers the whole message ([SPEC-MEM-10]), so none of it may land.
        long overAt = regionEnd - 2L * p;
        List<Segment> over = s.write(STREAM, Scenarios.bytes(3 * p, 82), region.remoteKey(), overAt);
        refused(c, s, over, "a WRITE of " + 3 * p + " bytes at offset " + overAt + " of a region of " + regionEnd);
        // (b) A WRITE naming another key than the region's.
        int other = region.remoteKey() ^ 0x5A5A_5A5A;
        List<Segment> wrongKey = s.write(STREAM, Scenarios.bytes(100, 83), other == 0 ? 1 : other, 0);
        refused(c, s, wrongKey, "a WRITE naming a key the responder never announced");
        // (c) A READ reaching 10 bytes beyond the region.
        Segment readOver = s.read(STREAM, region.remoteKey(), regionEnd - 10, 20);
        refused(c, s, List.of(readOver), "a READ of [" + (regionEnd - 10) + ", " + (regionEnd + 10) + ")");
        c.quiet(s);
        long onStream = s.data().stream().filter(r -> r.packet().streamId == STREAM).count();
        Checks.check(s.readResponses().isEmpty() && onStream == 0, "the responder sent %d DATA packets for a READ"
                + " beyond the region: nothing may be read [SPEC-MEM-11]", onStream);
        // Nothing was written, and the stream goes on: the failed messages retired in their turn ([SPEC-NAK-3]).
        byte[] tail = readBack(s, region, overAt - 16, 2 * p + 16, "the range of the refused WRITE");
        int differs = firstDifference(pattern(overAt - 16, 2 * p + 16), tail);
        Checks.check(differs < 0, "a WRITE refused for reaching beyond the region changed its byte at offset %d: no byte"
                + " of a refused access may be placed [SPEC-MEM-11], [SPEC-MEM-10]", overAt - 16 + differs);
        byte[] head = readBack(s, region, 0, 100, "the range a WRITE with a wrong key named");
        Checks.check(firstDifference(pattern(0, 100), head) < 0, "a WRITE naming a wrong key changed the region"
                + " [SPEC-MEM-11]");
        Checks.check(s.ofType(0, PacketType.CLOSE).isEmpty(), "a refusal closed the connection [SPEC-NAK-7]");
        Scenarios.checkAllAcks(s);
    }

    /** Sends every packet of {@code segs}, expects a REMOTE_ACCESS_ERROR NAK for each and no ACK of any. */
    private static void refused(CaseContext c, WireSession s, List<Segment> segs, String what) {
        for (Segment seg : segs) {
            int mark = s.mark();
            Sent sent = s.transmit(seg, 0, WireConstants.FLAG_ACK_NOW, 0);
            s.markRefused(sent);
            Received nak = s.awaitType(mark, PacketType.NAK);
            Checks.check(nak != null, "%s: no NAK for its packet at message offset %d within %d ms [SPEC-MEM-11],"
                    + " [SPEC-NAK-2]", what, seg.payloadMessageOffset(), c.options().waitMillis());
            ControlCases.checkNak(nak, NakCode.REMOTE_ACCESS_ERROR, sent, seg);
        }
    }

    /** READs {@code [offset, offset + length)} of the region and returns the response's bytes. */
    private static byte[] readBack(WireSession s, Commands.Region region, long offset, int length, String what) {
        int before = s.readResponses().size();
        Segment read = s.read(STREAM, region.remoteKey(), offset, length);
        s.send(read, 0);
        boolean done = s.await(() -> s.readResponses().size() > before);
        Checks.check(done, "no response within %d ms to a READ of %s, [%d, %d) [SPEC-MSG-11], [SPEC-NAK-3]",
                s.waitNanos() / 1_000_000, what, offset, offset + length);
        WireSession.EchoMessage m = s.readResponses().get(before);
        Checks.check(m.messageSequence() == read.messageSequence() && m.bytes().length == length, "the READ response"
                + " has MSN %d and %d bytes, expected MSN %d and %d [SPEC-MSG-11]", m.messageSequence(),
                m.bytes().length, read.messageSequence(), length);
        return m.bytes();
    }

    /** The first index where the arrays differ, or -1. */
    static int firstDifference(byte[] expected, byte[] seen) {
        int mismatch = Arrays.mismatch(expected, seen);
        return mismatch;
    }
}
