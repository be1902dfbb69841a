package io.metaroce.core.sim.rocev2;

import io.metaroce.core.api.Transmit;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * A tiny deterministic network for the baseline's tests: endpoints at addresses 0..n-1 (small
 * {@code Integer}s, so boxing them allocates nothing), a fixed one-way delay, random loss and
 * random CE marking from one seed, an optional bottleneck (one FIFO output queue per destination,
 * drained at a fixed rate, with a byte buffer that tail-drops and a threshold above which it marks
 * CE), and a hook that drops chosen datagrams. Datagrams in flight sit in a binary heap over
 * primitive arrays with pooled buffers, so once warm the network allocates nothing either.
 */
final class TestNetwork {
    /** Decides to drop one datagram (after it was polled out of {@code from}). */
    interface DropRule {
        boolean drop(int from, int to, ByteBuffer datagram, int length, long nowNanos);
    }

    /** Sees every datagram an endpoint sends, before the network decides its fate. */
    interface SendObserver {
        void sent(int from, int to, ByteBuffer datagram, int length, int ecn, long nowNanos);
    }

    private final long seed;
    private final SplittableRandom random;
    private final RoceV2Endpoint[] endpoints;
    private final Transmit transmit;
    private double lossProbability;
    private double ceProbability;
    private long delayNanos = 1_000;
    private DropRule dropRule = (f, t, d, l, n) -> false;
    private SendObserver observer = (f, t, d, l, e, n) -> { };

    // Bottleneck: per destination, when its output port is free again.
    private long bottleneckBitsPerSecond;
    private long bufferBytes;
    private long markThresholdBytes;
    private long[] portFreePicos;
    private long maxQueueBytes;

    // In-flight heap (ordered by time, then send order) over pooled slots.
    private long[] time = new long[64];
    private long[] order = new long[64];
    private int[] heapSlot = new int[64];
    private int heapSize;
    private long sendOrder;
    private ByteBuffer[] slotBuffer = new ByteBuffer[64];
    private int[] slotLength = new int[64];
    private int[] slotFrom = new int[64];
    private int[] slotTo = new int[64];
    private int[] slotEcn = new int[64];
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int slotCount;
    private final int bufferCapacity;

    private long now;
    long dropped;
    long droppedData;
    long droppedByBuffer;
    long delivered;
    long ceMarked;

    TestNetwork(long seed, RoceV2Endpoint... endpoints) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.endpoints = endpoints;
        int mtu = 0;
        for (RoceV2Endpoint e : endpoints) {
            mtu = Math.max(mtu, e.config().mtuBytes());
        }
        this.bufferCapacity = mtu;
        this.transmit = new Transmit(ByteBuffer.allocate(mtu));
        this.portFreePicos = new long[endpoints.length];
    }

    TestNetwork loss(double p) { lossProbability = p; return this; }
    TestNetwork ceMarking(double p) { ceProbability = p; return this; }
    TestNetwork delay(long nanos) { delayNanos = nanos; return this; }
    TestNetwork dropRule(DropRule rule) { dropRule = rule; return this; }
    TestNetwork observer(SendObserver o) { observer = o; return this; }

    /** Every destination's last hop drains at {@code bitsPerSecond} with a buffer and a CE-marking threshold. */
    TestNetwork bottleneck(long bitsPerSecond, long buffer, long markThreshold) {
        bottleneckBitsPerSecond = bitsPerSecond;
        bufferBytes = buffer;
        markThresholdBytes = markThreshold;
        return this;
    }

    long now() { return now; }
    long seed() { return seed; }
    long maxQueueBytes() { return maxQueueBytes; }
    int inFlight() { return heapSize; }

    /** The address object of endpoint {@code i}. */
    static Integer address(int i) {
        return i;
    }

    /** Runs the next event (an arrival, or the earliest timer) and everything it causes; false if nothing is left. */
    boolean step() {
        flush();
        long timer = Long.MAX_VALUE;
        for (RoceV2Endpoint e : endpoints) {
            timer = Math.min(timer, e.pollTimeoutNanos());
        }
        long arrival = heapSize == 0 ? Long.MAX_VALUE : time[0];
        long t = Math.min(timer, arrival);
        if (t == Long.MAX_VALUE) {
            return false;
        }
        now = Math.max(now, t);
        if (arrival <= timer) {
            int s = pop();
            delivered++;
            endpoints[slotTo[s]].handleDatagram(now, slotBuffer[s], 0, slotLength[s], 0, address(slotFrom[s]),
                    slotEcn[s]);
            freeSlots[freeCount++] = s;
        } else {
            for (RoceV2Endpoint e : endpoints) {
                if (e.pollTimeoutNanos() <= now) {
                    e.handleTimeout(now);
                }
            }
        }
        flush();
        return true;
    }

    /** Steps until {@code done} holds; fails naming the seed if it does not within {@code maxNanos}. */
    void runUntil(BooleanSupplier done, long maxNanos, String what) {
        long deadline = now + maxNanos;
        while (!done.getAsBoolean()) {
            if (now > deadline || !step()) {
                throw new AssertionError(what + " did not happen by t=" + now + "ns (seed " + seed + ")");
            }
        }
    }

    /** Runs everything due up to {@code now + nanos}. */
    void advance(long nanos) {
        long until = now + nanos;
        while (true) {
            flush();
            long next = heapSize == 0 ? Long.MAX_VALUE : time[0];
            for (RoceV2Endpoint e : endpoints) {
                next = Math.min(next, e.pollTimeoutNanos());
            }
            if (next > until) {
                break;
            }
            step();
        }
        now = Math.max(now, until);
    }

    /** Polls every endpoint's datagrams into the network. */
    void flush() {
        for (int i = 0; i < endpoints.length; i++) {
            while (endpoints[i].pollTransmit(now, transmit)) {
                send(i);
            }
        }
    }

    private void send(int from) {
        int to = (Integer) transmit.remoteAddress;
        ByteBuffer b = transmit.buffer;
        int length = transmit.length;
        observer.sent(from, to, b, length, transmit.ecn, now);
        boolean data = RoceV2Opcode.isSend(b.get(0) & 0xFF);
        if (dropRule.drop(from, to, b, length, now) || (lossProbability > 0 && random.nextDouble() < lossProbability)) {
            dropped++;
            if (data) {
                droppedData++;
            }
            return;
        }
        int ecn = transmit.ecn;
        if (ecn != 0 && ceProbability > 0 && random.nextDouble() < ceProbability) {
            ecn = 3;
            ceMarked++;
        }
        long arrival = now + delayNanos;
        if (bottleneckBitsPerSecond > 0) {
            long atPortPicos = (now + delayNanos / 2) * 1000;
            long queuedPicos = Math.max(0, portFreePicos[to] - atPortPicos);
            long queued = queuedPicos * bottleneckBitsPerSecond / 8_000_000_000_000L;
            if (queued + length > bufferBytes) {
                dropped++;
                droppedByBuffer++;
                if (data) {
                    droppedData++;
                }
                return;
            }
            maxQueueBytes = Math.max(maxQueueBytes, queued + length);
            if (ecn != 0 && queued > markThresholdBytes) {
                ecn = 3;
                ceMarked++;
            }
            long start = Math.max(portFreePicos[to], atPortPicos);
            portFreePicos[to] = start + length * 8_000_000_000_000L / bottleneckBitsPerSecond;
            arrival = Math.ceilDiv(portFreePicos[to], 1000L) + (delayNanos - delayNanos / 2);
        }
        int s = allocate();
        slotBuffer[s].put(0, b, 0, length);
        slotLength[s] = length;
        slotFrom[s] = from;
        slotTo[s] = to;
        slotEcn[s] = ecn;
        push(s, arrival);
    }

    private int allocate() {
        if (freeCount > 0) {
            return freeSlots[--freeCount];
        }
        if (slotCount == slotBuffer.length) {
            int n = slotCount * 2;
            slotBuffer = Arrays.copyOf(slotBuffer, n);
            slotLength = Arrays.copyOf(slotLength, n);
            slotFrom = Arrays.copyOf(slotFrom, n);
            slotTo = Arrays.copyOf(slotTo, n);
            slotEcn = Arrays.copyOf(slotEcn, n);
            freeSlots = Arrays.copyOf(freeSlots, n);
        }
        slotBuffer[slotCount] = ByteBuffer.allocate(bufferCapacity);
        return slotCount++;
    }

    private void push(int s, long t) {
        if (heapSize == time.length) {
            time = Arrays.copyOf(time, heapSize * 2);
            order = Arrays.copyOf(order, heapSize * 2);
            heapSlot = Arrays.copyOf(heapSlot, heapSize * 2);
        }
        int i = heapSize++;
        long o = sendOrder++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (time[parent] < t || (time[parent] == t && order[parent] < o)) {
                break;
            }
            time[i] = time[parent];
            order[i] = order[parent];
            heapSlot[i] = heapSlot[parent];
            i = parent;
        }
        time[i] = t;
        order[i] = o;
        heapSlot[i] = s;
    }

    private int pop() {
        int top = heapSlot[0];
        int n = --heapSize;
        long t = time[n];
        long o = order[n];
        int s = heapSlot[n];
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= n) {
                break;
            }
            if (c + 1 < n && (time[c + 1] < time[c] || (time[c + 1] == time[c] && order[c + 1] < order[c]))) {
                c++;
            }
            if (t < time[c] || (t == time[c] && o < order[c])) {
                break;
            }
            time[i] = time[c];
            order[i] = order[c];
            heapSlot[i] = heapSlot[c];
            i = c;
        }
        time[i] = t;
        order[i] = o;
        heapSlot[i] = s;
        return top;
    }
}
