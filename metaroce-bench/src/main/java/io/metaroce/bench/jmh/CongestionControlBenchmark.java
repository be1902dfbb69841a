package io.metaroce.bench.jmh;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The congestion-control updates of {@link AimdController} on their own, on {@code paths} paths
 * taken in turn, as the engine calls them per packet: the send gate ({@code sendAllowanceBytes}
 * and {@code nextSendTimeNanos}), a packet sent and acknowledged with an RTT sample, and ECN
 * feedback (one in {@code ceEvery} reports carries a CE mark, so windows both grow and shrink).
 * Run with {@code -prof gc}: {@code gc.alloc.rate.norm} must be ~0 B/op.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main CongestionControlBenchmark -prof gc -f 1 -wi 3 -i 5 -w 1 -r 1
 * </pre>
 *
 * <p>Not thread-safe: JMH gives each benchmark thread its own state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CongestionControlBenchmark {
    /** Paths the controller manages (the engine's default maximum is 8). */
    @Param({"8"})
    public int paths;

    /** One ECN report in this many carries a CE mark. */
    @Param({"16"})
    public int ceEvery;

    private AimdController controller;
    private int bytes;
    private int path;
    private long now;
    private long reports;

    /** Makes the controller on the engine's defaults and introduces it to every path. */
    @Setup
    public void setup() {
        EngineConfig config = EngineConfig.defaults();
        controller = new AimdController(config);
        bytes = config.maxDatagramBytes();
        for (int p = 0; p < paths; p++) {
            controller.sendAllowanceBytes(p, 0);
        }
    }

    private int nextPath() {
        int p = path + 1;
        path = p == paths ? 0 : p;
        return path;
    }

    /** The send gate the engine asks before each packet: window room and pacing time. */
    @Benchmark
    public long sendAllowance() {
        int p = nextPath();
        now += 100;
        return controller.sendAllowanceBytes(p, now) + controller.nextSendTimeNanos(p, now);
    }

    /** One packet sent and then acknowledged with a 10 us RTT sample. */
    @Benchmark
    public long sendAndAck() {
        int p = nextPath();
        now += 100;
        controller.onPacketSent(p, bytes, now);
        controller.onPacketAcked(p, bytes, 10_000, now);
        return controller.sendAllowanceBytes(p, now);
    }

    /** ECN feedback for 4 packets, CE-marked once in {@code ceEvery} reports, between acknowledgements. */
    @Benchmark
    public long ecnFeedback() {
        int p = nextPath();
        now += 100;
        controller.onPacketSent(p, bytes, now);
        controller.onPacketAcked(p, bytes, 10_000, now);
        controller.onEcnFeedback(p, 4, ++reports % ceEvery == 0 ? 1 : 0, now);
        return controller.sendAllowanceBytes(p, now);
    }
}
