package io.metaroce.core.conn;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.WireConstants;

/**
 * Remembers a path's latest transmissions declared lost, and finds those a later ACK shows to
 * have arrived after all [SPEC-LOSS-9]: a slow host or a stalled peer, not a lost packet. Path
 * sequence numbers are never reused, so a SACK bit set for a PSN declared lost can only mean its
 * original transmission arrived. Keeps a floor for the path's timers, raised to the delay such a
 * packet took and decaying by {@link #FLOOR_DECAY_SHIFT} per ACK of the path.
 *
 * <p>Not thread-safe; owned by its path.
 */
final class SpuriousLossDetector {
    /** Lost transmissions remembered per path; an older one is forgotten (it stays a loss). */
    static final int REMEMBERED = 64;
    /** Each ACK of the path takes 1/2^this of the timer floor away. */
    static final int FLOOR_DECAY_SHIFT = 10;

    private final int pathId;
    private final long[] psn = new long[REMEMBERED];
    private final int[] bytes = new int[REMEMBERED];
    /** Latest time the transmission can have been sent, or Long.MIN_VALUE if unknown. */
    private final long[] sentBy = new long[REMEMBERED];
    private int count;
    private int next;
    private long timerFloorNanos;

    SpuriousLossDetector(int pathId) {
        this.pathId = pathId;
    }

    /** Lost transmission {@code pathSequence}; it was sent at or before {@code sentByNanos} (MIN_VALUE: unknown). */
    void onLost(long pathSequence, int packetBytes, long sentByNanos) {
        if (bytes[next] == 0) {
            count++;
        }
        psn[next] = pathSequence;
        bytes[next] = Math.max(1, packetBytes);
        sentBy[next] = sentByNanos;
        next = (next + 1) % REMEMBERED;
    }

    /**
     * Checks an ACK of the path: every remembered loss whose SACK bit is set is reported to
     * {@code sink} and forgotten, as is every one below the ACK's window (it will never be
     * reported). Decays the timer floor. An ACK the sender ignores ([SPEC-SACK-6]: a bit set for
     * a PSN at or above {@code nextPathSequence}) proves nothing.
     */
    void onAck(Packet ack, long nextPathSequence, long nowNanos, Sink sink) {
        timerFloorNanos -= timerFloorNanos >> FLOOR_DECAY_SHIFT;
        if (count == 0) {
            return;
        }
        long base = ack.sackBase;
        long[] bits = ack.sackBits;
        for (int w = WireConstants.SACK_WORDS - 1; w >= 0; w--) {
            if (bits[w] != 0) {
                if (base + w * 64L + 63 - Long.numberOfLeadingZeros(bits[w]) >= nextPathSequence) {
                    return; // acknowledges a PSN never sent: the whole ACK is ignored [SPEC-SACK-6]
                }
                break;
            }
        }
        for (int k = 0; k < REMEMBERED; k++) {
            if (bytes[k] == 0) {
                continue; // empty slot
            }
            long rel = psn[k] - base;
            if (rel < 0) {
                forget(k);
            } else if (rel < WireConstants.SACK_BITS && (ack.sackBits[(int) (rel >>> 6)] & (1L << (rel & 63))) != 0) {
                if (sentBy[k] != Long.MIN_VALUE) {
                    timerFloorNanos = Math.max(timerFloorNanos, nowNanos - sentBy[k]);
                }
                int b = bytes[k];
                forget(k);
                sink.onSpuriousLoss(pathId, b);
            }
        }
    }

    private void forget(int k) {
        bytes[k] = 0;
        count--;
    }

    /** Least wait for the path's retransmission and overdue timers, learned from spurious losses (0: none). */
    long timerFloorNanos() {
        return timerFloorNanos;
    }

    /** Told of each spurious loss found. */
    interface Sink {
        /** The original transmission of a packet of {@code bytes} declared lost on {@code pathId} has arrived. */
        void onSpuriousLoss(int pathId, int bytes);
    }
}
