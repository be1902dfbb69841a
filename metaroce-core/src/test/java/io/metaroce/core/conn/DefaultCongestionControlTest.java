package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.harness.Pair;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Congestion control is on unless asked otherwise [SPEC-CC-4]: an endpoint built without a
 * controller factory gives every connection an {@link AimdController}, which cuts its window on
 * loss; {@link FixedWindowController} stays available as an explicit choice and never cuts.
 */
class DefaultCongestionControlTest {
    private static final EngineConfig CONFIG = EngineConfig.defaults();

    private static Endpoint.Builder builder() {
        return Endpoint.builder(new SplittableRandom(7), new byte[32], Pair.INTEGER_ADDRESSES);
    }

    @Test
    void anEndpointBuiltWithoutAChoiceRunsAimdWhichCutsOnLoss() {
        CongestionController cc = builder().build().congestionControllerFactory().apply(CONFIG);

        assertThat(cc).isInstanceOf(AimdController.class);
        AimdController aimd = (AimdController) cc;
        assertThat(aimd.windowBytes(0)).isEqualTo(CONFIG.aimdInitialWindowBytes());
        aimd.onPacketSent(0, 4096, 0);
        aimd.onPacketLost(0, 4096, 1);
        assertThat(aimd.windowBytes(0)).isEqualTo(CONFIG.aimdInitialWindowBytes() / 2);
        assertThat(aimd.inSlowStart(0)).as("a loss ends slow start").isFalse();
    }

    /**
     * Where ECN is read (the Linux datapath: every DATA packet is ECT, so the peer always reports
     * ECT) but nothing marks (a fabric whose switches do not, a socket buffer or NIC ring
     * overflowing), a loss still halves the window by default: the loss is the only signal there.
     */
    @Test
    void byDefaultALossCutsEvenWhereEcnIsReadAndNothingWasMarked() {
        AimdController aimd = (AimdController) builder().build().congestionControllerFactory().apply(CONFIG);
        aimd.onEcnFeedback(0, 64, 0, 0);
        for (int i = 0; i < 4; i++) {
            aimd.onPacketSent(0, 4096, 0);
        }
        long before = aimd.windowBytes(0);
        aimd.onPacketLost(0, 4096, 1);
        assertThat(aimd.windowBytes(0)).as("ECT reported, no CE: the loss halves").isEqualTo(before / 2);
        assertThat(aimd.inSlowStart(0)).isFalse();
    }

    @Test
    void theFixedWindowIsAnExplicitChoiceThatNeverCuts() {
        CongestionController cc = builder().congestionController(FixedWindowController::new).build()
                .congestionControllerFactory().apply(CONFIG);

        assertThat(cc).isInstanceOf(FixedWindowController.class);
        FixedWindowController fixed = (FixedWindowController) cc;
        assertThat(fixed.windowBytes()).isEqualTo(CONFIG.congestionWindowBytes());
        fixed.onPacketSent(0, 4096, 0);
        fixed.onPacketLost(0, 4096, 1);
        assertThat(fixed.sendAllowanceBytes(0, 2)).isEqualTo(CONFIG.congestionWindowBytes());
    }
}
