package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link ControlQueue}: a PROBE_ACK queued for a path the peer's grant then dropped
 * ([SPEC-CONN-15]) is dropped whole, all its copies, and the same write goes on to the next
 * queued answer, so a poll is never spent writing nothing.
 */
class ControlQueueTest {
    @Test
    void probeAnswersForPathsGoneAreDroppedWholeAndTheNextOneIsWrittenInTheSamePoll() {
        EngineConfig config = EngineConfig.defaults();
        Paths paths = new Paths(4);
        for (int i = 0; i < 4; i++) {
            paths.open(new Path(i, i, null, config));
        }
        ConnectionStats stats = new ConnectionStats();
        ControlQueue control = new ControlQueue(config, stats, paths, new PacketEmitter(stats, 0));
        control.queueProbeAck(3, 7, 1_000, 3); // three copies, for a path about to go
        control.queueProbeAck(2, 8, 2_000, 1); // goes too
        control.queueProbeAck(1, 9, 3_000, 2); // stays
        paths.limitTo(2);

        Transmit out = new Transmit(ByteBuffer.allocate(4096));
        Packet p = new Packet();
        PacketCodec codec = new PacketCodec();
        for (int copy = 0; copy < 2; copy++) {
            assertThat(control.hasProbeAck()).as("copy %d still queued", copy).isTrue();
            assertThat(control.writeProbeAck(out, p, codec)).as("copy %d written", copy).isTrue();
            assertThat(p.type).isEqualTo(PacketType.PROBE_ACK);
            assertThat(out.pathId).as("the answer on the path still open").isEqualTo(1);
            assertThat(p.probeId).isEqualTo(9);
            assertThat(p.timestampNanos).isEqualTo(3_000);
        }
        assertThat(control.hasProbeAck()).as("every copy sent, the dropped entries gone").isFalse();

        control.queueProbeAck(3, 10, 4_000, 2);
        paths.limitTo(1);
        assertThat(control.writeProbeAck(out, p, codec)).as("nothing left for an open path").isFalse();
        assertThat(control.hasProbeAck()).isFalse();
    }
}
