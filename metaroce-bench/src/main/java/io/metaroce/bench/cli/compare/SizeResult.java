package io.metaroce.bench.cli.compare;

import java.util.Map;

/**
 * Every peer's throughput at one message size, in Gb/s of payload at the receiver; null where a
 * peer could not run (the run's notes say why). Immutable and thread-safe.
 *
 * @param size bytes per message
 * @param rawUdpPlainGbps raw UDP, one 4096-byte datagram per send
 * @param rawUdpGsoGbps raw UDP with GSO on the sender and GRO on the receiver, or null without them
 * @param metaroceVariants each MetaRoCE variant's goodput, by label, in run order
 * @param tcpGbps TCP
 * @param aeronGbps Aeron at {@code mtu=4096} (like with like)
 * @param aeronBestGbps Aeron at {@code mtu=65504} (its best setting)
 * @param metaroceFullCheckGbps the best MetaRoCE variant with every byte of every message filled
 *     and checked: run again after the variants when they ran with a sampled check, else their
 *     best figure; null if it did not run
 * @param rounds the goodput verdict's alternating rounds after the back-to-back runs
 *     ({@link Rounds#NONE} without them); the figures above are the back-to-back runs'
 */
record SizeResult(int size, Double rawUdpPlainGbps, Double rawUdpGsoGbps, Map<String, Double> metaroceVariants,
        Double tcpGbps, Double aeronGbps, Double aeronBestGbps, Double metaroceFullCheckGbps, Rounds rounds) {

    /** Without rounds. */
    SizeResult(int size, Double rawUdpPlainGbps, Double rawUdpGsoGbps, Map<String, Double> metaroceVariants,
            Double tcpGbps, Double aeronGbps, Double aeronBestGbps, Double metaroceFullCheckGbps) {
        this(size, rawUdpPlainGbps, rawUdpGsoGbps, metaroceVariants, tcpGbps, aeronGbps, aeronBestGbps,
                metaroceFullCheckGbps, Rounds.NONE);
    }

    /** Without a separate full-check figure: the variants checked every byte, so it is their best. */
    SizeResult(int size, Double rawUdpPlainGbps, Double rawUdpGsoGbps, Map<String, Double> metaroceVariants,
            Double tcpGbps, Double aeronGbps, Double aeronBestGbps) {
        this(size, rawUdpPlainGbps, rawUdpGsoGbps, metaroceVariants, tcpGbps, aeronGbps, aeronBestGbps,
                best(metaroceVariants));
    }

    /** Copies the map (keeping its order). */
    SizeResult {
        metaroceVariants = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metaroceVariants));
        java.util.Objects.requireNonNull(rounds, "rounds (Rounds.NONE without them)");
    }

    /** The UDP ceiling: the better of plain and GSO/GRO. */
    Double rawUdpGbps() {
        return max(rawUdpPlainGbps, rawUdpGsoGbps);
    }

    /** The best MetaRoCE variant's label, or null if none ran. */
    String metaroceVariant() {
        return bestLabel(metaroceVariants);
    }

    /** The best MetaRoCE variant's goodput, or null. */
    Double metaroceGbps() {
        return best(metaroceVariants);
    }

    /** The best MetaRoCE variant with every byte checked, over the UDP ceiling. */
    Double metaroceFullCheckOverRawUdp() {
        return ratio(metaroceFullCheckGbps, rawUdpGbps());
    }

    private static String bestLabel(Map<String, Double> variants) {
        String best = null;
        for (Map.Entry<String, Double> e : variants.entrySet()) {
            if (e.getValue() != null && (best == null || e.getValue() > variants.get(best))) {
                best = e.getKey();
            }
        }
        return best;
    }

    private static Double best(Map<String, Double> variants) {
        String best = bestLabel(variants);
        return best == null ? null : variants.get(best);
    }

    /** MetaRoCE over the UDP ceiling. */
    Double metaroceOverRawUdp() {
        return ratio(metaroceGbps(), rawUdpGbps());
    }

    /** MetaRoCE over TCP. */
    Double metaroceOverTcp() {
        return ratio(metaroceGbps(), tcpGbps);
    }

    /** MetaRoCE over Aeron at the same MTU. */
    Double metaroceOverAeron() {
        return ratio(metaroceGbps(), aeronGbps);
    }

    /** MetaRoCE over Aeron at its best setting. */
    Double metaroceOverAeronBest() {
        return ratio(metaroceGbps(), aeronBestGbps);
    }

    static Double ratio(Double a, Double b) {
        return a == null || b == null || b <= 0 ? null : a / b;
    }

    private static Double max(Double a, Double b) {
        // Not a conditional expression: mixing Double and double there would unbox a null.
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return Math.max(a, b);
    }
}
