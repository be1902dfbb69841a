package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-38]: a path that waits only for its pacing asks to be woken once
 * {@code pacingWakeQuantumBytes} more may leave (at most the burst allowance less a datagram and a
 * quarter of its window), and at that time all of it may leave at once, but never more than the
 * burst allowance of [SPEC-CC-13] lets; and it never waits for more than the bytes waiting to be
 * sent, less one datagram.
 */
class PacedWakeTest {
    /** Additive increase from the start, so the window is the initial 64 KiB throughout. */
    private static final EngineConfig CONFIG = EngineConfig.defaults().toBuilder().aimdSlowStart(false).build();
    private static final int D = CONFIG.maxDatagramBytes();
    /** Bytes waiting: more than any quantum. */
    private static final long PLENTY = Long.MAX_VALUE;

    /** Sends datagrams at {@code now} while the pacing clock lets them leave; returns how many left. */
    private static int sendWhileAllowed(AimdController cc, int path, int bytes, long now, int limit) {
        int sent = 0;
        while (cc.nextSendTimeNanos(path, now) <= now && sent < limit) {
            cc.onPacketSent(path, bytes, now);
            sent++;
        }
        return sent;
    }

    /** A controller that has had its first ACK, without a hint (the receiver runs no allocator). */
    private static AimdController unhinted(EngineConfig config) {
        AimdController cc = new AimdController(config);
        cc.onRateHint(0, 0);
        return cc;
    }

    @Test
    void aPacedPathIsWokenOnceTheQuantumHasAccruedAndSendsItInOneGo() {
        assertThat(CONFIG.pacingWakeQuantumBytes()).as("the default").isEqualTo(32 * 1024);
        // A 256 KiB window: 1.25 * 256 KiB / 100 us (initialRttNanos, no sample yet) = 3.2768 GB/s,
        // a datagram every 1,250 ns; a quarter of the window is more than the quantum.
        AimdController cc = unhinted(CONFIG.toBuilder().aimdInitialWindowBytes(256 << 10).build());
        int burst = sendWhileAllowed(cc, 0, D, 0, 1_000);
        assertThat(burst).as("56 KiB of burst and the datagram past it").isEqualTo(15);
        long next = cc.nextSendTimeNanos(0, 0);
        assertThat(next).isEqualTo(1_250);
        // 32 KiB at 3.2768 GB/s is 10,000 ns.
        long wake = cc.pacedWakeNanos(0, 0, PLENTY);
        assertThat(wake).isEqualTo(next + 10_000);
        assertThat(sendWhileAllowed(cc, 0, D, wake, 1_000)).as("the quantum and the datagram due at next")
                .isEqualTo(32 * 1024 / D + 1);
        assertThat(cc.nextSendTimeNanos(0, wake)).as("then the clock holds the path again").isGreaterThan(wake);
    }

    /** The batch case's controller, its burst spent: the next datagram may leave at 1,250 ns. */
    private static AimdController spentBurst() {
        AimdController cc = unhinted(CONFIG.toBuilder().aimdInitialWindowBytes(256 << 10).build());
        sendWhileAllowed(cc, 0, D, 0, 1_000);
        assertThat(cc.nextSendTimeNanos(0, 0)).isEqualTo(1_250);
        return cc;
    }

    @Test
    void oneDatagramWaitingIsWokenAtTheNextPacingTime() {
        AimdController cc = spentBurst();
        long next = cc.nextSendTimeNanos(0, 0);
        assertThat(cc.pacedWakeNanos(0, 0, D)).as("one full datagram").isEqualTo(next);
        assertThat(cc.pacedWakeNanos(0, 0, 100)).as("one short datagram").isEqualTo(next);
        assertThat(cc.pacedWakeNanos(0, 0, 0)).as("only a retransmission or an idle resend").isEqualTo(next);
    }

    @Test
    void aMessagesLastTwoDatagramsAreWokenNoLaterThanTheirOwnPacingTimes() {
        int last = 1_000;
        // What the pacing clock lets: the full datagram at its time, the short one after it.
        AimdController paced = spentBurst();
        long first = paced.nextSendTimeNanos(0, 0);
        paced.onPacketSent(0, D, first);
        long second = paced.nextSendTimeNanos(0, first);
        assertThat(second).isGreaterThan(first);

        AimdController cc = spentBurst();
        long wake = cc.pacedWakeNanos(0, 0, D + last);
        assertThat(wake).isGreaterThanOrEqualTo(first).isLessThanOrEqualTo(second);
        assertThat(cc.nextSendTimeNanos(0, wake)).as("the full datagram may leave at the wake-up").isEqualTo(wake);
        cc.onPacketSent(0, D, wake);
        assertThat(cc.nextSendTimeNanos(0, wake)).as("and the short one no later than its own time")
                .isLessThanOrEqualTo(second);
        // Against the full quantum the tail would have waited for: 10,000 ns after the clock's time.
        assertThat(spentBurst().pacedWakeNanos(0, 0, PLENTY)).isEqualTo(first + 10_000);
    }

    @Test
    void beforeTheFirstAckOrUnderAHintTheWakeUpIsTheClocksTime() {
        AimdController first = new AimdController(CONFIG);
        sendWhileAllowed(first, 0, D, 0, 1_000);
        assertThat(first.pacedWakeNanos(0, 0, PLENTY)).as("no ACK yet").isEqualTo(first.nextSendTimeNanos(0, 0));
        AimdController hinted = new AimdController(CONFIG);
        hinted.onRateHint(409_600_000L, 0);
        sendWhileAllowed(hinted, 0, D, 0, 1_000);
        long next = hinted.nextSendTimeNanos(0, 0);
        assertThat(next).isPositive();
        assertThat(hinted.pacedWakeNanos(0, 0, PLENTY)).as("the hint's spacing is kept").isEqualTo(next);
    }

    @Test
    void anIdlePathOrNoQuantumWakesWhenTheNextPacketMayLeave() {
        AimdController idle = new AimdController(CONFIG);
        assertThat(idle.pacedWakeNanos(0, 777, PLENTY)).as("nothing sent: may send now").isEqualTo(777);
        AimdController none = unhinted(CONFIG.toBuilder().pacingWakeQuantumBytes(0).build());
        sendWhileAllowed(none, 0, D, 0, 1_000);
        assertThat(none.pacedWakeNanos(0, 0, PLENTY)).isEqualTo(none.nextSendTimeNanos(0, 0)).isEqualTo(5_000);
    }

    @Test
    void theQuantumIsAtMostTheBurstLessADatagramAndAQuarterOfTheWindow() {
        // Burst 8 KiB: at most 4 KiB accrue, 5,000 ns at 819.2 MB/s.
        AimdController smallBurst = unhinted(CONFIG.toBuilder().pacingBurstBytes(8 << 10).build());
        sendWhileAllowed(smallBurst, 0, D, 0, 1_000);
        assertThat(smallBurst.pacedWakeNanos(0, 0, PLENTY) - smallBurst.nextSendTimeNanos(0, 0)).isEqualTo(5_000);
        // A window of 64 KiB and a quantum of 56 KiB less a datagram: a quarter of the window, 16 KiB.
        AimdController bigQuantum = unhinted(CONFIG.toBuilder().pacingWakeQuantumBytes(1 << 20).build());
        sendWhileAllowed(bigQuantum, 0, D, 0, 1_000);
        assertThat(bigQuantum.pacedWakeNanos(0, 0, PLENTY) - bigQuantum.nextSendTimeNanos(0, 0)).isEqualTo(20_000);
    }

    @Test
    void theSimulatorsOneDatagramBurstLeavesItsWakeUpsAsTheyWere() {
        EngineConfig sim = MetaroceProtocol.simulatorConfig();
        assertThat(sim.pacingBurstBytes()).isLessThanOrEqualTo(sim.maxDatagramBytes());
        AimdController cc = unhinted(sim);
        sendWhileAllowed(cc, 0, sim.maxDatagramBytes(), 0, 1_000);
        long next = cc.nextSendTimeNanos(0, 0);
        assertThat(next).isPositive();
        assertThat(cc.pacedWakeNanos(0, 0, PLENTY)).isEqualTo(next);
    }

    static LongStream seeds() {
        return PropertySeeds.of(40);
    }

    /**
     * Whatever the quantum, burst, packet length, window, bytes waiting and send history: the wake-up
     * is never before the clock's time, no later than the quantum (at most the bytes waiting less a
     * datagram) takes at the path's rate, and at the wake-up the packets that may leave back to back are at least the quantum's worth and never
     * more than the burst allowance (plus the packet past it) lets.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aWakeUpSendsTheQuantumAndNeverMoreThanTheBurst(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 13);
        long burst = rnd.nextInt(128 << 10);
        long quantum = rnd.nextInt(128 << 10);
        EngineConfig config = CONFIG.toBuilder().pacingBurstBytes(burst).pacingWakeQuantumBytes(quantum)
                .aimdSlowStart(rnd.nextBoolean()).build();
        AimdController cc = unhinted(config);
        int packet = 256 + rnd.nextInt(D - 255);
        long now = 0;
        for (int step = 0; step < 200; step++) {
            now += rnd.nextInt(20_000);
            sendWhileAllowed(cc, 0, packet, now, 1 + rnd.nextInt(40));
            if (rnd.nextInt(3) == 0) {
                cc.onPacketAcked(0, packet, 20_000 + rnd.nextInt(200_000), now);
            }
        }
        sendWhileAllowed(cc, 0, packet, now, 100_000);
        long next = cc.nextSendTimeNanos(0, now);
        assertThat(next).as("seed %d: the clock holds the path", seed).isGreaterThan(now);
        long ready = rnd.nextBoolean() ? PLENTY : rnd.nextInt(64 << 10);
        long q = Math.max(0, Math.min(Math.min(Math.min(quantum, burst - D), cc.windowBytes(0) / 4), ready - D));
        double rate = cc.pacingRateBytesPerSecond(0);
        long wake = cc.pacedWakeNanos(0, now, ready);
        assertThat(wake).as("seed %d", seed).isGreaterThanOrEqualTo(next)
                .isLessThanOrEqualTo(next + (long) Math.ceil(q * 1e9 / rate));
        int atOnce = sendWhileAllowed(cc, 0, packet, wake, 100_000);
        assertThat((long) atOnce * packet).as("seed %d: the quantum leaves at the wake-up", seed)
                .isGreaterThanOrEqualTo(q - packet);
        assertThat((long) (atOnce - 1) * packet).as("seed %d: within the burst allowance", seed)
                .isLessThanOrEqualTo(burst + packet);
    }
}
