package io.metaroce.bench.jmh;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.sack.PathReceiveTracker;
import io.metaroce.core.sack.ScoreboardListener;
import io.metaroce.core.sack.SendScoreboard;
import io.metaroce.core.wire.Packet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The per-path selective acknowledgement machinery on its own, one operation per packet:
 * {@link PathReceiveTracker} (the receiver records each arriving path sequence number and writes
 * an ACK every {@code ackEvery} packets) and {@link SendScoreboard} (the sender records each
 * transmission, then applies the ACK the tracker wrote: acknowledgements, and losses once a hole
 * is more than the reordering allowance old). With {@code lossEvery} n &gt; 0 the tracker never
 * sees every n-th packet, so the scoreboard also reports losses. Run with {@code -prof gc}:
 * {@code gc.alloc.rate.norm} must be ~0 B/op.
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main SackBenchmark -prof gc -f 1 -wi 3 -i 5 -w 1 -r 1
 * </pre>
 *
 * <p>Not thread-safe: JMH gives each benchmark thread its own state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SackBenchmark {
    /** Packets per invocation: one ACK round of the scoreboard benchmark. */
    static final int BATCH = 16;

    /** The receiver writes an ACK after this many packets (the engine's default is 4). */
    @Param({"4"})
    public int ackEvery;

    /** Every n-th packet is lost before the receiver (0: none). */
    @Param({"0", "64"})
    public int lossEvery;

    private final PathReceiveTracker tracker = new PathReceiveTracker();
    private final Packet ack = new Packet();
    private SendScoreboard scoreboard;
    private int reorderAllowance;
    private long psn;
    private long now;
    private final Counter counter = new Counter();

    /** Counts what the scoreboard reports, so that its calls have an effect. */
    static final class Counter implements ScoreboardListener {
        long acked;
        long lost;

        @Override
        public void onTransmissionAcked(int pathId, long pathSequence, long connectionSequence, int bytes,
                long sentAtNanos) {
            acked += bytes;
        }

        @Override
        public void onTransmissionLost(int pathId, long pathSequence, long connectionSequence, int bytes,
                boolean byTimeout) {
            lost += bytes;
        }
    }

    /** Makes the scoreboard with the engine's default path window and reordering allowance. */
    @Setup
    public void setup() {
        EngineConfig config = EngineConfig.defaults();
        scoreboard = new SendScoreboard(0, config.pathWindowPackets());
        reorderAllowance = config.reorderAllowancePackets();
    }

    /** Receiver: record one packet, and write an ACK every {@code ackEvery} packets. */
    @Benchmark
    public long trackerRecordAndAck() {
        long s = psn++;
        now += 200;
        if (lossEvery > 0 && s % lossEvery == lossEvery - 1) {
            return s;
        }
        int r = tracker.record(s, now, now);
        tracker.noteAckEliciting(false, ackEvery, 25_000, now);
        if (tracker.ackDue(now)) {
            tracker.writeAck(ack, now);
        }
        return r;
    }

    /**
     * Sender and receiver of one path in lockstep: {@value #BATCH} transmissions recorded by the
     * scoreboard and the tracker, each ACK the tracker writes applied to the scoreboard.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long scoreboardSendAndAck() {
        for (int i = 0; i < BATCH; i++) {
            now += 200;
            long s = scoreboard.onSent(psn, 4096, now);
            psn++;
            if (lossEvery == 0 || s % lossEvery != lossEvery - 1) {
                tracker.record(s, now, now);
                tracker.noteAckEliciting(false, ackEvery, 25_000, now);
            }
            if (tracker.ackDue(now)) {
                tracker.writeAck(ack, now);
                scoreboard.onAck(ack, reorderAllowance, counter);
            }
        }
        if (!scoreboard.hasRoom()) {
            throw new IllegalStateException("scoreboard filled up: ACKs do not drain it");
        }
        return counter.acked + counter.lost;
    }
}
