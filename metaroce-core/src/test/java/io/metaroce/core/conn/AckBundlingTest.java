package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.WireConstants;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * An ACK rides ahead of the DATA its side is about to send on the same path [SPEC-SACK-13],
 * [SPEC-WIRE-30]: a ping-pong moves one datagram each way per round trip, every byte arrives,
 * and a bundle never outgrows the datagram limit.
 */
class AckBundlingTest {
    private static final int STREAM = 1;

    /** Result of one ping-pong run. */
    record Run(long datagrams, long acksBundled, long acksSent, long failures, boolean verified, long acksShort,
            long bytesSent, long clientAcksShort) { }

    /**
     * {@code rounds} ping-pongs of {@code size}-byte SENDs over {@code paths} paths: the server
     * echoes each ping from its completion handler, the client posts the next ping from its own.
     */
    private static Run pingPong(long seed, int paths, int size, int rounds, NetworkConditions net, EngineConfig config) {
        return pingPong(seed, paths, size, rounds, net, config, config);
    }

    /** {@link #pingPong} with a configuration of its own on each side. */
    private static Run pingPong(long seed, int paths, int size, int rounds, NetworkConditions net,
            EngineConfig clientConfig, EngineConfig serverConfig) {
        Pair[] holder = new Pair[1];
        long[] done = new long[2]; // [0] pings the client saw echoed, [1] failed completions
        boolean[] verified = {true};
        int slots = 4;
        Pair p = Pair.create(seed, paths, net, clientConfig, serverConfig);
        holder[0] = p;
        MemoryRegion[] regions = new MemoryRegion[4];
        p.onServerCompletion((c, s, w, o, st, b, i, h) -> {
            if (st != CompletionStatus.SUCCESS) {
                done[1]++;
                return;
            }
            if (o == WorkOpcode.RECV) {
                Connection sc = holder[0].serverConnection();
                int slot = (int) (w % slots);
                // Echo what arrived, then re-post the receive for the ping after next.
                assertThat(sc.postSend(STREAM, w, regions[1], (long) slot * size, size)).isEqualTo(PostResult.OK);
                assertThat(sc.postRecv(STREAM, w + slots, regions[1], (long) ((w + slots) % slots) * size, size))
                        .isEqualTo(PostResult.OK);
            }
        });
        p.onClientCompletion((c, s, w, o, st, b, i, h) -> {
            if (st != CompletionStatus.SUCCESS) {
                done[1]++;
                return;
            }
            if (o == WorkOpcode.RECV) {
                int slot = (int) (w % slots);
                long n = done[0]++;
                MemoryRegion got = regions[2];
                MemoryRegion sent = regions[0];
                if (got.segment().asSlice((long) slot * size, size)
                        .mismatch(sent.segment().asSlice((n % 64) * size, size)) != -1) {
                    verified[0] = false;
                }
                if (n + 1 < rounds) {
                    Connection cc = holder[0].clientConnection();
                    cc.postRecv(STREAM, w + slots, regions[2], (long) ((w + slots) % slots) * size, size);
                    cc.postSend(STREAM, n + 1, sent, ((n + 1) % 64) * size, size);
                }
            }
        });
        p.connect();
        regions[0] = TestMemory.region(p.client(), size * 64, 0, (int) seed);
        regions[1] = TestMemory.region(p.server(), size * slots, Access.LOCAL_WRITE, 0);
        regions[2] = TestMemory.region(p.client(), size * slots, Access.LOCAL_WRITE, 0);
        Connection sc = p.serverConnection();
        Connection cc = p.clientConnection();
        for (int k = 0; k < slots; k++) {
            sc.postRecv(STREAM, k, regions[1], (long) k * size, size);
            cc.postRecv(STREAM, k, regions[2], (long) k * size, size);
        }
        long before = p.client().stats().datagramsSent() + p.server().stats().datagramsSent();
        cc.postSend(STREAM, 0, regions[0], 0, size);
        p.driveUntil(() -> done[0] >= rounds || done[1] > 0, 60_000_000_000L, "ping-pong");
        long datagrams = p.client().stats().datagramsSent() + p.server().stats().datagramsSent() - before;
        long bundled = cc.stats().acksBundled() + sc.stats().acksBundled();
        long acks = cc.stats().acksSent() + sc.stats().acksSent();
        long acksShort = cc.stats().acksShort() + sc.stats().acksShort();
        long bytes = cc.stats().bytesSent() + sc.stats().bytesSent();
        return new Run(datagrams, bundled, acks, done[1], verified[0], acksShort, bytes, cc.stats().acksShort());
    }

    @Test
    void aPingPongMovesOneDatagramEachWayPerRoundTrip() {
        NetworkConditions net = NetworkConditions.perfect().withDelay(10_000, 0, 10_000);
        int rounds = 200;
        Run bundled = pingPong(11, 1, 64, rounds, net, EngineConfig.defaults());
        Run alone = pingPong(11, 1, 64, rounds, net, EngineConfig.defaults().toBuilder().bundleAcks(false).build());
        assertThat(bundled.failures()).isZero();
        assertThat(bundled.verified()).isTrue();
        assertThat(alone.verified()).isTrue();
        // Two datagrams per round trip, give or take the first ping and the last echo's ACK.
        assertThat(bundled.datagrams()).isLessThanOrEqualTo(2L * rounds + 4);
        assertThat(bundled.acksBundled()).isGreaterThanOrEqualTo(2L * rounds - 4);
        // Without bundling every ACK is a datagram of its own: about four per round trip.
        assertThat(alone.datagrams()).isGreaterThanOrEqualTo(4L * rounds - 4);
        assertThat(alone.acksBundled()).isZero();
    }

    /**
     * [SPEC-SACK-16] With {@code shortAcks} every ACK of a path without holes is 84 bytes, alone or
     * leading a bundle: the run is the same datagram for datagram, 40 bytes fewer per ACK. Under
     * loss, reordering and corruption every echo still arrives intact.
     */
    @Test
    void shortAcksSaveFortyBytesEachAndCarryEveryEcho() {
        NetworkConditions net = NetworkConditions.perfect().withDelay(10_000, 0, 10_000);
        EngineConfig shortAcks = EngineConfig.defaults();
        assertThat(shortAcks.shortAcks()).as("on by default").isTrue();
        for (boolean bundle : new boolean[] {true, false}) {
            EngineConfig on = shortAcks.toBuilder().bundleAcks(bundle).build();
            EngineConfig off = on.toBuilder().shortAcks(false).build();
            Run full = pingPong(13, 2, 64, 100, net, off);
            Run shorter = pingPong(13, 2, 64, 100, net, on);
            assertThat(shorter.verified()).isTrue();
            assertThat(shorter.failures()).isZero();
            assertThat(full.acksShort()).isZero();
            assertThat(shorter.acksShort()).as("bundled %s", bundle).isEqualTo(shorter.acksSent()).isPositive();
            assertThat(shorter.datagrams()).isEqualTo(full.datagrams());
            assertThat(shorter.acksBundled()).isEqualTo(full.acksBundled());
            assertThat(full.bytesSent() - shorter.bytesSent())
                    .isEqualTo((WireConstants.ACK_BYTES - WireConstants.ACK_SHORT_BYTES) * shorter.acksShort());
        }
        for (long seed = 1; seed <= 8; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            NetworkConditions lossy = NetworkConditions.perfect().withDelay(5_000, 2_000, 20_000)
                    .withLoss(0.02 * (1 + r.nextInt(3))).withCorruption(0.01 * r.nextInt(2));
            Run run = pingPong(seed, 1 + r.nextInt(3), 1 + r.nextInt(2_000), 60, lossy, shortAcks);
            assertThat(run.failures()).as("seed %d", seed).isZero();
            assertThat(run.verified()).as("seed %d", seed).isTrue();
            assertThat(run.acksShort()).as("seed %d", seed).isPositive();
        }
    }

    /**
     * [SPEC-SACK-16] Receivers take both forms whatever their own setting: a client sending short
     * ACKs and a server sending only 124-byte ones (shortAcks off) complete every echo, intact,
     * under loss, reordering and corruption, bundled or not.
     */
    @Test
    void shortAndFullAckSidesUnderstandEachOther() {
        for (long seed = 1; seed <= 6; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            EngineConfig shortSide = EngineConfig.defaults().toBuilder().bundleAcks(r.nextBoolean()).build();
            EngineConfig fullSide = shortSide.toBuilder().shortAcks(false).build();
            NetworkConditions lossy = NetworkConditions.perfect().withDelay(5_000, 2_000, 20_000)
                    .withLoss(0.02 * r.nextInt(3)).withCorruption(0.01 * r.nextInt(2));
            boolean clientShort = seed % 2 == 1;
            Run run = pingPong(seed, 1 + r.nextInt(3), 1 + r.nextInt(2_000), 60, lossy,
                    clientShort ? shortSide : fullSide, clientShort ? fullSide : shortSide);
            assertThat(run.failures()).as("seed %d", seed).isZero();
            assertThat(run.verified()).as("seed %d", seed).isTrue();
            long serverAcksShort = run.acksShort() - run.clientAcksShort();
            assertThat(clientShort ? run.clientAcksShort() : serverAcksShort).as("seed %d", seed).isPositive();
            assertThat(clientShort ? serverAcksShort : run.clientAcksShort()).as("seed %d", seed).isZero();
        }
    }

    @Test
    void aFullSizedPacketLeavesAloneAndItsAckFollows() {
        // A message that fills a datagram leaves no room for an ACK: nothing is bundled, all arrives.
        int full = EngineConfig.defaults().maxDatagramBytes() - io.metaroce.core.wire.WireConstants.DATA_OVERHEAD_BYTES;
        Run run = pingPong(12, 2, full, 50, NetworkConditions.perfect().withDelay(10_000, 0, 10_000),
                EngineConfig.defaults());
        assertThat(run.failures()).isZero();
        assertThat(run.verified()).isTrue();
        assertThat(run.acksBundled()).isZero();
        assertThat(run.acksSent()).isGreaterThanOrEqualTo(100);
    }

    @Test
    void bundlesSurviveLossReorderingAndCorruption() {
        // Seeded loop over lossy networks and sizes around the bundle limit: every echo verified.
        for (long seed = 1; seed <= 12; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int limit = EngineConfig.defaults().maxDatagramBytes() - io.metaroce.core.wire.WireConstants.DATA_OVERHEAD_BYTES;
            int size = r.nextBoolean() ? 1 + r.nextInt(256)
                    : limit - io.metaroce.core.wire.WireConstants.ACK_BYTES - 8 + r.nextInt(16);
            NetworkConditions net = NetworkConditions.perfect().withDelay(5_000, 2_000, 20_000)
                    .withLoss(0.02 * r.nextInt(3)).withCorruption(0.01 * r.nextInt(2));
            Run run = pingPong(seed, 1 + r.nextInt(3), size, 60, net, EngineConfig.defaults());
            assertThat(run.failures()).as("seed %d size %d", seed, size).isZero();
            assertThat(run.verified()).as("seed %d size %d", seed, size).isTrue();
        }
    }
}
