package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Packets that reach a client before its handshake finishes change nothing they should not. */
class ConnectingStateTest {

    @Test
    void aProbeBeforeAcceptOnAPathTheServerDoesNotGrantIsIgnored() {
        Endpoint client = Endpoint.builder(new SplittableRandom(1), new byte[32], Pair.INTEGER_ADDRESSES)
                .config(EngineConfig.defaults()).build();
        Connection c = client.connect(0, Pair.SERVER_ADDRESS, new int[] {0, 1});
        Transmit out = new Transmit(ByteBuffer.allocate(4096));
        while (client.pollTransmit(0, out)) {
            // the CONNECT
        }
        PacketCodec codec = new PacketCodec();
        ByteBuffer buf = ByteBuffer.allocate(256);
        Packet p = new Packet();
        p.type = PacketType.PATH_PROBE;
        p.pathId = 1;
        p.destinationConnectionId = c.localId();
        p.probeId = 7;
        int n = codec.encode(p, buf, 0, null, 0);
        client.handleDatagram(1, buf, 0, n, 1, Pair.SERVER_ADDRESS, 0);
        p.clear();
        p.type = PacketType.ACCEPT;
        p.destinationConnectionId = c.localId();
        p.sourceConnectionId = 99;
        p.maxDatagramBytes = 4096;
        p.sequenceWindow = 65536;
        p.pathCount = 1; // the server grants one path: path 1 goes away
        n = codec.encode(p, buf, 0, null, 0);
        client.handleDatagram(2, buf, 0, n, 0, Pair.SERVER_ADDRESS, 0);

        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(c.pathCount()).isEqualTo(1);
        assertThatCode(() -> {
            while (client.pollTransmit(3, out)) {
                assertThat(out.pathId).as("nothing is sent on the path that was not granted").isZero();
            }
        }).doesNotThrowAnyException();
    }
}
