package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.ForwardingController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.WireConstants;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * [SPEC-CC-38]: the bytes a connection tells its controller wait to be sent, which bound a paced
 * wake-up's batch, are never more than the datagram bytes of the first transmissions still to go
 * (a wake-up never waits for bytes that are not there), and with full packets and a shorter last
 * one (no equal-length cut) on one stream they are all of them up to the controller's cap but the
 * headers of a request's packets after its first.
 */
class PacedWakeReadyBytesTest {
    private static final long MS = 1_000_000L;

    @ParameterizedTest(name = "{0} WRITEs of {1} bytes, equal length {2}")
    @CsvSource({
            "1, 262144, false",
            "3, 100000, false",
            "24, 6000, false",
            "1, 262144, true",
            "3, 100000, true",
    })
    void theBytesToldWaitingAreAtMostThoseStillToGoAndAllOfThemUpToTheCap(int messages, int length,
            boolean equal) {
        EngineConfig config = EngineConfig.defaults().toBuilder().equalLengthPackets(equal).build();
        List<long[]> asks = new ArrayList<>(); // {ready bytes told, datagram bytes sent before}
        long[] sent = new long[1];
        Pair pair = Pair.create(7, 1, NetworkConditions.perfect().withDelay(10_000, 2_000, 0), config,
                c -> new Recording(new AimdController(c), asks, sent), AimdController::new).connect();
        pair.advance(1 * MS);
        Connection client = pair.clientConnection();
        MemoryRegion local = TestMemory.region(pair.client(), messages * length, Access.ALL, 9);
        MemoryRegion remote = TestMemory.region(pair.server(), messages * length, Access.ALL, 3);
        for (int m = 0; m < messages; m++) {
            assertThat(client.postWrite(0, m, local, (long) m * length, length, remote.remoteKey(),
                    (long) m * length)).isEqualTo(PostResult.OK);
        }
        int payload = client.payloadBytesPerPacket();
        int packets = (length + payload - 1) / payload;
        long cut = (long) messages * (length + (long) packets * WireConstants.DATA_OVERHEAD_BYTES);
        pair.driveUntil(() -> client.stats().dataPacketsSent() >= (long) messages * packets, 50 * MS, "all sent");
        // A perfect network: every datagram sent once. Equal-length packets overlap, so carry more.
        long total = sent[0];
        if (equal) {
            assertThat(total).isGreaterThan(cut);
        } else {
            assertThat(total).isEqualTo(cut);
        }
        List<long[]> whileWaiting = asks.stream().filter(a -> a[1] < total).toList();
        assertThat(whileWaiting).as("asked while bytes waited, beyond the first flight and the burst")
                .hasSizeGreaterThanOrEqualTo(3);
        long cap = new AimdController(config).pacedWakeReadyBytesCap();
        assertThat(cap).as("the quantum and a datagram").isEqualTo(config.pacingWakeQuantumBytes() + config.maxDatagramBytes());
        for (long[] a : whileWaiting) {
            long left = total - a[1];
            assertThat(a[0]).as("after %d bytes sent: never more than waits", a[1]).isBetween(1L, left);
            if (!equal) {
                // Counted up to the cap, each request with one header: only the other headers are missed.
                assertThat(a[0]).as("after %d bytes sent: all of it up to the cap, but headers", a[1])
                        .isGreaterThanOrEqualTo(Math.min(left, cap) * payload / (payload + WireConstants.DATA_OVERHEAD_BYTES));
            }
        }
    }

    /** Forwards to an AIMD controller and logs the bytes each wake-up question is told wait. */
    private static final class Recording extends ForwardingController {
        private final List<long[]> asks;
        private final long[] sent;

        Recording(AimdController inner, List<long[]> asks, long[] sent) {
            super(inner);
            this.asks = asks;
            this.sent = sent;
        }

        @Override
        public long pacedWakeNanos(int pathId, long nowNanos, long readyBytes) {
            asks.add(new long[] {readyBytes, sent[0]});
            return inner.pacedWakeNanos(pathId, nowNanos, readyBytes);
        }

        @Override
        public long pacedWakeReadyBytesCap() {
            return inner.pacedWakeReadyBytesCap();
        }

        @Override
        public void onPacketSent(int pathId, int bytes, long nowNanos) {
            sent[0] += bytes;
            inner.onPacketSent(pathId, bytes, nowNanos);
        }
    }
}
