package io.metaroce.core.sim.rocev2;

import static io.metaroce.core.sim.rocev2.RoceV2PairFixture.QP_A;
import static io.metaroce.core.sim.rocev2.RoceV2PairFixture.QP_B;
import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.api.Transmit;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DCQCN and pacing inside the endpoint: CNP generation and spacing at the notification point,
 * pacing at exactly {@code bytes * 8 / rate}, the rate cut on CNPs and its recovery, and a
 * bottleneck that DCQCN keeps from overflowing.
 */
class RoceV2CongestionTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void cnpsAreSpacedByAtLeastTheIntervalAndFollowEveryInterval() {
        RoceV2Config sender = RoceV2Config.defaults().toBuilder().dcqcnEnabled(false).build();
        RoceV2PairFixture f = new RoceV2PairFixture(11, sender, RoceV2Config.defaults(), 0);
        f.net.ceMarking(1.0);
        List<Long> cnpTimes = new ArrayList<>();
        f.net.observer((from, to, d, length, ecn, now) -> {
            if (from == 1 && (d.get(0) & 0xFF) == RoceV2Opcode.CNP) {
                cnpTimes.add(now);
            }
        });
        for (int i = 0; i < 10; i++) {
            f.a.postSend(QP_A, 1_250_000); // 12.5 MB: 1 ms at 100 Gb/s
        }
        f.runUntilAcknowledged(SECOND);

        long interval = RoceV2Config.defaults().cnpIntervalNanos();
        long packetGap = (long) Math.ceil(4096 * 8 / 100.0); // 328 ns between arrivals at line rate
        assertThat(cnpTimes.size()).isGreaterThanOrEqualTo(19);
        for (int i = 1; i < cnpTimes.size(); i++) {
            long gap = cnpTimes.get(i) - cnpTimes.get(i - 1);
            assertThat(gap).as("gap %d", i).isBetween(interval, interval + packetGap);
        }
        assertThat(f.statsB().cnpsSent()).isEqualTo(cnpTimes.size());
        assertThat(f.statsA().cnpsReceived()).isEqualTo(cnpTimes.size());
        assertThat(f.statsB().ceMarkedReceived()).isEqualTo(f.statsB().dataPacketsReceived());
        assertThat(f.a.currentRateBitsPerSecond(QP_A)).as("DCQCN off: CNPs are only counted").isEqualTo(100_000_000_000L);
    }

    @Test
    void dataPacketsLeaveExactlyBytesTimesEightOverTheRateApartAndTheGapFollowsACnp() {
        RoceV2Config config = RoceV2Config.defaults().toBuilder().lineRateBitsPerSecond(10_000_000_000L).build();
        RoceV2Endpoint a = new RoceV2Endpoint(config);
        a.openQueuePair(TestNetwork.address(1), 0, 1, 2);
        a.postSend(1, 30 * config.payloadBytesPerPacket());
        Transmit out = new Transmit(ByteBuffer.allocate(config.mtuBytes()));
        List<Long> times = new ArrayList<>();
        long now = 0;
        while (times.size() < 20) {
            if (a.pollTransmit(now, out)) {
                assertThat(out.length).isEqualTo(4096);
                assertThat(out.ecn).isEqualTo(2);
                assertThat(out.remoteAddress).isEqualTo(1);
                times.add(now);
            } else {
                now = a.pollTimeoutNanos();
                a.handleTimeout(now);
            }
        }
        // 4096 bytes at 10 Gb/s: 3276.8 ns; the schedule keeps the fraction (no drift).
        for (int i = 0; i < times.size(); i++) {
            assertThat(times.get(i)).as("packet %d", i).isEqualTo(Math.ceilDiv(i * 3_276_800L, 1000L));
        }
        ByteBuffer cnp = ByteBuffer.allocate(64);
        int length = new RoceV2Codec().encodeCnp(cnp, 1);
        a.handleDatagram(now, cnp, 0, length, 0, TestNetwork.address(1), 0);
        assertThat(a.currentRateBitsPerSecond(1)).isEqualTo(5_000_000_000L);
        List<Long> after = new ArrayList<>();
        while (after.size() < 6) {
            if (a.pollTransmit(now, out)) {
                after.add(now);
            } else {
                now = a.pollTimeoutNanos();
                a.handleTimeout(now);
            }
        }
        // The packet already scheduled goes at its time; from there on 6553.6 ns apart.
        for (int i = 1; i < after.size(); i++) {
            assertThat(after.get(i)).isEqualTo(after.get(0) + Math.ceilDiv(i * 6_553_600L, 1000L));
        }
    }

    @Test
    void markingCutsTheRateTowardsTheMinimumAndTheTimerBringsItBackToLineRate() {
        RoceV2PairFixture f = new RoceV2PairFixture(12, RoceV2Config.defaults());
        f.net.ceMarking(1.0);
        f.a.postSend(QP_A, 20_000_000);
        long[] lowest = {Long.MAX_VALUE};
        f.net.runUntil(() -> {
            lowest[0] = Math.min(lowest[0], f.a.currentRateBitsPerSecond(QP_A));
            return f.net.now() > 2_000_000;
        }, SECOND, "2 ms of marking");
        assertThat(f.statsA().cnpsReceived()).isGreaterThan(10);
        assertThat(lowest[0]).as("rate cut far below the line").isLessThan(1_000_000_000L);
        f.net.ceMarking(0);
        f.net.runUntil(() -> f.a.currentRateBitsPerSecond(QP_A) == 100_000_000_000L, SECOND, "recovery");
        assertThat(f.a.targetRateBitsPerSecond(QP_A)).isEqualTo(100_000_000_000L);
        f.runUntilAcknowledged(SECOND);
        assertThat(f.statsB().bytesDelivered()).isEqualTo(20_000_000L);
    }

    @Test
    void twoSendersThroughAMarkingBottleneckShareItWithoutOverflowingTheBuffer() {
        RoceV2Config config = RoceV2Config.defaults();
        RoceV2Endpoint s1 = new RoceV2Endpoint(config);
        RoceV2Endpoint s2 = new RoceV2Endpoint(config);
        RoceV2Endpoint r = new RoceV2Endpoint(config);
        s1.openQueuePair(TestNetwork.address(2), 0, 1, 11);
        s2.openQueuePair(TestNetwork.address(2), 0, 2, 12);
        r.openQueuePair(TestNetwork.address(0), 0, 11, 1);
        r.openQueuePair(TestNetwork.address(1), 0, 12, 2);
        // 100 Gb/s last hop, 1 MB buffer, marking above 100 KB (DCTCP-style step marking).
        TestNetwork net = new TestNetwork(13, s1, s2, r).bottleneck(100_000_000_000L, 1_000_000, 100_000);
        for (int i = 0; i < 40; i++) {
            s1.postSend(1, 1_000_000);
            s2.postSend(2, 1_000_000);
        }
        net.runUntil(() -> r.queuePairStats(11).bytesDelivered() + r.queuePairStats(12).bytesDelivered() == 80_000_000L,
                SECOND, "both transfers");
        long elapsed = net.now();
        double goodput = 80_000_000 * 8.0 / (elapsed / 1e9);
        assertThat(net.droppedByBuffer).as("DCQCN kept the queue inside its buffer").isZero();
        assertThat(s1.queuePairStats(1).cnpsReceived() + s2.queuePairStats(2).cnpsReceived()).isPositive();
        assertThat(goodput).as("goodput of the 100 Gb/s bottleneck").isGreaterThan(0.6 * 100e9);
        assertThat(r.queuePairStats(11).outOfOrderDropped() + r.queuePairStats(12).outOfOrderDropped()).isZero();
    }
}
