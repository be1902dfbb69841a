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
                        "R-OOO-3, R-JAVA-4", MemoryCases::accessRefused));
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
