package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PropertySeeds;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * [SPEC-CC-42] with [SPEC-CC-43], both on as in the simulator: a connection paced at its announced
 * share from its first packet, then hinted at a share whose bandwidth-delay product sits near a
 * whole number of datagrams (the 16:1 incast's, about 2), keeps every path that took new data while
 * the hint holds when its smoothed RTTs fall and the product drops a datagram: dropping one threw
 * away its window and left the connection on paths cut to the minimum window, below its share for
 * 15 base RTTs. A new hint counts afresh.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} (default 20) runs
 * more and a failure names its seed.
 */
class PathsForShareWithAnnouncedFirstRoundTripTest {
    /** The simulator's settings with [SPEC-CC-42] at 2 and [SPEC-CC-43] on (the simulator leaves both off since session 15). */
    private static final EngineConfig SIM = MetaroceProtocol.simulatorConfig().toBuilder().aimdPathsForShareMin(2).aimdAnnouncedFirstRoundTrip(true).build();
    private static final int D = SIM.maxDatagramBytes();
    private static final int PATHS = 8;

    static LongStream seeds() {
        return PropertySeeds.of(20);
    }

    private static boolean[] takingNewData(AimdController cc, long now) {
        boolean[] taking = new boolean[PATHS];
        for (int p = 0; p < PATHS; p++) {
            taking[p] = cc.carriesNewData(p, now);
        }
        return taking;
    }

    private static int count(boolean[] taking) {
        int n = 0;
        for (boolean t : taking) {
            n += t ? 1 : 0;
        }
        return n;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aPathThatTookNewDataKeepsItWhileTheHintHoldsAndTheRoundTripShrinks(long seed) {
        assertThat(SIM.aimdPathsForShareMin()).isEqualTo(2);
        SplittableRandom rnd = PropertySeeds.generator(seed, 16);
        long highRtt = 11_000 + rnd.nextLong(4_000);
        long lowRtt = 8_000;
        // A share of 2.1 to 2.9 datagrams over the high RTT: 3 paths, and under 2 over the low one.
        double datagrams = 2.1 + rnd.nextDouble() * 0.8;
        long hint = (long) (datagrams * D * 1e9 / highRtt);
        assertThat(hint * (lowRtt / 1e9) / D).isLessThanOrEqualTo(2.0);

        AimdController cc = new AimdController(SIM, new SplittableRandom(rnd.nextLong()));
        cc.onAnnouncedShare(hint, 0);
        for (int p = 0; p < PATHS; p++) {
            cc.sendAllowanceBytes(p, 0);
        }
        long t = cc.nextSendTimeNanos(0, 0);
        int first = 0;
        while (!cc.carriesNewData(first, t)) {
            first++;
        }
        cc.onPacketSent(first, D, t);
        t += highRtt;
        cc.onPacketAcked(first, D, highRtt, t);
        cc.onRateHint(hint, t);

        boolean[] hinted = takingNewData(cc, t);
        assertThat(count(hinted)).as("hint %d, rtt %d", hint, highRtt).isEqualTo(3);

        // Round trips at the low RTT on every path taking new data: the smoothed RTTs fall.
        for (int round = 0; round < 64; round++) {
            for (int p = 0; p < PATHS; p++) {
                if (hinted[p]) {
                    cc.onPacketSent(p, D, t);
                    cc.onPacketAcked(p, D, lowRtt, t + lowRtt);
                }
            }
            t += lowRtt;
        }
        for (int p = 0; p < PATHS; p++) {
            assertThat(cc.smoothedRttNanos(p)).as("path %d", p).isLessThan(hinted[p] ? lowRtt + 500 : Long.MAX_VALUE);
        }
        assertThat(takingNewData(cc, t)).as("the same paths while the hint holds").containsExactly(hinted);

        // A new hint: counted afresh from the RTTs now, 2 paths, of those that took new data.
        cc.onRateHint(hint - 1, t);
        boolean[] rehinted = takingNewData(cc, t);
        assertThat(count(rehinted)).isEqualTo(2);
        for (int p = 0; p < PATHS; p++) {
            assertThat(!rehinted[p] || hinted[p]).as("path %d", p).isTrue();
        }
    }
}
