package io.metaroce.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The ping-pong the instruction counter measures ({@code tools/instructions-per-packet.sh} with
 * {@code WORK_CLASS=io.metaroce.bench.jmh.EnginePingPongWork}) is the one it claims: one ping and
 * one echo per round trip, each a single datagram carrying the ACK of the other, every echo the
 * round's own, nothing resent, and nothing allocated per round trip.
 */
class EnginePingPongWorkTest {

    @Test
    void everyRoundTripIsOnePingAndOneEchoEachOneDatagram() {
        try (Arena arena = Arena.ofConfined()) {
            EnginePingPongWork w = new EnginePingPongWork(64, arena);
            w.run(1_000); // past the first round trips (the handshake's ACKs, a first ACK sent at once)
            long[] datagrams = w.datagramsSent();
            long[] data = w.dataPacketsSent();
            w.run(5_000);
            assertEquals(6_000, w.rounds());
            assertArrayEquals(new long[] {data[0] + 5_000, data[1] + 5_000}, w.dataPacketsSent(),
                    "one DATA packet each way per round trip");
            assertArrayEquals(new long[] {datagrams[0] + 5_000, datagrams[1] + 5_000}, w.datagramsSent(),
                    "one datagram each way per round trip: the ACKs ride on the DATA");
            assertEquals("", w.problems());
        }
    }

    /**
     * Nothing per round trip: after a warm-up, most chunks of 1,000 round trips allocate not one
     * byte on the driving thread (an object per round trip would put at least 16,000 bytes in
     * every chunk). Not all of them: while the JIT still recompiles, a chunk now and then
     * allocates a few hundred bytes (tens of KiB on a loaded machine), which is not the datapath's.
     */
    @Test
    void roundTripsAllocateNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        try (Arena arena = Arena.ofConfined()) {
            EnginePingPongWork w = new EnginePingPongWork(64, arena);
            w.run(20_000);
            long first = threads.getThreadAllocatedBytes(id);
            assertTrue(first > 0, "this JVM measures no thread allocation (" + first + ")");
            int chunks = 41;
            int clean = 0;
            StringBuilder seen = new StringBuilder();
            for (int c = 0; c < chunks; c++) {
                long before = threads.getThreadAllocatedBytes(id);
                w.run(1_000);
                long allocated = threads.getThreadAllocatedBytes(id) - before;
                seen.append(allocated).append(' ');
                if (allocated == 0) {
                    clean++;
                }
            }
            assertTrue(clean > chunks / 2, "bytes allocated per 1,000 round trips: " + seen);
        }
    }

    @Test
    void refusesMessagesTooShortForTheRoundsNumber() {
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> new EnginePingPongWork(4, arena));
        }
    }
}
