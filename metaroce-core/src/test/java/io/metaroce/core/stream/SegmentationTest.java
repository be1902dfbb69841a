package io.metaroce.core.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The arithmetic of [SPEC-MSG-3], exhaustively over small sizes. */
class SegmentationTest {

    /**
     * For every message length up to 20 packets and every payload size up to 64: ceil(L/P)
     * packets, all of one length at most P, covering the message contiguously, the last ending at
     * L, and credited bytes adding up to exactly L.
     */
    @Test
    void packetsOfOneLengthCoverTheMessageAndCreditItsLength() {
        for (int p = 1; p <= 64; p++) {
            for (long length = 0; length <= 20L * p; length++) {
                String where = "L=" + length + " P=" + p;
                int q = Segmentation.packetPayload(length, p);
                if (length == 0) {
                    assertThat(q).as(where).isZero();
                    continue;
                }
                assertThat(q).as(where).isBetween(1, p);
                long sent = 0;
                long credited = 0;
                long covered = 0; // the message's bytes [0, covered) are carried so far
                int packets = 0;
                while (sent < length) {
                    long offset = Segmentation.packetOffset(length, q, sent);
                    assertThat(offset).as(where).isBetween(0L, covered);
                    covered = offset + q;
                    credited += Segmentation.creditedBytes(offset, q);
                    sent += q;
                    packets++;
                }
                assertThat(covered).as(where).isEqualTo(length);
                assertThat(packets).as(where).isEqualTo((int) Math.ceilDiv(length, p));
                assertThat(credited).as(where).isEqualTo(length);
                // The overlap of the last packet is less than one byte per packet.
                assertThat((long) packets * q - length).as(where).isBetween(0L, (long) packets - 1);
            }
        }
    }

    /**
     * A receiver credits the packets of either cut correctly without knowing which its peer used
     * [SPEC-MSG-9]: for every L and P, the credits of the equal-length cut and those of the cut
     * into full packets and a shorter last one each add up to exactly L.
     */
    @Test
    void aReceiverCreditsEitherCutWithoutKnowingWhichWasUsed() {
        for (int p = 1; p <= 64; p++) {
            for (long length = 1; length <= 20L * p; length++) {
                String where = "L=" + length + " P=" + p;
                int q = Segmentation.packetPayload(length, p);
                long equal = 0;
                for (long sent = 0; sent < length; sent += q) {
                    equal += Segmentation.creditedBytes(length, Segmentation.packetOffset(length, q, sent), q, p);
                }
                assertThat(equal).as("equal-length cut, " + where).isEqualTo(length);
                long full = 0;
                for (long offset = 0; offset < length; offset += p) {
                    full += Segmentation.creditedBytes(length, offset, (int) Math.min(p, length - offset), p);
                }
                assertThat(full).as("full packets and a short last one, " + where).isEqualTo(length);
            }
        }
    }

    @Test
    void eightKibOverFourKibPacketsIsThreeEqualPackets() {
        assertThat(Segmentation.packetPayload(8192, 4056)).isEqualTo(2731);
        assertThat(Segmentation.packetOffset(8192, 2731, 5462)).isEqualTo(8192 - 2731);
        assertThat(Segmentation.creditedBytes(8192 - 2731, 2731)).isEqualTo(8192 - 2 * 2731);
    }

    @Test
    void creditIsPositiveAndAtMostTheLengthForAnyOffset() {
        for (int len = 1; len <= 50; len++) {
            for (long offset = 0; offset <= 500; offset++) {
                assertThat(Segmentation.creditedBytes(offset, len)).isBetween(1L, (long) len);
            }
        }
        assertThat(Segmentation.creditedBytes(123, 0)).isZero();
    }

    @Test
    void badArgumentsFailFast() {
        assertThatThrownBy(() -> Segmentation.packetPayload(-1, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Segmentation.packetPayload(100, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
