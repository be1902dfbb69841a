package io.metaroce.bench.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.WithNull;
import org.junit.jupiter.api.Test;

/** The arithmetic of the goodput verdict's rounds: each round's ratios, their medians and ranges, the order. */
class RoundsTest {

    @Test
    void theOrderAlternatesSoNoPeerAlwaysRunsFirst() {
        assertThat(Rounds.order(1)).containsExactly("raw_udp", "metaroce", "aeron");
        assertThat(Rounds.order(2)).containsExactly("aeron", "metaroce", "raw_udp");
        assertThat(Rounds.order(3)).isEqualTo(Rounds.order(1));
        assertThat(Rounds.order(4)).isEqualTo(Rounds.order(2));
    }

    @Test
    void theRoundsRunTheRawUdpKindThatWonTheBackToBackRuns() {
        assertThat(Rounds.rawUdpGso(1.2, 27.4)).as("GSO/GRO beat plain").isTrue();
        assertThat(Rounds.rawUdpGso(9.0, 3.5)).as("plain beat GSO/GRO").isFalse();
        assertThat(Rounds.rawUdpGso(4.0, 4.0)).as("a tie: plain, GSO did not win").isFalse();
        assertThat(Rounds.rawUdpGso(null, 3.5)).as("plain failed").isTrue();
        assertThat(Rounds.rawUdpGso(2.0, null)).as("no GSO here, or it failed").isFalse();
        assertThat(Rounds.rawUdpGso(null, null)).as("neither ran").isFalse();
        // The kind is the one raw_udp_gbps reports: the better of the two.
        for (double[] pair : new double[][] {{1.2, 27.4}, {9.0, 3.5}, {4.0, 4.0}}) {
            SizeResult s = new SizeResult(1024, pair[0], pair[1], Map.of("SEND, 1 path", 1.0), null, null,
                    null);
            assertThat(Rounds.rawUdpGso(pair[0], pair[1]) ? s.rawUdpGsoGbps() : s.rawUdpPlainGbps())
                    .as("the rounds' kind's back-to-back figure for %s", Arrays.toString(pair))
                    .isEqualTo(s.rawUdpGbps());
        }
    }

    @Test
    void aRoundsRatiosAreItsOwnFiguresAndFailedSlicesDropOut() {
        Rounds rounds = new Rounds("WRITE, 4 paths", true, List.of(
                new Rounds.Round(1, Rounds.order(1), 10.0, 5.0, 1.0),
                new Rounds.Round(2, Rounds.order(2), 20.0, 18.0, null),
                new Rounds.Round(3, Rounds.order(3), null, 7.0, 2.0),
                new Rounds.Round(4, Rounds.order(4), 8.0, 2.0, 4.0)));
        assertThat(rounds.each().get(0).metaroceOverRawUdp()).isEqualTo(0.5);
        assertThat(rounds.each().get(0).metaroceOverAeron()).isEqualTo(5.0);
        assertThat(rounds.each().get(1).metaroceOverAeron()).isNull();
        assertThat(rounds.each().get(2).metaroceOverRawUdp()).isNull();
        // Raw UDP: 0.5, 0.9, 0.25 -> median 0.5 over 3 valid rounds; Aeron: 5, 3.5, 0.5 -> 3.5.
        assertThat(rounds.validRawUdpRounds()).isEqualTo(3);
        assertThat(rounds.metaroceOverRawUdpMedian()).isEqualTo(0.5);
        assertThat(rounds.metaroceOverRawUdpRange()).containsExactly(0.25, 0.9);
        assertThat(rounds.metaroceOverAeronMedian()).isEqualTo(3.5);
        assertThat(rounds.metaroceOverAeronRange()).containsExactly(0.5, 5.0);
        // One outlying round moves the median of five less than the mean.
        Rounds withOutlier = new Rounds("WRITE, 1 path", true, List.of(
                new Rounds.Round(1, Rounds.order(1), 10.0, 5.0, 1.0),
                new Rounds.Round(2, Rounds.order(2), 10.0, 6.0, 1.0),
                new Rounds.Round(3, Rounds.order(3), 1.0, 6.0, 1.0),
                new Rounds.Round(4, Rounds.order(4), 10.0, 4.0, 1.0),
                new Rounds.Round(5, Rounds.order(5), 10.0, 5.0, 1.0)));
        assertThat(withOutlier.metaroceOverRawUdpMedian()).isEqualTo(0.5);
        assertThat(Rounds.NONE.metaroceOverRawUdpMedian()).isNull();
        assertThat(Rounds.NONE.metaroceOverAeronRange()).isNull();
        Rounds allFailed = new Rounds("SEND, 1 path", false,
                List.of(new Rounds.Round(1, Rounds.order(1), null, 3.0, null)));
        assertThat(allFailed.metaroceOverRawUdpMedian()).isNull();
        assertThat(allFailed.validRawUdpRounds()).isZero();
    }

    /**
     * The median of the rounds' ratios, whatever the figures and failed slices: within the range,
     * with at least half of the valid ratios at or below it and at least half at or above it, and
     * the same in any order of the rounds.
     */
    @Property(tries = 300)
    void theMedianSplitsTheValidRatiosInHalves(
            @ForAll @Size(min = 1, max = 15) List<@WithNull(0.2) @DoubleRange(min = 0.01, max = 100) Double> raw,
            @ForAll @DoubleRange(min = 0.01, max = 100) double metaroceBase) {
        List<Rounds.Round> each = new ArrayList<>();
        List<Double> valid = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            double metaroce = metaroceBase * (1 + i % 7) / 4;
            each.add(new Rounds.Round(i + 1, Rounds.order(i + 1), raw.get(i), metaroce, null));
            if (raw.get(i) != null) {
                valid.add(metaroce / raw.get(i));
            }
        }
        Rounds rounds = new Rounds("WRITE, 4 paths", true, each);
        Double median = rounds.metaroceOverRawUdpMedian();
        assertThat(rounds.validRawUdpRounds()).isEqualTo(valid.size());
        if (valid.isEmpty()) {
            assertThat(median).isNull();
            return;
        }
        double[] range = rounds.metaroceOverRawUdpRange();
        assertThat(median).isBetween(range[0], range[1]);
        long atOrBelow = valid.stream().filter(v -> v <= median).count();
        long atOrAbove = valid.stream().filter(v -> v >= median).count();
        assertThat(2 * atOrBelow).as(valid + " median " + median).isGreaterThanOrEqualTo(valid.size());
        assertThat(2 * atOrAbove).as(valid + " median " + median).isGreaterThanOrEqualTo(valid.size());
        List<Rounds.Round> reversed = new ArrayList<>(each);
        java.util.Collections.reverse(reversed);
        assertThat(new Rounds("WRITE, 4 paths", true, reversed).metaroceOverRawUdpMedian()).isEqualTo(median);
    }
}
