package io.metaroce.bench.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each peer of {@code compare} on its own, briefly, and the arithmetic of a size's result. */
class PeersTest {
    private static final Window SHORT = new Window(50_000_000L, 200_000_000L);

    @Test
    void rawUdpReceivesSomething() throws Exception {
        RawUdpPeer peer = new RawUdpPeer();
        RawUdpPeer.Blast blast = peer.blast(8192, false, SHORT);
        assertThat(blast.receivedGbps()).isPositive();
        assertThat(blast.deliveredFraction()).isPositive().isLessThanOrEqualTo(1.0);
        LatencyPercentiles l = peer.pingPong(64, SHORT);
        assertThat(l.samples()).isPositive();
        assertThat(l.p50Us()).isPositive();
    }

    @Test
    void rawUdpWithGsoReceivesSomething() throws Exception {
        RawUdpPeer peer = new RawUdpPeer();
        assumeThat(peer.gsoSupported()).as("GSO needs epoll with UDP_SEGMENT").isTrue();
        assertThat(peer.blast(1024, true, SHORT).receivedGbps()).isPositive();
    }

    @Test
    void tcpMovesBytes() throws Exception {
        TcpPeer peer = new TcpPeer();
        assertThat(peer.blast(8192, SHORT)).isPositive();
        assertThat(peer.pingPong(64, SHORT).samples()).isPositive();
    }

    @Test
    void aeronMovesBytes() throws Exception {
        AeronPeer peer = new AeronPeer();
        assertThat(peer.blast(8192, AeronPeer.LIKE_MTU, SHORT)).isPositive();
        assertThat(peer.pingPong(64, SHORT).samples()).isPositive();
    }

    @Test
    void theBestMetaroceVariantAndTheRatiosFollowTheFigures() {
        Map<String, Double> variants = new LinkedHashMap<>();
        variants.put("SEND, 1 path", 1.0);
        variants.put("SEND, 4 paths", null);
        variants.put("WRITE, 4 paths", 3.0);
        SizeResult r = new SizeResult(8192, 2.0, 6.0, variants, 4.0, null, 12.0);
        assertThat(r.metaroceVariant()).isEqualTo("WRITE, 4 paths");
        assertThat(r.metaroceGbps()).isEqualTo(3.0);
        assertThat(r.rawUdpGbps()).isEqualTo(6.0);
        assertThat(r.metaroceOverRawUdp()).isEqualTo(0.5);
        assertThat(r.metaroceOverTcp()).isEqualTo(0.75);
        assertThat(r.metaroceOverAeron()).isNull();
        assertThat(r.metaroceOverAeronBest()).isEqualTo(0.25);
        // Variants that checked every byte: the full-check figure is their best.
        assertThat(r.metaroceFullCheckGbps()).isEqualTo(3.0);
        assertThat(r.metaroceFullCheckOverRawUdp()).isEqualTo(0.5);
        SizeResult sampled = new SizeResult(8192, 2.0, 6.0, variants, 4.0, null, 12.0, 1.5);
        assertThat(sampled.metaroceGbps()).isEqualTo(3.0);
        assertThat(sampled.metaroceFullCheckOverRawUdp()).isEqualTo(0.25);
        // Built without rounds, a size has none and no verdict medians.
        assertThat(sampled.rounds()).isSameAs(Rounds.NONE);
        assertThat(sampled.rounds().metaroceOverRawUdpMedian()).isNull();
        SizeResult none = new SizeResult(1024, null, null, Map.of("SEND, 1 path", 1.0), null, 1.0, null);
        assertThat(none.rawUdpGbps()).isNull();
        assertThat(none.metaroceOverRawUdp()).isNull();
        assertThat(none.metaroceOverAeron()).isEqualTo(1.0);
    }
}
