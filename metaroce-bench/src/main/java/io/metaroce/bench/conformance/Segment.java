package io.metaroce.bench.conformance;

/**
 * One DATA packet of a message the suite sends: everything but the sequence numbers, which a
 * transmission assigns ({@link WireSession#send}). The connection sequence number is taken at
 * the first transmission and kept by every retransmission ([SPEC-PATH-5]).
 *
 * <p>Not thread-safe; owned by the suite thread.
 */
public final class Segment {
    final int opcode;
    final int streamId;
    final long messageSequence;
    final long receiveSequence;
    final long messageLength;
    final long payloadMessageOffset;
    final byte[] payload;
    final int remoteKey;
    final long remoteOffset;
    final boolean hasImmediate;
    final int immediate;
    /** The CSN of the first transmission, or -1 before it. */
    long connectionSequence = -1;

    Segment(int opcode, int streamId, long messageSequence, long receiveSequence, long messageLength,
            long payloadMessageOffset, byte[] payload, int remoteKey, long remoteOffset, boolean hasImmediate,
            int immediate) {
        this.opcode = opcode;
        this.streamId = streamId;
        this.messageSequence = messageSequence;
        this.receiveSequence = receiveSequence;
        this.messageLength = messageLength;
        this.payloadMessageOffset = payloadMessageOffset;
        this.payload = payload;
        this.remoteKey = remoteKey;
        this.remoteOffset = remoteOffset;
        this.hasImmediate = hasImmediate;
        this.immediate = immediate;
    }

    /** Whether this packet ends its message (it then asks for an immediate ACK, [SPEC-SACK-5]). */
    public boolean last() {
        return payloadMessageOffset + payload.length == messageLength;
    }

    /** The CSN its first transmission took, or -1 if it was never sent. */
    public long connectionSequence() {
        return connectionSequence;
    }

    /** The message sequence number. */
    public long messageSequence() {
        return messageSequence;
    }

    /** Offset of the payload in the message. */
    public long payloadMessageOffset() {
        return payloadMessageOffset;
    }
}
