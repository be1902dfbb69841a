package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * R-JAVA-2 as a guard in the build: once warm, two engines exchanging WRITEs and SENDs over
 * several paths with loss allocate nothing per packet. The measurement is the JVM's count of
 * bytes allocated by this thread, not time, so it does not depend on how busy the machine is.
 * (The JMH {@code EnginePairBenchmark -prof gc} is the precise figure; see docs/benchmarks.md.)
 */
class SteadyStateAllocationTest {
    private static final int SIZE = 256 * 1024;
    private static final int SLOTS = 8;

    private Pair pair;
    private MemoryRegion src;
    private MemoryRegion dst;
    private long completions;

    private final CompletionHandler clientDone = (c, s, wrId, op, status, bytes, imm, hasImm) -> {
        completions++;
        repost((int) wrId);
    };

    private final CompletionHandler serverDone = (c, s, wrId, op, status, bytes, imm, hasImm) -> { };

    private void repost(int slot) {
        long off = (long) slot * SIZE;
        if ((completions & 1) == 0) {
            pair.serverConnection().postRecv(slot % 4, slot, dst, off, SIZE);
            pair.clientConnection().postSend(slot % 4, slot, src, off, SIZE);
        } else {
            pair.clientConnection().postWrite(slot % 4, slot, src, off, SIZE, dst.remoteKey(), off);
        }
    }

    @Test
    void steadyStateExchangeAllocatesNothingPerPacket() {
        measure(Pair.create(7, 4, NetworkConditions.perfect().withLoss(0.01).withDelay(5_000, 1_000, 10_000),
                EngineConfig.defaults()));
    }

    /** The same with AIMD windows, pacing, and the receiver's fair-share allocator handing out hints. */
    @Test
    void steadyStateWithAimdPacingAndRateHintsAllocatesNothingPerPacket() {
        EngineConfig config = EngineConfig.builder().receiveCapacityBytesPerSecond(2_000_000_000L).build();
        measure(Pair.create(8, 4, NetworkConditions.perfect().withLoss(0.01).withDelay(5_000, 1_000, 10_000)
                .withCeMarking(0.05), config, config, AimdController::new, AimdController::new));
        assertThat(pair.clientConnection().peerRateHintBytesPerSecond()).as("hints were handed out").isPositive();
    }

    private void measure(Pair created) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        pair = created.reserveDatagrams(8192).onClientCompletion(clientDone).onServerCompletion(serverDone).connect();
        src = pair.client().protectionDomain().register(Arena.ofAuto().allocate((long) SIZE * SLOTS), Access.ALL);
        dst = pair.server().protectionDomain().register(Arena.ofAuto().allocate((long) SIZE * SLOTS), Access.ALL);
        for (int slot = 0; slot < SLOTS; slot++) {
            repost(slot);
        }
        // Warm up: let every table reach its working size and the JIT compile the hot paths.
        for (int i = 0; i < 3_000_000; i++) {
            pair.step();
        }
        long packetsBefore = pair.delivered();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            pair.step();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        long packets = pair.delivered() - packetsBefore;

        assertThat(packets).as("the exchange kept running").isGreaterThan(100_000);
        assertThat(pair.clientConnection().stats().retransmissions()).as("loss was recovered along the way").isPositive();
        assertThat((double) allocated / packets)
                .as("bytes allocated per delivered datagram (%d bytes over %d datagrams)", allocated, packets)
                .isLessThan(0.1);
    }
}
