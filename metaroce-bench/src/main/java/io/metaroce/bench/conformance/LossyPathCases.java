package io.metaroce.bench.conformance;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.WireConstants;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The IUT as the receiver of a path that loses ([SPEC-CONF-33]): the suite skips a PSN before
 * every DATA packet it sends, as if each one before it were lost on the way, and judges how the
 * IUT acknowledges such a path: with its estimate of the path's skipped sequence numbers above
 * twice {@code ackRepeatAboveLossPercent}, every ACK goes three times ([SPEC-SACK-14]).
 *
 * <p>Stateless; thread-safe.
 */
final class LossyPathCases {
    /** Packets of the SEND whose every packet follows a skipped PSN. */
    static final int PACKETS = 16;
    /**
     * The packet (from 1) from which each ACK must come three times: the receiver's estimate (gain
     * 1/16, one PSN skipped before every packet) is then 0.38 or more, above twice the 15% of
     * §12.1, however it orders the two moves of one arrival.
     */
    static final int THRICE_FROM = 12;
    /** How long the suite listens for a fourth ACK once three came: copies follow the first at once. */
    private static final long COPIES_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(30);

    private LossyPathCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("sack.repeated-on-lossy-path",
                "on a path where every DATA packet follows a skipped PSN (half the path's sequence numbers lost), each"
                        + " ACK is sent three times, with the same contents",
                "SPEC-SACK-14, SPEC-SACK-3, SPEC-SACK-4, SPEC-CONF-33", "R-SACK-1, R-SACK-2",
                LossyPathCases::repeatedAcks));
    }

    /**
     * A SEND of {@link #PACKETS} packets on path 0, each with {@code FLAG_ACK_NOW} and a PSN skipped
     * before it, one at a time (each ACK awaited, its copies listened for): from packet
     * {@link #THRICE_FROM} on but the last, the ACK whose highest PSN is the packet's comes exactly
     * three times with the same contents ([SPEC-SACK-14]: above twice {@code ackRepeatAboveLossPercent},
     * the §12.1 15%): three awaited up to 200 ms, then 30 ms for a fourth; then the message is echoed.
     */
    private static void repeatedAcks(CaseContext c) {
        WireSession s = c.connect(1);
        byte[] m = Scenarios.bytes(PACKETS * s.payloadSize() - 3, 200);
        List<Segment> segs = s.send(ResponderContract.ECHO_STREAM, m);
        Checks.require(segs.size() == PACKETS, "a SEND of " + PACKETS + " packets");
        for (int i = 0; i < PACKETS; i++) {
            s.skipPsn(0);
            Sent x = s.transmit(segs.get(i), 0, WireConstants.FLAG_ACK_NOW, 0);
            Scenarios.awaitAckOf(s, 0, x.pathSequence());
            if (i + 1 < THRICE_FROM || i == PACKETS - 1) {
                continue; // the estimate still climbs; the last packet's ACK may ride with the echo
            }
            long psn = x.pathSequence();
            // Three awaited (a descheduled IUT may write its copies late), then a spell for a fourth.
            s.await(() -> acksWithHighest(s, psn).size() >= 3, TimerCases.ACK_DELAY_MARGIN_NANOS);
            s.await(() -> false, COPIES_WAIT_NANOS);
            List<Received> acks = acksWithHighest(s, x.pathSequence());
            Received first = acks.getFirst();
            int same = 0;
            for (Received a : acks) {
                same += sameContents(first.packet(), a.packet()) ? 1 : 0;
            }
            Checks.check(same == 3 && acks.size() == 3, "packet %d of %d on path 0, each sent after a skipped PSN (the"
                    + " path's receive side sees half its sequence numbers skipped: its estimate, gain 1/16, at least"
                    + " 0.38), was acknowledged by %d ACK(s) whose highest PSN is its %d, %d of them with the first's"
                    + " contents: above twice ackRepeatAboveLossPercent (15%% by §12.1) every ACK of the path is sent"
                    + " three times, the copies at once with the same contents [SPEC-SACK-14], [SPEC-CONF-33]", i + 1,
                    PACKETS, acks.size(), x.pathSequence(), same);
        }
        Scenarios.awaitEchoes(s, 1, "a SEND whose every packet followed a skipped PSN");
        Scenarios.checkEcho(s, 0, m, "a SEND whose every packet followed a skipped PSN");
        Scenarios.checkAllAcks(s);
    }

    private static List<Received> acksWithHighest(WireSession s, long psn) {
        List<Received> out = new ArrayList<>();
        for (Received r : s.acks(0)) {
            if (Scenarios.highestAcknowledged(r.packet()) == psn) {
                out.add(r);
            }
        }
        return out;
    }

    /** Whether two ACKs say the same: every field but the time the receiver held the packet. */
    private static boolean sameContents(Packet a, Packet b) {
        return a.sackBase == b.sackBase && Arrays.equals(a.sackBits, b.sackBits)
                && a.echoTimestampNanos == b.echoTimestampNanos && a.cumulativeSequence == b.cumulativeSequence
                && a.ectCount == b.ectCount && a.ceCount == b.ceCount
                && a.rateHintBytesPerSecond == b.rateHintBytesPerSecond && a.flags == b.flags;
    }
}
