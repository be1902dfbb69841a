package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.PathState;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.ForwardingController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * [SPEC-CC-42] through a connection: which paths take a small share, and the retransmissions of
 * the paths that do not. The receiver's hint is replaced by the test's, so that the share is known.
 */
class PathsForShareConnectionTest {
    private static final int PATHS = 4;
    private static final long ONE_WAY = 10_000;
    private static final EngineConfig CONFIG = EngineConfig.defaults().toBuilder().aimdPathsForShareMin(1).build();
    private static final int D = CONFIG.maxDatagramBytes();

    /**
     * The client's controller, with the receiver's hint replaced by the test's, worth
     * {@code datagrams} datagrams per round trip as the controller measures it (the largest of its
     * paths' smoothed RTT samples, kept here alike), and its losses timed.
     */
    private static final class Hinted extends ForwardingController {
        double datagrams;
        final long[] srtt = new long[64];
        final long[] lostAt = new long[64];

        /** Over the engine's default controller, as an endpoint makes it ({@code AimdController::new}). */
        Hinted(double datagrams, EngineConfig config) {
            super(new AimdController(config));
            this.datagrams = datagrams;
            java.util.Arrays.fill(lostAt, -1);
        }

        long hint() {
            long rtt = 2 * ONE_WAY;
            for (long s : srtt) {
                rtt = Math.max(rtt, s);
            }
            return (long) (datagrams * D * 1e9 / rtt);
        }

        @Override
        public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
            if (rttNanos > 0) {
                long s = srtt[pathId];
                srtt[pathId] = s == 0 ? rttNanos : s + ((rttNanos - s) >> 3);
            }
            super.onPacketAcked(pathId, bytes, rttNanos, nowNanos);
        }

        @Override
        public void onRateHint(long bytesPerSecond, long nowNanos) {
            super.onRateHint(hint(), nowNanos);
        }

        @Override
        public void onPacketLost(int pathId, int bytes, long nowNanos) {
            if (lostAt[pathId] < 0) {
                lostAt[pathId] = nowNanos;
            }
            super.onPacketLost(pathId, bytes, nowNanos);
        }
    }

    /** A DATA packet the client sent. */
    record Sent(long atNanos, int pathId, long csn, boolean retransmission) {
    }

    /**
     * [SPEC-CC-42] with R-SACK-2: a path that stops taking new data because the share shrank still
     * resends its own losses as its window allows. Four paths, {@code aimdPathsForShareMin} 1, a hint
     * worth 2.5 datagrams a round trip (three paths take new data), then, from the ACK after the lost
     * packet's successor on its path left, one worth 0.9 (one path): the successor's ACK reveals the
     * hole on a path that no longer takes new data, and the packet is resent on that path within two
     * round trips and a pacing interval of the verdict, not at a timer, and no path is ever doubted
     * (SUSPECT). With the share's gate in the allowance (before the fix) the resend never left: the
     * network went empty with the hole unrepaired.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void aLossOnAPathThatLeftTheShareIsResentOnItWithoutItsTimer(long seed) {
        Hinted[] cc = new Hinted[1];
        List<Sent> sent = new ArrayList<>();
        PacketCodec codec = new PacketCodec();
        Packet packet = new Packet();
        boolean[] armed = {false};
        int[] stays = {-1};
        long[] dropped = {-1, -1, -1}; // csn, path, time
        long[] shrunkAt = {-1};
        List<String> doubted = new ArrayList<>();
        int[] completions = {0};

        Pair pair = Pair.create(seed, PATHS, NetworkConditions.perfect().withDelay(ONE_WAY, 0, 0), CONFIG,
                        c -> cc[0] = new Hinted(2.5, c), null)
                .lossModel((fromClient, pathId, datagram, length, now) -> {
                    if (!fromClient || codec.decode(datagram, 0, length, packet) != DecodeError.OK
                            || packet.type != PacketType.DATA) {
                        return false;
                    }
                    boolean resend = (packet.flags & WireConstants.FLAG_RETRANSMISSION) != 0;
                    sent.add(new Sent(now, packet.pathId, packet.connectionSequence, resend));
                    if (armed[0] && !resend && packet.pathId != stays[0]) {
                        // New data on a path that will leave the share: lose it.
                        armed[0] = false;
                        dropped[0] = packet.connectionSequence;
                        dropped[1] = packet.pathId;
                        dropped[2] = now;
                        return true;
                    }
                    if (dropped[0] >= 0 && shrunkAt[0] < 0 && !resend && packet.pathId == dropped[1]) {
                        // The path's next packet, whose ACK reveals the hole: from the next ACK on
                        // the share needs one path, and this one leaves it.
                        shrunkAt[0] = now;
                        cc[0].datagrams = 0.9; // k = 1
                    }
                    return false;
                })
                .onClientEvents(new ConnectionListener() {
                    @Override
                    public void onPathStateChanged(Connection connection, int pathId, int state) {
                        if (state != PathState.ACTIVE) {
                            doubted.add("path " + pathId + " went " + state);
                        }
                    }
                })
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).isEqualTo(CompletionStatus.SUCCESS);
                    completions[0]++;
                })
                .connect();
        Connection client = pair.clientConnection();
        int length = 4 << 20;
        MemoryRegion src = pair.client().protectionDomain().register(Arena.ofAuto().allocate(length), Access.ALL);
        MemoryRegion dst = pair.server().protectionDomain().register(Arena.ofAuto().allocate(length), Access.ALL);
        client.postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);

        // Under the first hint three of the four paths take new data; the one that stays when
        // the share needs one path is the first of the three from the connection's offset on,
        // the one after the path that takes none.
        pair.advance(500_000);
        long since = pair.now() - 200_000;
        boolean[] used = new boolean[PATHS];
        for (Sent s : sent) {
            if (s.atNanos >= since && !s.retransmission) {
                used[s.pathId] = true;
            }
        }
        int idle = -1;
        int usedCount = 0;
        for (int p = 0; p < PATHS; p++) {
            if (used[p]) {
                usedCount++;
            } else {
                idle = p;
            }
        }
        assertThat(usedCount).as("paths taking new data under a hint of 2.5 datagrams a round trip (seed %d)", seed)
                .isEqualTo(3);
        stays[0] = (idle + 1) % PATHS;
        armed[0] = true;
        pair.driveUntil(() -> shrunkAt[0] >= 0, 200_000, "a packet and the next on a path that leaves the share");
        int lossPath = (int) dropped[1];
        pair.driveUntil(() -> sent.stream().anyMatch(s -> s.csn == dropped[0] && s.retransmission), 5_000_000,
                "the resend");

        Sent resend = sent.stream().filter(s -> s.csn == dropped[0] && s.retransmission).findFirst().orElseThrow();
        long laterOnLossPath = sent.stream().filter(s -> s.pathId == lossPath && !s.retransmission
                && s.atNanos > shrunkAt[0] && s.atNanos < resend.atNanos).count();
        assertThat(laterOnLossPath).as("path %d took no new data after the share shrank (seed %d)", lossPath, seed)
                .isZero();
        long declared = cc[0].lostAt[lossPath];
        assertThat(declared).as("the loss was declared (seed %d)", seed).isPositive();
        long srtt = client.smoothedRttNanos(lossPath);
        long interval = (long) (D * 1e9 / cc[0].hint());
        assertThat(resend.pathId).as("resent on the path that lost it").isEqualTo(lossPath);
        assertThat(resend.atNanos - declared)
                .as("resent within two round trips (%d ns) and a pacing interval (%d ns) of the verdict, seed %d",
                        srtt, interval, seed)
                .isLessThanOrEqualTo(2 * srtt + interval);
        assertThat(resend.atNanos - dropped[2]).as("long before the %d ns timer (seed %d)", CONFIG.minRtoNanos(), seed)
                .isLessThan(CONFIG.minRtoNanos() / 2);
        assertThat(client.stats().timeouts()).as("no timer was needed").isZero();

        pair.driveUntil(() -> completions[0] == 1, 1_000_000_000L, "the write");
        assertThat(doubted).as("no path was doubted (seed %d)", seed).isEmpty();
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /**
     * [SPEC-CC-42] without a random source (an endpoint's default {@code AimdController::new}, no
     * first-flight spread): the paths that take a small share start at an offset taken from the
     * connection's id, so connections do not all send on paths 0 and 1. Sixteen connections
     * (pairs of endpoints seeded apart), eight paths, {@code aimdPathsForShareMin} 2 and a hint of
     * half a datagram a round trip: each sends new data on two neighbouring paths, and the pairs
     * they use differ. Before the fix every one used paths 0 and 1.
     */
    @org.junit.jupiter.api.Test
    void withoutARandomSourceConnectionsSpreadTheirSharesOverThePaths() {
        int paths = 8;
        EngineConfig config = EngineConfig.defaults().toBuilder().aimdPathsForShareMin(2).build();
        assertThat(config.aimdFirstFlightSpreadNanos()).as("no spread to draw an offset from").isZero();
        java.util.Set<String> pairsUsed = new java.util.TreeSet<>();
        int[] byPath = new int[paths];
        for (long seed = 1; seed <= 16; seed++) {
            List<Sent> sent = new ArrayList<>();
            PacketCodec codec = new PacketCodec();
            Packet packet = new Packet();
            Pair pair = Pair.create(seed, paths, NetworkConditions.perfect().withDelay(ONE_WAY, 0, 0), config,
                            c -> new Hinted(0.5, c), null)
                    .lossModel((fromClient, pathId, datagram, length, now) -> {
                        if (fromClient && codec.decode(datagram, 0, length, packet) == DecodeError.OK
                                && packet.type == PacketType.DATA) {
                            sent.add(new Sent(now, packet.pathId, packet.connectionSequence,
                                    (packet.flags & WireConstants.FLAG_RETRANSMISSION) != 0));
                        }
                        return false;
                    })
                    .connect();
            int length = 1 << 20;
            MemoryRegion src = pair.client().protectionDomain().register(Arena.ofAuto().allocate(length), Access.ALL);
            MemoryRegion dst = pair.server().protectionDomain().register(Arena.ofAuto().allocate(length), Access.ALL);
            pair.clientConnection().postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);
            pair.advance(1_000_000);
            long since = pair.now() - 500_000;
            java.util.BitSet used = new java.util.BitSet();
            for (Sent s : sent) {
                if (s.atNanos >= since && !s.retransmission) {
                    used.set(s.pathId);
                }
            }
            assertThat(used.cardinality()).as("paths taking new data, seed %d: %s", seed, used).isEqualTo(2);
            int first = used.get(0) && used.get(paths - 1) ? paths - 1 : used.nextSetBit(0);
            assertThat(used.get((first + 1) % paths)).as("neighbouring paths, seed %d: %s", seed, used).isTrue();
            pairsUsed.add(used.toString());
            used.stream().forEach(p -> byPath[p]++);
        }
        assertThat(pairsUsed).as("the pairs of paths the connections used (by path: %s)",
                java.util.Arrays.toString(byPath)).hasSizeGreaterThanOrEqualTo(4);
    }
}
