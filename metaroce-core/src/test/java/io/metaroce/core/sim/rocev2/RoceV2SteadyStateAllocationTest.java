package io.metaroce.core.sim.rocev2;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Once warm, the baseline allocates nothing per packet: two queue pairs exchanging messages both
 * ways through the (itself allocation-free) test network, with loss and CE marking, so NAKs,
 * timeouts, CNPs and rate changes all run during the measurement. The measurement is the JVM's
 * count of bytes allocated by this thread.
 */
class RoceV2SteadyStateAllocationTest {
    private RoceV2Endpoint a;
    private RoceV2Endpoint b;

    private void repost() {
        while (a.queuedMessages(1) < 4) {
            a.postSend(1, 200_000);
        }
        while (b.queuedMessages(2) < 4) {
            b.postSend(2, 70_000);
        }
    }

    @Test
    void steadyStateExchangeAllocatesNothingPerPacket() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RoceV2Config config = RoceV2Config.defaults();
        a = new RoceV2Endpoint(config);
        b = new RoceV2Endpoint(config);
        a.openQueuePair(TestNetwork.address(1), 0, 1, 2);
        b.openQueuePair(TestNetwork.address(0), 0, 2, 1);
        TestNetwork net = new TestNetwork(31, a, b).loss(0.002).ceMarking(0.01);
        for (int i = 0; i < 150_000; i++) {
            repost();
            net.step();
        }
        long packetsBefore = net.delivered;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 150_000; i++) {
            repost();
            net.step();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        long packets = net.delivered - packetsBefore;

        assertThat(packets).as("the exchange kept running").isGreaterThan(50_000);
        assertThat(a.queuePairStats(1).retransmittedPackets()).as("loss was recovered along the way").isPositive();
        assertThat(a.queuePairStats(1).cnpsReceived()).as("DCQCN ran along the way").isPositive();
        assertThat((double) allocated / packets)
                .as("bytes allocated per delivered datagram (%d bytes over %d datagrams)", allocated, packets)
                .isLessThan(0.1);
    }
}
