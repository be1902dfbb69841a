package io.metaroce.core.sim.fabric;

import io.metaroce.core.api.Transmit;
import io.metaroce.core.sim.EventQueue;
import io.metaroce.core.sim.SimAddress;
import io.metaroce.core.sim.SimTransport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The deterministic fabric simulator: hosts driving {@link SimTransport}s, switches with an output
 * queue per port, links with a rate and a propagation delay, all in virtual nanoseconds on one
 * {@link EventQueue}. Everything random (ECMP salts, link loss, probabilistic marking) comes from
 * one seeded generator, so a run is a pure function of the fabric, the seed and the transports.
 * See {@code docs/simulator.md} for the model.
 *
 * <p><b>Packets.</b> A sender's transport writes each datagram straight into a pooled buffer
 * (through that buffer's {@link Transmit}), which the packet keeps until delivery: nothing is
 * copied on the way. On the wire it takes {@code length + FRAME_OVERHEAD_BYTES} of buffer and
 * {@code length + FRAME_OVERHEAD_BYTES + WIRE_GAP_BYTES} of serialization time.
 *
 * <p><b>Output ports.</b> FIFO; a packet is dropped (tail drop) if the bytes queued (including the
 * one being sent) plus its own exceed the port's buffer; an ECT packet is marked CE per the link's
 * {@link EcnMarking} on the bytes queued before it, and additionally with the port's extra marking
 * probability (plane degradation). Departure times are computed at enqueue (FIFO makes them
 * known), so a hop costs one event: the arrival at the next node.
 *
 * <p><b>Hosts.</b> A host pulls the next datagram from its transport only while one of its NIC
 * ports is idle and fewer than {@code planes} packets wait behind busy NIC ports; with one plane
 * that is exactly "when the NIC is free", so the transport's own windows and pacing decide what is
 * queued. It calls {@link SimTransport#handleTimeout} at {@link SimTransport#pollTimeoutNanos}.
 *
 * <p><b>Routing.</b> A switch picks among its shortest-path output ports toward the destination
 * host by a hash of the 5-tuple (source host, destination host, source port, destination port, UDP)
 * salted per switch. The plane of a datagram is {@code (srcPort + dstPort) mod planes} (symmetric,
 * so answers travel the plane of the packets they answer).
 *
 * <p><b>Faults.</b> A failed link loses everything sent onto it or in flight on it (a black hole)
 * until routing withdraws it, if asked to, after a delay; links can lose packets at random; a
 * plane can be degraded with extra marking and loss.
 *
 * <p>Not thread-safe: one thread runs a network.
 */
public final class Network {
    /** Ethernet header and FCS (18), IPv4 (20) and UDP (8) bytes around a datagram. */
    public static final int FRAME_OVERHEAD_BYTES = 46;
    /** Preamble and inter-frame gap: serialization time only, not buffer. */
    public static final int WIRE_GAP_BYTES = 20;
    private static final long UNLIMITED = Long.MAX_VALUE / 4;

    private static final int ARRIVE = 1;
    private static final int TIMER = 2;
    private static final int NIC = 3;
    private static final int ACTION = 4;
    private static final int SAMPLE = 5;
    private static final long MASK30 = (1L << 30) - 1;
    private static final long UNKNOWN_TIMEOUT = Long.MIN_VALUE;

    // ---- offsets in a port's record of #port ----
    private static final int PORT_WORDS = 16;
    /** When the port finishes sending what it has queued, in ps. */
    private static final int P_BUSY = 0;
    /** Frame bytes queued, the packet being sent included (up to date as of the last drain). */
    private static final int P_QUEUED = 1;
    private static final int P_BUFFER = 2;
    private static final int P_PICOS_PER_BYTE = 3;
    private static final int P_PROPAGATION = 4;
    private static final int P_ECN_MIN = 5;
    private static final int P_ECN_MAX = 6;
    /** The ring's first entry (high 32 bits) and entry count (low 32 bits). */
    private static final int P_RING = 7;
    private static final int P_PEAK = 8;
    private static final int P_TX_PACKETS = 9;
    private static final int P_TX_BYTES = 10;
    /** 1 while the port's link is down (failed), else 0; {@link #up} says the same for arrivals. */
    private static final int P_DOWN = 11;
    /** The link's loss probability, as {@link #probabilityBits}. */
    private static final int P_LOSS = 12;
    /** The port's extra marking probability (plane degradation), as {@link #probabilityBits}. */
    private static final int P_EXTRA_MARK = 13;
    /** The ECN marking probability at the upper threshold, as {@link #probabilityBits}. */
    private static final int P_ECN_MAX_P = 14;
    /**
     * When the ring's first packet finishes leaving, in ps (meaningful while the ring holds one):
     * a copy of its ring entry, so that a drain that finds it still leaving, and a NIC's pump
     * looking for its next free time, read the port's record and not its ring.
     */
    private static final int P_HEAD_DONE = 15;

    private final long seed;
    private final SplittableRandom random;
    private final EventQueue events = new EventQueue();
    private final PacketPool packets;

    // ---- structure ----
    private final int hosts;
    private final int nodes;
    private final int planes;
    private final String[] nodeName;
    private final int[] nodeTier;
    private final int[] nodePlane;
    private final int[][] nodePorts;
    private final int[][] hostNic;
    private final long[] salt;
    private final Routing routing;

    // ---- ports: port 2l belongs to link l's first node, 2l+1 to its second; a port's peer is port ^ 1 ----
    private final int[] portNode;
    /**
     * What a packet's enqueue reads and writes of its output port, packed per port in
     * {@link #PORT_WORDS} consecutive longs (a few adjacent cache lines instead of one line in
     * each of a dozen arrays): see the {@code P_} offsets.
     */
    private final long[] port;
    private final boolean[] up;
    private final boolean[] routable;
    /** Per port, the (departure time in ps, frame bytes) of each packet queued, as pairs of longs in a ring. */
    private final long[][] ring;
    private final long[] portTailDrops;
    private final long[] portBlackholeDrops;
    private final long[] portLossDrops;
    private final long[] portMarks;
    private final long[] bucketDrops;

    // ---- hosts ----
    private final SimTransport[] transports;
    private final boolean[] timerPending;
    private final long[] timerAt;
    private final int[] timerGen;
    private final boolean[] nicPending;
    /** Whether the host's last pump stopped because its NIC was busy (not because the transport had nothing). */
    private final boolean[] nicBlocked;
    private final long[] nicAt;
    private final int[] nicGen;
    /**
     * Per host, the transport's {@link SimTransport#pollTimeoutNanos} as last read, or
     * {@link #UNKNOWN_TIMEOUT}. Its value can only change when the transport is called (or worked
     * on from outside the event loop: an action, code between runs, {@link #wake}), so a timer or
     * NIC wake-up reuses the value read when the host last went idle instead of asking the
     * transport again, which for an engine walks every path of every connection.
     */
    private final long[] knownTimeout;
    private SimAddress[][] addresses;
    private final long[] hostDelivered;

    private final List<Runnable> actions = new ArrayList<>();
    private Telemetry telemetry;
    private long telemetryEnd;
    private long now;
    private long sameTimeSteps;
    private long lastStepTime = -1;

    /**
     * Builds the network described by {@code fabric}, with packet buffers of
     * {@code maxDatagramBytes} and every random choice drawn from {@code seed}.
     */
    public Network(FabricBuilder fabric, long seed, int maxDatagramBytes) {
        if (fabric.hostCount() == 0) {
            throw new IllegalArgumentException("a fabric needs at least one host");
        }
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.packets = new PacketPool(maxDatagramBytes);
        this.hosts = fabric.hostCount();
        this.nodes = fabric.nodeCount();
        this.planes = fabric.planes;
        this.nodeName = fabric.nodeNames.toArray(new String[0]);
        this.nodeTier = fabric.nodeTier.stream().mapToInt(Integer::intValue).toArray();
        this.nodePlane = fabric.nodePlane.stream().mapToInt(Integer::intValue).toArray();
        int links = fabric.links.size();
        int ports = 2 * links;
        portNode = new int[ports];
        port = new long[ports * PORT_WORDS];
        up = new boolean[ports];
        routable = new boolean[ports];
        ring = new long[ports][];
        portTailDrops = new long[ports];
        portBlackholeDrops = new long[ports];
        portLossDrops = new long[ports];
        portMarks = new long[ports];
        bucketDrops = new long[ports];
        int[] degree = new int[nodes];
        for (int l = 0; l < links; l++) {
            int[] ends = fabric.links.get(l);
            LinkSpec spec = fabric.linkSpecs.get(l);
            for (int e = 0; e < 2; e++) {
                int p = 2 * l + e;
                int owner = ends[e];
                portNode[p] = owner;
                degree[owner]++;
                int r = p * PORT_WORDS;
                port[r + P_PICOS_PER_BYTE] = spec.picosPerByte();
                port[r + P_PROPAGATION] = spec.propagationNanos();
                boolean isSwitch = owner >= hosts;
                port[r + P_BUFFER] = isSwitch ? spec.bufferBytes() : UNLIMITED;
                EcnMarking m = isSwitch ? spec.ecn() : EcnMarking.OFF;
                port[r + P_ECN_MIN] = m.minBytes();
                port[r + P_ECN_MAX] = m.maxBytes();
                port[r + P_ECN_MAX_P] = probabilityBits(m.maxProbability());
                up[p] = true;
                routable[p] = true;
                ring[p] = new long[2 * 8];
            }
        }
        nodePorts = new int[nodes][];
        for (int n = 0; n < nodes; n++) {
            nodePorts[n] = new int[degree[n]];
        }
        int[] fill = new int[nodes];
        for (int p = 0; p < ports; p++) {
            nodePorts[portNode[p]][fill[portNode[p]]++] = p;
        }
        hostNic = new int[hosts][];
        for (int h = 0; h < hosts; h++) {
            if (nodePorts[h].length != planes) {
                throw new IllegalArgumentException("host " + nodeName[h] + " has " + nodePorts[h].length
                        + " links but the fabric has " + planes + " planes: give every host one link per plane");
            }
            hostNic[h] = nodePorts[h];
        }
        salt = new long[nodes];
        for (int n = 0; n < nodes; n++) {
            salt[n] = random.nextLong();
        }
        routing = new Routing(nodes, hosts);
        routing.compute(nodePorts, portPeerTable(ports), portNode, routable);
        transports = new SimTransport[hosts];
        timerPending = new boolean[hosts];
        timerAt = new long[hosts];
        timerGen = new int[hosts];
        nicPending = new boolean[hosts];
        nicBlocked = new boolean[hosts];
        nicAt = new long[hosts];
        nicGen = new int[hosts];
        knownTimeout = new long[hosts];
        Arrays.fill(knownTimeout, UNKNOWN_TIMEOUT);
        addresses = new SimAddress[hosts][16];
        hostDelivered = new long[hosts];
    }

    /**
     * A probability as kept in a port's record: its raw bits, and 0 for any zero, so a record word
     * is non-zero exactly when the probability is positive (probabilities are checked to be in [0, 1]).
     */
    private static long probabilityBits(double probability) {
        return probability == 0 ? 0 : Double.doubleToRawLongBits(probability);
    }

    private static double probability(long bits) {
        return Double.longBitsToDouble(bits);
    }

    private static int[] portPeerTable(int ports) {
        int[] peer = new int[ports];
        for (int p = 0; p < ports; p++) {
            peer[p] = p ^ 1;
        }
        return peer;
    }

    // =====================================================================================
    // Structure
    // =====================================================================================

    /** The seed every random choice of this network comes from. */
    public long seed() {
        return seed;
    }

    /** Number of hosts (nodes {@code 0 .. hostCount()-1}). */
    public int hostCount() {
        return hosts;
    }

    /** Number of nodes, hosts and switches. */
    public int nodeCount() {
        return nodes;
    }

    /** Number of parallel planes. */
    public int planes() {
        return planes;
    }

    /** Number of links; link {@code l} has ports {@code 2l} and {@code 2l+1}. */
    public int linkCount() {
        return portNode.length / 2;
    }

    /** Name of node {@code n}. */
    public String nodeName(int n) {
        return nodeName[n];
    }

    /** Tier of node {@code n}: 0 host, 1 leaf/edge, 2 spine/aggregation, 3 core. */
    public int nodeTier(int n) {
        return nodeTier[n];
    }

    /** The node owning port {@code port} (the one that transmits on it). */
    public int portNode(int port) {
        return portNode[port];
    }

    /** The node port {@code port} transmits to. */
    public int portPeerNode(int port) {
        return portNode[port ^ 1];
    }

    /** Plane of port {@code port}: its switch's plane, or for a host NIC port the plane it attaches to. */
    public int portPlane(int port) {
        int n = portNode[port] >= hosts ? portNode[port] : portNode[port ^ 1];
        return nodePlane[n];
    }

    /** Host {@code host}'s NIC port on {@code plane}. */
    public int hostPort(int host, int plane) {
        return hostNic[host][plane];
    }

    /**
     * The rate of host {@code host}'s NIC in bits per second: the sum of its ports' line rates (one
     * port per plane). A transport that paces itself to its NIC (the RoCEv2 baseline) reads it here.
     */
    public long hostNicBitsPerSecond(int host) {
        long bits = 0;
        for (int p : hostNic[host]) {
            bits += Math.round(8e12 / port[p * PORT_WORDS + P_PICOS_PER_BYTE]);
        }
        return bits;
    }

    /** The output port of the last hop toward {@code host} on {@code plane}: the switch port facing the host. */
    public int lastHopPort(int host, int plane) {
        return hostNic[host][plane] ^ 1;
    }

    /** The plane a datagram between these sockets travels: {@code (srcPort + dstPort) mod planes}. */
    public int planeOf(int srcSocket, int dstSocket) {
        return (SimAddress.port(srcSocket) + SimAddress.port(dstSocket)) % planes;
    }

    /** A readable name of port {@code port}, e.g. {@code spine1->leaf3}. */
    public String portName(int port) {
        return nodeName[portNode[port]] + "->" + nodeName[portNode[port ^ 1]];
    }

    /**
     * The output ports a datagram from {@code srcHost}'s {@code srcSocket} to {@code dstHost}'s
     * {@code dstSocket} takes under the current routes, first the source's NIC port; it ends at a
     * port facing {@code dstHost}, or early (at a switch with no route) if the host is unreachable.
     */
    public int[] trace(int srcHost, int srcSocket, int dstHost, int dstSocket) {
        long tuple = tupleHash(srcHost, dstHost, srcSocket, dstSocket);
        int[] out = new int[8];
        int n = 0;
        int p = hostNic[srcHost][planeOf(srcSocket, dstSocket)];
        while (true) {
            if (n == out.length) {
                out = Arrays.copyOf(out, n * 2);
            }
            out[n++] = p;
            int node = portNode[p ^ 1];
            if (node < hosts || n > nodes) {
                break;
            }
            int next = choosePort(node, dstHost, tuple);
            if (next < 0) {
                break;
            }
            p = next;
        }
        return Arrays.copyOf(out, n);
    }

    // =====================================================================================
    // Hosts and addresses
    // =====================================================================================

    /** Attaches the transport host {@code host} drives (once per host). */
    public void attach(int host, SimTransport transport) {
        if (transports[host] != null) {
            throw new IllegalStateException("host " + host + " already has a transport");
        }
        transports[host] = transport;
    }

    /** The interned address of {@code socket} on {@code host}. */
    public SimAddress address(int host, int socket) {
        SimAddress[] row = addresses[host];
        if (socket >= row.length) {
            row = Arrays.copyOf(row, Math.max(socket + 1, row.length * 2));
            addresses[host] = row;
        }
        SimAddress a = row[socket];
        if (a == null) {
            a = new SimAddress(host, socket);
            row[socket] = a;
        }
        return a;
    }

    /**
     * Lets host {@code host} send what its transport has now and re-arms its timer: call after
     * handing the transport work from outside the event loop (an action, a flow start).
     */
    public void wake(int host) {
        knownTimeout[host] = UNKNOWN_TIMEOUT;
        pump(host);
        armTimer(host);
    }

    // =====================================================================================
    // Time and events
    // =====================================================================================

    /** Current virtual time. */
    public long now() {
        return now;
    }

    /** Events processed so far. */
    public long eventsProcessed() {
        return events.popped();
    }

    /** Runs {@code action} at virtual time {@code atNanos} (not before now). */
    public void schedule(long atNanos, Runnable action) {
        if (atNanos < now) {
            throw new IllegalArgumentException("cannot schedule in the past: " + atNanos + " < now " + now);
        }
        actions.add(action);
        events.push(atNanos, payload(ACTION, actions.size() - 1, 0));
    }

    /** Samples {@code t} every bucket from its start until {@code untilNanos}. */
    public void record(Telemetry t, long untilNanos) {
        if (telemetry != null) {
            throw new IllegalStateException("a network records one telemetry");
        }
        this.telemetry = t;
        this.telemetryEnd = untilNanos;
        long first = t.startNanos() + t.bucketNanos();
        if (first <= untilNanos) {
            events.push(Math.max(first, now), payload(SAMPLE, 0, 0));
        }
        for (int p = 0; p < portNode.length; p++) {
            port[p * PORT_WORDS + P_PEAK] = 0;
        }
        Arrays.fill(bucketDrops, 0);
    }

    /** Runs every event up to and including {@code untilNanos}; then the clock reads {@code untilNanos}. */
    public void runUntil(long untilNanos) {
        forgetTimeouts();
        while (!events.isEmpty() && events.peekTime() <= untilNanos) {
            step();
        }
        now = Math.max(now, untilNanos);
    }

    /**
     * Runs events until {@code done} holds (checked before each event) or the next event is
     * after {@code deadlineNanos}; returns whether {@code done} holds.
     */
    public boolean runUntil(BooleanSupplier done, long deadlineNanos) {
        forgetTimeouts();
        while (!done.getAsBoolean()) {
            if (events.isEmpty() || events.peekTime() > deadlineNanos) {
                now = Math.max(now, Math.min(deadlineNanos, events.peekTime()));
                return done.getAsBoolean();
            }
            step();
        }
        return true;
    }

    private static long payload(int kind, int a, int b) {
        return ((long) kind << 60) | ((long) a << 30) | (b & MASK30);
    }

    private void step() {
        long t = events.peekTime();
        long e = events.poll();
        if (t == lastStepTime) {
            if (++sameTimeSteps > 50_000_000L) {
                throw new IllegalStateException("livelock at t=" + t + "ns: events keep arriving at the same instant (seed "
                        + seed + ")");
            }
        } else {
            sameTimeSteps = 0;
            lastStepTime = t;
        }
        now = t;
        int kind = (int) (e >>> 60);
        int a = (int) ((e >>> 30) & MASK30);
        int b = (int) (e & MASK30);
        switch (kind) {
            case ARRIVE -> arrive(a, b);
            case TIMER -> timer(a, b);
            case NIC -> nic(a, b);
            case ACTION -> {
                Runnable r = actions.set(a, null);
                forgetTimeouts();
                r.run();
            }
            case SAMPLE -> sample();
            default -> throw new IllegalStateException("unknown event kind " + kind);
        }
    }

    /** Code outside the transports' own calls may have changed any of them. */
    private void forgetTimeouts() {
        Arrays.fill(knownTimeout, UNKNOWN_TIMEOUT);
    }

    /** The routing table, for tests. */
    Routing routingForTest() {
        return routing;
    }

    /** Host {@code h}'s next timeout, asking its transport only if it may have changed since last asked. */
    private long timeoutOf(int h) {
        long at = knownTimeout[h];
        if (at == UNKNOWN_TIMEOUT) {
            at = transports[h].pollTimeoutNanos();
            knownTimeout[h] = at;
        }
        return at;
    }

    private void sample() {
        telemetry.sample(this);
        long next = now + telemetry.bucketNanos();
        if (next <= telemetryEnd) {
            events.push(next, payload(SAMPLE, 0, 0));
        }
    }

    // =====================================================================================
    // Packets through the fabric
    // =====================================================================================

    /** Packet {@code pkt} arrives at the node owning {@code ingress}, the far end of the link it crossed. */
    private void arrive(int pkt, int ingress) {
        if (!up[ingress]) {
            // In flight on a link that failed meanwhile.
            portBlackholeDrops[ingress ^ 1]++;
            bucketDrops[ingress ^ 1]++;
            packets.release(pkt);
            return;
        }
        int node = portNode[ingress];
        if (node < hosts) {
            deliver(node, pkt);
            return;
        }
        int out = choosePort(node, packets.dstHost(pkt), packets.tupleHash(pkt));
        if (out < 0) {
            portBlackholeDrops[ingress]++;
            packets.release(pkt);
            return;
        }
        enqueue(out, pkt);
    }

    private int choosePort(int node, int dst, long tuple) {
        int n = routing.groupSize(node, dst);
        if (n == 0) {
            return -1;
        }
        if (n == 1) {
            return routing.port(node, dst, 0);
        }
        long h = mix(tuple ^ salt[node]);
        int index = (int) (((h >>> 32) * n) >>> 32);
        return routing.port(node, dst, index);
    }

    private void deliver(int host, int pkt) {
        SimTransport t = transports[host];
        PacketPool pp = packets;
        int length = pp.length(pkt);
        hostDelivered[host] += length;
        if (t != null) {
            knownTimeout[host] = UNKNOWN_TIMEOUT;
            t.handleDatagram(now, pp.buffer(pkt), 0, length, pp.dstSocket(pkt),
                    address(pp.srcHost(pkt), pp.srcSocket(pkt)), pp.ecn(pkt));
        }
        pp.release(pkt);
        if (t != null) {
            pump(host);
            armTimer(host);
        }
    }

    /** Takes off port {@code p}'s ring the packets whose serialization has ended by now. */
    private void drain(int p) {
        long[] pr = port;
        int r = p * PORT_WORDS;
        if ((int) pr[r + P_RING] == 0) {
            return;
        }
        long nowPicos = now * 1000;
        if (pr[r + P_BUSY] <= nowPicos) {
            // The last packet has left, so every one has (departures are in ring order): the
            // ring empties without reading it (its next entry goes first), and the queue with it
            // (it counts the ring's bytes).
            pr[r + P_RING] = 0;
            pr[r + P_QUEUED] = 0;
            return;
        }
        if (pr[r + P_HEAD_DONE] > nowPicos) {
            return; // the first packet is still leaving
        }
        drainLeft(p, nowPicos);
    }

    /**
     * {@link #drain}'s walk of the ring, out of line: it runs only when some but not all queued
     * packets have left, and kept inline it made {@link #enqueue} (which inlines {@code drain})
     * big enough in machine code that C2 refused to inline it where it compiled first.
     */
    private void drainLeft(int p, long nowPicos) {
        long[] pr = port;
        int r = p * PORT_WORDS;
        long headSize = pr[r + P_RING];
        int size = (int) headSize;
        long[] entries = ring[p];
        int mask = (entries.length >>> 1) - 1;
        int head = (int) (headSize >>> 32);
        long q = pr[r + P_QUEUED];
        while (size > 0 && entries[2 * head] <= nowPicos) {
            q -= entries[2 * head + 1];
            head = (head + 1) & mask;
            size--;
        }
        pr[r + P_RING] = ((long) head << 32) | size;
        pr[r + P_QUEUED] = q;
        // Not empty: the last packet is still leaving (checked above), so a first one remains.
        pr[r + P_HEAD_DONE] = entries[2 * head];
    }

    /**
     * Puts packet {@code pkt} on output port {@code p}: black hole, tail drop, marking, departure,
     * arrival. Most of a switch's work (62 % of a permutation's events are arrivals at a switch),
     * so the rare outcomes are methods of their own: in one method (415 bytes of bytecode) it was
     * over C2's limit for inlining a hot method (325), and every hop made a call.
     */
    private void enqueue(int p, int pkt) {
        long[] pr = port;
        int r = p * PORT_WORDS;
        if (pr[r + P_DOWN] != 0) {
            dropBlackholed(p, pkt);
            return;
        }
        drain(p);
        int frame = packets.length(pkt) + FRAME_OVERHEAD_BYTES;
        long q = pr[r + P_QUEUED];
        if (q + frame > pr[r + P_BUFFER]) {
            dropTail(p, pkt);
            return;
        }
        int ecn = packets.ecn(pkt);
        // Below the lower threshold and without extra marking, markIfCongested neither marks nor
        // draws a random number: an ECT hop there makes no call (C2 does not inline it).
        if ((ecn == 1 || ecn == 2) && (q >= pr[r + P_ECN_MIN] || pr[r + P_EXTRA_MARK] != 0)) {
            markIfCongested(p, pkt, q);
        }
        long startPicos = Math.max(now * 1000, pr[r + P_BUSY]);
        long donePicos = startPicos + (long) (frame + WIRE_GAP_BYTES) * pr[r + P_PICOS_PER_BYTE];
        pr[r + P_BUSY] = donePicos;
        pushRing(p, donePicos, frame);
        q += frame;
        pr[r + P_QUEUED] = q;
        if (q > pr[r + P_PEAK]) {
            pr[r + P_PEAK] = q;
        }
        pr[r + P_TX_PACKETS]++;
        pr[r + P_TX_BYTES] += frame;
        if (pr[r + P_LOSS] != 0 && lostOnLink(p, pkt)) {
            return;
        }
        events.push((donePicos + 999) / 1000 + pr[r + P_PROPAGATION], payload(ARRIVE, pkt, p ^ 1));
    }

    /** Packet {@code pkt} sent onto port {@code p}'s failed link: lost. */
    private void dropBlackholed(int p, int pkt) {
        portBlackholeDrops[p]++;
        bucketDrops[p]++;
        packets.release(pkt);
    }

    /** Packet {@code pkt} finds no room in port {@code p}'s buffer: dropped. */
    private void dropTail(int p, int pkt) {
        portTailDrops[p]++;
        bucketDrops[p]++;
        packets.release(pkt);
    }

    /** Marks ECT packet {@code pkt} CE if port {@code p}'s queue of {@code q} bytes, or its plane's degradation, says so. */
    private void markIfCongested(int p, int pkt, long q) {
        long extra = port[p * PORT_WORDS + P_EXTRA_MARK];
        if (shouldMark(p, q) || (extra != 0 && random.nextDouble() < probability(extra))) {
            packets.ecn(pkt, 3);
            portMarks[p]++;
        }
    }

    /** Whether port {@code p}'s lossy link loses packet {@code pkt} (then released), drawing the loss. */
    private boolean lostOnLink(int p, int pkt) {
        if (random.nextDouble() < probability(port[p * PORT_WORDS + P_LOSS])) {
            portLossDrops[p]++;
            packets.release(pkt);
            return true;
        }
        return false;
    }

    private boolean shouldMark(int p, long q) {
        int r = p * PORT_WORDS;
        long min = port[r + P_ECN_MIN];
        if (q < min) {
            return false;
        }
        long max = port[r + P_ECN_MAX];
        if (q >= max) {
            return true;
        }
        double prob = probability(port[r + P_ECN_MAX_P]) * (q - min) / (double) (max - min);
        return random.nextDouble() < prob;
    }

    private void pushRing(int p, long donePicos, int bytes) {
        int r = p * PORT_WORDS;
        long headSize = port[r + P_RING];
        int size = (int) headSize;
        long[] entries = ring[p];
        if (size == entries.length >>> 1) {
            entries = growRing(p);
            headSize = port[r + P_RING];
        }
        int tail = ((int) (headSize >>> 32) + size) & ((entries.length >>> 1) - 1);
        entries[2 * tail] = donePicos;
        entries[2 * tail + 1] = bytes;
        port[r + P_RING] = headSize + 1;
        if (size == 0) {
            port[r + P_HEAD_DONE] = donePicos;
        }
    }

    /** Doubles port {@code p}'s full ring, its entries moved to the front in order; returns it. */
    private long[] growRing(int p) {
        int r = p * PORT_WORDS;
        long headSize = port[r + P_RING];
        int size = (int) headSize;
        int head = (int) (headSize >>> 32);
        long[] entries = ring[p];
        int capacity = entries.length >>> 1;
        long[] grown = new long[2 * 2 * capacity];
        for (int i = 0; i < size; i++) {
            int j = (head + i) & (capacity - 1);
            grown[2 * i] = entries[2 * j];
            grown[2 * i + 1] = entries[2 * j + 1];
        }
        ring[p] = grown;
        port[r + P_RING] = size; // head 0
        return grown;
    }

    // =====================================================================================
    // Host NICs and timers
    // =====================================================================================

    /** Pulls datagrams from host {@code h}'s transport while its NIC can take them. */
    private void pump(int h) {
        SimTransport t = transports[h];
        if (t == null) {
            return;
        }
        int[] nic = hostNic[h];
        long nowPicos = now * 1000;
        while (true) {
            boolean idle = false;
            int backlog = 0;
            long firstDone = Long.MAX_VALUE;
            for (int p : nic) {
                drain(p);
                long headSize = port[p * PORT_WORDS + P_RING];
                if (port[p * PORT_WORDS + P_BUSY] <= nowPicos) {
                    idle = true;
                } else {
                    backlog += (int) headSize - 1;
                    firstDone = Math.min(firstDone, port[p * PORT_WORDS + P_HEAD_DONE]);
                }
            }
            if (!idle || backlog >= planes) {
                nicBlocked[h] = true;
                armNic(h, (firstDone + 999) / 1000);
                return;
            }
            // The transport writes straight into a packet's pooled buffer: no copy on the way.
            int pkt = packets.allocate();
            knownTimeout[h] = UNKNOWN_TIMEOUT;
            if (!t.pollTransmit(now, packets.transmit[pkt])) {
                packets.release(pkt);
                nicBlocked[h] = false;
                return;
            }
            send(h, pkt);
        }
    }

    private void send(int h, int pkt) {
        Transmit tx = packets.transmit[pkt];
        if (!(tx.remoteAddress instanceof SimAddress to)) {
            packets.release(pkt);
            throw new IllegalStateException("host " + h + "'s transport sent to " + tx.remoteAddress
                    + ": remote addresses in the simulator are SimAddress objects (Network.address)");
        }
        if (tx.length < 0 || tx.length > packets.bufferBytes()) {
            packets.release(pkt);
            throw new IllegalStateException("host " + h + "'s transport sent a datagram of " + tx.length
                    + " bytes: the simulator's buffers hold 0 to " + packets.bufferBytes());
        }
        packets.set(pkt, tx.length, h, to.host(), tx.localSocket, to.socket(), tx.ecn,
                tupleHash(h, to.host(), tx.localSocket, to.socket()));
        enqueue(hostNic[h][planeOf(tx.localSocket, to.socket())], pkt);
    }

    private void armNic(int h, long at) {
        if (nicPending[h] && nicAt[h] <= at) {
            return;
        }
        nicPending[h] = true;
        nicAt[h] = at;
        int gen = (nicGen[h] + 1) & (int) MASK30;
        nicGen[h] = gen;
        events.push(at, payload(NIC, h, gen));
    }

    private void nic(int h, int gen) {
        if (gen != nicGen[h] || !nicPending[h]) {
            return; // superseded by an earlier wake-up
        }
        nicPending[h] = false;
        if (timeoutOf(h) <= now) {
            knownTimeout[h] = UNKNOWN_TIMEOUT;
            transports[h].handleTimeout(now);
        }
        pump(h);
        armTimer(h);
    }

    private void armTimer(int h) {
        long at = timeoutOf(h);
        if (at <= now && nicBlocked[h]) {
            // Work due now that waits for the NIC (an ACK to send, say): the NIC wake-up handles it.
            return;
        }
        at = Math.max(at, now);
        if (at == Long.MAX_VALUE || (timerPending[h] && timerAt[h] <= at)) {
            return;
        }
        timerPending[h] = true;
        timerAt[h] = at;
        int gen = (timerGen[h] + 1) & (int) MASK30;
        timerGen[h] = gen;
        events.push(at, payload(TIMER, h, gen));
    }

    private void timer(int h, int gen) {
        if (gen != timerGen[h] || !timerPending[h]) {
            return;
        }
        timerPending[h] = false;
        if (timeoutOf(h) <= now) {
            knownTimeout[h] = UNKNOWN_TIMEOUT;
            transports[h].handleTimeout(now);
        }
        pump(h);
        armTimer(h);
    }

    // =====================================================================================
    // Faults
    // =====================================================================================

    /**
     * At {@code atNanos}, link {@code link} fails in both directions: everything sent onto it or
     * in flight on it is lost. If {@code withdrawAfterNanos >= 0}, routing withdraws the link that
     * much later (ECMP then avoids it); otherwise it stays a black hole.
     */
    public void failLink(int link, long atNanos, long withdrawAfterNanos) {
        checkLink(link);
        schedule(atNanos, () -> {
            up[2 * link] = false;
            up[2 * link + 1] = false;
            port[2 * link * PORT_WORDS + P_DOWN] = 1;
            port[(2 * link + 1) * PORT_WORDS + P_DOWN] = 1;
        });
        if (withdrawAfterNanos >= 0) {
            schedule(atNanos + withdrawAfterNanos, () -> {
                routable[2 * link] = false;
                routable[2 * link + 1] = false;
                routing.compute(nodePorts, portPeerTable(portNode.length), portNode, routable);
            });
        }
    }

    /** Fails every link of plane {@code plane} at {@code atNanos}, as {@link #failLink} does. */
    public void failPlane(int plane, long atNanos, long withdrawAfterNanos) {
        for (int l = 0; l < linkCount(); l++) {
            if (portPlane(2 * l) == plane) {
                failLink(l, atNanos, withdrawAfterNanos);
            }
        }
    }

    /** Sets the probability that link {@code link} loses a packet, in both directions, from now on. */
    public void setLinkLoss(int link, double probability) {
        checkLink(link);
        checkProbability(probability);
        port[2 * link * PORT_WORDS + P_LOSS] = probabilityBits(probability);
        port[(2 * link + 1) * PORT_WORDS + P_LOSS] = probabilityBits(probability);
    }

    /** Sets the loss probability of every link. */
    public void setLossEverywhere(double probability) {
        for (int l = 0; l < linkCount(); l++) {
            setLinkLoss(l, probability);
        }
    }

    /**
     * At {@code atNanos}, degrades plane {@code plane}: every switch port in it marks ECT packets
     * with the extra probability {@code markProbability} (on top of its queue rule), and every
     * link in it (host links included) loses packets with {@code lossProbability}.
     */
    public void degradePlane(int plane, long atNanos, double markProbability, double lossProbability) {
        if (plane < 0 || plane >= planes) {
            throw new IllegalArgumentException("plane " + plane + " not in [0, " + planes + ")");
        }
        checkProbability(markProbability);
        checkProbability(lossProbability);
        schedule(atNanos, () -> {
            for (int p = 0; p < portNode.length; p++) {
                if (portPlane(p) == plane) {
                    if (portNode[p] >= hosts) {
                        port[p * PORT_WORDS + P_EXTRA_MARK] = probabilityBits(markProbability);
                    }
                    port[p * PORT_WORDS + P_LOSS] = probabilityBits(lossProbability);
                }
            }
        });
    }

    private void checkLink(int link) {
        if (link < 0 || link >= linkCount()) {
            throw new IllegalArgumentException("link " + link + " not in [0, " + linkCount() + ")");
        }
    }

    private static void checkProbability(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("a probability is in [0, 1], got " + p);
        }
    }

    // =====================================================================================
    // Counters
    // =====================================================================================

    /** Bytes queued at output port {@code port} now (including the packet being sent). */
    public long portDepth(int port) {
        drain(port);
        return this.port[port * PORT_WORDS + P_QUEUED];
    }

    /** Largest depth of {@code port} since the last call (or the start of recording); resets it to the current depth. */
    long takePeakDepth(int port) {
        int r = port * PORT_WORDS;
        long peak = Math.max(this.port[r + P_PEAK], portDepth(port));
        this.port[r + P_PEAK] = this.port[r + P_QUEUED];
        return peak;
    }

    long takeBucketDrops(int port) {
        long d = bucketDrops[port];
        bucketDrops[port] = 0;
        return d;
    }

    /** Packets tail-dropped at {@code port}. */
    public long portTailDrops(int port) {
        return portTailDrops[port];
    }

    /** Packets lost at {@code port} to a failed link (or, counted at the ingress, to a missing route). */
    public long portBlackholeDrops(int port) {
        return portBlackholeDrops[port];
    }

    /** Packets {@code port}'s link lost at random. */
    public long portLossDrops(int port) {
        return portLossDrops[port];
    }

    /** Packets {@code port} marked CE. */
    public long portMarks(int port) {
        return portMarks[port];
    }

    /** Packets {@code port} started to send (lost ones included). */
    public long portTxPackets(int port) {
        return this.port[port * PORT_WORDS + P_TX_PACKETS];
    }

    /** Frame bytes {@code port} started to send (lost ones included). */
    public long portTxBytes(int port) {
        return this.port[port * PORT_WORDS + P_TX_BYTES];
    }

    /** Tail drops over all ports. */
    public long tailDrops() {
        return sum(portTailDrops);
    }

    /** Black-hole drops over all ports. */
    public long blackholeDrops() {
        return sum(portBlackholeDrops);
    }

    /** Random-loss drops over all links. */
    public long lossDrops() {
        return sum(portLossDrops);
    }

    /** CE marks over all ports. */
    public long marks() {
        return sum(portMarks);
    }

    /** Datagram bytes delivered to host {@code host}'s transport. */
    public long hostReceivedBytes(int host) {
        return hostDelivered[host];
    }

    /** Packets in the network now (in flight or queued). */
    public int packetsInFlight() {
        return packets.inUse();
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    // =====================================================================================
    // Hashing
    // =====================================================================================

    private static long tupleHash(int srcHost, int dstHost, int srcSocket, int dstSocket) {
        long h = 17; // UDP
        h = h * 0x9E3779B97F4A7C15L + srcHost;
        h = h * 0x9E3779B97F4A7C15L + dstHost;
        h = h * 0x9E3779B97F4A7C15L + SimAddress.port(srcSocket);
        h = h * 0x9E3779B97F4A7C15L + SimAddress.port(dstSocket);
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
