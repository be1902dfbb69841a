package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.sim.fabric.BufferPreset;
import io.metaroce.core.sim.fabric.LinkSpec;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Topologies;
import io.metaroce.core.sim.workload.RawTransport;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Once warm, the network model allocates nothing per packet or event: packets, events and port
 * queues reuse their arrays. Measured as this thread's allocated bytes, so machine load does not
 * matter. Protocol-free traffic, so the figure is the fabric's own.
 */
class FabricAllocationTest {

    @Test
    void aWarmFabricAllocatesNothingPerEvent() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.SHALLOW);
        Network net = new Network(Topologies.leafSpine(4, 2, 4, 1, link, link), 3, 9216);
        int hosts = net.hostCount();
        RawTransport[] t = new RawTransport[hosts];
        for (int h = 0; h < hosts; h++) {
            t[h] = new RawTransport();
            net.attach(h, t[h]);
        }
        net.setLossEverywhere(0.001);
        for (int h = 0; h < hosts; h++) {
            // Everyone to the host half the fabric away, over 8 source ports: queues, drops, marks and losses.
            t[h].sendTo(net.address((h + hosts / 2) % hosts, 0), 4_000, Long.MAX_VALUE, 1, 2, 3, 4, 5, 6, 7, 8);
            net.wake(h);
        }
        net.runUntil(2_000_000L); // warm: pools, rings, heap and address tables at their working size
        long events = net.eventsProcessed();
        long before = threads.getCurrentThreadAllocatedBytes();
        net.runUntil(3_000_000L);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        events = net.eventsProcessed() - events;

        assertThat(events).isGreaterThan(100_000);
        assertThat(net.tailDrops() + net.lossDrops()).isPositive();
        assertThat((double) allocated / events).as("bytes allocated per event (%d over %d events)", allocated, events)
                .isLessThan(0.1);
    }
}
