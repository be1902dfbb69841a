package io.metaroce.bench.cli.perf;

import io.metaroce.netty.CompletionSink;
import io.metaroce.netty.UdpConnection;

/**
 * The {@link CompletionSink} of a perf endpoint: hands every data-stream completion to the run's
 * {@link DirectTraffic}. Completions on the control stream ({@link ControlChannel#STREAM}), posted
 * with futures, complete their futures and are ignored here. A perf endpoint carries one run at a
 * time, so one traffic at a time is attached.
 *
 * <p>Thread-safety: {@link #attach} from any thread (before the traffic's first post); completions
 * arrive on the endpoint's event loop.
 */
final class PerfSink implements CompletionSink {
    private volatile DirectTraffic traffic;

    /** From now on data completions go to {@code value}. */
    void attach(DirectTraffic value) {
        this.traffic = value;
    }

    @Override
    public void onCompletion(UdpConnection connection, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate) {
        DirectTraffic t = traffic;
        if (streamId != ControlChannel.STREAM && t != null) {
            t.onCompletion(streamId, workRequestId, opcode, status, byteLength, immediate, hasImmediate);
        }
    }
}
