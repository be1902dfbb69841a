package io.metaroce.bench.conformance;

/**
 * One DATA packet of a message the suite sends (or one READ_REQUEST): everything but the sequence numbers, which a
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
    /** Whether this is a READ_REQUEST (its {@link #messageLength} the length to read), not a DATA packet. */
    final boolean readRequest;
    /** The CSN of the first transmission, or -1 before it. */
    long connectionSequence = -1;

    Segment(int opcode, int streamId, long messageSequence, long receiveSequence, long messageLength,
            long payloadMessageOffset, byte[] payload, int remoteKey, long remoteOffset, boolean hasImmediate,
            int immediate) {
        this(opcode, streamId, messageSequence, receiveSequence, messageLength, payloadMessageOffset, payload, remoteKey,
                remoteOffset, hasImmediate, immediate, false);
    }

    private Segment(int opcode, int streamId, long messageSequence, long receiveSequence, long messageLength,
            long payloadMessageOffset, byte[] payload, int remoteKey, long remoteOffset, boolean hasImmediate,
            int immediate, boolean readRequest) {
        this.readRequest = readRequest;
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

    /** A READ_REQUEST of {@code length} bytes at {@code remoteOffset} of the region {@code remoteKey}. */
    static Segment readRequest(int streamId, long messageSequence, int remoteKey, long remoteOffset, long length) {
        return new Segment(0, streamId, messageSequence, 0, length, 0, new byte[0], remoteKey, remoteOffset, false, 0,
                true);
    }

    /** Whether this packet ends its message (it then asks for an immediate ACK, [SPEC-SACK-5]). */
    public boolean last() {
        return readRequest || payloadMessageOffset + payload.length == messageLength;
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
