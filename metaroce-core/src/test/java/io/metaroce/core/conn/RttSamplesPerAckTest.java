package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.cc.ForwardingController;
import io.metaroce.core.harness.LossModel;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * What one ACK tells the congestion controller: at most one RTT sample, however many of the
 * transmissions it acknowledges share the echoed send time [SPEC-CC-19] (exactly one, on a
 * lossless network, from an ACK that acknowledges anything), and its effects in the
 * order [SPEC-CC-41] states (verdicts in path sequence order, then the ECN feedback, then the
 * rate hint).
 */
class RttSamplesPerAckTest {

    /**
     * Records, per ACK, the letters of the controller calls it caused: {@code A} an acknowledged
     * transmission without a sample, {@code S} one with a sample, {@code L} a loss, {@code E} ECN
     * feedback; the rate hint, told once at the end of every ACK on a known path, closes the ACK.
     */
    static final class PerAck extends ForwardingController {
        final List<String> acks = new ArrayList<>();
        private final StringBuilder current = new StringBuilder();
        private long currentAt;

        PerAck(CongestionController inner) {
            super(inner);
        }

        @Override
        public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
            call(rttNanos > 0 ? 'S' : 'A', nowNanos);
            super.onPacketAcked(pathId, bytes, rttNanos, nowNanos);
        }

        @Override
        public void onPacketLost(int pathId, int bytes, long nowNanos) {
            call('L', nowNanos);
            super.onPacketLost(pathId, bytes, nowNanos);
        }

        @Override
        public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
            call('E', nowNanos);
            super.onEcnFeedback(pathId, newlyEct, newlyCe, nowNanos);
        }

        /** Appends {@code c}; a call at another time than the ACK's (a timer's) leaves a '!' there. */
        private void call(char c, long nowNanos) {
            if (current.isEmpty()) {
                currentAt = nowNanos;
            }
            current.append(nowNanos == currentAt ? c : '!');
        }

        @Override
        public void onRateHint(long bytesPerSecond, long nowNanos) {
            acks.add(current.isEmpty() || currentAt == nowNanos ? current.toString() : "!" + current);
            current.setLength(0);
            super.onRateHint(bytesPerSecond, nowNanos);
        }

        long count(char c) {
            return acks.stream().mapToLong(a -> a.chars().filter(x -> x == c).count()).sum();
        }
    }

    private static MemoryRegion region(Endpoint e, int size) {
        return e.protectionDomain().register(Arena.ofAuto().allocate(size), Access.ALL);
    }

    /** Runs {@code writes} WRITEs of {@code size} bytes one after another; returns the client's recorder. */
    private static PerAck run(long seed, int paths, NetworkConditions net, int writes, int size,
            Function<EngineConfig, CongestionController> controller) {
        return run(seed, paths, net, writes, size, controller, (fromClient, pathId, datagram, length, now) -> false);
    }

    private static PerAck run(long seed, int paths, NetworkConditions net, int writes, int size,
            Function<EngineConfig, CongestionController> controller, LossModel loss) {
        PerAck[] recorder = new PerAck[1];
        int[] completed = {0};
        EngineConfig config = EngineConfig.defaults();
        Pair p = Pair.create(seed, paths, net, config, config, c -> recorder[0] = new PerAck(controller.apply(c)),
                        null)
                .lossModel(loss)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).isEqualTo(CompletionStatus.SUCCESS);
                    completed[0]++;
                })
                .connect();
        MemoryRegion src = region(p.client(), size);
        MemoryRegion dst = region(p.server(), size);
        for (int i = 0; i < writes; i++) {
            p.clientConnection().postWrite(0, i, src, 0, size, dst.remoteKey(), 0);
            int done = i + 1;
            p.driveUntil(() -> completed[0] == done, 2_000_000_000L, "write " + i);
        }
        return recorder[0];
    }

    /**
     * [SPEC-CC-19]: a fixed window sends each 256 KiB WRITE in bursts whose transmissions share
     * one clock reading, so an ACK that covers several of them echoes a send time they all have;
     * the controller still gets one sample from it, not one per transmission, and, nothing being
     * lost or resent, exactly one from every ACK that acknowledges something. (Before the rule
     * was kept, one ACK gave up to as many samples as the transmissions it covered.)
     */
    @Property(tries = 12)
    void anAckGivesTheControllerExactlyOneRttSampleThoughABurstSharesItsSendTime(
            @ForAll @IntRange(min = 1, max = 1_000_000) int seed, @ForAll @IntRange(min = 1, max = 4) int paths) {
        PerAck rec = run(seed, paths, NetworkConditions.perfect().withDelay(10_000, 2_000, 0), 4, 256 * 1024,
                FixedWindowController::new);
        System.out.printf("RttSamplesPerAckTest seed %d, %d paths: %d ACKs, %d acknowledged, %d samples%n", seed,
                paths, rec.acks.size(), rec.count('A') + rec.count('S'), rec.count('S'));
        assertThat(rec.acks.stream().filter(a -> a.length() > 1))
                .as("some ACKs acknowledge several transmissions").isNotEmpty();
        assertThat(rec.count('S')).as("the ACKs gave samples").isPositive();
        for (String ack : rec.acks) {
            // Lossless, so nothing is resent and each ACK echoes the newest transmission it acknowledges:
            // one that acknowledges anything gives exactly one sample, one that acknowledges nothing none.
            long expected = ack.matches(".*[AS].*") ? 1 : 0;
            assertThat(ack.chars().filter(c -> c == 'S').count())
                    .as("samples given by one ACK, whose calls were %s", ack).isEqualTo(expected);
        }
    }

    /**
     * [SPEC-CC-41]: one ACK's calls to the controller come as its verdicts (acknowledgements and
     * losses, in path sequence order), then its ECN feedback, then its rate hint. With every
     * packet CE-marked, the first ACK's acknowledgements reach the controller (in slow start,
     * growing the window) before the marks do.
     */
    @Test
    void anAcksVerdictsReachTheControllerBeforeItsEcnFeedback() {
        PerAck rec = run(7, 2, NetworkConditions.perfect().withDelay(10_000, 2_000, 0).withCeMarking(1.0), 4,
                256 * 1024, AimdController::new);
        for (String ack : rec.acks) {
            assertThat(ack).as("calls of one ACK").matches("[ASL]*E?");
        }
        assertThat(rec.acks).as("ACKs that acknowledged something and reported marks")
                .anyMatch(a -> a.matches("[AS]+E"));
        assertThat(rec.acks.getFirst()).as("the first ACK").matches("[AS]+E");
    }

    /**
     * [SPEC-CC-41]: a loss is a verdict in path sequence order, so the ACK that reveals a
     * hole reports the loss before the acknowledgements above it that it carries, and its ECN
     * feedback after both.
     */
    @Test
    void anAckRevealingAHoleReportsTheLossBeforeTheAcknowledgementsAboveIt() {
        int[] clientDatagrams = {0};
        PerAck rec = run(8, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), 2, 256 * 1024,
                FixedWindowController::new,
                (fromClient, pathId, datagram, length, now) -> fromClient && ++clientDatagrams[0] == 20);
        for (String ack : rec.acks) {
            assertThat(ack).as("calls of one ACK").matches("[ASL]*E?");
        }
        assertThat(rec.count('L')).as("the dropped packet was declared lost").isPositive();
        assertThat(rec.acks).as("an ACK reporting the loss, then acknowledgements above it")
                .anyMatch(a -> a.matches("L+[AS]+E?"));
    }
}
