package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import org.junit.jupiter.api.Test;

/**
 * The endpoint codec's DATA header template (kept between the packets of one message) names the
 * connection that filled it; once that connection closes the codec lets go of it, so that a closed
 * connection's emitter and counters are not kept reachable until some other connection's next DATA
 * packet.
 */
class DataTemplateReleaseTest {

    @Test
    void aClosedConnectionNoLongerOwnsTheCodecsDataTemplate() {
        int[] done = {0};
        Pair pair = Pair.create(21, 2, NetworkConditions.perfect().withDelay(5_000, 0, 0), EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> done[0]++)
                .connect();
        Connection client = pair.clientConnection();
        MemoryRegion src = TestMemory.region(pair.client(), 200_000, Access.ALL, 3);
        MemoryRegion dst = TestMemory.region(pair.server(), 200_000, Access.ALL, 0);
        client.postWrite(0, 1, src, 0, 200_000, dst.remoteKey(), 0);
        pair.driveUntil(() -> done[0] == 1, 1_000_000_000L, "write");
        assertThat(pair.client().dataTemplateHeldBy(client))
                .as("the write's last DATA packet left the template to the connection").isTrue();

        client.close();
        pair.driveUntil(() -> client.state() == ConnectionState.CLOSED, 1_000_000_000L, "close");
        pair.advance(1_000_000L);
        assertThat(pair.client().connectionCount()).as("the closed connection was removed").isZero();
        assertThat(pair.client().dataTemplateHeldBy(client)).as("the closed connection's template is forgotten")
                .isFalse();
    }
}
