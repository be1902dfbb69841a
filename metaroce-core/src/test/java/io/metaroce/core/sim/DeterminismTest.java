package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.sim.fabric.Telemetry;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.sim.scenario.FabricSpeed;
import io.metaroce.core.sim.scenario.ScenarioResult;
import io.metaroce.core.sim.scenario.Scenarios;
import io.metaroce.core.sim.scenario.SimParameters;
import io.metaroce.core.sim.scenario.TopologyKind;
import org.junit.jupiter.api.Test;

/** A run is a function of its seed: the same seed gives the same events, metrics and time series. */
class DeterminismTest {

    private static SimParameters small(long seed) {
        return SimParameters.defaults().withTopology(TopologyKind.FAT_TREE, 4, 1).withSenders(4).withDuration(300_000L)
                .withSeed(seed);
    }

    @Test
    void theSameSeedGivesIdenticalRunsForManySeeds() {
        for (long seed = 1; seed <= 4; seed++) {
            ScenarioResult a = Scenarios.run("incast", small(seed), s -> MetaroceProtocol.withAimd(s, false));
            ScenarioResult b = Scenarios.run("incast", small(seed), s -> MetaroceProtocol.withAimd(s, false));
            assertThat(b.eventsProcessed()).as("seed %d", seed).isEqualTo(a.eventsProcessed());
            assertThat(b.simulatedNanos()).isEqualTo(a.simulatedNanos());
            assertThat(b.metrics()).as("seed %d", seed).isEqualTo(a.metrics());
            assertSameSeries(a.telemetry(), b.telemetry());
        }
    }

    @Test
    void rawFabricRunsWithLossAreIdenticalPerSeedAndDifferAcrossSeeds() {
        SimParameters p = SimParameters.defaults().withTopology(TopologyKind.FAT_TREE, 4, 1).withDuration(100_000L);
        ScenarioResult a = FabricSpeed.run(p.withSeed(5));
        ScenarioResult b = FabricSpeed.run(p.withSeed(5));
        ScenarioResult c = FabricSpeed.run(p.withSeed(6));
        assertThat(b.metrics()).isEqualTo(a.metrics());
        assertThat(c.metrics()).isNotEqualTo(a.metrics());
    }

    private static void assertSameSeries(Telemetry a, Telemetry b) {
        assertThat(b.buckets()).isEqualTo(a.buckets());
        for (int f = 0; f < a.flowCount(); f++) {
            for (int i = 0; i < a.buckets(); i++) {
                assertThat(b.deliveredAt(f, i)).isEqualTo(a.deliveredAt(f, i));
            }
        }
        for (int p = 0; p < a.portCount(); p++) {
            for (int i = 0; i < a.buckets(); i++) {
                assertThat(b.peakDepth(p, i)).isEqualTo(a.peakDepth(p, i));
                assertThat(b.drops(p, i)).isEqualTo(a.drops(p, i));
            }
        }
    }
}
