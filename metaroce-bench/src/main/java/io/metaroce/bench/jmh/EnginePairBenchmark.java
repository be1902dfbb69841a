package io.metaroce.bench.jmh;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.ConnectionStats;
import io.metaroce.core.conn.Endpoint;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.WireConstants;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Two engines (client and server {@link Endpoint}s) on one thread, joined back to back with no
 * network in between, moving DATA packets of {@code payloadBytes} payload (4 KiB, where copies and
 * CRC32C dominate, and 256 B, where the per-packet protocol work does) on one stream and one path. The client
 * keeps a ring of {@value #RING} messages of {@code messageBytes} posted (WRITEs, or SENDs into
 * receives the server keeps pre-posted), so the pipe never idles. One operation is one DATA packet
 * delivered: the score is DATA packets per second, and {@code gc.alloc.rate.norm} (with
 * {@code -prof gc}) is bytes allocated per DATA packet, ACKs and completions included.
 *
 * <p>The handshake is done by {@link Pair}; after it, the benchmark drives the two endpoints
 * itself, because {@link Pair#step()} copies each datagram into its in-flight queue and, with a
 * zero delay, never advances its clock, which its livelock guard takes for a livelock after a
 * million steps. The loop here is the zero-allocation driver: each turn it advances a virtual
 * clock by {@value #TICK_NANOS} ns per datagram of the batch, polls up to {@code batch}
 * datagrams from the client and hands each straight to the server ({@code pollTransmit} into one
 * reused direct buffer, then {@code handleDatagram} from it), then does the same with everything
 * the server has to send back (the ACKs), runs due timers, and polls completions, reposting one
 * message per completion. Both engines run on the benchmark thread, so each packet pays for the
 * sender's and the receiver's work (two CRC32C passes over the datagram and two payload copies).
 *
 * <pre>
 * java -cp metaroce-bench/target/metaroce.jar org.openjdk.jmh.Main EnginePairBenchmark -prof gc -f 1 -wi 3 -i 5 -w 2 -r 2
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EnginePairBenchmark {
    /** DATA packets one benchmark invocation delivers (the score is per packet). */
    static final int PACKETS_PER_INVOCATION = 256;
    /** Messages the client keeps posted. */
    static final int RING = 8;
    /** Receives the server keeps posted in the SEND variant: more than {@link #RING}, so none is ever missing. */
    static final int RECEIVE_DEPTH = 2 * RING;
    /** Virtual time per datagram of a batch: 200 ns, one DATA packet's time at the 5 Mpps goal. */
    static final long TICK_NANOS = 200;

    /** Bytes per message: 1 MiB is 256 DATA packets. */
    @Param({"1048576"})
    public int messageBytes;

    /**
     * Datagrams the client sends per loop turn before the server answers, as a driver with
     * {@code sendmmsg}/{@code recvmmsg} batches would (1: strict ping-pong, one datagram per turn).
     */
    @Param({"16"})
    public int batch;

    /**
     * DATA payload bytes (the datagram size is this plus {@link WireConstants#DATA_OVERHEAD_BYTES}):
     * 4096 shows the per-byte costs, 256 mostly the per-packet ones.
     */
    @Param({"4096", "256"})
    public int payloadBytes;

    private static final Integer SERVER_ADDRESS = Pair.SERVER_ADDRESS;
    private static final Integer CLIENT_ADDRESS = Pair.clientAddress(0);

    private Endpoint client;
    private Endpoint server;
    private Connection clientConnection;
    private Connection serverConnection;
    private ConnectionStats clientStats;
    private Transmit toServer;
    private Transmit toClient;
    private MemoryRegion source;
    private MemoryRegion target;
    private Arena arena;
    private boolean sendMode;
    private long now;
    private long nextTimerNanos;
    private long nextWorkRequestId;
    private int clientDone;
    private int serverDone;
    private long messagesCompleted;

    private final CompletionHandler clientHandler = this::onClientCompletion;
    private final CompletionHandler serverHandler = this::onServerCompletion;

    @Setup(Level.Trial)
    public void setup(BenchmarkParams params) {
        setup(params.getBenchmark().endsWith(".send"));
    }

    /**
     * A pair set up outside JMH (for the CPU-time and instruction-count drivers): 1 MiB messages,
     * batches of 16 datagrams, DATA packets of {@code payloadBytes}; SENDs if {@code send}.
     */
    static EnginePairBenchmark setUpOutsideJmh(int payloadBytes, boolean send) {
        EnginePairBenchmark b = new EnginePairBenchmark();
        b.messageBytes = 1 << 20;
        b.batch = 16;
        b.payloadBytes = payloadBytes;
        b.setup(send);
        return b;
    }

    /** Connects the pair and posts the first messages: SENDs if {@code send}, else WRITEs. */
    void setup(boolean send) {
        sendMode = send;
        EngineConfig config = EngineConfig.builder()
                .maxDatagramBytes(payloadBytes + WireConstants.DATA_OVERHEAD_BYTES)
                .build();
        Pair pair = Pair.create(1, 1, new NetworkConditions(0, 0, 0, 0, 0, 0, 0), config).connect();
        client = pair.client();
        server = pair.server();
        clientConnection = pair.clientConnection();
        serverConnection = pair.serverConnection();
        clientStats = clientConnection.stats();
        if (clientConnection.payloadBytesPerPacket() != payloadBytes) {
            throw new IllegalStateException("payload per packet is " + clientConnection.payloadBytesPerPacket());
        }
        now = pair.now();
        nextTimerNanos = Math.min(client.pollTimeoutNanos(), server.pollTimeoutNanos());
        toServer = new Transmit(ByteBuffer.allocateDirect(config.maxDatagramBytes()));
        toClient = new Transmit(ByteBuffer.allocateDirect(config.maxDatagramBytes()));

        arena = Arena.ofShared();
        MemorySegment src = arena.allocate(messageBytes, 4096);
        for (int i = 0; i < messageBytes; i += 8) {
            src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, 0x9E37_79B9_7F4A_7C15L * (i + 1));
        }
        source = client.protectionDomain().register(src, Access.NONE);
        target = server.protectionDomain().register(arena.allocate(messageBytes, 4096),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        if (sendMode) {
            for (int i = 0; i < RECEIVE_DEPTH; i++) {
                postReceive();
            }
        }
        for (int i = 0; i < RING; i++) {
            postMessage();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ConnectionStats s = clientStats;
        String problems = "";
        if (s.retransmissions() != 0 || s.timeouts() != 0 || s.naksReceived() != 0) {
            problems += " retransmissions=" + s.retransmissions() + " timeouts=" + s.timeouts()
                    + " naks=" + s.naksReceived();
        }
        if (messagesCompleted == 0) {
            problems += " no message completed";
        } else if (target.segment().mismatch(source.segment()) != -1) {
            problems += " target bytes differ from source";
        }
        arena.close();
        if (!problems.isEmpty()) {
            throw new IllegalStateException("EnginePairBenchmark (" + (sendMode ? "send" : "write") + "):" + problems);
        }
    }

    /** WRITEs of {@code messageBytes} into a remote region, {@value #RING} outstanding. */
    @Benchmark
    @OperationsPerInvocation(PACKETS_PER_INVOCATION)
    public long write() {
        return run();
    }

    /** SENDs of {@code messageBytes} into receives the server keeps posted, {@value #RING} outstanding. */
    @Benchmark
    @OperationsPerInvocation(PACKETS_PER_INVOCATION)
    public long send() {
        return run();
    }

    /** DATA packets the client has sent so far. */
    long dataPacketsSent() {
        return clientStats.dataPacketsSent();
    }

    /** Drives both engines until {@link #PACKETS_PER_INVOCATION} more DATA packets have been delivered. */
    long run() {
        long until = clientStats.dataPacketsSent() + PACKETS_PER_INVOCATION;
        while (clientStats.dataPacketsSent() < until) {
            turn();
        }
        return now;
    }

    private void turn() {
        long t = now += TICK_NANOS * batch;
        Transmit out = toServer;
        for (int i = batch; i > 0 && client.pollTransmit(t, out); i--) {
            server.handleDatagram(t, out.buffer, 0, out.length, 0, CLIENT_ADDRESS, out.ecn);
        }
        Transmit back = toClient;
        while (server.pollTransmit(t, back)) {
            client.handleDatagram(t, back.buffer, 0, back.length, 0, SERVER_ADDRESS, back.ecn);
        }
        if (t >= nextTimerNanos) {
            client.handleTimeout(t);
            server.handleTimeout(t);
        }
        nextTimerNanos = Math.min(client.pollTimeoutNanos(), server.pollTimeoutNanos());
        if (server.pendingCompletions() > 0) {
            server.pollCompletions(serverHandler, Integer.MAX_VALUE);
            for (; serverDone > 0; serverDone--) {
                postReceive();
            }
        }
        if (client.pendingCompletions() > 0) {
            client.pollCompletions(clientHandler, Integer.MAX_VALUE);
            for (; clientDone > 0; clientDone--) {
                postMessage();
            }
        }
    }

    private void postMessage() {
        long id = ++nextWorkRequestId;
        int r = sendMode
                ? clientConnection.postSend(0, id, source, 0, messageBytes)
                : clientConnection.postWrite(0, id, source, 0, messageBytes, target.remoteKey(), 0);
        if (r != PostResult.OK) {
            throw new IllegalStateException("post failed: " + PostResult.name(r));
        }
    }

    private void postReceive() {
        int r = serverConnection.postRecv(0, ++nextWorkRequestId, target, 0, messageBytes);
        if (r != PostResult.OK) {
            throw new IllegalStateException("postRecv failed: " + PostResult.name(r));
        }
    }

    private void onClientCompletion(long connectionId, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate) {
        if (status != CompletionStatus.SUCCESS) {
            throw new IllegalStateException("client completion " + WorkOpcode.name(opcode) + " failed: "
                    + CompletionStatus.name(status));
        }
        clientDone++;
        messagesCompleted++;
    }

    private void onServerCompletion(long connectionId, int streamId, long workRequestId, int opcode, int status,
            long byteLength, int immediate, boolean hasImmediate) {
        if (status != CompletionStatus.SUCCESS) {
            throw new IllegalStateException("server completion " + WorkOpcode.name(opcode) + " failed: "
                    + CompletionStatus.name(status));
        }
        if (opcode == WorkOpcode.RECV) {
            serverDone++;
        }
    }
}
