package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.sim.fabric.BufferPreset;
import io.metaroce.core.sim.fabric.LinkSpec;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Topologies;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.sim.rocev2.RoceV2Protocol;
import io.metaroce.core.sim.scenario.ScenarioResult;
import io.metaroce.core.sim.scenario.Scenarios;
import io.metaroce.core.sim.scenario.SimParameters;
import io.metaroce.core.sim.scenario.TopologyKind;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The RoCEv2 baseline driven through the fabric, and scenarios that run it beside MetaRoCE. */
class RoceV2FabricTest {
    private static final long TOTAL = 2L << 20;

    /** Two 2 MiB transfers across a 4-leaf, 2-spine leaf-spine, run to completion. */
    private static List<SimFlow> transfers(Network net, RoceV2Protocol protocol) {
        protocol.install(net);
        FlowSpec spec = new FlowSpec(8, 64 << 10, 8, TOTAL);
        List<SimFlow> flows = List.of(protocol.openFlow(0, 0, 7, spec), protocol.openFlow(1, 2, 5, spec));
        for (SimFlow f : flows) {
            assertThat(f.established()).isTrue();
            f.start(net.now());
            net.wake(f.sourceHost());
        }
        return flows;
    }

    @Test
    void theBaselineCompletesEveryFlowOnACleanFabricAtNicRate() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.SHALLOW);
        Network net = new Network(Topologies.leafSpine(4, 2, 2, 1, link, link), 1, 9216);
        assertThat(net.hostNicBitsPerSecond(0)).isEqualTo(100_000_000_000L);
        RoceV2Protocol protocol = RoceV2Protocol.withDefaults(1);
        List<SimFlow> flows = transfers(net, protocol);
        boolean done = net.runUntil(() -> flows.stream().allMatch(f -> f.completedBytes() == TOTAL), 50_000_000L);

        assertThat(done).isTrue();
        for (SimFlow f : flows) {
            assertThat(f.postedBytes()).isEqualTo(TOTAL);
            assertThat(f.deliveredBytes()).isEqualTo(TOTAL);
            assertThat(f.failedBytes()).isZero();
            assertThat(f.outstandingMessages()).isZero();
            assertThat(f.retransmissions()).as("a clean fabric with disjoint flows loses nothing").isZero();
            assertThat(f.verified()).isTrue();
            assertThat(protocol.failed(f)).isFalse();
        }
        // 2 MiB at 100 Gbit/s is about 170 us of wire time; the two flows share no link.
        assertThat(net.now()).isBetween(150_000L, 400_000L);
        assertThat(protocol.host(0).endpoint().queuePairCount()).isEqualTo(1);
        assertThat(protocol.host(7).endpoint().queuePairStats(1).bytesDelivered()).isEqualTo(TOTAL);
    }

    @Test
    void eachFlowIsOneQueuePairOnOneRoute() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.SHALLOW);
        for (long seed = 1; seed <= 4; seed++) {
            Network net = new Network(Topologies.leafSpine(4, 2, 2, 1, link, link), seed, 9216);
            RoceV2Protocol protocol = RoceV2Protocol.withDefaults(seed);
            List<SimFlow> flows = transfers(net, protocol);
            net.runUntil(() -> flows.stream().allMatch(f -> f.completedBytes() == TOTAL), 50_000_000L);
            // Flow 0 (host 0 -> 7) leaves host 0's leaf by one spine uplink only: one ECMP route.
            int leaf = net.portPeerNode(net.hostPort(0, 0));
            int carrying = 0;
            int idle = 0;
            for (int p = 0; p < net.linkCount() * 2; p++) {
                if (net.portNode(p) == leaf && net.nodeTier(net.portPeerNode(p)) > net.nodeTier(leaf)) {
                    long bytes = net.portTxBytes(p);
                    carrying += bytes >= TOTAL ? 1 : 0;
                    idle += bytes < TOTAL / 10 ? 1 : 0;
                }
            }
            assertThat(carrying).as("seed %d: uplinks that carried the flow", seed).isEqualTo(1);
            assertThat(idle).as("seed %d: uplinks that carried (almost) none of it", seed).isEqualTo(1);
        }
    }

    @Test
    void aSmallScenarioRunsBothProtocolsDeterministically() {
        SimParameters p = SimParameters.defaults().withTopology(TopologyKind.FAT_TREE, 4, 1).withSenders(4)
                .withDuration(300_000L).withSeed(2);
        for (String scenario : List.of("incast", "loss")) {
            ScenarioResult m1 = Scenarios.run(scenario, p, s -> MetaroceProtocol.withAimd(s, false));
            ScenarioResult r1 = Scenarios.run(scenario, p, s -> RoceV2Protocol.withDefaults(s));
            ScenarioResult r2 = Scenarios.run(scenario, p, s -> RoceV2Protocol.withDefaults(s));
            assertThat(m1.protocol()).isEqualTo("metaroce");
            assertThat(r1.protocol()).isEqualTo("rocev2");
            assertThat(r1.metrics().keySet()).as(scenario).isEqualTo(m1.metrics().keySet());
            assertThat(r2.metrics()).as(scenario).isEqualTo(r1.metrics());
            assertThat(r2.eventsProcessed()).isEqualTo(r1.eventsProcessed());
            assertThat((double) r1.metrics().get("goodput_fraction")).as(scenario).isPositive();
        }
    }
}
