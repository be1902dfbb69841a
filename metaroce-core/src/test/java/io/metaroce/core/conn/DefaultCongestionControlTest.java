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
