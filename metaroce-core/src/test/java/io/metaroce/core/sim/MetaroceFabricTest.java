package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.sim.fabric.BufferPreset;
import io.metaroce.core.sim.fabric.LinkSpec;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Topologies;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.sim.scenario.IncastScenario;
import io.metaroce.core.sim.scenario.PermutationScenario;
import io.metaroce.core.sim.scenario.ScenarioResult;
import io.metaroce.core.sim.scenario.SimParameters;
import io.metaroce.core.sim.scenario.TopologyKind;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The MetaRoCE engine itself, driven through the fabric: verified transfers under loss and failure. */
class MetaroceFabricTest {
    private static final long TOTAL = 4L << 20;

    private record Setup(Network net, MetaroceProtocol protocol, List<SimFlow> flows) {
    }

    /** A 4-leaf, 2-spine leaf-spine (2 hosts per leaf), two verified 4 MiB transfers across it. */
    private static Setup transfers(long seed) {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.SHALLOW);
        Network net = new Network(Topologies.leafSpine(4, 2, 2, 1, link, link), seed, 9216);
        MetaroceProtocol protocol = MetaroceProtocol.withAimd(seed, true);
        protocol.install(net);
        FlowSpec spec = new FlowSpec(8, 64 << 10, 8, TOTAL);
        List<SimFlow> flows = List.of(protocol.openFlow(0, 0, 7, spec), protocol.openFlow(1, 2, 5, spec));
        assertThat(net.runUntil(() -> flows.stream().allMatch(SimFlow::established), 10_000_000L)).as("seed %d", seed).isTrue();
        for (SimFlow f : flows) {
            f.start(net.now());
            net.wake(f.sourceHost());
        }
        return new Setup(net, protocol, flows);
    }

    private static void assertCompleteAndVerified(Setup s, long seed) {
        boolean done = s.net().runUntil(() -> s.flows().stream().allMatch(f -> f.completedBytes() == TOTAL), s.net().now() + 500_000_000L);
        for (SimFlow f : s.flows()) {
            assertThat(done).as("seed %d: flow %d->%d completed %d of %d, failed %d", seed, f.sourceHost(), f.destinationHost(),
                    f.completedBytes(), TOTAL, f.failedBytes()).isTrue();
            assertThat(f.postedBytes()).isEqualTo(TOTAL);
            assertThat(f.deliveredBytes()).isEqualTo(TOTAL);
            assertThat(f.postedBytes() - f.completedBytes()).as("bytes lost to the application").isZero();
            assertThat(f.failedBytes()).isZero();
            assertThat(f.verified()).as("seed %d", seed).isTrue();
        }
    }

    @Test
    void transfersCompleteVerifiedUnderOnePercentLossOnEveryLink() {
        for (long seed = 1; seed <= 3; seed++) {
            Setup s = transfers(seed);
            s.net().setLossEverywhere(0.01);
            assertCompleteAndVerified(s, seed);
            assertThat(s.net().lossDrops()).isPositive();
            assertThat(s.flows().stream().mapToLong(SimFlow::retransmissions).sum()).isPositive();
        }
    }

    @Test
    void transfersCompleteVerifiedAcrossAMidRunSpineLinkFailure() {
        for (long seed = 1; seed <= 3; seed++) {
            Setup s = transfers(seed);
            Network net = s.net();
            // The leaf-to-spine link under flow 0's first path fails 100 us in; routing withdraws it 500 us later.
            int[] route = net.trace(0, 1, 7, 0);
            int link = route[1] / 2;
            net.failLink(link, net.now() + 100_000L, 500_000L);
            assertCompleteAndVerified(s, seed);
            assertThat(net.blackholeDrops()).as("seed %d", seed).isPositive();
        }
    }

    @Test
    void aSmallIncastReportsItsFairnessAndConvergence() {
        // 8:1 on a k=4 fat-tree with shallow buffers, 2 ms measured. Before the simulator ran the
        // receiver's fair share and pacing (AIMD alone, 64 KiB per path): Jain 0.21, goodput 0.67,
        // 1,239 drops, the whole buffer full. With them: Jain 0.99 over the second half, 77 drops,
        // never within ±10% in every window. With the first flight capped until the first hint,
        // spread start phases, one pacing clock per connection and marks cutting the share of the
        // hint (2026-11-29): no drops at all, peak queue 21 KB, Jain 0.9999, every sender within
        // ±10% of its share from 180 base RTTs on. With marks under the hint moving the pacing
        // phase instead of the rate, the clock started one interval after the first flight and 97%
        // of the NIC handed out (session 4): within ±10% from 5.46 base RTTs on, peak queue 21 KB.
        // With the first flights spread by the share announced in ACCEPT and the clock counted from
        // the request to send ([SPEC-CC-28], session 5): from 1.99 base RTTs on, peak queue 36 KB.
        SimParameters p = SimParameters.defaults().withTopology(TopologyKind.FAT_TREE, 4, 1).withSenders(8)
                .withDuration(2_000_000L);
        IncastScenario.Result result = IncastScenario.run(p, seed -> MetaroceProtocol.withAimd(seed, false));
        ScenarioResult r = result.report();
        assertThat(r.metrics()).containsKeys("convergence_rtts", "jain_fairness", "peak_queue_bytes", "drops", "goodput_fraction");
        assertThat(r.telemetry().flowCount()).isEqualTo(8);
        assertThat(result.jainFairness()).isBetween(0.99, 1.0);
        assertThat(result.goodputFraction()).isBetween(0.7, 1.0);
        assertThat(result.peakQueueBytes()).isLessThanOrEqualTo((long) r.metrics().get("bdp_bytes"));
        assertThat((long) r.metrics().get("drops_after_convergence")).isZero();
        assertThat(result.drops()).as("the first flight is one datagram per sender, then hinted and paced").isZero();
        boolean converged = r.metrics().get("converged").equals(true);
        assertThat(result.convergenceRtts() >= 0).isEqualTo(converged);
        assertThat(converged).as("every sender within ±10%% of its share from then to the end").isTrue();
        assertThat(result.convergenceRtts()).isLessThanOrEqualTo(2.0);
        System.out.println("incast 8:1 metaroce: " + r.metrics());
    }

    /** Runs a MetaRoCE incast and checks the goal: within ±10% in 2 base RTTs, fair, no drop. */
    private static IncastScenario.Result convergedWithinTwoRoundTripsWithoutADrop(SimParameters p) {
        IncastScenario.Result result = IncastScenario.run(p, seed -> MetaroceProtocol.withAimd(seed, false));
        assertThat(result.report().metrics().get("converged")).isEqualTo(true);
        assertThat(result.convergenceRtts()).as("the issue's goal").isLessThanOrEqualTo(2.0);
        assertThat(result.jainFairness()).isGreaterThanOrEqualTo(0.999);
        assertThat(result.drops()).isZero();
        return result;
    }

    @Test
    void aShallowBufferIncastOfSixtyFourConvergesWithinAFewRoundTripsWithoutADrop() {
        // 64:1 on the k=8 fat-tree, 2 ms measured. Before session 4 each sender cut its own share of
        // the hint on marks ([SPEC-CC-18] then): the 64 loops swung the aggregate by ±25%, 0.81 of
        // the line, 34 drops, never within ±10%. Now marks only move a sender's pacing phase and the
        // first paced packets leave one interval after the first flight ([SPEC-CC-22]), and the
        // receiver hands out 97% of its NIC instead of 95%: within ±10% from the first window
        // (0.0 base RTTs), Jain 1.0, no drop, peak queue 37 KB.
        SimParameters p = SimParameters.defaults().withSenders(64).withDuration(2_000_000L);
        IncastScenario.Result result = convergedWithinTwoRoundTripsWithoutADrop(p);
        ScenarioResult r = result.report();
        // 37 KB until session 5; with the first flights spread by the share announced in ACCEPT
        // ([SPEC-CC-28]) the connections accepted first start early, and the queue peaks at 58 KB in
        // the first 60 us, under the buffer and well under the bandwidth-delay product (101 KB).
        assertThat(result.peakQueueBytes()).as("under the 64 KiB buffer").isLessThan(62L << 10);
        System.out.println("incast 64:1 metaroce: " + r.metrics());
    }

    @Test
    void aSixteenToOneIncastLosesNoMoreThanItsFirstFlightToTheBlindRoundTrip() {
        // 16:1 on the k=8 fat-tree, 2 ms measured. A share's interval (5.4 us) is shorter than the
        // first round trip here (8 to 13 us): with the clock moved to the first ACK and that ACK
        // delayed 5 us, every sender lost up to a round trip and an interval of its share after its
        // first flight, and the first windows fell below 0.9 of the share: within ±10% from 4.96
        // base RTTs on. With the first packet acknowledged at once ([SPEC-CC-26]) and a clock start
        // already past at the ACK kept ([SPEC-CC-22]): 3.47, no drop; the last starters still lost
        // up to the whole 20 us first-flight spread. With the share announced in ACCEPT
        // ([SPEC-CC-28]) the first flights spread over two of its intervals (11 us here) and the
        // clock counts from the request to send: 0.0 base RTTs (session 5).
        SimParameters p = SimParameters.defaults().withSenders(16).withDuration(2_000_000L);
        IncastScenario.Result result = convergedWithinTwoRoundTripsWithoutADrop(p);
        ScenarioResult r = result.report();
        System.out.println("incast 16:1 metaroce: " + r.metrics());
    }

    @Test
    void onTheBusyPermutationTheMarksEveryPathSharesCutLessAndTheGoodputRises() {
        // [SPEC-CC-29] on the k=8 permutation, 400 us: every edge link runs at 0.9 to 0.98 of its
        // line and nearly every path is marked. With every mark cutting in full (percent 100) the
        // senders fell below their hint a quarter of the time: 0.759 of the bisection; with the
        // shared marks cutting half (the simulator's 50), 0.769.
        SimParameters p = SimParameters.defaults().withDuration(400_000L);
        double shared = PermutationScenario.run(p, seed -> MetaroceProtocol.withAimd(seed, false)).goodputFraction();
        double full = PermutationScenario.run(p, seed -> {
            java.util.SplittableRandom phases = new java.util.SplittableRandom(seed ^ 0x5DEECE66DL);
            return new MetaroceProtocol(MetaroceProtocol.simulatorConfig().toBuilder().aimdSharedMarkCutPercent(100).build(),
                    c -> new io.metaroce.core.cc.AimdController(c, phases.split()), seed, false, true);
        }).goodputFraction();
        assertThat(MetaroceProtocol.simulatorConfig().aimdSharedMarkCutPercent()).isEqualTo(50);
        System.out.println("permutation 400 us: shared marks cut half " + shared + ", in full " + full);
        assertThat(shared).as("shared marks cut half against in full (%s)", full).isGreaterThan(full + 0.005);
    }

    @Test
    void onTheFullySubscribedPermutationAGentleEcnGainWithTheBalancedIncreaseRaisesTheGoodput() {
        // Session 8, k=8 permutation, 400 us: every edge link is fully subscribed and most paths
        // are marked on most round trips. With the engine's gain 1/16 and every path growing by a
        // datagram per round trip: 0.7926 of the bisection; gain 1/64 alone 0.7942, the balanced
        // increase ([SPEC-CC-32]) alone 0.7969, both (the simulator's configuration) 0.808.
        SimParameters p = SimParameters.defaults().withDuration(400_000L);
        double simulator = PermutationScenario.run(p, seed -> MetaroceProtocol.withAimd(seed, false)).goodputFraction();
        double engine = PermutationScenario.run(p, seed -> {
            java.util.SplittableRandom phases = new java.util.SplittableRandom(seed ^ 0x5DEECE66DL);
            return new MetaroceProtocol(MetaroceProtocol.simulatorConfig().toBuilder()
                    .aimdEcnGainShift(io.metaroce.core.EngineConfig.defaults().aimdEcnGainShift())
                    .aimdBalancedIncrease(false).build(),
                    c -> new io.metaroce.core.cc.AimdController(c, phases.split()), seed, false, true);
        }).goodputFraction();
        assertThat(MetaroceProtocol.simulatorConfig().aimdEcnGainShift()).isEqualTo(6);
        assertThat(MetaroceProtocol.simulatorConfig().aimdBalancedIncrease()).isTrue();
        System.out.println("permutation 400 us: gain 1/64 with the balanced increase " + simulator
                + ", gain 1/16 with a datagram per path " + engine);
        assertThat(simulator).as("gain 1/64 and the balanced increase against the engine's (%s)", engine)
                .isGreaterThan(engine + 0.008);
    }

    @Test
    void onThePermutationTheSharesOfTheFullWindowsGoToThePathsWithRoom() {
        // [SPEC-CC-46] on the k=8 permutation with its 16 paths a flow, 800 us. A path carries a
        // datagram every 4 to 5 us under the hint and its window is 3 to 4 datagrams: at any time
        // about a fifth of a sender's hint sat on paths whose windows were full and went unsent,
        // and the senders ran at 0.98 of their hint in steady state. With those shares handed to
        // the paths with room, as under random loss ([SPEC-CC-35]): 0.8788 of the bisection
        // against 0.8747 (off in the simulator for its cost to the failover and the loss rows).
        SimParameters p = SimParameters.defaults().withDuration(800_000L)
                .withWorkload(PermutationScenario.PATHS_PER_FLOW, 16 << 10, 32);
        double[] goodput = new double[2];
        for (int on = 0; on < 2; on++) {
            io.metaroce.core.EngineConfig config = MetaroceProtocol.simulatorConfig().toBuilder()
                    .aimdFullWindowHandoff(on == 1).build();
            goodput[on] = PermutationScenario.run(p, seed -> {
                java.util.SplittableRandom phases = new java.util.SplittableRandom(seed ^ 0x5DEECE66DL);
                return new MetaroceProtocol(config, c -> new io.metaroce.core.cc.AimdController(c, phases.split()), seed,
                        false, true);
            }).goodputFraction();
        }
        System.out.println("permutation 800 us, 16 paths: full windows' shares handed over " + goodput[1] + ", kept "
                + goodput[0]);
        assertThat(goodput[1]).as("the shares handed over against kept (%s)", goodput[0]).isGreaterThan(goodput[0] + 0.003);
    }

    @Test
    void everyReceiverDividesNinetySevenPercentOfItsNicAmongItsSenders() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.SHALLOW);
        Network net = new Network(Topologies.leafSpine(4, 2, 2, 1, link, link), 1, 9216);
        MetaroceProtocol protocol = MetaroceProtocol.withAimd(1, false);
        protocol.install(net);
        long capacity = protocol.host(3).endpoint().config().receiveCapacityBytesPerSecond();
        // 100 Gbit/s = 12.5 GB/s on the wire; 4096 of every 4162 wire bytes are datagram; 97% of that.
        assertThat(capacity).isBetween(11_930_000_000L, 11_935_000_000L);
        assertThat(protocol.host(3).endpoint().config().minRtoNanos()).isEqualTo(50_000L);
        // A protocol given an explicit capacity keeps it.
        Network other = new Network(Topologies.leafSpine(4, 2, 2, 1, link, link), 1, 9216);
        MetaroceProtocol fixed = new MetaroceProtocol(MetaroceProtocol.simulatorConfig().toBuilder()
                .receiveCapacityBytesPerSecond(1_000_000_000L).build(), io.metaroce.core.cc.AimdController::new, 1, false, true);
        fixed.install(other);
        assertThat(fixed.host(0).endpoint().config().receiveCapacityBytesPerSecond()).isEqualTo(1_000_000_000L);
    }
}
