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

    // Made at the path's first loss: an idle or loss-free path carries none of it (the 8 KiB
    // budget per idle connection), and a path that loses allocates once, never per packet.
    private long[] psn;
    /** The connection sequence number each remembered transmission carried. */
    private long[] csn;
    private int[] bytes;
    /** Latest time the transmission can have been sent, or Long.MIN_VALUE if unknown. */
    private long[] sentBy;
    private int count;
    private int next;
    private long timerFloorNanos;
    private long foundBytes;
    /** The CSNs of the spurious losses the last {@link #onAck} found, {@code found} of them. */
    private long[] foundCsn;
    private int found;

    /**
     * Lost transmission {@code pathSequence} of packet {@code connectionSequence}; it was sent at or
     * before {@code sentByNanos} (MIN_VALUE: unknown).
     */
    void onLost(long pathSequence, long connectionSequence, int packetBytes, long sentByNanos) {
        if (psn == null) {
            psn = new long[REMEMBERED];
            csn = new long[REMEMBERED];
            foundCsn = new long[REMEMBERED];
            bytes = new int[REMEMBERED];
            sentBy = new long[REMEMBERED];
        }
        if (bytes[next] == 0) {
            count++;
        }
        psn[next] = pathSequence;
        csn[next] = connectionSequence;
        bytes[next] = Math.max(1, packetBytes);
        sentBy[next] = sentByNanos;
        next = (next + 1) % REMEMBERED;
    }

    /**
     * Checks an ACK of the path: every remembered loss whose SACK bit is set is counted (returned;
     * their bytes in {@link #foundBytes()}) and forgotten, as is every one below the ACK's window
     * (it will never be reported). Decays the timer floor. An ACK the sender ignores ([SPEC-SACK-6]: a bit set for
     * a PSN at or above {@code nextPathSequence}) proves nothing.
     */
    int onAck(Packet ack, long nextPathSequence, long nowNanos) {
        timerFloorNanos -= timerFloorNanos >> FLOOR_DECAY_SHIFT;
        foundBytes = 0;
        found = 0;
        if (count == 0) {
            return 0;
        }
        long base = ack.sackBase;
        long[] bits = ack.sackBits;
        for (int w = WireConstants.SACK_WORDS - 1; w >= 0; w--) {
            if (bits[w] != 0) {
                if (base + w * 64L + 63 - Long.numberOfLeadingZeros(bits[w]) >= nextPathSequence) {
                    return 0; // acknowledges a PSN never sent: the whole ACK is ignored [SPEC-SACK-6]
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
                foundBytes += bytes[k];
                foundCsn[found++] = csn[k];
                forget(k);
            }
        }
        return found;
    }

    /** The CSN of the {@code i}-th spurious loss the last {@link #onAck} found ({@code i} below its count). */
    long foundConnectionSequence(int i) {
        return foundCsn[i];
    }

    /** Bytes of the spurious losses the last {@link #onAck} found. */
    long foundBytes() {
        return foundBytes;
    }

    private void forget(int k) {
        bytes[k] = 0;
        count--;
    }

    /** Least overdue wait for the path, learned from spurious losses (0: none); the path caps it. */
    long timerFloorNanos() {
        return timerFloorNanos;
    }
}
