package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.Telemetry;

/**
 * The metric computations of the scenarios, over {@link Telemetry} buckets. Definitions (also in
 * {@code docs/simulator.md}):
 * <ul>
 *   <li><b>window rate</b> of flow f ending at bucket b over w buckets: its delivered bytes in
 *       buckets {@code b-w+1 .. b} divided by {@code w * bucket};</li>
 *   <li><b>convergence</b>: the first bucket {@code c} such that for every window ending at
 *       {@code b >= c + w - 1} (to the end of the run) every flow's window rate is within
 *       {@code ±tolerance} of the fair share; the convergence time is the start of bucket
 *       {@code c} (the start of the first good window) relative to T0;</li>
 *   <li><b>Jain's fairness</b> of rates x: {@code (sum x)^2 / (n * sum x^2)}.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class Metrics {
    private Metrics() {
    }

    /** Jain's fairness index of {@code x} (1 if all zero). */
    public static double jain(double[] x) {
        double sum = 0;
        double squares = 0;
        for (double v : x) {
            sum += v;
            squares += v * v;
        }
        return squares == 0 ? 1 : sum * sum / (x.length * squares);
    }

    /** Bytes per ns flow {@code f} delivered over the {@code w} buckets ending at bucket {@code b}. */
    public static double windowRate(Telemetry t, int f, int b, int w) {
        long before = b - w < 0 ? 0 : t.deliveredAt(f, b - w);
        return (t.deliveredAt(f, b) - before) / (double) (w * t.bucketNanos());
    }

    /**
     * The first bucket from which every window of {@code w} buckets has every flow within
     * {@code tolerance} (a fraction) of {@code fairShare} bytes/ns, or -1 if none.
     */
    public static int convergenceBucket(Telemetry t, double fairShare, double tolerance, int w) {
        int last = t.buckets() - 1;
        int firstGoodEnd = -1;
        for (int b = last; b >= w - 1; b--) {
            if (!allWithin(t, b, w, fairShare, tolerance)) {
                break;
            }
            firstGoodEnd = b;
        }
        return firstGoodEnd < 0 ? -1 : firstGoodEnd - w + 1;
    }

    private static boolean allWithin(Telemetry t, int b, int w, double fair, double tolerance) {
        for (int f = 0; f < t.flowCount(); f++) {
            double r = windowRate(t, f, b, w);
            if (Math.abs(r - fair) > tolerance * fair) {
                return false;
            }
        }
        return true;
    }

    /** Each flow's mean rate (bytes/ns) over buckets {@code from .. to-1}. */
    public static double[] meanRates(Telemetry t, int from, int to) {
        double[] r = new double[t.flowCount()];
        if (to <= from) {
            return r;
        }
        for (int f = 0; f < r.length; f++) {
            long before = from == 0 ? 0 : t.deliveredAt(f, from - 1);
            r[f] = (t.deliveredAt(f, to - 1) - before) / (double) ((to - from) * t.bucketNanos());
        }
        return r;
    }

    /** Sum over flows of delivered bytes in buckets {@code from .. to-1}. */
    public static long deliveredIn(Telemetry t, int from, int to) {
        long s = 0;
        for (int f = 0; f < t.flowCount(); f++) {
            long before = from == 0 ? 0 : t.deliveredAt(f, from - 1);
            s += t.deliveredAt(f, to - 1) - before;
        }
        return s;
    }

    /** Largest peak depth of any watched port in buckets {@code from .. end}. */
    public static long peakDepthFrom(Telemetry t, int from) {
        long peak = 0;
        for (int i = 0; i < t.portCount(); i++) {
            for (int b = Math.max(0, from); b < t.buckets(); b++) {
                peak = Math.max(peak, t.peakDepth(i, b));
            }
        }
        return peak;
    }

    /** Drops at the watched ports in buckets {@code from .. end}. */
    public static long dropsFrom(Telemetry t, int from) {
        long d = 0;
        for (int i = 0; i < t.portCount(); i++) {
            for (int b = Math.max(0, from); b < t.buckets(); b++) {
                d += t.drops(i, b);
            }
        }
        return d;
    }

    /**
     * The first bucket {@code >= from} at which the aggregate rate over the {@code w} buckets
     * starting there reaches {@code target} bytes/ns, or -1.
     */
    public static int firstWindowReaching(Telemetry t, int from, int w, double target) {
        for (int b = Math.max(0, from); b + w <= t.buckets(); b++) {
            double rate = deliveredIn(t, b, b + w) / (double) (w * t.bucketNanos());
            if (rate >= target) {
                return b;
            }
        }
        return -1;
    }
}
