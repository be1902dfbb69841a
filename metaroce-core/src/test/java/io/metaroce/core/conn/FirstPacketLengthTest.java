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
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * [SPEC-CC-16]: before a connection first asks its congestion controller for a send time, it
 * tells it the datagram length of the packet that will go first, once: with equal-length packets
 * ([SPEC-MSG-3]) a 16 KiB message of 4,096-byte datagrams goes as 3,385-byte packets, and the
 * controller sizes its first flight's spread and its first pacing interval by that length.
 */
class FirstPacketLengthTest {
    private static final long MS = 1_000_000L;
    private static final int LENGTH = 16_384;

    /** What the client's controller was told, in order: {kind, value}, kind 0 the length, 1 an ask, 2 a send. */
    private static final class Log {
        final List<long[]> calls = new ArrayList<>();
    }

    @ParameterizedTest(name = "{0} of {1} bytes, equal length {2}")
    @CsvSource({
            "WRITE, 16384, true, 3385",
            "WRITE, 16384, false, 4096",
            "WRITE, 1000, true, 1108",
            "READ, 16384, true, 84",
    })
    void theControllerIsToldTheFirstPacketsLengthOnceBeforeItsFirstAsk(String kind, int length, boolean equal,
            int expected) {
        long seed = 41;
        EngineConfig config = EngineConfig.defaults().toBuilder().equalLengthPackets(equal).build();
        assertThat(config.maxDatagramBytes()).isEqualTo(4096);
        Log log = new Log();
        Pair pair = Pair.create(seed, 2, NetworkConditions.perfect().withDelay(10_000, 2_000, 5_000), config,
                c -> new Recording(new AimdController(c, new SplittableRandom(seed)), log), AimdController::new)
                .connect();
        pair.advance(1 * MS);
        assertThat(log.calls).as("nothing posted: never asked, never told").isEmpty();
        Connection client = pair.clientConnection();
        MemoryRegion local = TestMemory.region(pair.client(), LENGTH, Access.ALL, 9);
        MemoryRegion remote = TestMemory.region(pair.server(), LENGTH, Access.ALL, 3);
        int posted = kind.equals("READ") ? client.postRead(0, 1, local, 0, length, remote.remoteKey(), 0)
                : client.postWrite(0, 1, local, 0, length, remote.remoteKey(), 0);
        assertThat(posted).isEqualTo(PostResult.OK);
        pair.driveUntil(() -> client.stats().dataPacketsSent() > 0, 10 * MS, "first packet");

        List<long[]> told = log.calls.stream().filter(c -> c[0] == 0).toList();
        assertThat(told).as("told once").hasSize(1);
        assertThat(told.get(0)[1]).as("the first packet's datagram length").isEqualTo(expected);
        int firstAsk = indexOf(log, 1);
        int firstSend = indexOf(log, 2);
        assertThat(firstAsk).as("asked for a send time").isNotNegative();
        assertThat(log.calls.indexOf(told.get(0))).as("told before the first ask").isLessThan(firstAsk);
        assertThat(log.calls.get(firstSend)[1]).as("the packet that went first has that length").isEqualTo(expected);
    }

    private static int indexOf(Log log, int kind) {
        for (int i = 0; i < log.calls.size(); i++) {
            if (log.calls.get(i)[0] == kind) {
                return i;
            }
        }
        return -1;
    }

    /** Forwards to an AIMD controller and logs the first-packet length, the asks and the sends. */
    private static final class Recording extends ForwardingController {
        private final Log log;

        Recording(AimdController inner, Log log) {
            super(inner);
            this.log = log;
        }

        @Override
        public long nextSendTimeNanos(int pathId, long nowNanos) {
            log.calls.add(new long[] {1, nowNanos});
            return inner.nextSendTimeNanos(pathId, nowNanos);
        }

        @Override
        public void onFirstPacketBytes(int datagramBytes, long nowNanos) {
            log.calls.add(new long[] {0, datagramBytes});
            inner.onFirstPacketBytes(datagramBytes, nowNanos);
        }

        @Override
        public void onPacketSent(int pathId, int bytes, long nowNanos) {
            log.calls.add(new long[] {2, bytes});
            inner.onPacketSent(pathId, bytes, nowNanos);
        }
    }

}
