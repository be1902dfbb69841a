package io.metaroce.core.sim.fabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Time series of a run, sampled every {@link #bucketNanos()} of virtual time by the network: for
 * every registered flow its cumulative delivered bytes at each bucket's end, and for every watched
 * port the largest queue depth reached during the bucket, the depth at its end, and the drops (tail
 * and black-hole) during it. Bucket {@code i} covers {@code [start + i*w, start + (i+1)*w)}.
 *
 * <p>Not thread-safe; filled by the network's event loop.
 */
public final class Telemetry {
    private final long startNanos;
    private final long bucketNanos;
    private final List<LongSupplier> flows = new ArrayList<>();
    private final List<String> flowNames = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<String> portNames = new ArrayList<>();
    private long[][] delivered = new long[0][];
    private long[][] peakDepth = new long[0][];
    private long[][] endDepth = new long[0][];
    private long[][] drops = new long[0][];
    private int buckets;
    private int capacity = 64;

    /** Samples every {@code bucketNanos} from {@code startNanos} on. */
    public Telemetry(long startNanos, long bucketNanos) {
        if (bucketNanos <= 0 || startNanos < 0) {
            throw new IllegalArgumentException("telemetry needs startNanos >= 0 and bucketNanos > 0");
        }
        this.startNanos = startNanos;
        this.bucketNanos = bucketNanos;
    }

    /** Registers a flow whose cumulative delivered bytes {@code deliveredBytes} reports; returns its index. */
    public int addFlow(String name, LongSupplier deliveredBytes) {
        requireNoSamples();
        flows.add(deliveredBytes);
        flowNames.add(name);
        return flows.size() - 1;
    }

    /** Watches output port {@code port}; returns its index in this telemetry. */
    public int watchPort(String name, int port) {
        requireNoSamples();
        ports.add(port);
        portNames.add(name);
        return ports.size() - 1;
    }

    private void requireNoSamples() {
        if (buckets > 0) {
            throw new IllegalStateException("register flows and ports before the first sample");
        }
    }

    void sample(Network network) {
        if (buckets == 0) {
            delivered = new long[flows.size()][64];
            peakDepth = new long[ports.size()][64];
            endDepth = new long[ports.size()][64];
            drops = new long[ports.size()][64];
        }
        if (buckets == capacity) {
            grow();
        }
        for (int f = 0; f < flows.size(); f++) {
            delivered[f][buckets] = flows.get(f).getAsLong();
        }
        for (int i = 0; i < ports.size(); i++) {
            int p = ports.get(i);
            peakDepth[i][buckets] = network.takePeakDepth(p);
            endDepth[i][buckets] = network.portDepth(p);
            drops[i][buckets] = network.takeBucketDrops(p);
        }
        buckets++;
    }

    private void grow() {
        int n = capacity * 2;
        capacity = n;
        for (int f = 0; f < delivered.length; f++) {
            delivered[f] = Arrays.copyOf(delivered[f], n);
        }
        for (int i = 0; i < peakDepth.length; i++) {
            peakDepth[i] = Arrays.copyOf(peakDepth[i], n);
            endDepth[i] = Arrays.copyOf(endDepth[i], n);
            drops[i] = Arrays.copyOf(drops[i], n);
        }
    }

    /** When sampling starts. */
    public long startNanos() {
        return startNanos;
    }

    /** Width of a bucket. */
    public long bucketNanos() {
        return bucketNanos;
    }

    /** Buckets sampled so far. */
    public int buckets() {
        return buckets;
    }

    /** Registered flows. */
    public int flowCount() {
        return flows.size();
    }

    /** Name of flow {@code f}. */
    public String flowName(int f) {
        return flowNames.get(f);
    }

    /** Watched ports. */
    public int portCount() {
        return ports.size();
    }

    /** Name of watched port {@code i}. */
    public String portName(int i) {
        return portNames.get(i);
    }

    /** Cumulative bytes flow {@code f} had delivered at the end of bucket {@code b}. */
    public long deliveredAt(int f, int b) {
        return delivered[f][b];
    }

    /** Bytes flow {@code f} delivered during bucket {@code b}. */
    public long deliveredIn(int f, int b) {
        return delivered[f][b] - (b == 0 ? 0 : delivered[f][b - 1]);
    }

    /** Largest depth (bytes) of watched port {@code i} during bucket {@code b}. */
    public long peakDepth(int i, int b) {
        return peakDepth[i][b];
    }

    /** Depth (bytes) of watched port {@code i} at the end of bucket {@code b}. */
    public long endDepth(int i, int b) {
        return endDepth[i][b];
    }

    /** Packets watched port {@code i} dropped during bucket {@code b}. */
    public long drops(int i, int b) {
        return drops[i][b];
    }
}
