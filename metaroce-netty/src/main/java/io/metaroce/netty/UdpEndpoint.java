package io.metaroce.netty;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.Endpoint;
import io.metaroce.core.conn.EndpointStats;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MetaRoCE endpoint on real UDP sockets: one engine {@link Endpoint}, one Netty event loop, and
 * a table of UDP sockets indexed by the engine's {@code localSocket} ids. Sockets {@code 0..P-1}
 * are the listen sockets, one per {@linkplain Builder#planes plane} (bound to the plane's address
 * and {@code listenPort}; one plane, {@code bindAddress}, by default); each outgoing connection gets
 * one extra socket per path, path {@code i} on plane {@code i mod P}, bound to a port of that
 * plane's address (ephemeral, or the next free one of the {@linkplain Builder#sourcePortRange
 * source-port range}), so each path has its own UDP source port (its ECMP entropy). An accepted
 * connection answers every path from the listen socket it arrived on, to the source port it came
 * from.
 *
 * <p>Sockets come from a socket layer (the {@link Datapath}): the endpoint above it is the same
 * whatever the layer. The portable layer is Netty's NIO datagram channel.
 *
 * <p>Datapath: received datagrams go to {@link Endpoint#handleDatagram} (the engine only borrows
 * the buffer); once per read batch, after each timer and after each batch of application tasks,
 * the endpoint drains {@link Endpoint#pollTransmit} into its sockets, flushes each touched socket
 * once, then polls completions and events and keeps one timer, moved only when the
 * engine's deadline moves earlier.
 *
 * <p>ECN: where the socket layer cannot read the IP TOS byte of received datagrams (NIO), every
 * datagram reaches the engine as Not-ECT, {@link UdpEndpointStats#ecnCapable()} is false, one log
 * line says so, and congestion control has loss and delay to go on.
 *
 * <p>Thread safety: every public method may be called from any thread except where noted. The
 * engine and all datapath state are confined to the endpoint's single event loop; public methods
 * hand work over with {@code execute}. Methods that return a value from the engine
 * ({@link #register}, {@link #deregister}, {@link #stats}, {@link UdpConnection#stats}) block the
 * caller until the event loop has run them, and run inline when called on the event loop.
 * {@link Builder#build()} and {@link #close()} block and must not be called on the event loop.
 */
public final class UdpEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UdpEndpoint.class);
    /** The engine's clock starts here, so its time is positive and far from the sentinels. */
    private static final long CLOCK_START_NANOS = 1_000_000_000L;
    /** Bound on blocking calls into the event loop and on close. */
    private static final long BLOCKING_TIMEOUT_SECONDS = 30;
    private static final int COOKIE_SECRET_BYTES = 32;
    /**
     * Datagrams of one path handed to the engine before the endpoint drives it (sends its ACKs) in
     * the middle of a read. An ACK selects the 256 PSNs below the highest one received on its path
     * ([SPEC-SACK-1]), so a sender reads any older packet not yet acknowledged as lost: with GSO
     * runs and GRO one read can bring thousands of datagrams, and one ACK at its end would make
     * the sender resend most of them. Half the SACK window leaves room for the paths to differ.
     * Counted per path ({@link ReadDriveBound}): a read of four paths' datagrams is driven no
     * more often than one path's (docs/benchmarks.md, "Receive datapath round (session 14)").
     */
    static final int DATAGRAMS_PER_DRIVE = 128;
    /**
     * Drives run back to back as loop tasks (passed deadlines' and application threads' posts')
     * before the next one waits for the loop's next look at its sockets. A drive that ends with
     * the engine's deadline already passed runs the timers as the loop's next task, and an
     * application thread's post queues a drive task, but Netty runs tasks queued while it runs its
     * task queue in the same pass, for up to a second ({@code io.netty.eventLoop.maxTaskProcessingQuantumMs}):
     * a saturated sender whose every pacing burst leaves the next one due read no ACK until its
     * window was full or that second was over, and an application thread whose posts arrived one
     * by one while the loop ran its tasks kept it there as long (one drive per post: 46 posts'
     * drives and 9 passed deadlines' between two looks in one run, docs/benchmarks.md, "Driver loop
     * fairness (session 13)"). A drive task of either kind checks the count when it runs; past this
     * many, its drive goes through the timer (1 ns on a {@code timerfd}), which fires in the
     * loop's next I/O pass, the one that reads the sockets: one timer round trip per 16 pacing
     * bursts (about 900 KB at the default 56 KiB) [SPEC-LOSS-12].
     */
    static final int DUE_DEADLINES_PER_LOOK = 16;
    /** Least time between two moves of one path that keeps failing its probes. */
    static final long REPATH_RETRY_NANOS = 50_000_000L;

    private final EngineConfig config;
    private final SocketLayer layer;
    private final SocketLayer.SocketOptions socketOptions;
    private final EventLoopGroup ownedGroup;
    private final EventLoop loop;
    private final InetAddress[] planes;
    private final int firstSourcePort;
    private final int sourcePortCount;
    private final Endpoint endpoint;
    private final AcceptListener acceptListener;
    private final double dropProbability;
    private final boolean repathOnFailure;
    /** Whether the listen sockets accept connections (else they only receive strays). */
    private final boolean listening;
    private final CompletionListener completionListener;
    private final CompletionSink completionSink;
    private final long clockOrigin;
    private final List<InetSocketAddress> localAddresses;
    private final AtomicBoolean closed = new AtomicBoolean();

    // ---- event-loop state ----
    private final Transmit transmit;
    /**
     * Where the engine encodes each datagram when the layer sends in place (null otherwise: one
     * heap buffer, copied by the socket).
     */
    private final SendSlots slots;
    private final SplittableRandom dropRandom;
    private UdpSocket[] sockets = new UdpSocket[16];
    private long[] socketDatagramsReceived = new long[16];
    private boolean[] dirty = new boolean[16];
    private int[] dirtyList = new int[16];
    private int dirtyCount;
    private int socketHighWater;
    private int[] freeSockets = new int[16];
    private int freeSocketCount;
    /** Offset into the source-port range where the next path socket tries to bind. */
    private int nextSourcePort;
    private final Long2ObjectHashMap<UdpConnection> connections = new Long2ObjectHashMap<>();
    /** The engine's one timer; {@link #timerDeadline} is its armed deadline, MAX_VALUE when disarmed. */
    private final LoopTimer timer;
    private long timerDeadline = Long.MAX_VALUE;
    private boolean drivePending;
    /** True while a drive polls its first completions: what their callbacks post leaves in that drive. */
    private boolean collectingPosts;
    private boolean shutDown;
    private long datagramsReceived;
    /** Datagrams of each path handed to the engine since the last drive. */
    private final ReadDriveBound receivedSinceDrive = new ReadDriveBound(DATAGRAMS_PER_DRIVE);
    /** The engine's time of received datagrams: one clock reading per announced receive call. */
    private final ReceiveCallClock receiveClock = new ReceiveCallClock(this::now);
    private long datagramsSent;
    private long datagramsDropped;
    private long sendErrors;
    private long pathsRepathed;
    /** Open sockets that can carry traffic ({@link #isTrafficSocket}); kept at install and release. */
    private int openTrafficSockets;
    /** Drives run inline at the end of a read, the endpoint having one traffic socket (stats). */
    private long readEndDrives;

    /**
     * Drives run from the loop's tasks (passed deadlines', application threads' posts' and, where the
     * timer is itself a task, the timer's) since its last I/O pass: a read, or a timer that fires
     * in the I/O pass ({@link LoopTimer#firesInIoPass}). At most {@link #DUE_DEADLINES_PER_LOOK}:
     * every drive task checks it when it runs ({@link #mayDriveFromTask}).
     */
    private int drivesFromTasksInARow;
    /** How many times {@link #driveTask} drove; event loop only ({@link UdpEndpointStats#postDrivesRun}). */
    private long postDrivesRun;
    /** Drive tasks that found the bound reached and left their drive to the timer (stats). */
    private long postDrivesDeferred;
    private final Runnable driveTask = () -> {
        drivePending = false;
        if (!mayDriveFromTask()) {
            postDrivesDeferred++; // what was posted waits in the engine for the timer's drive
            return;
        }
        postDrivesRun++;
        drive();
    };
    private final Runnable timerTask = this::onTimer;
    /** Whether {@link #dueTask} is queued on the loop. */
    private boolean dueTaskPending;
    /** How many times {@link #dueTask} drove; event loop only ({@link UdpEndpointStats#dueDeadlinesRun}). */
    private long dueDeadlinesRun;
    /**
     * Passed deadlines sent through the timer after {@link #DUE_DEADLINES_PER_LOOK} drives from
     * tasks in a row, when the drive found them or when their task ran (stats).
     */
    private long dueDeadlinesDeferred;
    private final Runnable dueTask = () -> {
        dueTaskPending = false;
        if (!mayDriveFromTask()) {
            dueDeadlinesDeferred++;
            return;
        }
        dueDeadlinesRun++;
        onDue();
    };
    private final CompletionHandler completionHandler = this::onCompletion;
    private final DatagramReceiver receiver = new DatagramReceiver() {
        @Override
        public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                int ecn) {
            UdpEndpoint.this.onDatagram(socketId, data, offset, length, sender, ecn);
        }

        @Override
        public void onReceiveCall(int socketId) {
            drivesFromTasksInARow = 0; // the loop has looked at its sockets
            receiveClock.callStarted();
        }

        @Override
        public void onReadBatchComplete(int socketId) {
            drivesFromTasksInARow = 0; // an I/O pass (NIO's reader makes no onReceiveCall)
            if (!collectingPosts && !drivePending && soleTrafficSocket()) {
                // Nothing else can be read in this turn: answer now (the completions, what their
                // callbacks post and the ACKs leave in this drive) rather than after Netty's task
                // round, which cost a sleeping 64-byte ping-pong about 2 us a side
                // (docs/benchmarks.md, "Latency round (session 11)").
                readEndDrives++;
                drive();
                return;
            }
            // One drive (and one flush per socket) for everything read in this event-loop turn.
            requestDrive();
        }

        @Override
        public void onSocketError(int socketId, Throwable cause) {
            // UDP: a failed write or an ICMP error is a lost datagram; reliability is the engine's job.
            sendErrors++;
            LOG.debug("socket {} error", socketId, cause);
        }
    };
    private final ConnectionListener connectionListener = new ConnectionListener() {
        @Override
        public void onConnected(Connection c) {
            UdpConnection conn = connections.get(c.localId());
            if (conn != null) {
                conn.onConnected();
            }
        }

        @Override
        public void onAccepted(Connection c) {
            UdpConnection conn = new UdpConnection(UdpEndpoint.this, c, new int[0], null);
            connections.put(c.localId(), conn);
            if (acceptListener != null) {
                try {
                    acceptListener.onAccepted(conn);
                } catch (RuntimeException e) {
                    LOG.warn("accept listener threw", e);
                }
            }
        }

        @Override
        public void onClosed(Connection c, CloseReason reason) {
            UdpConnection conn = connections.remove(c.localId());
            if (conn != null) {
                releaseSockets(conn.ownedSockets());
                conn.onEnded(reason, null);
            }
        }

        @Override
        public void onPathStateChanged(Connection c, int pathId, int state) {
            UdpConnection conn = connections.get(c.localId());
            if (conn == null) {
                return;
            }
            int previous = conn.recordPathState(pathId, state);
            if (state == PathState.FAILED && repathOnFailure && pathId < conn.ownedSockets().length) {
                long now = now();
                // Entering FAILED from service: move at once. After a probe went unanswered: only
                // now and then, in case the new port hashed onto the same broken link.
                if (previous != PathState.PROBING || now - conn.lastRepathNanos(pathId) >= REPATH_RETRY_NANOS) {
                    conn.lastRepathNanos(pathId, now);
                    repath(conn, pathId);
                }
            }
        }
    };

    private UdpEndpoint(Builder b) {
        this.config = b.mtu == 0 ? b.config : b.config.toBuilder().maxDatagramBytes(b.mtu).build();
        this.planes = b.planes.clone();
        this.layer = b.socketLayer != null ? b.socketLayer
                : SocketLayers.forDatapath(b.datapath, List.of(planes), b.eventLoopGroup);
        this.socketOptions = new SocketLayer.SocketOptions(b.socketBufferBytes, config.maxDatagramBytes());
        this.firstSourcePort = b.firstSourcePort;
        this.sourcePortCount = b.sourcePortCount;
        this.acceptListener = b.acceptListener;
        this.dropProbability = b.dropProbability;
        this.repathOnFailure = b.repathOnFailure;
        this.listening = b.listening;
        this.completionListener = b.completionListener;
        this.completionSink = b.completionSink;
        this.dropRandom = new SplittableRandom(b.dropSeed);
        this.transmit = new Transmit(ByteBuffer.allocate(config.maxDatagramBytes()));
        this.slots = layer.sendsInPlace() ? new SendSlots(config.maxDatagramBytes()) : null;
        byte[] secret = new byte[COOKIE_SECRET_BYTES];
        b.secureRandom.nextBytes(secret);
        Endpoint.Builder engine = Endpoint.builder(b.secureRandom, secret, InetAddressCodec.INSTANCE)
                .config(config).listening(b.listening);
        if (b.congestionController != null) {
            engine.congestionController(b.congestionController);
        }
        this.endpoint = engine.build();
        this.clockOrigin = System.nanoTime() - CLOCK_START_NANOS;
        // A busy-polling loop (one of the endpoint's own) checks the engine's deadline on every turn.
        BusyPollStrategy busyPoll = b.busyPoll ? new BusyPollStrategy() : null;
        this.ownedGroup = b.eventLoopGroup != null ? null
                : busyPoll != null ? layer.newBusyPollEventLoopGroup(1, busyPoll) : layer.newEventLoopGroup(1);
        this.loop = (b.eventLoopGroup == null ? ownedGroup : b.eventLoopGroup).next();
        this.timer = busyPoll != null ? busyPoll.timer(timerTask) : layer.newTimer(loop, timerTask);
        if (busyPoll != null) {
            busyPoll.poller(this::pollSocketsDirectly);
        }
        UdpSocket[] listen = new UdpSocket[planes.length];
        try {
            for (int p = 0; p < planes.length; p++) {
                listen[p] = layer.bind(loop, new InetSocketAddress(planes[p], b.listenPort), p, socketOptions,
                        receiver).syncUninterruptibly().getNow();
            }
            // Published to the event loop by the submit below (happens-before).
            loop.submit(() -> {
                for (int p = 0; p < listen.length; p++) {
                    installSocket(allocateSocketIndex(), listen[p]);
                }
            }).syncUninterruptibly();
        } catch (RuntimeException e) {
            for (UdpSocket socket : listen) {
                if (socket != null) {
                    socket.close();
                }
            }
            loop.execute(timer::close);
            if (ownedGroup != null) {
                ownedGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            throw e;
        }
        List<InetSocketAddress> bound = new ArrayList<>();
        for (UdpSocket socket : listen) {
            bound.add(socket.localAddress());
        }
        this.localAddresses = List.copyOf(bound);
        if (!layer.readsEcn()) {
            LOG.info("datapath {} on {} cannot read ECN marks: congestion control has loss (and, with AIMD, delay) to go on",
                    layer.name(), localAddresses);
        }
    }

    /** A builder with the defaults. Not thread-safe. */
    public static Builder builder() {
        return new Builder();
    }

    // =====================================================================================
    // Public API (any thread)
    // =====================================================================================

    /** The first plane's listen socket address (socket 0): what clients connect to. */
    public InetSocketAddress localAddress() {
        return localAddresses.get(0);
    }

    /** The listen socket address of every plane, in plane order: what multi-plane clients connect to. */
    public List<InetSocketAddress> localAddresses() {
        return localAddresses;
    }

    /** The configuration (with {@link Builder#mtu} applied). */
    public EngineConfig config() {
        return config;
    }

    /** The event loop that owns this endpoint. */
    public EventLoop eventLoop() {
        return loop;
    }

    /** Name of the socket layer in use ({@code nio}, ...). */
    public String datapathName() {
        return layer.name();
    }

    /** Whether this endpoint reads the ECN field of the datagrams it receives. */
    public boolean ecnCapable() {
        return layer.readsEcn();
    }

    /**
     * Opens a connection to {@code server} with {@code paths} paths, each on its own new socket.
     * The future completes (on the event loop) once the handshake finishes, or exceptionally if it
     * fails, times out, or the arguments are invalid.
     */
    public CompletableFuture<UdpConnection> connect(InetSocketAddress server, int paths) {
        Objects.requireNonNull(server, "server");
        return connect(List.of(server), paths);
    }

    /**
     * Opens a connection to a server with an address on each plane: path {@code i} leaves from
     * this endpoint's plane {@code i mod P} (its own new socket there) towards
     * {@code serverPlanes.get(i mod serverPlanes.size())}. The handshake runs on path 0. The future
     * completes as for {@link #connect(InetSocketAddress, int)}.
     */
    public CompletableFuture<UdpConnection> connect(List<InetSocketAddress> serverPlanes, int paths) {
        Objects.requireNonNull(serverPlanes, "serverPlanes");
        CompletableFuture<UdpConnection> f = new CompletableFuture<>();
        if (serverPlanes.isEmpty()) {
            f.completeExceptionally(new IllegalArgumentException("serverPlanes is empty: give the server's address"));
            return f;
        }
        for (InetSocketAddress server : serverPlanes) {
            if (server == null || server.isUnresolved()) {
                f.completeExceptionally(new IllegalArgumentException("unresolved server address " + server));
                return f;
            }
        }
        List<InetSocketAddress> servers = List.copyOf(serverPlanes);
        if (paths < 1 || paths > config.maxPaths()) {
            f.completeExceptionally(new IllegalArgumentException(
                    "paths is " + paths + " but must be in [1, " + config.maxPaths() + "] (EngineConfig.maxPaths)"));
            return f;
        }
        submit(() -> startConnect(servers, paths, f),
                () -> f.completeExceptionally(new IllegalStateException("endpoint is closed")));
        return f;
    }

    /**
     * Registers memory in the engine's protection domain (on the event loop; blocks the caller
     * until done). See {@link io.metaroce.core.memory.ProtectionDomain#register(MemorySegment, int)}.
     */
    public MemoryRegion register(MemorySegment segment, int access) {
        return callOnLoop(() -> endpoint.protectionDomain().register(segment, access));
    }

    /**
     * Registers a direct {@link ByteBuffer} (its whole capacity), like {@link #register(MemorySegment, int)}.
     *
     * @throws IllegalArgumentException if the buffer is not direct (heap memory may move)
     */
    public MemoryRegion register(ByteBuffer buffer, int access) {
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("only direct ByteBuffers can be registered "
                    + "(ByteBuffer.allocateDirect, or a MemorySegment from an Arena)");
        }
        return register(MemorySegment.ofBuffer(buffer.duplicate().clear()), access);
    }

    /** Deregisters a region (on the event loop; blocks the caller until done). */
    public void deregister(MemoryRegion region) {
        callOnLoop(() -> {
            endpoint.protectionDomain().deregister(region);
            return null;
        });
    }

    /** A snapshot of the datapath counters (blocks the caller until the event loop takes it). */
    public UdpEndpointStats stats() {
        return callOnLoop(() -> {
            EndpointStats s = endpoint.stats();
            int open = 0;
            long offloadSends = 0;
            long offloadDatagrams = 0;
            long sendCalls = 0;
            long receiveCalls = 0;
            long offloadReceives = 0;
            long offloadReceivedDatagrams = 0;
            for (int i = 0; i < socketHighWater; i++) {
                if (sockets[i] != null) {
                    open++;
                    offloadSends += sockets[i].offloadSends();
                    offloadDatagrams += sockets[i].offloadDatagrams();
                    sendCalls += sockets[i].sendCalls();
                    receiveCalls += sockets[i].receiveCalls();
                    offloadReceives += sockets[i].offloadReceives();
                    offloadReceivedDatagrams += sockets[i].offloadReceivedDatagrams();
                }
            }
            return new UdpEndpointStats(datagramsReceived, datagramsSent, datagramsDropped, sendErrors,
                    s.malformedDatagrams(), s.unknownConnection(), s.challengesSent(), s.invalidCookies(),
                    s.connectionsAccepted(), endpoint.connectionCount(), open, pathsRepathed, layer.name(),
                    layer.readsEcn(), offloadSends, offloadDatagrams, sendCalls, receiveCalls, offloadReceives,
                    offloadReceivedDatagrams, dueDeadlinesRun, dueDeadlinesDeferred, readEndDrives, postDrivesRun,
                    postDrivesDeferred);
        });
    }

    /**
     * Per-path counters and telemetry of {@code connection} (one of this endpoint's), read with
     * {@link Connection#readPathStats} on the event loop; blocks the caller until then. Element
     * {@code i} is path {@code i}, or null if that path is not open.
     */
    public PathStats[] pathStats(UdpConnection connection) {
        Objects.requireNonNull(connection, "connection");
        if (connection.endpoint() != this) {
            throw new IllegalArgumentException(connection + " belongs to another endpoint");
        }
        return callOnLoop(() -> {
            Connection core = connection.core();
            PathStats[] out = new PathStats[core.pathCount()];
            long now = now();
            for (int i = 0; i < out.length; i++) {
                PathStats p = new PathStats();
                out[i] = core.readPathStats(i, p, now) ? p : null;
            }
            return out;
        });
    }

    /**
     * Shuts the endpoint down: aborts every open connection (telling peers once), fails whatever is
     * outstanding, closes every socket, and shuts down the event loop group if the endpoint created
     * it. For a graceful end, {@link UdpConnection#close()} each connection and wait for its
     * {@link UdpConnection#closeFuture()} first. Blocks; must not be called on the event loop.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            List<Future<?>> closing = callOnLoop(this::shutDownOnLoop);
            for (Future<?> cf : closing) {
                cf.awaitUninterruptibly(BLOCKING_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (RuntimeException e) {
            LOG.warn("error while closing the endpoint", e);
        } finally {
            if (ownedGroup != null) {
                ownedGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS)
                        .awaitUninterruptibly(BLOCKING_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        }
    }

    // =====================================================================================
    // Hand-over to the event loop
    // =====================================================================================

    /**
     * Runs {@code task} on the event loop, then drives the engine (once per batch of tasks). If
     * the endpoint is shut down by the time the task would run, or the loop refuses it,
     * {@code rejected} runs instead (on the loop, or on the caller's thread), so a caller waiting
     * on a future is always answered.
     */
    void submit(Runnable task, Runnable rejected) {
        if (shutDown) {
            rejected.run();
            return;
        }
        try {
            loop.execute(() -> {
                if (shutDown) {
                    rejected.run();
                    return;
                }
                task.run();
                requestDrive();
            });
        } catch (RejectedExecutionException e) {
            rejected.run();
        }
    }

    /** Runs {@code call} on the event loop and waits for its result; inline if already there. */
    <T> T callOnLoop(Supplier<T> call) {
        if (loop.inEventLoop()) {
            return call.get();
        }
        Future<T> f;
        try {
            f = loop.submit(call::get);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("endpoint is closed", e);
        }
        try {
            return f.get(BLOCKING_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the event loop", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("event loop did not answer in " + BLOCKING_TIMEOUT_SECONDS + " s", e);
        }
    }

    void requestDrive() {
        if (!drivePending && !collectingPosts) {
            drivePending = true;
            loop.execute(driveTask);
        }
    }

    // =====================================================================================
    // Event loop: the driver
    // =====================================================================================

    private long now() {
        return System.nanoTime() - clockOrigin;
    }

    /**
     * Outputs: completions first, so that what their callbacks post on the loop (the next
     * message, an echo) leaves in this drive's flush with the ACKs; then transmits, one flush per
     * socket, the timeout, completions again (a transmit can fail a work request), events (after
     * the transmits: a closed connection's sockets close there), and the timer.
     */
    private void drive() {
        drive(false);
    }

    /** {@link #drive()}; {@code midCall} when a datagram drives it in the middle of its read call. */
    private void drive(boolean midCall) {
        if (shutDown) {
            return;
        }
        receivedSinceDrive.reset();
        collectingPosts = true;
        try {
            endpoint.pollCompletions(completionHandler, Integer.MAX_VALUE);
        } finally {
            collectingPosts = false;
        }
        long now = now();
        receiveClock.drove(now, midCall);
        while (true) {
            if (slots != null) {
                transmit.buffer = slots.current();
            }
            if (!endpoint.pollTransmit(now, transmit)) {
                break;
            }
            send();
        }
        flushDirty();
        long deadline = endpoint.pollTimeoutNanos();
        endpoint.pollCompletions(completionHandler, Integer.MAX_VALUE);
        endpoint.pollEvents(connectionListener);
        armTimer(deadline);
    }

    private void onTimer() {
        timerDeadline = Long.MAX_VALUE;
        if (timer.firesInIoPass()) {
            drivesFromTasksInARow = 0; // in an I/O pass, which reads what the sockets reported
        } else {
            // A task (NIO's scheduled task): it runs after an I/O pass, but after drives of this
            // task pass too, so it counts as one of them. It drives whatever the count: a deferred
            // drive ends here, and what it finds due waits for the next look if the bound is reached.
            drivesFromTasksInARow++;
        }
        if (shutDown) {
            return;
        }
        endpoint.handleTimeout(now());
        drive();
    }

    /**
     * The engine's deadline has already passed after a drive: run its timers as the loop's next
     * task, leaving the timer as it is; not after {@link #DUE_DEADLINES_PER_LOOK} drives from tasks
     * in a row. This is the saturated sender's usual case: a drive sends a path's pacing burst
     * ([SPEC-CC-13]) and stops with the next packet already due because the pacing clock lags;
     * the loop then turned around through the timer (a {@code timerfd_settime} of 1 ns, its
     * expiry, a {@code read}) once a burst.
     */
    private void onDue() {
        if (shutDown) {
            return;
        }
        endpoint.handleTimeout(now());
        drive();
    }

    /**
     * Whether a drive task may drive now: fewer than {@link #DUE_DEADLINES_PER_LOOK} drives have run
     * from tasks since the loop last looked at its sockets (then it counts this one). Otherwise the
     * drive goes to the timer, set to fire at once: in the loop's next I/O pass, after the look
     * ([SPEC-LOSS-12]). Checked when the task runs, not when it is queued: a post's drive and a
     * passed deadline's queued in one pass would otherwise both run past the bound.
     */
    private boolean mayDriveFromTask() {
        if (drivesFromTasksInARow < DUE_DEADLINES_PER_LOOK) {
            drivesFromTasksInARow++;
            return true;
        }
        driveAtNextLook();
        return false;
    }

    /**
     * Arms the timer to fire at once, unless it already is; {@link #timerDeadline} then reads
     * {@code Long.MIN_VALUE}, earlier than any deadline, so no drive moves it until it fires.
     */
    private void driveAtNextLook() {
        if (timerDeadline != Long.MIN_VALUE) {
            timerDeadline = Long.MIN_VALUE;
            timer.arm(0);
        }
    }

    private void armTimer(long deadline) {
        if (deadline >= timerDeadline) {
            return; // none, or not before the armed one (which then finds nothing due, and re-arms)
        }
        long delay = deadline == Long.MIN_VALUE ? 0 : Math.max(0, deadline - now());
        if (delay == 0 && drivesFromTasksInARow < DUE_DEADLINES_PER_LOOK) {
            if (!dueTaskPending) {
                dueTaskPending = true;
                loop.execute(dueTask);
            }
            return;
        }
        if (delay == 0) {
            dueDeadlinesDeferred++; // enough in a row: the sockets first (DUE_DEADLINES_PER_LOOK)
            driveAtNextLook();
            return;
        }
        timerDeadline = deadline;
        timer.arm(delay);
    }

    private void send() {
        int s = transmit.localSocket;
        UdpSocket socket = s >= 0 && s < socketHighWater ? sockets[s] : null;
        if (socket == null || !socket.isOpen()) {
            sendErrors++;
            return;
        }
        if (dropProbability > 0 && dropRandom.nextDouble() < dropProbability) {
            datagramsDropped++;
            return;
        }
        InetSocketAddress to = (InetSocketAddress) transmit.remoteAddress;
        boolean queued = slots == null ? socket.write(transmit.buffer, transmit.length, to, transmit.ecn)
                : socket.writeInPlace(transmit.buffer, slots.currentAddress(), transmit.length, to, transmit.ecn);
        if (!queued) {
            sendErrors++;
            return; // the slot, if any, was not taken: the next datagram reuses it
        }
        datagramsSent++;
        if (!dirty[s]) {
            dirty[s] = true;
            dirtyList[dirtyCount++] = s;
        }
        if (slots != null && slots.take(transmit.length, s)) {
            flushDirty(); // the next datagram's lane is full: send every queued slot, then reuse them all
        }
    }

    /**
     * Flushes every socket written since the last flush; then no socket holds a slot of
     * {@link #slots} any more (a socket closed meanwhile never sends what it held), so they are
     * all free again.
     */
    private void flushDirty() {
        for (int i = 0; i < dirtyCount; i++) {
            int s = dirtyList[i];
            dirty[s] = false;
            UdpSocket socket = sockets[s];
            if (socket != null) {
                sendErrors += socket.flush();
            }
        }
        dirtyCount = 0;
        if (slots != null) {
            slots.reset();
        }
    }

    private void onDatagram(int socket, ByteBuffer data, int offset, int length, InetSocketAddress sender, int ecn) {
        if (shutDown) {
            return;
        }
        datagramsReceived++;
        if (socket < socketDatagramsReceived.length) {
            socketDatagramsReceived[socket]++;
        }
        endpoint.handleDatagram(receiveClock.datagramNanos(), data, offset, length, socket, sender, ecn);
        if (receivedSinceDrive.count(socket, sender)) {
            drive(true); // the ACKs of a long read go out before a path's SACK window has moved past them
        }
    }

    /**
     * One turn of a busy-polling loop ({@link BusyPollStrategy}): reads every socket directly and,
     * if anything came, drives the engine at once, so what the datagrams complete is answered and
     * flushed in this turn rather than by a drive task after Netty's I/O processing. Returns the
     * datagrams read, or -1 when the sockets are to be read through the loop's selector (a socket
     * layer that cannot read directly, or more than {@link BusyPollStrategy#DIRECT_POLL_MAX_SOCKETS}
     * sockets). A failure is logged, as a failing task's would be, and the loop goes on.
     */
    private int pollSocketsDirectly() {
        if (shutDown) {
            return -1;
        }
        // The listen sockets of an endpoint that does not listen carry nothing but strays: the
        // selector serves them, so the turns stay short.
        int first = listening ? 0 : planes.length;
        if (socketHighWater - first > BusyPollStrategy.DIRECT_POLL_MAX_SOCKETS
                && openSockets(first) > BusyPollStrategy.DIRECT_POLL_MAX_SOCKETS) {
            return -1;
        }
        int read = 0;
        drivesFromTasksInARow = 0; // this turn looks at the sockets
        try {
            for (int i = first; i < socketHighWater; i++) {
                UdpSocket socket = sockets[i];
                if (socket != null) {
                    int n = socket.readNow();
                    if (n < 0) {
                        return -1; // one layer per endpoint: no socket of this one reads directly
                    }
                    read += n;
                }
            }
            return read > 0 ? drivenAfter(read) : 0;
        } catch (RuntimeException e) {
            LOG.warn("busy-polling turn failed", e);
            return read;
        }
    }

    /** Drives the engine after a busy-polling turn read {@code read} datagrams; returns {@code read}. */
    private int drivenAfter(int read) {
        drive();
        return read;
    }

    /**
     * Whether one socket alone can carry traffic (the listen sockets of an endpoint that does not
     * listen carry only strays), so a readiness event's read is the whole of the turn's input.
     */
    private boolean soleTrafficSocket() {
        return openTrafficSockets == 1;
    }

    /** Whether socket {@code index} can carry traffic: a path socket, or a listen socket of a listening endpoint. */
    private boolean isTrafficSocket(int index) {
        return listening || index >= planes.length;
    }

    /** Open sockets from index {@code first} on. */
    private int openSockets(int first) {
        int open = 0;
        for (int i = first; i < socketHighWater; i++) {
            if (sockets[i] != null) {
                open++;
            }
        }
        return open;
    }

    /** Whether the endpoint has shut down (read on the event loop). */
    boolean isShutDown() {
        return shutDown;
    }

    boolean hasCompletionSink() {
        return completionSink != null;
    }

    /** Tells the application's completion sink, if any; a sink that throws is logged, not fatal. */
    void notifySink(UdpConnection connection, int streamId, long workRequestId, int opcode, int status, long bytes,
            int immediate, boolean hasImmediate) {
        if (completionSink != null) {
            try {
                completionSink.onCompletion(connection, streamId, workRequestId, opcode, status, bytes, immediate,
                        hasImmediate);
            } catch (RuntimeException e) {
                LOG.warn("completion sink threw", e);
            }
        }
    }

    /** Tells the application's completion listener, if any; a listener that throws is logged, not fatal. */
    void notifyCompletion(UdpConnection connection, Completion completion) {
        if (completionListener != null) {
            try {
                completionListener.onCompletion(connection, completion);
            } catch (RuntimeException e) {
                LOG.warn("completion listener threw", e);
            }
        }
    }

    private void onCompletion(long connectionId, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate) {
        UdpConnection c = connections.get(connectionId);
        if (c != null) {
            c.onCompletion(streamId, workRequestId, opcode, status, byteLength, immediate, hasImmediate);
        }
    }

    // =====================================================================================
    // Event loop: sockets and connections
    // =====================================================================================

    private void startConnect(List<InetSocketAddress> servers, int paths, CompletableFuture<UdpConnection> f) {
        int[] indices = new int[paths];
        UdpSocket[] bound = new UdpSocket[paths];
        Throwable[] failure = new Throwable[1];
        int[] remaining = {paths};
        for (int i = 0; i < paths; i++) {
            int path = i;
            indices[i] = allocateSocketIndex();
            bindPathSocket(indices[i], planes[i % planes.length], sourcePortCount, (socket, cause) -> {
                bound[path] = socket;
                if (cause != null && failure[0] == null) {
                    failure[0] = cause;
                }
                if (--remaining[0] == 0) {
                    finishConnect(servers, indices, bound, failure[0], f);
                }
            });
        }
    }

    /** Binds socket {@code index} to an ephemeral port of {@code plane}, or to the next free port of the range. */
    private void bindPathSocket(int index, InetAddress plane, int attemptsLeft, BindCallback done) {
        int port = 0;
        if (sourcePortCount > 0) {
            port = firstSourcePort + nextSourcePort;
            nextSourcePort = (nextSourcePort + 1) % sourcePortCount;
        }
        int triedPort = port;
        layer.bind(loop, new InetSocketAddress(plane, port), index, socketOptions, receiver).addListener(r -> {
            if (r.isSuccess()) {
                done.bound((UdpSocket) r.getNow(), null);
            } else if (sourcePortCount > 0 && attemptsLeft > 1 && !shutDown) {
                LOG.debug("source port {} is taken, trying the next", triedPort);
                bindPathSocket(index, plane, attemptsLeft - 1, done);
            } else {
                done.bound(null, sourcePortCount > 0
                        ? new IllegalStateException("no free port in the source-port range " + firstSourcePort + ".."
                                + (firstSourcePort + sourcePortCount - 1) + " on " + plane, r.cause())
                        : r.cause());
            }
        });
    }

    @FunctionalInterface
    private interface BindCallback {
        void bound(UdpSocket socket, Throwable failure);
    }

    /**
     * Moves a failed path of one of this endpoint's outgoing connections to a fresh socket (a new
     * UDP source port, so ECMP hashes it onto another route) [SPEC-PATH-13]; the engine probes it
     * from there at once. The old socket is closed once the path has moved.
     */
    private void repath(UdpConnection conn, int pathId) {
        int index = allocateSocketIndex();
        bindPathSocket(index, planes[pathId % planes.length], Math.max(1, sourcePortCount), (socket, failure) -> {
            if (socket == null || shutDown || conn.isEnded()) {
                if (socket != null) {
                    socket.close();
                }
                freeSocketIndex(index);
                LOG.debug("could not repath path {} of {}", pathId, conn, failure);
                return;
            }
            installSocket(index, socket);
            int old = conn.ownedSockets()[pathId];
            conn.core().repath(pathId, index);
            conn.ownedSockets()[pathId] = index;
            releaseSockets(new int[] {old});
            pathsRepathed++;
            requestDrive();
        });
    }

    private void finishConnect(List<InetSocketAddress> servers, int[] indices, UdpSocket[] bound, Throwable bindFailure,
            CompletableFuture<UdpConnection> f) {
        Throwable failure = shutDown ? new IllegalStateException("endpoint is closed") : bindFailure;
        if (failure == null) {
            try {
                for (int i = 0; i < indices.length; i++) {
                    installSocket(indices[i], bound[i]);
                }
                Object[] remotes = new Object[indices.length];
                for (int i = 0; i < remotes.length; i++) {
                    remotes[i] = servers.get(i % servers.size());
                }
                Connection c = endpoint.connect(now(), remotes, indices);
                connections.put(c.localId(), new UdpConnection(this, c, indices, f));
                requestDrive(); // a drive from a task like any other ([SPEC-LOSS-12])
                return;
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        for (int i = 0; i < indices.length; i++) {
            if (bound[i] != null) {
                bound[i].close();
            }
            if (sockets[indices[i]] == bound[i]) {
                removeSocket(indices[i]);
            }
            freeSocketIndex(indices[i]);
        }
        f.completeExceptionally(failure);
    }

    private int allocateSocketIndex() {
        if (freeSocketCount > 0) {
            return freeSockets[--freeSocketCount];
        }
        int i = socketHighWater++;
        if (i >= sockets.length) {
            int n = sockets.length * 2;
            sockets = Arrays.copyOf(sockets, n);
            socketDatagramsReceived = Arrays.copyOf(socketDatagramsReceived, n);
            dirty = Arrays.copyOf(dirty, n);
            dirtyList = Arrays.copyOf(dirtyList, n);
        }
        return i;
    }

    private void freeSocketIndex(int index) {
        if (freeSocketCount == freeSockets.length) {
            freeSockets = Arrays.copyOf(freeSockets, freeSockets.length * 2);
        }
        freeSockets[freeSocketCount++] = index;
    }

    private void installSocket(int index, UdpSocket socket) {
        if (sockets[index] == null && isTrafficSocket(index)) {
            openTrafficSockets++;
        }
        sockets[index] = socket;
        socketDatagramsReceived[index] = 0;
    }

    /** Empties slot {@code index} of the socket table (the caller closes the socket). */
    private void removeSocket(int index) {
        if (sockets[index] != null && isTrafficSocket(index)) {
            openTrafficSockets--;
        }
        sockets[index] = null;
    }

    private void releaseSockets(int[] indices) {
        for (int index : indices) {
            UdpSocket socket = sockets[index];
            removeSocket(index);
            if (socket != null) {
                socket.close();
            }
            freeSocketIndex(index);
        }
    }

    /** The listen sockets' ids: one per plane, the first ones of the table. */
    private int[] listenSockets() {
        int[] ids = new int[planes.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i;
        }
        return ids;
    }

    UdpConnectionStats snapshot(UdpConnection c) {
        Connection core = c.core();
        int n = core.pathCount();
        long[] sent = new long[n];
        long[] retx = new long[n];
        for (int i = 0; i < n; i++) {
            sent[i] = core.pathPacketsSent(i);
            retx[i] = core.pathRetransmissions(i);
        }
        int[] owned = c.ownedSockets().length > 0 ? c.ownedSockets() : listenSockets();
        int[] ports = new int[owned.length];
        long[] received = new long[owned.length];
        for (int i = 0; i < owned.length; i++) {
            UdpSocket socket = sockets[owned[i]];
            ports[i] = socket == null ? -1 : socket.localAddress().getPort();
            received[i] = socketDatagramsReceived[owned[i]];
        }
        var s = core.stats();
        return new UdpConnectionStats(core.state(), n, s.packetsSent(), s.retransmissions(), s.losses(), s.timeouts(),
                sent, retx, ports, received, s.spuriousLosses(), s.acksBundled());
    }

    private List<Future<?>> shutDownOnLoop() {
        List<Future<?>> closing = new ArrayList<>();
        try {
            // Tell peers once, then stop.
            for (UdpConnection c : new ArrayList<>(connections.values())) {
                c.core().abort();
            }
            drive();
        } catch (RuntimeException e) {
            LOG.warn("could not tell every peer that the endpoint closes", e);
        } finally {
            // Whatever happened above, stop, answer every future and close every socket.
            shutDown = true;
            timer.close();
            timerDeadline = Long.MAX_VALUE;
            IllegalStateException cause = new IllegalStateException("endpoint closed");
            for (UdpConnection c : new ArrayList<>(connections.values())) {
                c.onEnded(CloseReason.LOCAL_ABORT, cause);
            }
            connections.clear();
            for (int i = 0; i < socketHighWater; i++) {
                if (sockets[i] != null) {
                    closing.add(sockets[i].close());
                    removeSocket(i);
                }
            }
        }
        return closing;
    }

    /** Builder for {@link UdpEndpoint}. Not thread-safe. */
    public static final class Builder {
        /** Default SO_SNDBUF / SO_RCVBUF request; the kernel may cap it (net.core.[rw]mem_max). */
        public static final int DEFAULT_SOCKET_BUFFER_BYTES = 4 << 20;
        /**
         * How long a {@linkplain #busyPoll busy-polling} loop with nothing to do spins before it
         * yields its core on each idle turn (1 ms): far longer than a loopback or rack round trip, so
         * a loop waiting for a reply keeps its core even when the peer is held up for a moment (a
         * loop that yields then may not get its core back before the kernel's next tick, 4 ms at
         * 250 Hz, when other threads want it); short enough that a loop sharing a core with the
         * peer it waits for (more loops than cores) hands the core over within a tick.
         */
        public static final long BUSY_POLL_IDLE_SPIN_NANOS = 1_000_000;

        private InetAddress[] planes = {InetAddress.getLoopbackAddress()};
        private int listenPort;
        private boolean listening;
        private EngineConfig config = EngineConfig.defaults();
        private int mtu;
        private EventLoopGroup eventLoopGroup;
        private Datapath datapath = Datapath.AUTO;
        private SocketLayer socketLayer;
        private int socketBufferBytes = DEFAULT_SOCKET_BUFFER_BYTES;
        private int firstSourcePort;
        private int sourcePortCount;
        private double dropProbability;
        private boolean repathOnFailure = true;
        private CompletionListener completionListener;
        private CompletionSink completionSink;
        private boolean busyPoll;
        private long dropSeed = 1;
        private SecureRandom secureRandom;
        private AcceptListener acceptListener;
        private Function<EngineConfig, CongestionController> congestionController;

        private Builder() {
        }

        /** Local address every socket binds to (default 127.0.0.1): one plane. */
        public Builder bindAddress(InetAddress value) {
            return planes(Objects.requireNonNull(value, "bindAddress"));
        }

        /**
         * One local address per fabric plane (a NIC port each): the endpoint listens on every one
         * (same {@code listenPort}) and spreads each connection's paths over them in turn.
         */
        public Builder planes(InetAddress... addresses) {
            Objects.requireNonNull(addresses, "addresses");
            if (addresses.length == 0) {
                throw new IllegalArgumentException("planes needs at least one local address");
            }
            for (InetAddress a : addresses) {
                Objects.requireNonNull(a, "a plane address");
            }
            this.planes = addresses.clone();
            return this;
        }

        /** Port of the listen sockets (default 0: ephemeral, see {@link UdpEndpoint#localAddresses()}). */
        public Builder listenPort(int value) {
            if (value < 0 || value > 65_535) {
                throw new IllegalArgumentException("listenPort is " + value + " but must be in [0, 65535]");
            }
            this.listenPort = value;
            return this;
        }

        /** Whether to accept incoming connections on the listen socket (default false). */
        public Builder listening(boolean value) {
            this.listening = value;
            return this;
        }

        /** The engine configuration (default {@link EngineConfig#defaults()}). */
        public Builder config(EngineConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /**
         * Largest datagram, in bytes, this endpoint sends and accepts (UDP payload, headers of
         * MetaRoCE included); overrides {@link EngineConfig#maxDatagramBytes()}. Both sides must
         * use the same value. Default 0: keep the configuration's.
         */
        public Builder mtu(int value) {
            if (value != 0 && (value < 256 || value > 65_507)) {
                throw new IllegalArgumentException("mtu is " + value + " but must be 0 (keep the config's) or in"
                        + " [256, 65507] (the largest UDP payload over IPv4)");
            }
            this.mtu = value;
            return this;
        }

        /**
         * An event loop group to run on (one of its loops is picked); the endpoint then does not
         * shut it down. It must be of the kind the datapath needs: NIO ({@code NioIoHandler}) for
         * {@link Datapath#NIO}, epoll ({@code EpollIoHandler}) for {@link Datapath#LINUX};
         * {@link Datapath#AUTO} follows the group's kind.
         * Default: the endpoint creates a one-thread group and shuts it down on close.
         */
        public Builder eventLoopGroup(EventLoopGroup value) {
            this.eventLoopGroup = Objects.requireNonNull(value, "eventLoopGroup");
            return this;
        }

        /**
         * Whether the endpoint's own event loop busy-polls (default false): instead of parking in
         * {@code epoll_wait} (or the NIO selector) until a datagram, a timer or a task wakes it, the
         * loop polls its sockets without waiting on every turn and runs its tasks in between, so a
         * datagram is handled without a wakeup's delay, and the engine's timer is a deadline the loop
         * checks on every turn (no {@code timerfd} system calls). On the Linux datapath a turn reads
         * the endpoint's sockets itself ({@code recvmmsg}, no {@code epoll_wait} in between, while it
         * has a few) and answers what it read in the same turn: the engine, the completion sink and
         * the posts it makes, and the flush all run there, on the loop's thread. For latency; it
         * keeps one core busy for as long as the endpoint is open (a loop idle for
         * {@link #BUSY_POLL_IDLE_SPIN_NANOS} yields its core on each idle turn, so other threads
         * still run). Applies to the loop the endpoint makes: with
         * {@link #eventLoopGroup} the group's own strategy rules, and asking for both fails.
         */
        public Builder busyPoll(boolean value) {
            this.busyPoll = value;
            return this;
        }

        /** The socket layer (default {@link Datapath#AUTO}: the best this platform has). */
        public Builder datapath(Datapath value) {
            this.datapath = Objects.requireNonNull(value, "datapath");
            return this;
        }

        /** A socket layer of the caller's: for tests that break sockets on purpose. */
        Builder socketLayer(SocketLayer value) {
            this.socketLayer = Objects.requireNonNull(value, "socketLayer");
            return this;
        }

        /** SO_SNDBUF and SO_RCVBUF asked for each socket (default 4 MiB; the kernel may cap it). */
        public Builder socketBufferBytes(int value) {
            if (value < 64 << 10) {
                throw new IllegalArgumentException("socketBufferBytes is " + value + " but must be at least 65536");
            }
            this.socketBufferBytes = value;
            return this;
        }

        /**
         * Path sockets bind to ports {@code first..last} (inclusive) instead of ephemeral ones,
         * taking the next free port in turn: for firewalls that admit a known range, and for ECMP
         * tests that want known source ports. Fails a connect when no port in the range is free.
         */
        public Builder sourcePortRange(int first, int last) {
            if (first < 1 || last > 65_535 || first > last) {
                throw new IllegalArgumentException("source-port range " + first + ".." + last
                        + " must satisfy 1 <= first <= last <= 65535");
            }
            this.firstSourcePort = first;
            this.sourcePortCount = last - first + 1;
            return this;
        }

        /**
         * Whether a path of an outgoing connection that the engine declares FAILED is moved to a
         * fresh socket (a new source port: another ECMP route), so it can come back while the old
         * route is still broken (default true). Without it, a failed path waits for its old route
         * to answer the engine's probes.
         */
        public Builder repathOnFailure(boolean value) {
            this.repathOnFailure = value;
            return this;
        }

        /** Fraction of its own outgoing datagrams the datapath drops on purpose (default 0), for tests. */
        public Builder dropProbability(double value) {
            if (!(value >= 0 && value < 1)) {
                throw new IllegalArgumentException("dropProbability is " + value + " but must be in [0, 1)");
            }
            this.dropProbability = value;
            return this;
        }

        /** Seed of the drop decisions (default 1). */
        public Builder dropSeed(long value) {
            this.dropSeed = value;
            return this;
        }

        /** Source of connection ids, memory keys and the cookie secret (default a new {@link SecureRandom}). */
        public Builder secureRandom(SecureRandom value) {
            this.secureRandom = Objects.requireNonNull(value, "secureRandom");
            return this;
        }

        /**
         * Told about every completion, on the event loop, before its future completes (default
         * none). For polling from application threads, pass a {@link UdpCompletionQueue}.
         */
        public Builder completionListener(CompletionListener value) {
            this.completionListener = Objects.requireNonNull(value, "completionListener");
            return this;
        }

        /**
         * Told about every completion with primitive arguments, on the event loop, before its
         * future completes (default none); needed by the zero-allocation {@code post...Direct}
         * methods of {@link UdpConnection}, whose completions reach only this sink.
         */
        public Builder completionSink(CompletionSink value) {
            this.completionSink = Objects.requireNonNull(value, "completionSink");
            return this;
        }

        /** Every completion is also entered into {@code queue}, to be polled from any thread. */
        public Builder completionQueue(UdpCompletionQueue queue) {
            return completionListener(Objects.requireNonNull(queue, "queue"));
        }

        /** Told about accepted connections, on the event loop (default none). */
        public Builder acceptListener(AcceptListener value) {
            this.acceptListener = Objects.requireNonNull(value, "acceptListener");
            return this;
        }

        /**
         * The congestion controller of each connection, made by {@code factory} from the engine's
         * configuration (default: the engine's, {@link io.metaroce.core.cc.AimdController}: it
         * reacts to loss, to ECN marks where they are read ({@link Datapath#LINUX}) and, where they
         * are not (NIO), to queueing delay above {@link EngineConfig#aimdDelayThresholdNanos()}).
         * {@code FixedWindowController::new} turns congestion control off (a fixed window of
         * {@link EngineConfig#congestionWindowBytes()}): the ceiling on a link nothing else shares.
         */
        public Builder congestionController(Function<EngineConfig, CongestionController> factory) {
            this.congestionController = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Builds the endpoint and binds its listen socket; blocks until bound. Not on an event loop. */
        public UdpEndpoint build() {
            if (busyPoll && eventLoopGroup != null) {
                throw new IllegalStateException("busyPoll applies to the event loop the endpoint makes, but an"
                        + " eventLoopGroup was given: leave busyPoll off, or let the endpoint make its own loop");
            }
            if (secureRandom == null) {
                secureRandom = new SecureRandom();
            }
            return new UdpEndpoint(this);
        }
    }
}
