package io.metaroce.core.sim.rocev2;

import java.nio.ByteBuffer;

/**
 * The sending half of a reliable-connected queue pair: segments posted messages into packets,
 * paces them at the DCQCN rate, and recovers losses by go-back-N. A NAK (PSN sequence error)
 * rewinds transmission to the PSN the responder expects; a retransmission timeout rewinds it to
 * the oldest unacknowledged PSN, doubles the timeout, and after more than {@code retryCount} in a
 * row without progress puts the queue pair in the error state. Losses do not change the rate:
 * DCQCN reacts to CNPs only.
 *
 * <p>Not thread-safe.
 */
final class Requester {
    private static final long PICOS_PER_SECOND_TIMES_8 = 8_000_000_000_000L;

    private final RoceV2Config config;
    private final QueuePairStats stats;
    private final DcqcnRateController rate;
    private final SendQueue queue;
    private final int initialPsn;

    /** Oldest unacknowledged sequence number. */
    private long una;
    /** Next sequence number to transmit (rewound by NAKs and timeouts). */
    private long nextSeq;
    /** One past the highest sequence number ever transmitted. */
    private long maxSentSeq;
    /** Message holding {@code nextSeq} (when {@code nextSeq < queue.endSeq()}). */
    private long cursorMessage;
    private long nextSendPicos;
    private long rtoDeadlineNanos = Long.MAX_VALUE;
    private long rtoNanos;
    private int consecutiveTimeouts;
    private boolean failed;

    Requester(RoceV2Config config, QueuePairStats stats, DcqcnRateController rate, int initialPsn) {
        this.config = config;
        this.stats = stats;
        this.rate = rate;
        this.queue = new SendQueue(config.sendQueueDepth(), config.payloadBytesPerPacket());
        this.initialPsn = initialPsn;
        this.rtoNanos = config.retransmitTimeoutNanos();
    }

    boolean post(int bytes) {
        return queue.offer(bytes);
    }

    boolean failed() {
        return failed;
    }

    long rtoDeadlineNanos() {
        return rtoDeadlineNanos;
    }

    long outstandingPackets() {
        return maxSentSeq - una;
    }

    int queuedMessages() {
        return queue.size();
    }

    /** The PSN of sequence number {@code seq}. */
    int psnOf(long seq) {
        return (int) ((initialPsn + seq) & RoceV2Codec.MASK_24);
    }

    /** Whether a packet waits to go and the window has room for it (pacing aside). */
    boolean hasSendable() {
        return !failed && nextSeq < queue.endSeq() && nextSeq - una < config.windowPackets();
    }

    /** When pacing lets the next packet go (meaningful when {@link #hasSendable()}). */
    long nextSendNanos() {
        return Math.ceilDiv(nextSendPicos, 1000L);
    }

    boolean readyAt(long nowPicos) {
        return hasSendable() && nowPicos >= nextSendPicos;
    }

    long currentRate() {
        return config.dcqcnEnabled() ? rate.currentRateBitsPerSecond() : config.lineRateBitsPerSecond();
    }

    /** Writes the packet {@code nextSeq} into {@code dst}; returns its length. Call only when {@link #readyAt}. */
    int writeNext(long nowNanos, ByteBuffer dst, RoceV2Codec codec, int destQpn) {
        long seq = nextSeq;
        if (cursorMessage < queue.headNumber()) {
            // The cursor's message completed (and its ring slot may hold a newer message now).
            cursorMessage = queue.headNumber();
        }
        while (queue.endSeq(cursorMessage) <= seq) {
            cursorMessage++;
        }
        long k = seq - queue.firstSeq(cursorMessage);
        int packets = queue.packets(cursorMessage);
        boolean last = k == packets - 1;
        int opcode = packets == 1 ? RoceV2Opcode.SEND_ONLY
                : k == 0 ? RoceV2Opcode.SEND_FIRST
                : last ? RoceV2Opcode.SEND_LAST : RoceV2Opcode.SEND_MIDDLE;
        // Ask for an ACK at a message's end and when this packet fills the window, so the
        // requester never waits on the responder's coalescing.
        boolean ackRequest = last || seq + 1 - una >= config.windowPackets();
        int length = codec.encodeSend(dst, opcode, destQpn, ackRequest, psnOf(seq),
                queue.payloadOf(cursorMessage, k));
        if (seq < maxSentSeq) {
            stats.retransmittedPackets++;
        } else {
            maxSentSeq = seq + 1;
        }
        nextSeq = seq + 1;
        stats.dataPacketsSent++;
        stats.dataBytesSent += length;
        if (rtoDeadlineNanos == Long.MAX_VALUE) {
            rtoDeadlineNanos = nowNanos + rtoNanos;
        }
        nextSendPicos = Pacing.next(nextSendPicos, nowNanos, length, currentRate());
        if (config.dcqcnEnabled()) {
            rate.onBytesSent(length);
        }
        return length;
    }

    /**
     * An ACKNOWLEDGE arrived: an ACK of every PSN up to {@code psn}, or a NAK saying the responder
     * expects {@code psn} (which acknowledges everything before it).
     *
     * @return the number of messages this completed
     */
    int onAcknowledge(long nowNanos, int psn, boolean nak, int qpn, RoceV2Listener listener) {
        if (nak) {
            stats.naksReceived++;
        } else {
            stats.acksReceived++;
        }
        long outstanding = maxSentSeq - una;
        long d = (psn - psnOf(una)) & RoceV2Codec.MASK_24;
        if (d >= outstanding) {
            // Names no packet in flight: a late or duplicated acknowledgement.
            stats.staleAcknowledgements++;
            return 0;
        }
        // An ACK names the last PSN received; a NAK names the first one missing, and so
        // acknowledges everything before it.
        long newUna = nak ? una + d : una + d + 1;
        int completed = newUna > una ? advance(nowNanos, newUna, qpn, listener) : 0;
        if (nak) {
            rewind(una);
        }
        return completed;
    }

    private int advance(long nowNanos, long newUna, int qpn, RoceV2Listener listener) {
        int completed = 0;
        while (una < newUna) {
            long message = queue.headNumber();
            long end = queue.endSeq(message);
            long upTo = Math.min(end, newUna);
            stats.bytesAcknowledged += queue.payloadBetween(message, una, upTo);
            una = upTo;
            if (una == end) {
                int bytes = queue.bytes(message);
                queue.removeHead();
                stats.messagesCompleted++;
                completed++;
                listener.onMessageCompleted(qpn, nowNanos, bytes);
            }
        }
        if (nextSeq < una) {
            // A late ACK for packets sent before a rewind: they need not go again.
            rewind(una);
        }
        consecutiveTimeouts = 0;
        rtoNanos = config.retransmitTimeoutNanos();
        rtoDeadlineNanos = una < maxSentSeq ? nowNanos + rtoNanos : Long.MAX_VALUE;
        return completed;
    }

    private void rewind(long seq) {
        nextSeq = seq;
        cursorMessage = seq < queue.endSeq() ? queue.find(seq) : queue.tailNumber();
    }

    /**
     * Runs the retransmission timer if due.
     *
     * @return true if this timeout exhausted the retries and the queue pair failed
     */
    boolean onTimeout(long nowNanos) {
        if (failed || rtoDeadlineNanos > nowNanos) {
            return false;
        }
        stats.timeouts++;
        if (++consecutiveTimeouts > config.retryCount()) {
            failed = true;
            rtoDeadlineNanos = Long.MAX_VALUE;
            return true;
        }
        rtoNanos = Math.min(rtoNanos * 2, config.maxRetransmitTimeoutNanos());
        rewind(una);
        rtoDeadlineNanos = nowNanos + rtoNanos;
        return false;
    }

    /** Picosecond pacing arithmetic shared with the port. */
    static final class Pacing {
        private Pacing() {
        }

        /**
         * The earliest time (picoseconds) after a packet of {@code bytes} sent at {@code nowNanos}
         * that the next may go at {@code rate}. Lateness under a nanosecond comes from the driver's
         * clock granularity and is not idle time, so it does not shift the schedule; anything later
         * is idle time and earns no credit.
         */
        static long next(long scheduledPicos, long nowNanos, int bytes, long rateBitsPerSecond) {
            long nowPicos = nowNanos * 1000;
            long base = nowPicos - scheduledPicos >= 1000 ? nowPicos : scheduledPicos;
            return base + bytes * PICOS_PER_SECOND_TIMES_8 / rateBitsPerSecond;
        }
    }
}
