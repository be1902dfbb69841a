package io.metaroce.core.sim.rocev2;

import static io.metaroce.core.sim.rocev2.RoceV2PairFixture.QP_A;
import static io.metaroce.core.sim.rocev2.RoceV2PairFixture.QP_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.api.Transmit;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Malformed datagrams are dropped and counted, never thrown; API misuse fails fast naming the fix. */
class RoceV2MisuseAndHostileInputTest {
    private static final RoceV2Config CONFIG = RoceV2Config.defaults();

    @Test
    void malformedDatagramsAreDroppedCountedByReasonAndTheQueuePairCarriesOn() {
        RoceV2PairFixture f = new RoceV2PairFixture(21, CONFIG);
        RoceV2Endpoint b = f.b;
        RoceV2Codec codec = new RoceV2Codec();
        ByteBuffer d = ByteBuffer.allocate(CONFIG.mtuBytes() + 100);
        Integer from = TestNetwork.address(0);

        int length = codec.encodeSend(d, RoceV2Opcode.SEND_ONLY, QP_B, true, 0, 100);
        b.handleDatagram(0, d, 0, 10, 0, from, 2); // truncated
        b.handleDatagram(0, d, 0, CONFIG.mtuBytes() + 1, 0, from, 2); // beyond the MTU
        d.put(9, (byte) 0x55);
        b.handleDatagram(0, d, 0, length, 0, from, 2); // header bit damage: ICRC
        d.put(0, (byte) 0x64);
        b.handleDatagram(0, d, 0, length, 0, from, 2); // an opcode the baseline never uses
        length = codec.encodeSend(d, RoceV2Opcode.SEND_ONLY, 4242, true, 0, 100);
        b.handleDatagram(0, d, 0, length, 0, from, 2); // valid, but no such queue pair

        RoceV2EndpointStats s = b.stats();
        assertThat(s.malformed(RoceV2DecodeError.TRUNCATED)).isEqualTo(1);
        assertThat(s.malformed(RoceV2DecodeError.BAD_LENGTH)).isEqualTo(1);
        assertThat(s.malformed(RoceV2DecodeError.BAD_ICRC)).isEqualTo(1);
        assertThat(s.malformed(RoceV2DecodeError.BAD_OPCODE)).isEqualTo(1);
        assertThat(s.unknownQueuePair()).isEqualTo(1);

        SplittableRandom r = new SplittableRandom(21);
        for (int i = 0; i < 2_000; i++) {
            int n = r.nextInt(120);
            for (int k = 0; k < n; k++) {
                d.put(k, (byte) r.nextInt());
            }
            b.handleDatagram(0, d, 0, n, 0, from, r.nextInt(4));
        }
        assertThat(s.datagramsReceived()).isEqualTo(2_005);
        assertThat(s.malformedTotal()).as("random bytes never pass the checks").isEqualTo(2_004);
        assertThat(f.statsB().dataPacketsReceived()).isZero();

        f.a.postSend(QP_A, 50_000);
        f.runUntilAcknowledged(1_000_000_000L);
        assertThat(f.deliveredAtB).containsExactly(50_000);
    }

    @Test
    void postingOnAnUnknownQueuePairNamesTheFix() {
        RoceV2Endpoint e = new RoceV2Endpoint(CONFIG);
        assertThatThrownBy(() -> e.postSend(5, 100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no queue pair 5").hasMessageContaining("openQueuePair");
        assertThatThrownBy(() -> e.queuePairStats(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no queue pair 5");
    }

    @Test
    void postingNoBytesOrNegativeBytesFails() {
        RoceV2Endpoint e = new RoceV2Endpoint(CONFIG);
        e.openQueuePair(TestNetwork.address(1), 0, 1, 2);
        assertThatThrownBy(() -> e.postSend(1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 byte, got 0");
        assertThatThrownBy(() -> e.postSend(1, -5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got -5");
        assertThat(e.queuePairStats(1).bytesPosted()).isZero();
        assertThat(e.pollTimeoutNanos()).as("nothing was queued").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void openingQueuePairsChecksNumbersAndAddresses() {
        RoceV2Endpoint e = new RoceV2Endpoint(CONFIG.toBuilder().maxQueuePairs(2).build());
        e.openQueuePair(TestNetwork.address(1), 0, 1, 2);
        assertThatThrownBy(() -> e.openQueuePair(TestNetwork.address(1), 0, 1, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already open");
        assertThatThrownBy(() -> e.openQueuePair(TestNetwork.address(1), 0, 0, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localQpn is 0");
        assertThatThrownBy(() -> e.openQueuePair(TestNetwork.address(1), 0, 3, 1 << 24))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("remoteQpn").hasMessageContaining("24 bits");
        assertThatThrownBy(() -> e.openQueuePair(TestNetwork.address(1), 0, 3, 4, -1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialSendPsn");
        assertThatThrownBy(() -> e.openQueuePair(null, 0, 3, 4)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("remoteAddress");
        e.openQueuePair(TestNetwork.address(1), 0, 3, 4);
        assertThatThrownBy(() -> e.openQueuePair(TestNetwork.address(1), 0, 5, 6))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxQueuePairs");
    }

    @Test
    void aTransmitBufferSmallerThanTheMtuIsRefused() {
        RoceV2Endpoint e = new RoceV2Endpoint(CONFIG);
        assertThatThrownBy(() -> e.pollTransmit(0, new Transmit(ByteBuffer.allocate(1500))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mtuBytes (4096)");
    }

    @Test
    void invalidConfigurationsNameTheFieldAndTheRule() {
        assertThatThrownBy(() -> CONFIG.toBuilder().mtuBytes(100).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mtuBytes is 100");
        assertThatThrownBy(() -> CONFIG.toBuilder().windowPackets(1 << 23).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("windowPackets");
        assertThatThrownBy(() -> CONFIG.toBuilder().maxRetransmitTimeoutNanos(1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRetransmitTimeoutNanos");
        assertThatThrownBy(() -> CONFIG.toBuilder().dcqcnGain(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dcqcnGain");
        assertThatThrownBy(() -> CONFIG.toBuilder().minRateBitsPerSecond(200_000_000_000L).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minRateBitsPerSecond");
        assertThatThrownBy(() -> new RoceV2Endpoint(CONFIG, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("RoceV2Listener.NONE");
    }
}
