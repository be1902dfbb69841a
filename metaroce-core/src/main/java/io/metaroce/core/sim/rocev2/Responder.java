package io.metaroce.core.sim.rocev2;

import java.nio.ByteBuffer;

/**
 * The receiving half of a reliable-connected queue pair, with DCQCN's notification point. It
 * accepts only the expected PSN (go-back-N: no reorder buffer). The first packet past a gap earns
 * one PSN sequence error NAK; every later one is dropped silently until the expected PSN arrives,
 * as NICs do. In-order packets are acknowledged coalesced: at a message's end, when the requester
 * asks (AckReq), after {@code ackEveryPackets}, or {@code maxAckDelayNanos} after the oldest
 * unacknowledged one. A duplicate is acknowledged again when it asks, so a requester whose ACK was
 * lost makes progress. A CE-marked SEND earns a CNP unless one went less than
 * {@code cnpIntervalNanos} ago.
 *
 * <p>Not thread-safe.
 */
final class Responder {
    private static final int HALF_PSN_SPACE = 1 << 23;

    private final RoceV2Config config;
    private final QueuePairStats stats;
    private int expectedPsn;
    private boolean nakSentForGap;
    private boolean inMessage;
    private int messageBytes;
    private int msn;
    private int packetsSinceAck;
    private long ackDeadlineNanos = Long.MAX_VALUE;
    private long lastCnpNanos;
    private boolean anyCnp;

    private boolean ackPending;
    private boolean nakPending;
    private int nakPsn;
    private boolean cnpPending;

    Responder(RoceV2Config config, QueuePairStats stats, int initialPsn) {
        this.config = config;
        this.stats = stats;
        this.expectedPsn = initialPsn;
    }

    int expectedPsn() {
        return expectedPsn;
    }

    long ackDeadlineNanos() {
        return ackDeadlineNanos;
    }

    boolean hasControl() {
        return ackPending || nakPending || cnpPending;
    }

    /** A SEND packet for this queue pair arrived with ECN codepoint {@code ecn}. */
    void onSend(long nowNanos, RoceV2Packet p, int ecn, int qpn, RoceV2Listener listener) {
        stats.dataPacketsReceived++;
        if (ecn == 3) {
            stats.ceMarkedReceived++;
            if (!anyCnp || nowNanos - lastCnpNanos >= config.cnpIntervalNanos()) {
                anyCnp = true;
                lastCnpNanos = nowNanos;
                cnpPending = true;
            }
        }
        int d = (p.psn - expectedPsn) & RoceV2Codec.MASK_24;
        if (d == 0) {
            onInSequence(nowNanos, p, qpn, listener);
        } else if (d < HALF_PSN_SPACE) {
            stats.outOfOrderDropped++;
            if (!nakSentForGap) {
                nakSentForGap = true;
                nakPending = true;
                nakPsn = expectedPsn;
            }
        } else {
            stats.duplicatesReceived++;
            if (p.ackRequest) {
                ackPending = true;
            }
        }
    }

    private void onInSequence(long nowNanos, RoceV2Packet p, int qpn, RoceV2Listener listener) {
        if (inMessage == RoceV2Opcode.beginsMessage(p.opcode)) {
            // A FIRST/ONLY inside a message, or a MIDDLE/LAST outside one: a real responder
            // NAKs it as an invalid request; the baseline drops and counts it.
            stats.protocolViolations++;
            return;
        }
        expectedPsn = (expectedPsn + 1) & RoceV2Codec.MASK_24;
        nakSentForGap = false;
        stats.bytesDelivered += p.payloadBytes;
        messageBytes += p.payloadBytes;
        boolean ends = RoceV2Opcode.endsMessage(p.opcode);
        inMessage = !ends;
        packetsSinceAck++;
        if (ends) {
            stats.messagesDelivered++;
            msn = (msn + 1) & RoceV2Codec.MASK_24;
            int bytes = messageBytes;
            messageBytes = 0;
            listener.onMessageDelivered(qpn, nowNanos, bytes);
        }
        if (ends || p.ackRequest || packetsSinceAck >= config.ackEveryPackets()) {
            ackPending = true;
        } else if (ackDeadlineNanos == Long.MAX_VALUE) {
            ackDeadlineNanos = nowNanos + config.maxAckDelayNanos();
        }
    }

    /** Runs the coalescing timer if due. */
    void onTimeout(long nowNanos) {
        if (ackDeadlineNanos <= nowNanos) {
            ackDeadlineNanos = Long.MAX_VALUE;
            ackPending = true;
        }
    }

    /**
     * Writes the next owed control packet (CNP first, then NAK, then ACK) to the peer queue pair
     * {@code destQpn}; returns its length. Call only when {@link #hasControl()}.
     */
    int writeControl(ByteBuffer dst, RoceV2Codec codec, int destQpn) {
        if (cnpPending) {
            cnpPending = false;
            stats.cnpsSent++;
            return codec.encodeCnp(dst, destQpn);
        }
        if (nakPending) {
            nakPending = false;
            stats.naksSent++;
            return codec.encodeAck(dst, destQpn, true, nakPsn, msn);
        }
        ackPending = false;
        packetsSinceAck = 0;
        ackDeadlineNanos = Long.MAX_VALUE;
        stats.acksSent++;
        return codec.encodeAck(dst, destQpn, false, (expectedPsn - 1) & RoceV2Codec.MASK_24, msn);
    }
}
