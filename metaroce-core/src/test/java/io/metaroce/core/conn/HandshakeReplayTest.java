package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A CONNECT recorded while it opened a connection, replayed from the client's own address after
 * that connection ended, within the cookie's lifetime, opens nothing (R-CONN-4: nothing
 * half-open lingers).
 */
class HandshakeReplayTest {

    @Test
    void aReplayedConnectAfterTheConnectionEndedCreatesNothing() {
        PacketCodec codec = new PacketCodec();
        Packet p = new Packet();
        ByteBuffer[] recorded = {null};
        Pair pair = Pair.create(21, 2, NetworkConditions.perfect(), EngineConfig.defaults())
                .lossModel((fromClient, path, buf, len, now) -> {
                    if (fromClient && codec.decode(buf, 0, len, p) == DecodeError.OK && p.type == PacketType.CONNECT
                            && p.hasCookie) {
                        ByteBuffer copy = ByteBuffer.allocate(len);
                        copy.put(0, buf, 0, len);
                        recorded[0] = copy;
                    }
                    return false;
                })
                .connect();
        assertThat(recorded[0]).as("the CONNECT that carried the cookie").isNotNull();
        pair.clientConnection().close();
        pair.driveUntil(() -> pair.server().connectionCount() == 0 && pair.client().connectionCount() == 0,
                1_000_000_000L, "close");
        pair.advance(1_000_000); // well within the 10 s cookie lifetime

        pair.server().handleDatagram(pair.now(), recorded[0], 0, recorded[0].limit(), 0, Pair.clientAddress(0), 0);
        pair.flush();

        assertThat(pair.server().connectionCount()).as("no connection state from a replay").isZero();
        assertThat(pair.server().stats().replayedConnects()).isEqualTo(1);
        assertThat(pair.server().stats().connectionsAccepted()).isEqualTo(1);
    }
}
