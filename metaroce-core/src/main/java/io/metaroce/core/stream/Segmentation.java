package io.metaroce.core.stream;

/**
 * The segmentation rule of [SPEC-MSG-3]: how a message of {@code L} bytes is cut into DATA
 * packets, and how many of a packet's bytes count towards its message's completion.
 *
 * <p>A message of {@code L > 0} bytes goes as {@code n = ceil(L / P)} packets that all carry
 * {@code Q = ceil(L / n)} bytes: packet {@code k} starts at {@code min(k·Q, L − Q)}, so the last
 * one overlaps its predecessor by {@code n·Q − L < n} bytes instead of being shorter. Every
 * datagram of a message, and of every message of the same length, then has one length, which
 * lets a segmentation-offload send (GSO: all segments of one size but the last) carry several
 * messages at once; with a short last packet, each message ended a run. The overlap costs at most
 * {@code n − 1} bytes per message.
 *
 * <p>Because the last packet repeats bytes of the one before it, a receiver cannot count payload
 * bytes to find that a message is complete; it counts each packet's {@linkplain #creditedBytes
 * credited bytes} instead, which add up to exactly {@code L} over the packets of the rule.
 *
 * <p>Stateless; thread-safe.
 */
public final class Segmentation {
    private Segmentation() {
    }

    /**
     * The bytes a packet counts towards its message's completion [SPEC-MSG-9], whichever cut its
     * sender used: {@link #creditedBytes(long, int)} for the overlapping last packet of the
     * equal-length cut (it ends at {@code L}, carries {@code Q = packetPayload(L, P)} bytes and
     * starts off a multiple of {@code Q}), else all of its payload. A packet of the other cut never
     * looks like that one (its short last packet is shorter than {@code Q}, unless every packet is
     * full and the last starts at a multiple of its length), so a receiver needs no setting shared
     * with its peer; only {@code P}, which both ends take from the handshake [SPEC-CONN-14].
     */
    public static long creditedBytes(long messageLength, long offset, int length, int maxPayload) {
        if (length <= 0) {
            return 0;
        }
        boolean overlappingLast = offset + length == messageLength && offset % length != 0
                && length == packetPayload(messageLength, maxPayload);
        return overlappingLast ? creditedBytes(offset, length) : length;
    }

    /**
     * Payload bytes of every packet of a message of {@code messageLength} bytes cut with at most
     * {@code maxPayload} bytes a packet: {@code ceil(L / ceil(L / P))}, or 0 for an empty message.
     *
     * @throws IllegalArgumentException if {@code messageLength < 0} or {@code maxPayload < 1}
     */
    public static int packetPayload(long messageLength, int maxPayload) {
        if (messageLength < 0 || maxPayload < 1) {
            throw new IllegalArgumentException("need messageLength >= 0 and maxPayload >= 1, got "
                    + messageLength + " and " + maxPayload);
        }
        if (messageLength == 0) {
            return 0;
        }
        long packets = Math.ceilDiv(messageLength, maxPayload);
        return (int) Math.ceilDiv(messageLength, packets);
    }

    /**
     * Where the packet that follows the bytes {@code [0, sent)} starts: {@code sent}, or
     * {@code L − Q} for the last packet, which overlaps its predecessor rather than being shorter.
     */
    public static long packetOffset(long messageLength, int packetPayload, long sent) {
        return Math.min(sent, messageLength - packetPayload);
    }

    /**
     * The bytes a packet of {@code length} bytes at message offset {@code offset} counts towards
     * its message's completion: those of {@code [ceil(offset / length)·length, offset + length)}.
     * That is all of them for a packet at a multiple of its length and, for the last packet of
     * the rule, those its predecessor did not carry. Always in {@code (0, length]} for a non-empty
     * packet, 0 for an empty one.
     */
    public static long creditedBytes(long offset, int length) {
        if (length <= 0) {
            return 0;
        }
        return offset + length - Math.ceilDiv(offset, length) * length;
    }
}
