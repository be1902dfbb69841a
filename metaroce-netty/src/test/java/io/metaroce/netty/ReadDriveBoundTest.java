package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadDriveBound}: a long read is driven in its middle once one path's datagrams reach the
 * bound, never later (each path's ACK stays within its SACK window, [SPEC-SACK-1]) and not sooner
 * than that while at most {@link ReadDriveBound#PAIRS} paths are heard between two drives.
 */
class ReadDriveBoundTest {
    private static final int BOUND = UdpEndpoint.DATAGRAMS_PER_DRIVE;

    @Test
    void fourPathsInTurnDriveOnceOnePathReachesTheBoundNotAtTheReadsCount() {
        ReadDriveBound bound = new ReadDriveBound(BOUND);
        InetSocketAddress[] paths = senders(4);
        int drives = 0;
        int datagrams = 0;
        while (drives == 0) {
            drives += bound.count(0, paths[datagrams % 4]) ? 1 : 0;
            datagrams++;
        }
        // Path 0 reaches the bound first, after 4 × (BOUND - 1) + 1 datagrams in turn; the read's
        // own count passed BOUND long before (the rule before session 14 drove at BOUND).
        assertThat(datagrams).isEqualTo(4 * (BOUND - 1) + 1);
        assertThat(bound.largestCount()).isEqualTo(BOUND);
        bound.reset();
        assertThat(bound.largestCount()).isZero();
        assertThat(bound.count(0, paths[1])).as("the counts start again after a drive").isFalse();
    }

    @Test
    void onePathDrivesEveryBoundDatagramsAsBefore() {
        ReadDriveBound bound = new ReadDriveBound(BOUND);
        InetSocketAddress path = senders(1)[0];
        for (int round = 0; round < 3; round++) {
            for (int i = 1; i < BOUND; i++) {
                assertThat(bound.count(3, path)).as("datagram %d of round %d", i, round).isFalse();
            }
            assertThat(bound.count(3, path)).isTrue();
            bound.reset();
        }
    }

    @Test
    void theSameAddressOnAnotherSocketIsAnotherPathAndAnEqualCopyIsTheSamePath() {
        ReadDriveBound bound = new ReadDriveBound(2);
        InetSocketAddress a = senders(1)[0];
        InetSocketAddress copy = new InetSocketAddress(a.getAddress(), a.getPort());
        assertThat(bound.count(0, a)).isFalse();
        assertThat(bound.count(1, a)).as("another local socket").isFalse();
        assertThat(bound.count(0, copy)).as("an equal address from a layer that makes one per datagram").isTrue();
    }

    @Test
    void pairsBeyondTheTableShareOneCount() {
        ReadDriveBound bound = new ReadDriveBound(3);
        InetSocketAddress[] s = senders(ReadDriveBound.PAIRS + 2);
        for (int i = 0; i < ReadDriveBound.PAIRS; i++) {
            assertThat(bound.count(0, s[i])).isFalse();
        }
        assertThat(bound.count(0, s[ReadDriveBound.PAIRS])).isFalse();
        assertThat(bound.count(0, s[ReadDriveBound.PAIRS + 1])).isFalse();
        assertThat(bound.count(0, s[ReadDriveBound.PAIRS])).as("the two untracked pairs' third datagram")
                .isTrue();
    }

    @Test
    void aBoundBelowOneIsRefused() {
        assertThatThrownBy(() -> new ReadDriveBound(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }

    /**
     * For random reads (1 to 12 paths over 1 to 3 sockets, skewed shares, equal copies of the
     * addresses, drives the endpoint makes for other reasons), checked against a model that counts
     * every (socket, address) pair: no pair ever passes the bound between two drives, and while at
     * most {@link ReadDriveBound#PAIRS} pairs were heard the bound drives exactly when one reaches it.
     */
    @Test
    void noPathPassesTheBoundAndNoDriveComesEarlyWithAFewPaths() {
        long seed = new Random().nextLong();
        System.out.println("ReadDriveBoundTest seed " + seed);
        Random random = new Random(seed);
        for (int run = 0; run < 300; run++) {
            int limit = 1 + random.nextInt(40);
            int pathCount = 1 + random.nextInt(12);
            int socketCount = 1 + random.nextInt(3);
            InetSocketAddress[] addresses = senders(pathCount);
            int[] socketOf = new int[pathCount];
            double[] weight = new double[pathCount];
            for (int p = 0; p < pathCount; p++) {
                socketOf[p] = random.nextInt(socketCount);
                weight[p] = random.nextDouble() + 0.05;
            }
            ReadDriveBound bound = new ReadDriveBound(limit);
            Map<String, Integer> model = new HashMap<>();
            for (int d = 0; d < 2_000; d++) {
                if (random.nextInt(500) == 0) { // a drive for another reason (a read's end, a timer)
                    bound.reset();
                    model.clear();
                }
                int p = pick(random, weight);
                InetSocketAddress sender = random.nextBoolean() ? addresses[p]
                        : new InetSocketAddress(addresses[p].getAddress(), addresses[p].getPort());
                String key = socketOf[p] + "/" + sender;
                int count = model.merge(key, 1, Integer::sum);
                boolean drive = bound.count(socketOf[p], sender);
                assertThat(count).as("seed %d run %d: a pair's datagrams since the last drive", seed, run)
                        .isLessThanOrEqualTo(limit);
                if (model.size() <= ReadDriveBound.PAIRS) {
                    assertThat(drive).as("seed %d run %d datagram %d: drive exactly at the bound", seed, run, d)
                            .isEqualTo(count == limit);
                }
                if (drive) {
                    bound.reset();
                    model.clear();
                }
            }
        }
    }

    private static int pick(Random random, double[] weight) {
        double total = 0;
        for (double w : weight) {
            total += w;
        }
        double x = random.nextDouble() * total;
        for (int p = 0; p < weight.length - 1; p++) {
            x -= weight[p];
            if (x < 0) {
                return p;
            }
        }
        return weight.length - 1;
    }

    private static InetSocketAddress[] senders(int n) {
        InetSocketAddress[] s = new InetSocketAddress[n];
        for (int i = 0; i < n; i++) {
            s[i] = new InetSocketAddress("127.0.0.1", 40_000 + i);
        }
        return s;
    }
}
