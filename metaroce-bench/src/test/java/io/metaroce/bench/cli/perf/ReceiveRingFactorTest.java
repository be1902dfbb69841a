package io.metaroce.bench.cli.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.netty.Datapath;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A run may ask for shallower receive rings than perf's default ({@link RunParams#receiveRingFactor},
 * what {@code compare} does): the setting travels to the server, both sides lay out the same
 * smaller region, a server that would not is refused, and the payloads are still checked.
 */
class ReceiveRingFactorTest {

    @Test
    void aRingFactorShrinksTheReceiveAreaAndTravelsWithTheParameters() {
        RunParams deep = new RunParams(Op.write, 8192, 4, 1, 128, 1, 0, false, 1, 64);
        RunParams shallow = new RunParams(Op.write, 8192, 4, 1, 128, 1, 0, false, 1, 64, 2);
        assertThat(deep.receiveRingFactor()).isZero();
        assertThat(shallow.problem()).isNull();
        ServerLayout d = ServerLayout.of(deep);
        ServerLayout s = ServerLayout.of(shallow);
        assertThat(d.ring()).isEqualTo(16 * 32);
        assertThat(s.ring()).isEqualTo(2 * 32);
        assertThat(d.regionBytes()).isEqualTo(16L << 20);
        assertThat(s.regionBytes()).isEqualTo(2L << 20);
        assertThat(s.receiveOffset(1, s.ring())).isEqualTo(s.receiveOffset(1, 0));
        assertThat(s.receiveOffset(4, s.ring() - 1) + 8192).isEqualTo(s.regionBytes());
        // The limits still lower a requested factor: here 8 would post more receives than allowed.
        RunParams wide = new RunParams(Op.send, 64, 64, 1, 4096, 1, 0, false, 1, 1, 8);
        assertThat(ServerLayout.of(wide).postedReceives()).isLessThanOrEqualTo(ServerLayout.MAX_POSTED_RECEIVES);
        for (int bad : new int[] {-1, 1, 17}) {
            assertThat(new RunParams(Op.write, 8192, 4, 1, 128, 1, 0, false, 1, 64, bad).problem())
                    .as("factor " + bad).contains("receive ring factor", "[2, 16]", Integer.toString(bad));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(ControlMessage.BYTES);
            ControlMessage.params(shallow).encode(m, 0);
            assertThat(ControlMessage.decode(m, 0, ControlMessage.BYTES).toParams()).isEqualTo(shallow);
            // A client that sends the ten values of before: the default rings.
            new ControlMessage(ControlMessage.PARAMS, new long[] {Op.write.ordinal(), 8192, 4, 1, 128, 1, 0, 0, 1, 64},
                    "").encode(m, 0);
            assertThat(ControlMessage.decode(m, 0, ControlMessage.BYTES).toParams()).isEqualTo(deep);
        }
    }

    @Test
    void aFactorThatIsNotAPowerOfTwoNeverHalvesBelowTwiceWhatIsInFlight() {
        // 64 streams at depth 4096: 64 in flight per stream; 8192 posted receives allow a factor of 2 only.
        // Halving 3, 6, 7 or 12 to 15 would reach 1: a ring the client overwrites before the server checks it.
        for (int factor = ServerLayout.MIN_RING_FACTOR; factor <= ServerLayout.DEFAULT_RING_FACTOR; factor++) {
            RunParams tight = new RunParams(Op.send, 64, 64, 1, 4096, 1, 0, false, 1, 1, factor);
            assertThat(tight.problem()).as("factor " + factor).isNull();
            assertThat(ServerLayout.of(tight).ring()).as("factor " + factor).isEqualTo(2 * 64);
        }
        // Every factor under every combination of the limits: a run that is accepted has rings of at
        // least twice what a stream has in flight, within the posted receives allowed.
        for (int factor = ServerLayout.MIN_RING_FACTOR; factor <= ServerLayout.DEFAULT_RING_FACTOR; factor++) {
            for (int streams : new int[] {1, 3, 4, 64, 100, 1000, RunParams.MAX_STREAMS}) {
                for (int depth : new int[] {1, 7, 128, 1000, 3000, RunParams.MAX_DEPTH}) {
                    for (int size : new int[] {64, 8192, 65536, 1 << 20}) {
                        RunParams p = new RunParams(Op.write, size, streams, 1, depth, 1, 0, false, 1, 1, factor);
                        String what = "factor " + factor + ", streams " + streams + ", depth " + depth + ", size " + size;
                        ServerLayout layout = ServerLayout.of(p);
                        assertThat(layout.ring()).as(what).isGreaterThanOrEqualTo(2 * layout.perStream());
                        if (p.problem() == null) {
                            assertThat(layout.postedReceives()).as(what)
                                    .isLessThanOrEqualTo(ServerLayout.MAX_POSTED_RECEIVES);
                        }
                    }
                }
            }
        }
        // Where even twice what is in flight posts too many receives, the run is refused, saying so.
        RunParams tooWide = new RunParams(Op.send, 64, 1000, 1, 4096, 1, 0, false, 1, 1, 3);
        assertThat(ServerLayout.of(tooWide).ring()).isEqualTo(2 * 5);
        assertThat(tooWide.problem()).contains("8192 receives posted", "2 times", "lower --depth or --streams");
    }

    @Test
    void aServerThatKeepsTheDeepRingsIsRefused() {
        RunParams shallow = new RunParams(Op.write, 8192, 4, 1, 128, 1, 0, false, 1, 64, 2);
        RunParams deep = new RunParams(Op.write, 8192, 4, 1, 128, 1, 0, false, 1, 64);
        ControlMessage sameLayout = ControlMessage.ready(7, ServerLayout.of(shallow).regionBytes(), 64);
        // A server older than the setting ignores it and lays out the deep rings.
        ControlMessage older = ControlMessage.ready(7, ServerLayout.of(deep).regionBytes(), 64);
        assertThat(sameLayout.layoutProblem(shallow)).isNull();
        assertThat(older.layoutProblem(deep)).isNull();
        assertThat(older.layoutProblem(shallow)).contains("16777216", "2097152", "receive ring factor 2", "this version");
    }

    @ParameterizedTest
    @EnumSource(value = Op.class, names = {"send", "write"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shallowRingsPassCleanRunsAndStillCatchCorruptedPayloads(Op op) throws Exception {
        RunParams params = new RunParams(op, 4096, 2, 1, 8, 1_000_000_000L, 0, false, 5, 1, 2);
        PrintWriter quiet = new PrintWriter(Writer.nullWriter());
        PerfReport clean = PerfLoopbackCommand.run(params, 0, EngineConfig.defaults(), Datapath.AUTO, false,
                CongestionControl.AIMD, 0, quiet);
        assertThat(clean.verified()).as(clean.resultText()).isTrue();
        // Messages land in buffer n % ring of their stream's ring: a run long enough to wrap it.
        assertThat(clean.messages()).isGreaterThan(ServerLayout.of(params).postedReceives());
        PerfReport corrupted = PerfLoopbackCommand.run(params, 0, EngineConfig.defaults(), Datapath.AUTO, false,
                CongestionControl.AIMD, 7, quiet);
        assertThat(corrupted.verified()).isFalse();
        assertThat(corrupted.mismatches()).as(corrupted.resultText()).isPositive();
    }
}
