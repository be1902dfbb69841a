package io.metaroce.bench.conformance;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
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
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The reference implementation as an implementation under test: a listening {@link UdpEndpoint}
 * that keeps the conformance responder contract of docs/spec.md chapter 14 ([SPEC-CONF-1] to
 * [SPEC-CONF-4]). On every accepted connection it keeps receives of
 * {@link ResponderContract#RECEIVE_BYTES} posted ahead on the echo stream and sends every SEND it
 * receives there back, same bytes (and immediate data), as a SEND on the same stream, in the order
 * the receives complete.
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

    private final UdpEndpoint endpoint;
    private final Long2ObjectHashMap<Echo> echoes = new Long2ObjectHashMap<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong echoed = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    private ConformanceResponder(InetSocketAddress bind, long capacity, long minRtoNanos, Datapath datapath) {
        EngineConfig config = EngineConfig.defaults().toBuilder()
                .receiveCapacityBytesPerSecond(capacity)
                .minRtoNanos(minRtoNanos)
                .maxRtoNanos(Math.max(minRtoNanos, EngineConfig.defaults().maxRtoNanos()))
                .build();
        this.endpoint = UdpEndpoint.builder().bindAddress(bind.getAddress()).listenPort(bind.getPort()).listening(true)
                .config(config).datapath(datapath).acceptListener(this::onAccepted)
                .completionSink(this::onCompletion).build();
    }

    /**
     * Starts a responder listening on {@code bind} that divides {@code capacityBytesPerSecond}
     * among its senders (0: allocator off) and retransmits after at least {@code minRtoNanos}.
     */
    public static ConformanceResponder start(InetSocketAddress bind, long capacityBytesPerSecond, long minRtoNanos,
            Datapath datapath) {
        return new ConformanceResponder(bind, capacityBytesPerSecond, minRtoNanos, datapath);
    }

    /** Starts a responder with the contract's capacity and retransmission timeout on {@code bind}, best datapath. */
    public static ConformanceResponder start(InetSocketAddress bind) {
        return start(bind, ResponderContract.CAPACITY_BYTES_PER_SECOND, DEFAULT_MIN_RTO_NANOS, Datapath.AUTO);
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
        if (echo == null || streamId != ResponderContract.ECHO_STREAM) {
            return;
        }
        try {
            if (opcode == WorkOpcode.RECV) {
                echo.onReceive(id, status, byteLength, immediate, hasImmediate);
            } else if (opcode == WorkOpcode.SEND) {
                echo.onEchoSent(id);
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
     * The echo stream of one connection. Event loop only. Its buffers come from a pool that grows by
     * {@link #CHUNK_BUFFERS} when every buffer is taken (by receives posted ahead or by echoes the
     * peer has not acknowledged yet), so the receives ahead never wait for echoes to end.
     */
    private final class Echo {
        private final UdpConnection connection;
        private final Arena arena = Arena.ofShared();
        private final List<MemoryRegion> regions = new ArrayList<>();
        /** Free buffer indexes, a stack; buffer i lies in chunk i / CHUNK_BUFFERS. */
        private int[] free = new int[0];
        private int freeCount;
        /** The buffer of each posted receive and echo in progress, by RSN (the echo's work id). */
        private final Long2LongHashMap bufferOf = new Long2LongHashMap(-1);
        /** RSN of the next receive to post. */
        private long nextReceive;
        /** Receives completed (they complete in RSN order). */
        private long completed;
        private boolean freed;

        Echo(UdpConnection connection) {
            this.connection = connection;
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
            while (!freed && nextReceive < completed + ResponderContract.RECEIVES_AHEAD) {
                if (freeCount == 0) {
                    grow();
                }
                long rsn = nextReceive++;
                int buffer = free[--freeCount];
                bufferOf.put(rsn, buffer);
                int posted = connection.postRecvDirect(ResponderContract.ECHO_STREAM, rsn, region(buffer),
                        offset(buffer), ResponderContract.RECEIVE_BYTES);
                if (posted != PostResult.OK) {
                    release(rsn);
                    return; // the connection is ending; nothing more to echo
                }
            }
        }

        void onReceive(long rsn, int status, long length, int immediate, boolean hasImmediate) {
            completed++;
            int buffer = (int) bufferOf.get(rsn);
            if (status != CompletionStatus.SUCCESS || freed || buffer < 0) {
                release(rsn);
                postReceives();
                return;
            }
            int posted = hasImmediate
                    ? connection.postSendWithImmediateDirect(ResponderContract.ECHO_STREAM, rsn, region(buffer),
                            offset(buffer), length, immediate)
                    : connection.postSendDirect(ResponderContract.ECHO_STREAM, rsn, region(buffer), offset(buffer),
                            length);
            if (posted != PostResult.OK) {
                release(rsn);
            } else {
                echoed.incrementAndGet();
            }
            postReceives();
        }

        void onEchoSent(long rsn) {
            release(rsn);
            postReceives();
        }

        void free() {
            if (!freed) {
                freed = true;
                for (MemoryRegion r : regions) {
                    endpoint.deregister(r);
                }
                arena.close();
            }
        }

        private void release(long rsn) {
            long buffer = bufferOf.remove(rsn);
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
}
