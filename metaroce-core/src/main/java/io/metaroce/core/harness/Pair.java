package io.metaroce.core.harness;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.PeerAddressCodec;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.ConnectionState;
import io.metaroce.core.conn.Endpoint;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Two endpoints, a client and a server, joined by an in-memory network with a manual clock:
 * loss, duplication, bit corruption, delay, jitter and per-path skew (so paths reorder against
 * each other while each keeps its own order), all deterministic from one seed.
 *
 * <p>{@link #step()} advances virtual time to the next arrival or timer and runs it; the
 * {@code drive} methods step until a condition holds and fail, naming the seed, when it cannot.
 * The same engine code runs here as on real sockets: this is a driver, not a model.
 *
 * <p>Congestion control: unless a test passes a controller factory, both sides run a
 * {@link FixedWindowController} ({@link EngineConfig#congestionWindowBytes()}), not the endpoints'
 * default {@code AimdController}: a test of reliability, ordering or the API then sees the
 * transport alone, with no window cut that would make its outcome depend on congestion control.
 * Tests of congestion control pass {@code AimdController::new}.
 *
 * <p>Addresses are small {@code Integer}s (so boxing them allocates nothing): the server is 1,
 * the client's path {@code i} is {@code 16 + i}. Not thread-safe.
 */
public final class Pair {
    /** The server's address. */
    public static final int SERVER_ADDRESS = 1;
    private static final int CLIENT_BASE = 16;
    /** Address codec for the harness's Integer addresses. */
    public static final PeerAddressCodec INTEGER_ADDRESSES = (address, out) -> {
        int v = (Integer) address;
        out[0] = (byte) (v >>> 24);
        out[1] = (byte) (v >>> 16);
        out[2] = (byte) (v >>> 8);
        out[3] = (byte) v;
        return 4;
    };

    private final long seed;
    private final SplittableRandom random;
    private final NetworkConditions conditions;
    private final Endpoint client;
    private final Endpoint server;
    private final int paths;
    private final long[] pathSkewNanos;
    private final long[] lastArrivalClientToServer;
    private final long[] lastArrivalServerToClient;
    private final DatagramQueue inFlight;
    private final Transmit transmit;
    private LossModel lossModel = LossModel.NONE;
    private CompletionHandler clientCompletions = (c, s, w, o, st, b, i, h) -> { };
    private CompletionHandler serverCompletions = (c, s, w, o, st, b, i, h) -> { };
    private ConnectionListener serverEvents = new ConnectionListener() { };
    private ConnectionListener clientEvents = new ConnectionListener() { };
    private Connection clientConnection;
    private Connection serverConnection;
    private long now;
    private long stepsWithoutProgress;
    /** Time each side's NIC takes per datagram (0: it takes any number at once). */
    private long nicNanosPerDatagram;
    /** When the client's / server's NIC can take the next datagram. */
    private long clientNicFreeNanos;
    private long serverNicFreeNanos;
    /** Whether the last {@link #flush} polled the client / server until it had nothing to send. */
    private boolean clientPolledOut = true;
    private boolean serverPolledOut = true;

    private long dropped;
    private long duplicated;
    private long corrupted;
    private long delivered;
    private long ceMarked;

    private Pair(long seed, int paths, NetworkConditions conditions, EngineConfig clientConfig, EngineConfig serverConfig,
            Function<EngineConfig, CongestionController> clientCongestion,
            Function<EngineConfig, CongestionController> serverCongestion) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.conditions = conditions;
        this.paths = paths;
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        Endpoint.Builder clientBuilder = Endpoint.builder(new SplittableRandom(random.nextLong()), secret,
                INTEGER_ADDRESSES).config(clientConfig);
        clientBuilder.congestionController(clientCongestion != null ? clientCongestion : FixedWindowController::new);
        this.client = clientBuilder.build();
        byte[] serverSecret = new byte[32];
        random.nextBytes(serverSecret);
        Endpoint.Builder serverBuilder = Endpoint.builder(new SplittableRandom(random.nextLong()), serverSecret,
                INTEGER_ADDRESSES).config(serverConfig).listening(true);
        serverBuilder.congestionController(serverCongestion != null ? serverCongestion : FixedWindowController::new);
        this.server = serverBuilder.build();
        this.pathSkewNanos = new long[Math.max(paths, 1)];
        for (int i = 0; i < pathSkewNanos.length; i++) {
            pathSkewNanos[i] = conditions.pathSkewNanos() == 0 ? 0 : random.nextLong(conditions.pathSkewNanos() + 1);
        }
        this.lastArrivalClientToServer = new long[Math.max(paths, 1)];
        this.lastArrivalServerToClient = new long[Math.max(paths, 1)];
        int bytes = Math.max(clientConfig.maxDatagramBytes(), serverConfig.maxDatagramBytes());
        this.inFlight = new DatagramQueue(bytes);
        this.transmit = new Transmit(ByteBuffer.allocate(bytes));
    }

    /** A pair with {@code paths} paths and the given network, both sides on {@code config} with a fixed window. */
    public static Pair create(long seed, int paths, NetworkConditions conditions, EngineConfig config) {
        return new Pair(seed, paths, conditions, config, config, null, null);
    }

    /** A pair whose client and server use different configurations, both with a fixed window. */
    public static Pair create(long seed, int paths, NetworkConditions conditions, EngineConfig clientConfig,
            EngineConfig serverConfig) {
        return new Pair(seed, paths, conditions, clientConfig, serverConfig, null, null);
    }

    /**
     * A pair whose client and server make their connections' congestion controllers with the
     * given factories ({@code null}: a {@link FixedWindowController}, the harness's choice, not the
     * endpoints' default).
     */
    public static Pair create(long seed, int paths, NetworkConditions conditions, EngineConfig config,
            Function<EngineConfig, CongestionController> clientCongestion,
            Function<EngineConfig, CongestionController> serverCongestion) {
        return new Pair(seed, paths, conditions, config, config, clientCongestion, serverCongestion);
    }

    /**
     * A pair with its own configuration and congestion-controller factory on each side
     * ({@code null} factory: a {@link FixedWindowController}, the harness's choice, not the
     * endpoints' default).
     */
    public static Pair create(long seed, int paths, NetworkConditions conditions, EngineConfig clientConfig,
            EngineConfig serverConfig, Function<EngineConfig, CongestionController> clientCongestion,
            Function<EngineConfig, CongestionController> serverCongestion) {
        return new Pair(seed, paths, conditions, clientConfig, serverConfig, clientCongestion, serverCongestion);
    }

    // ---- wiring ----

    public Pair lossModel(LossModel model) {
        this.lossModel = model;
        return this;
    }

    /**
     * Pools buffers for {@code datagrams} datagrams in flight now, so that the network itself
     * allocates nothing until its flight exceeds that; for tests that measure the engine's
     * allocation over a long run, in which the flight keeps reaching new peaks.
     */
    public Pair reserveDatagrams(int datagrams) {
        inFlight.reserve(datagrams);
        return this;
    }

    /**
     * Gives each side a NIC that takes {@code nanos} to put a datagram on the wire: while it is
     * busy the side is not polled for datagrams (its timers, ACKs and paced packets wait, as on a
     * host whose link is the bottleneck, like the simulator's), and the time it frees is an event
     * of {@link #step()}. 0 (the default): a side is polled until it has nothing to send.
     */
    public Pair nicNanosPerDatagram(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("nicNanosPerDatagram must be 0 or more, got " + nanos);
        }
        this.nicNanosPerDatagram = nanos;
        return this;
    }

    /**
     * Whether the last {@link #flush} polled {@code side} (this pair's client or server) until it
     * had nothing to send; false while its NIC held its datagrams back.
     */
    public boolean polledOut(Endpoint side) {
        return side == client ? clientPolledOut : serverPolledOut;
    }

    public Pair onClientCompletion(CompletionHandler handler) {
        this.clientCompletions = handler;
        return this;
    }

    public Pair onServerCompletion(CompletionHandler handler) {
        this.serverCompletions = handler;
        return this;
    }

    public Pair onServerEvents(ConnectionListener listener) {
        this.serverEvents = listener;
        return this;
    }

    /** Receives the client endpoint's events (connected, path state changes, closed). */
    public Pair onClientEvents(ConnectionListener listener) {
        this.clientEvents = listener;
        return this;
    }

    // ---- getters ----

    public long seed() { return seed; }
    public long now() { return now; }
    public Endpoint client() { return client; }
    public Endpoint server() { return server; }
    public Connection clientConnection() { return clientConnection; }
    public Connection serverConnection() { return serverConnection; }
    /** Datagrams dropped by random loss or the loss model. */
    public long dropped() { return dropped; }
    public long duplicated() { return duplicated; }
    public long corrupted() { return corrupted; }
    public long delivered() { return delivered; }
    public long ceMarked() { return ceMarked; }
    /** Datagrams in flight in the network. */
    public int inFlight() { return inFlight.size(); }

    /** The address the client's path {@code pathId} sends from (its own source port). */
    public static Integer clientAddress(int pathId) {
        return CLIENT_BASE + pathId;
    }

    // ---- driving ----

    /** Opens the connection and drives until both sides have it established. */
    public Pair connect() {
        int[] sockets = new int[paths];
        for (int i = 0; i < paths; i++) {
            sockets[i] = i;
        }
        clientConnection = client.connect(now, SERVER_ADDRESS, sockets);
        flush();
        driveUntil(() -> clientConnection.state() == ConnectionState.ESTABLISHED && serverConnection != null,
                10_000_000_000L, "handshake");
        return this;
    }

    /**
     * Runs the next event (an arrival, or the earliest timer) and everything it causes.
     *
     * @return false if nothing is left to happen
     */
    public boolean step() {
        // Work posted since the last step (a command) may be ready to go: poll it out first.
        flush();
        long arrival = inFlight.peekTime();
        long timer = Math.min(timerOf(client), timerOf(server));
        long t = Math.min(arrival, timer);
        if (t == Long.MAX_VALUE) {
            return false;
        }
        if (t > now) {
            now = t;
            stepsWithoutProgress = 0;
        } else if (++stepsWithoutProgress > 1_000_000) {
            throw new AssertionError("livelock at t=" + now + "ns: the engines keep asking for time 'now' (seed " + seed + ")");
        }
        if (arrival <= timer) {
            deliver(inFlight.pop());
        } else {
            client.handleTimeout(now);
            server.handleTimeout(now);
        }
        flush();
        return true;
    }

    /**
     * {@code side}'s next event: its next timeout, or, while its NIC holds datagrams back, the
     * time that NIC frees if that is later (work due now that waits for the NIC: an ACK to send).
     */
    private long timerOf(Endpoint side) {
        long t = side.pollTimeoutNanos();
        if (side == client ? clientPolledOut : serverPolledOut) {
            return t;
        }
        return Math.max(t, side == client ? clientNicFreeNanos : serverNicFreeNanos);
    }

    /** Steps until {@code done} holds; fails naming the seed if it does not within {@code maxNanos} of virtual time. */
    public void driveUntil(BooleanSupplier done, long maxNanos, String what) {
        long deadline = now + maxNanos;
        while (!done.getAsBoolean()) {
            if (now > deadline || !step()) {
                throw new AssertionError(what + " did not finish by t=" + now + "ns (seed " + seed
                        + "; network " + conditions + "; in flight " + inFlight.size() + ")");
            }
        }
    }

    /** Advances virtual time by {@code nanos}, running everything due meanwhile. */
    public void advance(long nanos) {
        long until = now + nanos;
        flush();
        while (true) {
            long next = Math.min(inFlight.peekTime(), Math.min(timerOf(client), timerOf(server)));
            if (next > until) {
                break;
            }
            step();
        }
        now = Math.max(now, until);
    }

    /**
     * Polls both sides' outputs: completions first (as the UDP driver does, so what a handler posts
     * in answer, an echo or the next request, leaves with the ACKs), datagrams into the network,
     * completions again (a transmit can fail a work request) and events to the handlers.
     */
    public void flush() {
        client.pollCompletions(clientCompletions, Integer.MAX_VALUE);
        server.pollCompletions(serverCompletions, Integer.MAX_VALUE);
        clientPolledOut = false;
        while (clientNicFreeNanos <= now) {
            if (!client.pollTransmit(now, transmit)) {
                clientPolledOut = true;
                break;
            }
            send(true);
            clientNicFreeNanos = now + nicNanosPerDatagram;
        }
        serverPolledOut = false;
        while (serverNicFreeNanos <= now) {
            if (!server.pollTransmit(now, transmit)) {
                serverPolledOut = true;
                break;
            }
            send(false);
            serverNicFreeNanos = now + nicNanosPerDatagram;
        }
        client.pollCompletions(clientCompletions, Integer.MAX_VALUE);
        server.pollCompletions(serverCompletions, Integer.MAX_VALUE);
        client.pollEvents(clientListener);
        server.pollEvents(serverListener);
    }

    private final ConnectionListener clientListener = new ConnectionListener() {
        @Override
        public void onConnected(Connection connection) {
            clientEvents.onConnected(connection);
        }

        @Override
        public void onPathStateChanged(Connection connection, int pathId, int state) {
            clientEvents.onPathStateChanged(connection, pathId, state);
        }

        @Override
        public void onClosed(Connection connection, io.metaroce.core.api.CloseReason reason) {
            clientEvents.onClosed(connection, reason);
        }
    };

    private final ConnectionListener serverListener = new ConnectionListener() {
        @Override
        public void onAccepted(Connection connection) {
            serverConnection = connection;
            serverEvents.onAccepted(connection);
        }

        @Override
        public void onPathStateChanged(Connection connection, int pathId, int state) {
            serverEvents.onPathStateChanged(connection, pathId, state);
        }

        @Override
        public void onClosed(Connection connection, io.metaroce.core.api.CloseReason reason) {
            serverEvents.onClosed(connection, reason);
        }
    };

    private void send(boolean fromClient) {
        int pathId = Math.min(transmit.pathId, pathSkewNanos.length - 1);
        if (lossModel.drop(fromClient, transmit.pathId, transmit.buffer, transmit.length, now)
                || chance(conditions.lossProbability())) {
            dropped++;
            return;
        }
        int copies = chance(conditions.duplicateProbability()) ? 2 : 1;
        if (copies == 2) {
            duplicated++;
        }
        int destination = (Integer) transmit.remoteAddress;
        int source = fromClient ? CLIENT_BASE + transmit.localSocket : SERVER_ADDRESS;
        long[] last = fromClient ? lastArrivalClientToServer : lastArrivalServerToClient;
        for (int c = 0; c < copies; c++) {
            int s = inFlight.allocate();
            ByteBuffer b = inFlight.buffer(s);
            b.put(0, transmit.buffer, 0, transmit.length);
            if (chance(conditions.corruptProbability())) {
                int bit = random.nextInt(transmit.length * 8);
                b.put(bit >>> 3, (byte) (b.get(bit >>> 3) ^ (1 << (bit & 7))));
                corrupted++;
            }
            int ecn = transmit.ecn;
            if (ecn != 0 && conditions.ceMarksPath(transmit.pathId) && chance(conditions.ceMarkProbability())) {
                ecn = 3;
                ceMarked++;
            }
            long jitter = conditions.jitterNanos() == 0 ? 0 : random.nextLong(conditions.jitterNanos() + 1);
            long arrival = now + conditions.delayNanos() + pathSkewNanos[pathId] + jitter;
            if (conditions.inPathReorderNanos() == 0) {
                // A path keeps order: nothing overtakes what was sent before it on the same path.
                arrival = Math.max(arrival, last[pathId]);
                last[pathId] = arrival;
            } else {
                arrival += random.nextLong(conditions.inPathReorderNanos() + 1);
            }
            inFlight.push(s, transmit.length, destination, source, ecn, arrival);
        }
    }

    private void deliver(int s) {
        delivered++;
        int destination = inFlight.destination(s);
        Integer from = inFlight.source(s);
        if (destination == SERVER_ADDRESS) {
            server.handleDatagram(now, inFlight.buffer(s), 0, inFlight.length(s), 0, from, inFlight.ecn(s));
        } else {
            client.handleDatagram(now, inFlight.buffer(s), 0, inFlight.length(s), destination - CLIENT_BASE, from,
                    inFlight.ecn(s));
        }
        inFlight.release(s);
    }

    private boolean chance(double p) {
        return p > 0 && random.nextDouble() < p;
    }
}
