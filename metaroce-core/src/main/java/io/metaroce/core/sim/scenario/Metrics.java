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
 *   <li><b>Jain's fairness</b> of rates x: {@code (sum x)^2 / (n * sum x^2)}; 1 if every rate is 0.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class Metrics {
    private Metrics() {
    }

    /**
     * Jain's fairness index of {@code x}. When every value is 0 (every flow idle over the span,
     * say a span that ended before any delivery) the index is 1.0: equal shares of nothing,
     * undefined as a ratio (0/0). A report beside it says whether the flows were idle (the planes
     * scenario's {@code connections_idle}); read a 1.0 together with that.
     */
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
     * {@code tolerance} (a fraction) of {@code fairShare} bytes/ns, or -1 if none; rates are read
     * from the message-interpolated delivery curve ({@link #interpolatedDelivered}), and windows are
     * checked up to {@code tailBuckets} before the end (the last message of a flow still on its way
     * has no completion to interpolate to).
     */
    public static int convergenceBucket(Telemetry t, double fairShare, double tolerance, int w, int tailBuckets) {
        double[][] curve = new double[t.flowCount()][];
        for (int f = 0; f < curve.length; f++) {
            curve[f] = interpolatedDelivered(t, f);
        }
        int last = t.buckets() - 1 - Math.max(0, tailBuckets);
        int firstGoodEnd = -1;
        for (int b = last; b >= w - 1; b--) {
            if (!allWithin(curve, t.bucketNanos(), b, w, fairShare, tolerance)) {
                break;
            }
            firstGoodEnd = b;
        }
        return firstGoodEnd < 0 ? -1 : firstGoodEnd - w + 1;
    }

    private static boolean allWithin(double[][] curve, long bucketNanos, int b, int w, double fair, double tolerance) {
        for (double[] d : curve) {
            double before = b - w < 0 ? 0 : d[b - w];
            double r = (d[b] - before) / (w * (double) bucketNanos);
            if (Math.abs(r - fair) > tolerance * fair) {
                return false;
            }
        }
        return true;
    }

    /**
     * Flow {@code f}'s delivered bytes at the end of each bucket, interpolated between message
     * completions: delivery is counted when a whole message completes, so the step curve of
     * {@link Telemetry#deliveredAt} is off by up to one message at any instant (an eighth of a
     * window that spans 8 messages, more than the ±10% band). The bytes of a message were placed
     * over the time since the previous completion, so the curve runs straight from one completion
     * (end of the bucket it fell in, T0 for the first) to the next. After the flow's last completion
     * it stays flat: a flow that stops completing is not credited with anything.
     */
    public static double[] interpolatedDelivered(Telemetry t, int f) {
        int n = t.buckets();
        double[] d = new double[n];
        int from = -1; // bucket of the previous completion (-1: T0)
        long fromBytes = 0;
        for (int b = 0; b < n; b++) {
            long v = t.deliveredAt(f, b);
            if (v != fromBytes) {
                for (int i = from + 1; i <= b; i++) {
                    d[i] = fromBytes + (v - fromBytes) * (double) (i - from) / (b - from);
                }
                from = b;
                fromBytes = v;
            }
        }
        for (int i = from + 1; i < n; i++) {
            d[i] = fromBytes;
        }
        return d;
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
