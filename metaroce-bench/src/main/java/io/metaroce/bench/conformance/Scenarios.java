package io.metaroce.bench.conformance;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.WireConstants;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Steps the cases share: messages with recognisable bytes, sending them, waiting for their echo
 * and ACKs, and judging an ACK against what the suite sent ([SPEC-SACK-3]).
 *
 * <p>Stateless; thread-safe.
 */
final class Scenarios {
    private Scenarios() {
    }

    /** {@code length} bytes that differ from message to message ({@code seed}). */
    static byte[] bytes(int length, long seed) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Sends every packet of {@code segments} once on {@code path}, in order. */
    static List<Sent> sendAll(WireSession s, List<Segment> segments, int path) {
        List<Sent> out = new ArrayList<>();
        for (Segment seg : segments) {
            out.add(s.send(seg, path));
        }
        return out;
    }

    /** Waits for the {@code count}-th echo ([SPEC-CONF-2]); fails the case if it does not come. */
    static void awaitEchoes(WireSession s, int count, String what) {
        boolean ok = s.await(() -> s.echoes().size() >= count);
        Checks.check(ok, "%s: %d echoed message(s) expected on stream %d, %d came within %d ms [SPEC-CONF-2]", what,
                count, ResponderContract.ECHO_STREAM, s.echoes().size(), s.waitNanos() / 1_000_000);
    }

    /** The echo {@code index} carries exactly {@code expected} ([SPEC-MSG-5], [SPEC-CONF-2]). */
    static void checkEcho(WireSession s, int index, byte[] expected, String what) {
        WireSession.EchoMessage m = s.echoes().get(index);
        Checks.check(m.streamId() == ResponderContract.ECHO_STREAM, "echo %d came on stream %d", index, m.streamId());
        Checks.check(Arrays.equals(m.bytes(), expected), "%s: echo %d (MSN %d) has %d bytes that differ from the %d"
                + " bytes sent: the message was not placed as its packets said [SPEC-MSG-5]", what, index,
                m.messageSequence(), m.bytes().length, expected.length);
    }

    /** Waits for an ACK about {@code path} that acknowledges {@code psn}; fails the case if none comes. */
    static Received awaitAckOf(WireSession s, int path, long psn) {
        Received[] found = new Received[1];
        s.await(() -> (found[0] = ackOf(s, path, psn)) != null);
        Checks.check(found[0] != null, "no ACK about path %d acknowledged PSN %d within %d ms (%d ACKs about the path"
                + " came) [SPEC-SACK-4]", path, psn, s.waitNanos() / 1_000_000, s.acks(path).size());
        return found[0];
    }

    /** The first ACK about {@code path} with the bit of {@code psn} set, or null. */
    static Received ackOf(WireSession s, int path, long psn) {
        for (Received r : s.acks(path)) {
            if (acknowledges(r.packet(), psn)) {
                return r;
            }
        }
        return null;
    }

    /** Whether {@code ack} has the bit of {@code psn} set. */
    static boolean acknowledges(Packet ack, long psn) {
        long k = psn - ack.sackBase;
        return k >= 0 && k < WireConstants.SACK_BITS && (ack.sackBits[(int) (k >>> 6)] & (1L << (k & 63))) != 0;
    }

    /** The PSN of the highest bit set in {@code ack}, or -1. */
    static long highestAcknowledged(Packet ack) {
        for (int w = WireConstants.SACK_WORDS - 1; w >= 0; w--) {
            if (ack.sackBits[w] != 0) {
                return ack.sackBase + 64L * w + (63 - Long.numberOfLeadingZeros(ack.sackBits[w]));
            }
        }
        return -1;
    }

    /** Checks every ACK received about each path against what the suite sent on it. */
    static void checkAllAcks(WireSession s) {
        for (int path = 0; path < s.grantedPaths(); path++) {
            for (Received r : s.acks(path)) {
                checkAck(s, r);
            }
        }
    }

    /**
     * Judges one ACK ([SPEC-SACK-1] to [SPEC-SACK-3], [SPEC-WIRE-18]): with L its highest bit, L
     * is a PSN the suite sent validly, {@code sackBase} is max(0, L − 255), a bit is set exactly
     * for the PSNs in [sackBase, L] the suite sent validly (the network between the suite and the
     * IUT keeps order, so every one of them arrived before L), the echoed timestamp is L's, the
     * ACK reached the socket of its path, and it carries no sequence numbers of its own.
     */
    static void checkAck(WireSession s, Received r) {
        Packet a = r.packet();
        int path = a.pathId;
        Checks.check(r.path() == path, "an ACK about path %d reached the socket of path %d [SPEC-SACK-3]", path, r.path());
        Checks.check(a.connectionSequence == 0 && a.pathSequence == 0, "an ACK carries CSN %d and PSN %d, not 0"
                + " [SPEC-PATH-4]", a.connectionSequence, a.pathSequence);
        long highest = highestAcknowledged(a);
        Checks.check(highest >= 0, "an ACK about path %d has no bit set (sackBase %d) [SPEC-SACK-3]", path, a.sackBase);
        Sent top = null;
        TreeSet<Long> valid = new TreeSet<>();
        for (Sent sent : s.sent(path)) {
            if (sent.valid()) {
                valid.add(sent.pathSequence());
                if (sent.pathSequence() == highest) {
                    top = sent;
                }
            }
        }
        Checks.check(top != null, "an ACK about path %d acknowledges PSN %d, which the suite never sent as a packet"
                + " the receiver may record (sent validly: %s) [SPEC-SACK-2]", path, highest, valid);
        long base = Math.max(0, highest - (WireConstants.SACK_BITS - 1));
        Checks.check(a.sackBase == base, "an ACK with highest PSN %d has sackBase %d, expected %d [SPEC-SACK-3]",
                highest, a.sackBase, base);
        List<Long> wronglySet = new ArrayList<>();
        List<Long> wronglyClear = new ArrayList<>();
        for (long psn = base; psn <= highest; psn++) {
            boolean set = acknowledges(a, psn);
            boolean expected = valid.contains(psn);
            if (set && !expected) {
                wronglySet.add(psn);
            } else if (!set && expected) {
                wronglyClear.add(psn);
            }
        }
        Checks.check(wronglySet.isEmpty(), "an ACK about path %d (highest PSN %d) acknowledges PSN(s) %s, which were"
                + " never sent as packets the receiver may record [SPEC-SACK-2], [SPEC-SACK-3]", path, highest, wronglySet);
        Checks.check(wronglyClear.isEmpty(), "an ACK about path %d (highest PSN %d) leaves PSN(s) %s clear, which"
                + " arrived before PSN %d [SPEC-SACK-1], [SPEC-SACK-3]", path, highest, wronglyClear, highest);
        if (top.timestampNanos() != 0) {
            Checks.check(a.echoTimestampNanos == top.timestampNanos(), "an ACK with highest PSN %d echoes timestamp %d,"
                    + " not that PSN's %d [SPEC-SACK-3]", highest, a.echoTimestampNanos, top.timestampNanos());
        }
    }
}
