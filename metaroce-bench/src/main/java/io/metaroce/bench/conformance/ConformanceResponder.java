package io.metaroce.bench.conformance;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Datapath;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpEndpoint;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The reference implementation as an implementation under test: a listening {@link UdpEndpoint}
 * that keeps the conformance responder contract of docs/spec.md chapter 14 ([SPEC-CONF-1] to
 * [SPEC-CONF-9]). On every connection (accepted, or opened as a client on the suite's command) it
 * keeps receives of {@link ResponderContract#RECEIVE_BYTES} posted ahead on the echo stream and
 * sends every SEND it receives there back, same bytes (and immediate data), as a SEND on the same
 * stream, in the order the receives complete; it exposes a region of
 * {@link ResponderContract#REGION_BYTES} to the peer's WRITEs and READs, answers commands on the
 * control stream and posts receives on the held stream only when told to.
 *
 * <p>Thread safety: {@link #start} and {@link #close} from any thread but the endpoint's event
 * loop; every connection's state lives on the event loop; the counters are readable from any
 * thread.
 */
public final class ConformanceResponder implements AutoCloseable {
    /**
     * Buffers a connection's pool grows by: twice the receives posted ahead. The pool holds the
     * receives posted ahead plus every echo in progress (its buffer is busy until the peer has
     * acknowledged it), so it grows while echoes pile up unacknowledged: [SPEC-CONF-2] wants the
     * receives posted ahead at all times, however many echoes wait.
     */
    static final int CHUNK_BUFFERS = 2 * ResponderContract.RECEIVES_AHEAD;
    /** The minimum retransmission timeout the responder runs with by default ([SPEC-CONF-5]). */
    public static final long DEFAULT_MIN_RTO_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** The keep-alive interval the responder runs with by default ([SPEC-CONF-13]). */
    public static final long DEFAULT_KEEP_ALIVE_NANOS = TimeUnit.MILLISECONDS.toNanos(ResponderContract.KEEP_ALIVE_MILLIS);
    /** The idle timeout the responder runs with by default ([SPEC-CONF-13]). */
    public static final long DEFAULT_IDLE_TIMEOUT_NANOS =
            TimeUnit.MILLISECONDS.toNanos(ResponderContract.IDLE_TIMEOUT_MILLIS);

    private final UdpEndpoint endpoint;
    private final Long2ObjectHashMap<Echo> echoes = new Long2ObjectHashMap<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong echoed = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final EngineConfig endpointConfig;

    private ConformanceResponder(InetSocketAddress bind, long capacity, long minRtoNanos, long keepAliveNanos,
            long idleTimeoutNanos, Datapath datapath, Function<EngineConfig, CongestionController> controller,
            UnaryOperator<EngineConfig.Builder> tweak) {
        EngineConfig config = tweak.apply(EngineConfig.defaults().toBuilder()
                .receiveCapacityBytesPerSecond(capacity)
                .minRtoNanos(minRtoNanos)
                .keepAliveNanos(keepAliveNanos)
                .idleTimeoutNanos(idleTimeoutNanos)
                .maxRtoNanos(Math.max(minRtoNanos, EngineConfig.defaults().maxRtoNanos())))
                .build();
        this.endpointConfig = config;
        UdpEndpoint.Builder builder = UdpEndpoint.builder().bindAddress(bind.getAddress()).listenPort(bind.getPort())
                .listening(true).config(config).datapath(datapath).acceptListener(this::onAccepted)
                .completionSink(this::onCompletion);
        if (controller != null) {
            builder.congestionController(controller);
        }
        this.endpoint = builder.build();
    }

    /**
     * The settings of a responder listening on {@code bind}, each named (they are all durations or
     * rates, so positional arguments could be swapped unnoticed), the contract's defaults until set.
     */
    public static Builder on(InetSocketAddress bind) {
        return new Builder(bind);
    }

    /** The named settings of a responder; {@link #start} starts one. Not thread-safe. */
    public static final class Builder {
        private final InetSocketAddress bind;
        private long capacityBytesPerSecond = ResponderContract.CAPACITY_BYTES_PER_SECOND;
        private long minRtoNanos = DEFAULT_MIN_RTO_NANOS;
        private long keepAliveNanos = DEFAULT_KEEP_ALIVE_NANOS;
        private long idleTimeoutNanos = DEFAULT_IDLE_TIMEOUT_NANOS;
        private long fairSharePeriodNanos;
        private long maxAckDelayNanos;
        private int maxConsecutiveTimeouts;
        private Datapath datapath = Datapath.AUTO;

        private Builder(InetSocketAddress bind) {
            this.bind = bind;
        }

        /** The receive capacity divided among the senders, bytes/s (0: allocator off). */
        public Builder capacityBytesPerSecond(long value) {
            this.capacityBytesPerSecond = value;
            return this;
        }

        /** The least time before a retransmission ([SPEC-CONF-5]). */
        public Builder minRtoNanos(long value) {
            this.minRtoNanos = value;
            return this;
        }

        /**
         * A keep-alive PATH_PROBE after this long without sending (0: never), [SPEC-STATE-9],
         * [SPEC-CONF-13]; it must be 0 or below the idle timeout.
         */
        public Builder keepAliveNanos(long value) {
            this.keepAliveNanos = value;
            return this;
        }

        /** A connection ends after this long without receiving ([SPEC-STATE-8], [SPEC-CONF-13]). */
        public Builder idleTimeoutNanos(long value) {
            this.idleTimeoutNanos = value;
            return this;
        }

        /**
         * The allocator recomputes the shares this often (0: the engine's), [SPEC-CC-11]: 20 ms or
         * more lets the suite judge the division by demand ([SPEC-CONF-25]).
         */
        public Builder fairSharePeriodNanos(long value) {
            this.fairSharePeriodNanos = value;
            return this;
        }

        /**
         * A receiver holds an ACK back at most this long (0: the engine's): a long delay lets the
         * suite tell the first packet's ACK, sent at once, from a delayed one ([SPEC-CC-26], [SPEC-CONF-28]).
         */
        public Builder maxAckDelayNanos(long value) {
            this.maxAckDelayNanos = value;
            return this;
        }

        /**
         * A connection whose path timed out this many times in a row, nothing answered, ends (0: the
         * engine's 12), [SPEC-LOSS-6]: a few let the suite see that end well within the idle timeout
         * ([SPEC-CONF-30]).
         */
        public Builder maxConsecutiveTimeouts(int value) {
            this.maxConsecutiveTimeouts = value;
            return this;
        }

        /** The socket layer. */
        public Builder datapath(Datapath value) {
            this.datapath = value;
            return this;
        }

        /**
         * Starts the responder.
         *
         * @throws IllegalArgumentException if a setting is invalid (the engine's validation), such as a
         *     keep-alive that is not 0 or below the idle timeout
         */
        public ConformanceResponder start() {
            EngineConfig defaults = EngineConfig.defaults();
            long period = fairSharePeriodNanos == 0 ? defaults.fairSharePeriodNanos() : fairSharePeriodNanos;
            long ackDelay = maxAckDelayNanos == 0 ? defaults.maxAckDelayNanos() : maxAckDelayNanos;
            int timeouts = maxConsecutiveTimeouts == 0 ? defaults.maxConsecutiveTimeouts() : maxConsecutiveTimeouts;
            return new ConformanceResponder(bind, capacityBytesPerSecond, minRtoNanos, keepAliveNanos, idleTimeoutNanos,
                    datapath, null, b -> b.fairSharePeriodNanos(period).maxAckDelayNanos(ackDelay)
                            .maxConsecutiveTimeouts(timeouts));
        }
    }

    /**
     * A responder on {@code bind} with the contract's defaults whose connections' congestion
     * controllers {@code controller} makes instead of the engine's: for the suite's tests, to run
     * a sender that breaks a rule of congestion control.
     */
    static ConformanceResponder startWithController(InetSocketAddress bind, long minRtoNanos,
            Function<EngineConfig, CongestionController> controller) {
        return new ConformanceResponder(bind, ResponderContract.CAPACITY_BYTES_PER_SECOND, minRtoNanos,
                DEFAULT_KEEP_ALIVE_NANOS, DEFAULT_IDLE_TIMEOUT_NANOS, Datapath.AUTO, controller,
                UnaryOperator.identity());
    }

    /**
     * A responder on {@code bind} with the contract's defaults whose engine configuration
     * {@code tweak} changes further: for the suite's tests, to run a responder whose settings
     * break the contract ([SPEC-CONF-16], [SPEC-CONF-17]) while its operator claims otherwise.
     */
    static ConformanceResponder startWithConfig(InetSocketAddress bind, long minRtoNanos,
            UnaryOperator<EngineConfig.Builder> tweak) {
        return new ConformanceResponder(bind, ResponderContract.CAPACITY_BYTES_PER_SECOND, minRtoNanos,
                DEFAULT_KEEP_ALIVE_NANOS, DEFAULT_IDLE_TIMEOUT_NANOS, Datapath.AUTO, null, tweak);
    }

    /** Starts a responder with the contract's capacity and retransmission timeout on {@code bind}, best datapath. */
    public static ConformanceResponder start(InetSocketAddress bind) {
        return on(bind).start();
    }

    /** The address the responder listens on (with the port the system chose for port 0). */
    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    /** The endpoint (for its statistics). */
    public UdpEndpoint endpoint() {
        return endpoint;
    }

    /** Completions the responder's own bookkeeping failed on (a bug of the responder's: 0 expected). */
    public long errors() {
        return errors.get();
    }

    /** Connections accepted so far. */
    public long accepted() {
        return accepted.get();
    }

    /** Messages echoed so far. */
    public long echoed() {
        return echoed.get();
    }

    private void onAccepted(UdpConnection connection) {
        accepted.incrementAndGet();
        serve(connection);
    }

    /** Starts the contract on {@code connection} (accepted, or opened as a client on the suite's command). */
    private void serve(UdpConnection connection) {
        Echo echo = new Echo(connection);
        echoes.put(connection.localId(), echo);
        connection.closeFuture().whenComplete((reason, error) -> {
            echoes.remove(connection.localId());
            echo.free();
        });
        echo.postReceives();
    }

    private void onCompletion(UdpConnection connection, int streamId, long id, int opcode, int status, long byteLength,
            int immediate, boolean hasImmediate) {
        Echo echo = echoes.get(connection.localId());
        if (echo == null || streamId > ResponderContract.HELD_STREAM) {
            return;
        }
        try {
            if (opcode == WorkOpcode.RECV) {
                echo.onReceive(streamId, id, status, byteLength, immediate, hasImmediate, false);
            } else if (opcode == WorkOpcode.RECV_WRITE_WITH_IMM) {
                echo.onReceive(streamId, id, status, byteLength, immediate, hasImmediate, true);
            } else if (opcode == WorkOpcode.SEND) {
                echo.onSent(id);
            }
        } catch (RuntimeException e) {
            errors.incrementAndGet(); // counted for the tests; the endpoint logs it
            throw e;
        }
    }

    @Override
    public void close() {
        endpoint.close();
    }

    /**
     * The contract on one connection: the echo stream (0), the control stream (1), the held stream
     * (2) and the connection's region. Event loop only. Buffers come from a pool that grows by
     * {@link #CHUNK_BUFFERS} when every buffer is taken (by receives posted ahead or by echoes the
     * peer has not acknowledged yet), so the receives ahead never wait for echoes to end. A work
     * request's id is its stream in the top bits and its RSN below ({@link #workId}): an echo or
     * reply reuses the id (and buffer) of the receive it answers.
     */
    private final class Echo {
        private final UdpConnection connection;
        private final Arena arena = Arena.ofShared();
        private final List<MemoryRegion> regions = new ArrayList<>();
        /** The region the suite WRITEs and READs ([SPEC-CONF-7]). */
        private final MemoryRegion exposed;
        /** Free buffer indexes, a stack; buffer i lies in chunk i / CHUNK_BUFFERS. */
        private int[] free = new int[0];
        private int freeCount;
        /** The buffer of each posted receive and echo in progress, by work id. */
        private final Long2LongHashMap bufferOf = new Long2LongHashMap(-1);
        /** Per stream (echo, control, held): RSN of the next receive to post. */
        private final long[] nextReceive = new long[3];
        /** Per stream: receives completed (they complete in RSN order). */
        private final long[] completed = new long[3];
        /** Receives the suite asked for on the held stream and not yet posted. */
        private long heldToPost;
        private boolean freed;

        Echo(UdpConnection connection) {
            this.connection = connection;
            MemorySegment region = arena.allocate(ResponderContract.REGION_BYTES);
            for (int i = 0; i < ResponderContract.REGION_BYTES; i++) {
                region.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, ResponderContract.regionByte(i));
            }
            this.exposed = endpoint.register(region, Access.REMOTE_WRITE | Access.REMOTE_READ);
            grow();
        }

        /** Adds a chunk of buffers to the pool. */
        private void grow() {
            MemorySegment memory = arena.allocate((long) CHUNK_BUFFERS * ResponderContract.RECEIVE_BYTES);
            int first = regions.size() * CHUNK_BUFFERS;
            regions.add(endpoint.register(memory, Access.LOCAL_WRITE));
            // Room for every buffer of the pool: all of them are free again once the echoes end.
            free = Arrays.copyOf(free, regions.size() * CHUNK_BUFFERS);
            for (int i = CHUNK_BUFFERS - 1; i >= 0; i--) {
                free[freeCount++] = first + i;
            }
        }

        void postReceives() {
            postAhead(ResponderContract.ECHO_STREAM, ResponderContract.RECEIVES_AHEAD);
            postAhead(ResponderContract.CONTROL_STREAM, ResponderContract.CONTROL_RECEIVES_AHEAD);
            while (heldToPost > 0 && post(ResponderContract.HELD_STREAM)) {
                heldToPost--;
            }
        }

        private void postAhead(int stream, int ahead) {
            while (nextReceive[stream] < completed[stream] + ahead && post(stream)) {
                // posted one more
            }
        }

        /** Posts the next receive of {@code stream}; false when the connection refuses it (it is ending). */
        private boolean post(int stream) {
            if (freed) {
                return false;
            }
            if (freeCount == 0) {
                grow();
            }
            long id = workId(stream, nextReceive[stream]++);
            int buffer = free[--freeCount];
            bufferOf.put(id, buffer);
            int posted = connection.postRecvDirect(stream, id, region(buffer), offset(buffer),
                    ResponderContract.RECEIVE_BYTES);
            if (posted != PostResult.OK) {
                release(id);
                return false; // the connection is ending; nothing more to echo
            }
            return true;
        }

        /**
         * A receive of {@code stream} completed: a SEND's bytes are echoed as they are; a
         * WRITE_WITH_IMM ({@code writeWithImmediate}: nothing was written to the buffer) is echoed as
         * the 8 bytes of its length with its immediate ([SPEC-CONF-12]); a command is carried out.
         */
        void onReceive(int stream, long id, int status, long length, int immediate, boolean hasImmediate,
                boolean writeWithImmediate) {
            completed[stream]++;
            int buffer = (int) bufferOf.get(id);
            if (status != CompletionStatus.SUCCESS || freed || buffer < 0
                    || (writeWithImmediate && stream == ResponderContract.CONTROL_STREAM)) {
                release(id);
                postReceives();
                return;
            }
            if (writeWithImmediate) {
                region(buffer).segment().asSlice(offset(buffer), Long.BYTES).asByteBuffer().putLong(0, length);
                length = Long.BYTES;
            }
            if (stream == ResponderContract.CONTROL_STREAM) {
                length = command(buffer, length);
                hasImmediate = false;
                if (length < 0) {
                    release(id);
                    postReceives();
                    return;
                }
            }
            int posted = hasImmediate
                            ? connection.postSendWithImmediateDirect(stream, id, region(buffer), offset(buffer), length,
                                    immediate)
                            : connection.postSendDirect(stream, id, region(buffer), offset(buffer), length);
            if (posted != PostResult.OK) {
                release(id);
            } else {
                echoed.incrementAndGet();
            }
            postReceives();
        }

        /**
         * Carries out the command in {@code buffer} and writes the reply over it: the reply's length,
         * or -1 for a command the contract does not define (no reply).
         */
        private long command(int buffer, long length) {
            MemorySegment b = region(buffer).segment().asSlice(offset(buffer), ResponderContract.RECEIVE_BYTES);
            int code = length < 1 ? 0 : b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0);
            java.nio.ByteBuffer bytes = b.asByteBuffer(); // big-endian, as the wire
            switch (code) {
                case ResponderContract.COMMAND_REGION -> {
                    bytes.put(0, (byte) code).putInt(1, exposed.remoteKey()).putLong(5, exposed.length());
                    return ResponderContract.REGION_REPLY_BYTES;
                }
                case ResponderContract.COMMAND_POST_HELD -> {
                    if (length < 3) {
                        return -1;
                    }
                    long outstanding = nextReceive[ResponderContract.HELD_STREAM]
                            - completed[ResponderContract.HELD_STREAM] + heldToPost;
                    int more = Short.toUnsignedInt(bytes.getShort(1));
                    if (outstanding + more > ResponderContract.MAX_HELD_RECEIVES) {
                        return -1; // beyond the contract's bound: no reply, nothing posted
                    }
                    heldToPost += more;
                    postReceives(); // posted before the reply leaves, so the suite may send at once
                    return 1;
                }
                case ResponderContract.COMMAND_CONNECT -> {
                    if (length < 5 || length < 5 + Byte.toUnsignedInt(bytes.get(4))) {
                        return -1;
                    }
                    int paths = Byte.toUnsignedInt(bytes.get(1));
                    if (paths > endpointConfig.maxPaths()) {
                        return -1; // a connection the endpoint could not open: no reply
                    }
                    int port = Short.toUnsignedInt(bytes.getShort(2));
                    byte[] address = new byte[Byte.toUnsignedInt(bytes.get(4))];
                    bytes.get(5, address);
                    try {
                        InetSocketAddress to = new InetSocketAddress(java.net.InetAddress.getByAddress(address), port);
                        endpoint.connect(to, Math.max(1, paths)).whenComplete((c, error) -> {
                            if (c != null) {
                                serve(c); // a failed attempt shows on the wire: the suite's case reports it
                            }
                        });
                    } catch (java.net.UnknownHostException e) {
                        return -1; // an address of a length no family has
                    }
                    return 1;
                }
                case ResponderContract.COMMAND_CLOSE -> {
                    // Queued behind this completion: the reply is posted first, and the close waits for its ACK.
                    connection.close();
                    return 1;
                }
                default -> {
                    return -1;
                }
            }
        }

        void onSent(long id) {
            release(id);
            postReceives();
        }

        void free() {
            if (!freed) {
                freed = true;
                endpoint.deregister(exposed);
                for (MemoryRegion r : regions) {
                    endpoint.deregister(r);
                }
                arena.close();
            }
        }

        private void release(long id) {
            long buffer = bufferOf.remove(id);
            if (buffer >= 0) {
                free[freeCount++] = (int) buffer;
            }
        }

        private MemoryRegion region(int buffer) {
            return regions.get(buffer / CHUNK_BUFFERS);
        }

        private long offset(int buffer) {
            return (long) (buffer % CHUNK_BUFFERS) * ResponderContract.RECEIVE_BYTES;
        }
    }

    /** The work id of the receive with RSN {@code rsn} of {@code stream} (and of the echo or reply it makes). */
    static long workId(int stream, long rsn) {
        return ((long) stream << 48) | rsn;
    }
}
