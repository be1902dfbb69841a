package io.metaroce.bench.cli.perf;

/**
 * One side's data traffic of a run, posted with the zero-allocation {@code post...Direct} methods
 * of {@link io.metaroce.netty.UdpConnection}: their completions come back here through the
 * endpoint's {@link PerfSink}, with primitive arguments and the id the traffic posted under.
 * Thread-safety: called on the connection's event loop only.
 */
interface DirectTraffic {
    /**
     * A data-stream completion (stream 1 and up; the control stream never comes here).
     *
     * @param opcode a {@link io.metaroce.core.api.WorkOpcode} constant
     * @param status a {@link io.metaroce.core.api.CompletionStatus} constant
     */
    void onCompletion(int streamId, long workRequestId, int opcode, int status, long byteLength, int immediate,
            boolean hasImmediate);
}
