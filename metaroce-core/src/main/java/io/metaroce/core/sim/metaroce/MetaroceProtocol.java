package io.metaroce.core.sim.metaroce;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.Endpoint;
import io.metaroce.core.sim.SimAddress;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import io.metaroce.core.sim.workload.SimProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * MetaRoCE in the simulator: one listening {@link Endpoint} per host (with the AIMD congestion
 * controller unless told otherwise), and flows that open a connection with one path per
 * requested UDP source port and post WRITE_WITH_IMM messages (see {@link MetaroceFlow}).
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public final class MetaroceProtocol implements SimProtocol {
    /**
     * The share of the NIC rate a receiver divides among its senders: a little under 1, so the
     * senders' paced sum leaves the receiver's port room to drain the queue that bursts and the
     * first round trip build (with exactly 1 a standing queue never drains). 0.97 since the
     * senders under a hint stopped cutting their rate on marks ([SPEC-CC-18]): their sum no longer
     * swings, and 3% drains the bunching of their phases (64:1: within ±10% of the fair share from
     * the first window, peak queue 37 KB; with 0.95 each sender ran at 0.94 of the fair share, so
     * one pacing slot lost in a 32-packet window took it out of the ±10% band).
     */
    static final double RECEIVE_HEADROOM = 0.97;

    private final EngineConfig config;
    private final Function<EngineConfig, CongestionController> congestion;
    private final long seed;
    private final boolean verify;
    private final boolean receiverFairShare;
    private Network network;
    private MetaroceHost[] hosts;
    private final List<MetaroceFlow> flows = new ArrayList<>();

    /**
     * MetaRoCE with {@code config}, the given controller factory, endpoints seeded from
     * {@code seed}, and (if {@code verify}) every delivered message checked byte for byte.
     */
    public MetaroceProtocol(EngineConfig config, Function<EngineConfig, CongestionController> congestion, long seed,
            boolean verify) {
        this(config, congestion, seed, verify, false);
    }

    /**
     * As {@link #MetaroceProtocol(EngineConfig, Function, long, boolean)}; with
     * {@code receiverFairShare}, every endpoint whose {@code config} leaves
     * {@code receiveCapacityBytesPerSecond} at 0 gets its host's NIC rate instead.
     */
    public MetaroceProtocol(EngineConfig config, Function<EngineConfig, CongestionController> congestion, long seed,
            boolean verify, boolean receiverFairShare) {
        this.receiverFairShare = receiverFairShare;
        this.config = config;
        this.congestion = congestion;
        this.seed = seed;
        this.verify = verify;
    }

    /**
     * MetaRoCE as the scenarios run it: the simulator's engine configuration ({@link #simulatorConfig()}),
     * {@link AimdController} with pacing, and every receiver dividing its NIC rate among its senders.
     */
    public static MetaroceProtocol withAimd(long seed, boolean verify) {
        // Each controller draws its start phases from its own stream of the run's seed, handed out in
        // the (deterministic) order connections are created.
        SplittableRandom phases = new SplittableRandom(seed ^ 0x5DEECE66DL);
        return new MetaroceProtocol(simulatorConfig(), c -> new AimdController(c, phases.split()), seed, verify, true);
    }

    /**
     * The engine configuration the scenarios run: the defaults, scaled to a fabric whose round trips
     * are microseconds (k=8 fat-tree at 100 Gbit/s: about 8 us base, 100 KB bandwidth-delay
     * product) rather than the tens of microseconds to milliseconds of real hosts. Choices (also in
     * docs/simulator.md):
     * <ul>
     *   <li>{@code initialRttNanos} 10 us, {@code minRtoNanos} 50 us: a little above the base round
     *       trip plus a full shallow queue at every hop, so a tail loss costs tens of microseconds,
     *       not a millisecond;</li>
     *   <li>{@code overdueFloorNanos} 5 us: with a transmission sent later already acknowledged,
     *       an older one is declared lost after its path's {@code srtt + 4 rttvar + maxAckDelay},
     *       a little over one base round trip here, instead of the 50 us timeout ([SPEC-LOSS-7]);</li>
     *   <li>{@code maxAckDelayNanos} 5 us and {@code ackEveryPackets} 2: the 20 us default delay is
     *       two and a half base round trips here, and a path's window is a few datagrams, so a
     *       delayed ACK held back the window (at 1% loss per link, 0.70 of the lossless goodput
     *       with the defaults, 0.84 with these); 2 us did as well under loss but made the
     *       deep-buffer incast's rates swing for longer;</li>
     *   <li>{@code aimdInitialWindowBytes} 8 KiB per path (two datagrams; 64 KiB over 8 paths, about
     *       two thirds of a bandwidth-delay product) and {@code aimdMinWindowBytes} 4 KiB (one
     *       datagram), so 64 senders do not start with 32 MiB in flight into a 64 KiB port;</li>
     *   <li>{@code pathFailureTimeouts} 3 (the default; 2 took congested incast paths out of
     *       service), {@code pathProbeIntervalNanos} 100 us (up to 10 ms): a black-holed path
     *       leaves service a few hundred microseconds after its first loss, and comes back within
     *       a millisecond of the fabric healing;</li>
     *   <li>{@code fairSharePeriodNanos} stays 100 us (with 20 us, a sender at 1/64 of 100 Gbit/s
     *       sent about one datagram per period and kept dropping out of the active set);</li>
     *   <li>{@code pacingBurstBytes} 4 KiB (one datagram);</li>
     *   <li>{@code aimdLossCutScaledByAlpha}: a loss cuts a path's window as a mark would, by
     *       {@code alpha / 2}, so random loss on unmarked paths does not halve windows (at 1% loss
     *       per link this alone took goodput from 0.34 to about 0.8 of the lossless run);</li>
     *   <li>{@code idleResend}: a sender with nothing new to send resends the oldest packet
     *       awaiting its verdict about a round trip after its latest copy, up to four copies in
     *       flight ([SPEC-LOSS-8]): under 10% loss per link the last packets of the oldest
     *       messages otherwise waited for timeouts with back-off while every message slot was
     *       taken;</li>
     *   <li>{@code aimdSharedMarkCutPercent} 50: the marks all of a connection's paths see cut half
     *       as much as the marks only some see ([SPEC-CC-29]); in the k=8 permutation every edge
     *       link runs at 0.9 to 0.98 of its line and nearly every path is marked (2 ms:
     *       goodput_fraction 0.827 with 100, 0.836 with 50);</li>
     *   <li>{@code aimdEcnGainShift} 6 (g = 1/64, the default 1/16) and {@code aimdBalancedIncrease}
     *       on ([SPEC-CC-32]): in the k=8 permutation every edge link is fully subscribed and most
     *       paths are marked on most round trips; an {@code alpha} averaged over about four times
     *       as many ACKs cuts by about the same fraction each round trip instead of by the latest
     *       burst of marks, and the additive increase goes mostly to each connection's fastest
     *       paths, so a connection with a clearer route leaves the saturated edge links to the
     *       connections whose every route crosses them (2 ms, seeds 1 / 2 / 3: 0.843 / 0.830 /
     *       0.835 with gain 1/16 and a datagram per path, 0.874 / 0.865 / 0.868 with these, session
     *       8; the incast, loss, failover and multiplane figures kept or better);</li>
     *   <li>{@code equalLengthPackets} stays on (the engine's default, session 6): every packet of a
     *       16 KiB message carries 3,277 bytes instead of four full ones and a short last one. Off
     *       in session 5, when it took the 16:1 incast from 3.5 to 110 base RTTs: the packets being
     *       of one length, the RTT samples hardly varied, the overdue wait ([SPEC-LOSS-7]) shrank to
     *       about {@code srtt + maxAckDelay}, and ACKs delayed by the full {@code maxAckDelay} came
     *       after it (97 packets declared lost at 16:1, none dropped). Since [SPEC-LOSS-9] delivers
     *       a packet proven to have arrived (8 of those 97 are resent) and the first flight is
     *       whole datagrams ([SPEC-CC-16]; two 3,277-byte packets had slipped past the 4 KiB cap,
     *       38 drops at 64:1), the equal cut gains (session 6, everything else merged): loss 1%
     *       0.923 to 0.931, incast 16:1 seeds 2 and 3 0.99 and 0.5 to 0.0 base RTTs, 100:1 3 drops
     *       to none, failover 2.98 to 2.48 base RTTs; 128:1 lost 13 first-flight packets
     *       (none before), until the first flight's spread and the clock's first interval
     *       counted in packets of the first packet's length (session 7, [SPEC-CC-16]: 128:1 and
     *       256:1 with no drop at all);</li>
     *   <li>{@code aimdSlowStart} off: the first hint sizes every window to its share
     *       ([SPEC-CC-17]) and the first flight is capped, so the windows start where they should
     *       be; additive increase only, as the scenarios were tuned;</li>
     *   <li>{@code ackEachPacketAfterGap} stays off ([SPEC-SACK-15]): with it, 1% loss per link
     *       gave 0.9487 / 0.9536 / 0.9528 / 0.9538 at seeds 1 to 4 with the compensation below,
     *       against 0.9534 / 0.9490 / 0.9507 / 0.9520 without: 0.95 at three seeds either way, for
     *       a failover of 2.48 base RTTs instead of 1.99 and 0.0007 off the 1 ms permutation
     *       (session 10; 0.9513 / 0.9544 / 0.9536 / 0.9535 before a path's first arrival above 0
     *       counted as the gap the rule names);</li>
     *   <li>{@code aimdLossCompensationPercent} 100 ([SPEC-CC-25]): all of the unmarked-loss
     *       average raises the hint, not half; the losses of paths marked within a round trip (most
     *       paths here, by ECMP collisions) are not in that average at all, so half of it left the
     *       lossy sender's NIC idle 1.5% to 3% of the time (1% loss per link, seeds 1 to 4:
     *       0.9501 / 0.9484 / 0.9471 / 0.9493 of the lossless goodput with half, 0.9534 / 0.9490 /
     *       0.9507 / 0.9520 with all of it, session 10; the lossless runs and the failover
     *       unchanged);</li>
     *   <li>{@code aimdLossAverageOnUnmarkedPaths} ([SPEC-CC-37]): that average moves toward 0
     *       only on the acknowledgements of unmarked paths, the paths whose losses move it toward 1,
     *       so it is their loss rate rather than that rate diluted by the marked paths' share of the
     *       acknowledgements; with the average diluted the lossy senders' NICs idled 1.2% to 2.3% of
     *       the time with new data waiting (1% loss per link, seeds 1 to 4: 0.9534 / 0.9490 /
     *       0.9507 / 0.9520 of the lossless goodput without, 0.9569 / 0.9587 / 0.9576 / 0.9562
     *       with it, session 11; the failover unchanged, 10% per link 0.5136 / 0.5044 → 0.5146 /
     *       0.5034);</li>
     *   <li>{@code shortAcks} stays on (the engine's default since session 13, [SPEC-SACK-16]): an
     *       ACK whose window has no hole older than its latest 64 packets goes in the 84-byte short
     *       form instead of 124 bytes; ACKs took 2.3% to 2.7% of every link of the permutation (190
     *       bytes on the wire each), a fifth of which this gives back to data (docs/benchmarks.md,
     *       "Permutation round (session 13)");</li>
     *   <li>{@code aimdBalancedIncreaseMaxDatagrams} 8 ([SPEC-CC-39]): the balanced increase grows
     *       a connection by at most 8 datagrams per round trip, so the permutation's 16 paths per
     *       flow ({@code PermutationScenario.PATHS_PER_FLOW}) split each flow more finely without
     *       growing it twice as fast as 8 paths do; every other scenario runs 8 paths, where the cap
     *       changes nothing (2 ms permutation, seeds 1 / 2: 0.8781 / 0.8695 with 8 paths, 0.8896 /
     *       0.8864 with 16 and the cap, fewer drops; 16 without the cap gained mostly in the ramp,
     *       with ten times the drops, session 12; "Permutation round (session 14)");</li>
     *   <li>{@code aimdSharedMarkByMeanAlpha} ([SPEC-CC-40]): the marks every path shares, of
     *       which {@code aimdSharedMarkCutPercent} cuts half, are the connection's window-weighted
     *       mean {@code alpha} rather than its clearest path's, so the connection as a whole cuts
     *       by half its own marked fraction (2 ms permutation 0.8896 / 0.8864 → 0.8937 / 0.8903,
     *       failover 1.99 → 1.49 base RTTs, multiplane goodput 0.5807 → 0.5825; the 1% loss row's
     *       ratio 0.9551 → 0.9532 with its lossy run level and its lossless reference higher;
     *       "Permutation round (session 14)");</li>
     *   <li>{@code aimdPathsForShareMin} 2 ([SPEC-CC-42]): under a hint a connection sends new
     *       data on max(2, the hint's bandwidth-delay product in datagrams) of its paths, from a
     *       seeded offset: with 4,000 connections over 16 hosts (250 senders into each receiver) a
     *       connection's share is about a datagram per round trip, and spread over 8 paths it left
     *       every path nearly idle, while the first flights of a host's connections all took path
     *       0, one plane here, and queued behind one NIC port (docs/benchmarks.md, "Plane scaling
     *       round (session 15)"). At full size ({@code sim planes --planes 4,8}, 500 us) 4 to 8
     *       planes scale 1.21x without it and 1.95x with it (4 planes 0.4599 to 0.6668 of line, 8
     *       planes 0.2772 to 0.6491); where a connection's share fills its paths (one sender a
     *       receiver: the permutation, loss, failover and multiplane scenarios) every path takes
     *       data as without it, and the incasts' senders use 2 paths, their convergence,
     *       fairness and drops unchanged (peak queues moved: 16:1 44,603 to 41,172 B) ("CC-42 in
     *       the simulator round (session 16)");</li>
     *   <li>not {@code aimdAlphaWarmupSamples} ([SPEC-CC-45], off as by default): a path's
     *       {@code alpha} over its first 55 ECN feedbacks as the mean of the marked fractions
     *       reported, its start value of 1 counted as 8 of them, before the gain of 1/64 takes over
     *       (with the gain alone the permutation's paths still had a mean {@code alpha} of 0.62 at
     *       400 us) gave the 2 ms permutation 0.8934 / 0.8905 to 0.8948 / 0.8915 (seeds 1 / 2) and
     *       kept the incasts and the failovers, but lowered 5% loss per link from 0.7363 to 0.7331
     *       at seed 1 (0.7403 to 0.7401 at seed 2) and multiplane's goodput from 0.5832 to 0.5821
     *       (the start counted as 32 feedbacks: 0.8944 / 0.8908, every loss row up, but the
     *       core-link failover 1.49 to 1.99 base RTTs; docs/benchmarks.md, "Permutation ramp round
     *       (session 17)");</li>
     *   <li>not {@code aimdAnnouncedFirstRoundTrip} ([SPEC-CC-43], off as by default): a connection whose receiver
     *       announced its share in ACCEPT is paced at that share from its first packet, with up to
     *       the share's bandwidth-delay product in flight before the first hint, instead of one
     *       4 KiB first flight and a round trip's wait: in the k=8 permutation every receiver has
     *       one sender, and data reached the receivers from 6 us on instead of 10 to 14 us (2 ms,
     *       seeds 1 / 2: 0.8937 / 0.8903 to 0.8969 / 0.8927; loss 1% / 10% 0.9532 / 0.5122 to
     *       0.9561 / 0.5222; failover 1.49 to 1.99 base RTTs; docs/benchmarks.md, "Permutation
     *       round (session 15)"), but its first flight of a bandwidth-delay product costs the plane
     *       scaling: 2 to 4 planes at 64 connections 1.98 without it, 1.74 with it
     *       ("Paths for the share with the announced first round trip (session 15)");</li>
     *   <li>not {@code aimdFullWindowHandoff} ([SPEC-CC-46], off as by default): under the hint,
     *       the share of a path whose window is full going to the connection's paths with room
     *       whatever the loss (as [SPEC-CC-35] does under random loss) took the 2 ms permutation
     *       from 0.8934 / 0.8905 to 0.9008 / 0.8959 (seeds 1 / 2; 5 ms: 0.9004 / 0.8983 to
     *       0.9097 / 0.9066): a path there carries a datagram
     *       every 4 to 5 us, its window is 3 to 4 datagrams, and about a fifth of each sender's
     *       hint sat on full windows and went unsent (the senders at 0.98 of the hint). But the
     *       core-link failover took 1.99 base RTTs instead of 1.49 (seeds 2 to 4: 1.49, 2.48,
     *       1.49 against 0.99, 1.49, 1.49), and the loss rows' ratios fell (1% 0.9548 to 0.95,
     *       5% 0.7363 to 0.7312), their lossless reference rising 730.5 to 733.5 Gbit/s while the
     *       lossy runs did not (docs/benchmarks.md, "Permutation steady-state round (session
     *       18)");</li>
     *   <li>pacing stays on ({@code aimdPacingGainPercent} 125), and {@link #install} sets every
     *       endpoint's {@code receiveCapacityBytesPerSecond} to 97% of its host's NIC rate in
     *       datagram bytes (see {@link #receiveCapacity}).</li>
     * </ul>
     */
    public static EngineConfig simulatorConfig() {
        return EngineConfig.builder()
                .initialRttNanos(10_000L)
                .minRtoNanos(50_000L)
                .overdueFloorNanos(5_000L)
                .maxAckDelayNanos(5_000L)
                .ackEveryPackets(2)
                .aimdInitialWindowBytes(8L << 10)
                .aimdMinWindowBytes(4L << 10)
                .pathFailureTimeouts(3)
                .pathProbeIntervalNanos(100_000L)
                .pathProbeMaxIntervalNanos(10_000_000L)
                .pacingBurstBytes(4L << 10)
                .aimdLossCutScaledByAlpha(true)
                .aimdSharedMarkCutPercent(50)
                .aimdFirstFlightBytes(4L << 10)
                .aimdFirstFlightSpreadNanos(20_000L)
                .idleResend(true)
                .aimdSlowStart(false)
                .aimdEcnGainShift(6)
                .aimdBalancedIncrease(true)
                .aimdBalancedIncreaseMaxDatagrams(8)
                .aimdSharedMarkByMeanAlpha(true)
                .aimdLossCompensationPercent(100)
                .aimdLossAverageOnUnmarkedPaths(true)
                .aimdPathsForShareMin(2)
                .build();
    }

    /**
     * The receiver capacity of a NIC of {@code nicBitsPerSecond} sending full datagrams of
     * {@code datagramBytes}: the line rate in bytes, less the frame overhead and wire gap the
     * fabric adds to every datagram (the allocator counts datagram bytes).
     */
    static long receiveCapacity(long nicBitsPerSecond, int datagramBytes) {
        double wire = datagramBytes + Network.FRAME_OVERHEAD_BYTES + Network.WIRE_GAP_BYTES;
        return (long) (RECEIVE_HEADROOM * nicBitsPerSecond / 8.0 * datagramBytes / wire);
    }

    @Override
    public String name() {
        return "metaroce";
    }

    @Override
    public void install(Network net) {
        if (config.maxDatagramBytes() > 9_000) {
            throw new IllegalArgumentException("maxDatagramBytes above a jumbo frame does not fit the simulated NIC");
        }
        this.network = net;
        this.hosts = new MetaroceHost[net.hostCount()];
        SplittableRandom random = new SplittableRandom(seed);
        for (int h = 0; h < hosts.length; h++) {
            byte[] secret = new byte[32];
            random.nextBytes(secret);
            EngineConfig hostConfig = config.receiveCapacityBytesPerSecond() != 0 || !receiverFairShare ? config
                    : config.toBuilder().receiveCapacityBytesPerSecond(
                            receiveCapacity(net.hostNicBitsPerSecond(h), config.maxDatagramBytes())).build();
            Endpoint.Builder b = Endpoint.builder(new SplittableRandom(random.nextLong()), secret, SimAddressCodec.INSTANCE)
                    .config(hostConfig).listening(true);
            if (congestion != null) {
                b.congestionController(congestion);
            }
            hosts[h] = new MetaroceHost(h, b.build());
            net.attach(h, hosts[h]);
        }
    }

    @Override
    public SimFlow openFlow(int flowId, int sourceHost, int destinationHost, FlowSpec spec) {
        if (network == null) {
            throw new IllegalStateException("install the protocol on a network before opening flows");
        }
        if (sourceHost == destinationHost) {
            throw new IllegalArgumentException("a flow needs two distinct hosts, got " + sourceHost + " twice");
        }
        MetaroceHost from = hosts[sourceHost];
        MetaroceHost to = hosts[destinationHost];
        MetaroceFlow flow = new MetaroceFlow(flowId, from, to, spec, verify, seed * 31 + flowId);
        SimAddress target = network.address(destinationHost, MetaroceHost.LISTEN_SOCKET);
        Connection c = from.endpoint().connect(network.now(), target, from.takeSockets(spec.paths()));
        from.sending(c, flow);
        to.expectConnection(c.localId(), flow);
        flows.add(flow);
        network.wake(sourceHost);
        return flow;
    }

    /** The MetaRoCE host adapter of host {@code h}. */
    public MetaroceHost host(int h) {
        return hosts[h];
    }

    /** The sender-side connection of a flow this protocol opened. */
    public Connection senderConnection(SimFlow flow) {
        return ((MetaroceFlow) flow).sender();
    }
}
