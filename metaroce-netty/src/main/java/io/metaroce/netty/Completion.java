package io.metaroce.netty;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.WorkOpcode;

/**
 * A finished work request, as delivered to the future a {@link UdpConnection} post returned.
 * Immutable and thread-safe.
 *
 * @param workRequestId the id the application passed when posting (not the datapath's internal id)
 * @param streamId the stream it was posted on
 * @param opcode a {@link WorkOpcode}
 * @param status a {@link CompletionStatus}
 * @param byteLength bytes transferred (for a receive: bytes the SEND or WRITE_WITH_IMM carried)
 * @param immediate immediate data, valid when {@code hasImmediate}
 * @param hasImmediate whether {@code immediate} is valid
 */
public record Completion(long workRequestId, int streamId, int opcode, int status, long byteLength, int immediate,
        boolean hasImmediate) {

    /** Whether the status is {@link CompletionStatus#SUCCESS}. */
    public boolean isSuccess() {
        return status == CompletionStatus.SUCCESS;
    }

    @Override
    public String toString() {
        return "Completion[wr=" + workRequestId + ", stream=" + streamId + ", " + WorkOpcode.name(opcode) + ", "
                + CompletionStatus.name(status) + ", bytes=" + byteLength
                + (hasImmediate ? ", imm=0x" + Integer.toHexString(immediate) : "") + "]";
    }
}
