package io.metaroce.bench.cli.perf;

import io.metaroce.netty.CompletionSink;
import io.metaroce.netty.UdpConnection;

/**
 * The {@link CompletionSink} of a perf endpoint: hands every data-stream completion of the run's
 * connection to the run's {@link DirectTraffic}. Completions on the control stream
 * ({@link ControlChannel#STREAM}), posted with futures, complete their futures and are ignored
 * here, as are those of any other connection (a run served before, still flushing). A perf
 * endpoint carries one run at a time, so one traffic at a time is attached.
 *
 * <p>Thread-safety: {@link #attach} from any thread (before the traffic's first post); completions
 * arrive on the endpoint's event loop.
 */
final class PerfSink implements CompletionSink {
    private record Target(UdpConnection connection, DirectTraffic traffic) {
    }

    private volatile Target target;

    /** From now on the data completions of {@code connection} go to {@code traffic}. */
    void attach(UdpConnection connection, DirectTraffic traffic) {
        this.target = new Target(connection, traffic);
    }

    @Override
    public void onCompletion(UdpConnection connection, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate) {
        Target t = target;
        if (streamId != ControlChannel.STREAM && t != null && t.connection == connection) {
            t.traffic.onCompletion(streamId, workRequestId, opcode, status, byteLength, immediate, hasImmediate);
        }
    }
}
