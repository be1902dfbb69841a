package io.metaroce.bench.cli.compare;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * The goodput verdict's rounds at one message size: after the back-to-back runs, the raw UDP blast
 * of the kind that won them ({@link #rawUdpGso}), MetaRoCE's best variant of those runs and Aeron at {@code mtu=4096} run again in short slices,
 * one after another, round after round, the order reversed every other round. On a shared host
 * the raw blast alone moved 9 to 45 Gb/s between runs minutes apart, so one back-to-back figure
 * per peer says more about the minute it ran in than about the transports; slices seconds apart
 * see the same load, and the median of the rounds' ratios is robust to a slice that did not.
 * Immutable and thread-safe.
 *
 * @param metaroceVariant the MetaRoCE variant the rounds ran (the back-to-back runs' best), or
 *     null when no round ran
 * @param rawUdpGso whether the raw UDP slices used GSO/GRO (else plain datagrams): the kind that
 *     won the back-to-back runs ({@link #rawUdpGso(Double, Double)})
 * @param each the rounds in the order they ran
 */
record Rounds(String metaroceVariant, boolean rawUdpGso, List<Round> each) {
    /** No rounds ({@code --rounds 0}, or MetaRoCE did not run at this size). */
    static final Rounds NONE = new Rounds(null, false, List.of());

    /** A slice's peer, as the JSON and the table name it. */
    static final String RAW_UDP = "raw_udp";
    static final String METAROCE = "metaroce";
    static final String AERON = "aeron";
    /** Odd rounds' order (1, 3, ...); even rounds run it backwards, so no peer always runs first. */
    static final List<String> ORDER = List.of(RAW_UDP, METAROCE, AERON);

    /** Copies the list. */
    Rounds {
        each = List.copyOf(each);
    }

    /**
     * The raw UDP kind a size's rounds run: the one that won the back-to-back runs at that size,
     * whose figure is {@code raw_udp_gbps} (the better of plain and GSO/GRO, {@link
     * SizeResult#rawUdpGbps()}), so that the rounds' verdict and the back-to-back ratio divide by
     * the same blast. GSO/GRO only when it ran and beat plain datagrams; plain when neither ran.
     *
     * @param plainGbps the back-to-back plain blast, or null if it failed
     * @param gsoGbps the back-to-back GSO/GRO blast, or null if it failed or GSO is not available
     * @return whether the rounds' raw UDP slices use GSO/GRO
     */
    static boolean rawUdpGso(Double plainGbps, Double gsoGbps) {
        return gsoGbps != null && (plainGbps == null || gsoGbps > plainGbps);
    }

    /** The slice order of round {@code number} (1-based). */
    static List<String> order(int number) {
        if (number % 2 == 1) {
            return ORDER;
        }
        List<String> reversed = new ArrayList<>(ORDER);
        Collections.reverse(reversed);
        return List.copyOf(reversed);
    }

    /**
     * One round: each peer's goodput in its slice, Gb/s of payload at the receiver; null where a
     * slice failed.
     *
     * @param number 1-based
     * @param order the peers in the order their slices ran ({@link #order(int)})
     */
    record Round(int number, List<String> order, Double rawUdpGbps, Double metaroceGbps, Double aeronGbps) {
        /** Copies the list. */
        Round {
            order = List.copyOf(order);
        }

        /** MetaRoCE over raw UDP in this round, or null. */
        Double metaroceOverRawUdp() {
            return SizeResult.ratio(metaroceGbps, rawUdpGbps);
        }

        /** MetaRoCE over Aeron in this round, or null. */
        Double metaroceOverAeron() {
            return SizeResult.ratio(metaroceGbps, aeronGbps);
        }
    }

    /** The median over the rounds of MetaRoCE over raw UDP: the goodput verdict; null without a valid round. */
    Double metaroceOverRawUdpMedian() {
        return median(values(Round::metaroceOverRawUdp));
    }

    /** The median over the rounds of MetaRoCE over Aeron; null without a valid round. */
    Double metaroceOverAeronMedian() {
        return median(values(Round::metaroceOverAeron));
    }

    /** The least and the largest of the rounds' MetaRoCE over raw UDP, or null. */
    double[] metaroceOverRawUdpRange() {
        return range(values(Round::metaroceOverRawUdp));
    }

    /** The least and the largest of the rounds' MetaRoCE over Aeron, or null. */
    double[] metaroceOverAeronRange() {
        return range(values(Round::metaroceOverAeron));
    }

    /** Rounds where both MetaRoCE and raw UDP gave a figure. */
    int validRawUdpRounds() {
        return values(Round::metaroceOverRawUdp).size();
    }

    private List<Double> values(Function<Round, Double> ratio) {
        List<Double> values = new ArrayList<>();
        for (Round r : each) {
            Double v = ratio.apply(r);
            if (v != null) {
                values.add(v);
            }
        }
        return values;
    }

    /** The median of the values (the mean of the middle two for an even count), or null if there are none. */
    static Double median(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double[] range(List<Double> values) {
        return values.isEmpty() ? null : new double[] {Collections.min(values), Collections.max(values)};
    }
}
