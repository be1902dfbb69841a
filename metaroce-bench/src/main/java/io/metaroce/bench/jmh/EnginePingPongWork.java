package io.metaroce.bench.jmh;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.ConnectionListener;
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
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A 64-byte ping-pong in the in-memory engine pair, for counting the engine's work per round trip
 * with callgrind as {@link EnginePairWork} does for bulk DATA (same handshake with
 * {@code tools/instructions-per-packet.sh}: "warmed up", a go file, {@link System#gc()} around the
 * measured part). One ping outstanding: the client posts a receive for the echo and SENDs the ping;
 * the server's RECV completion posts its next receive and SENDs the echo back; the client's RECV
 * completion (and the ping's SEND completion) start the next round. Each side is driven the way
 * {@code UdpEndpoint.drive} drives it after a read (the datagram handed in, completions, every
 * transmit, the deadline, completions again, events), with {@value #SIDE_NANOS} ns of virtual time
 * per side, and runs its timers when its deadline has passed. A command-line tool: one thread.
 */
public final class EnginePingPongWork {
    /** Virtual time per side of a round trip: 10 µs, about a loopback round trip's half. */
    static final long SIDE_NANOS = 10_000;
    private static final long GO_TIMEOUT_MILLIS = 600_000;
    private static final int STREAM = 0;
    private static final Integer SERVER_ADDRESS = Pair.SERVER_ADDRESS;
    private static final Integer CLIENT_ADDRESS = Pair.clientAddress(0);
    private static final ConnectionListener NO_EVENTS = new ConnectionListener() { };

    private final int size;
    private final Endpoint client;
    private final Endpoint server;
    private final Connection clientConnection;
    private final Connection serverConnection;
    private final ConnectionStats clientStats;
    private final MemoryRegion clientRegion;
    private final MemoryRegion serverRegion;
    private final Transmit out;
    private long now;
    private long round;
    private boolean echoIn;
    private boolean pingDone;
    private boolean echoPending;
    private long rounds;
    /** Each side's deadline as its last drive left it (the loop's armed timer). */
    private long clientDeadline = Long.MAX_VALUE;
    private long serverDeadline = Long.MAX_VALUE;
    private final CompletionHandler clientHandler = this::onClient;
    private final CompletionHandler serverHandler = this::onServer;

    /** A connected pair for a ping-pong of {@code size}-byte messages (at least 8) in {@code arena}'s memory. */
    EnginePingPongWork(int size, Arena arena) {
        if (size < Long.BYTES) {
            throw new IllegalArgumentException("messages of at least 8 bytes (the round's number), not " + size);
        }
        this.size = size;
        EngineConfig config = EngineConfig.defaults();
        Pair pair = Pair.create(1, 1, new NetworkConditions(0, 0, 0, 0, 0, 0, 0), config).connect();
        client = pair.client();
        server = pair.server();
        clientConnection = pair.clientConnection();
        serverConnection = pair.serverConnection();
        clientStats = clientConnection.stats();
        now = pair.now();
        out = new Transmit(ByteBuffer.allocateDirect(config.maxDatagramBytes()));
        clientRegion = client.protectionDomain().register(arena.allocate(4L * size, 64), Access.LOCAL_WRITE);
        serverRegion = server.protectionDomain().register(arena.allocate(2L * size, 64), Access.LOCAL_WRITE);
        check(serverConnection.postRecv(STREAM, 0, serverRegion, size, size), "server receive"); // round 1's ping
        startRound();
    }

    /** Datagrams each side has sent: {@code [client, server]}. */
    long[] datagramsSent() {
        return new long[] {client.stats().datagramsSent(), server.stats().datagramsSent()};
    }

    /** DATA packets each side has sent: {@code [client, server]}. */
    long[] dataPacketsSent() {
        return new long[] {clientStats.dataPacketsSent(), serverConnection.stats().dataPacketsSent()};
    }

    /** Round trips completed. */
    long rounds() {
        return rounds;
    }

    /** Retransmissions and timeouts of either side: a ping-pong on a lossless pair has none. */
    String problems() {
        ConnectionStats s = serverConnection.stats();
        long bad = clientStats.retransmissions() + clientStats.timeouts() + s.retransmissions() + s.timeouts();
        return bad == 0 && rounds > 0 ? "" : "retransmissions/timeouts " + bad + ", rounds " + rounds;
    }

    /** Runs {@code n} round trips. */
    void run(long n) {
        long until = rounds + n;
        while (rounds < until) {
            clientDeadline = side(client, clientHandler, server, CLIENT_ADDRESS, clientDeadline);
            serverDeadline = side(server, serverHandler, client, SERVER_ADDRESS, serverDeadline);
        }
    }

    /**
     * One side's drive: its timers if its deadline has passed, completions, every transmit handed
     * to the peer, the deadline (returned, as the loop arms its timer with it), completions, events.
     */
    private long side(Endpoint self, CompletionHandler handler, Endpoint peer, Integer selfAddress, long deadline) {
        long t = now += SIDE_NANOS;
        if (t >= deadline) {
            self.handleTimeout(t);
        }
        self.pollCompletions(handler, Integer.MAX_VALUE);
        if (self == server && echoPending) {
            echoPending = false;
            check(serverConnection.postRecv(STREAM, 0, serverRegion, (round + 1 & 1) * size, size), "server receive");
            check(serverConnection.postSend(STREAM, round, serverRegion, (round & 1) * size, size), "echo");
        }
        while (self.pollTransmit(t, out)) {
            peer.handleDatagram(t, out.buffer, 0, out.length, 0, selfAddress, out.ecn);
        }
        long next = self.pollTimeoutNanos();
        self.pollCompletions(handler, Integer.MAX_VALUE);
        self.pollEvents(NO_EVENTS);
        return next;
    }

    private void startRound() {
        long q = ++round;
        echoIn = false;
        pingDone = false;
        check(clientConnection.postRecv(STREAM, q, clientRegion, (2 + (q & 1)) * size, size), "echo receive");
        // The round's number heads the ping; the echo must bring it back (size is at least 8).
        clientRegion.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, (q & 1) * size, q);
        check(clientConnection.postSend(STREAM, q, clientRegion, (q & 1) * size, size), "ping");
    }

    private void onClient(long connectionId, int streamId, long id, int opcode, int status, long bytes, int immediate,
            boolean hasImmediate) {
        ok(status, opcode);
        if (opcode == WorkOpcode.SEND) {
            pingDone = true;
        } else {
            long echoed = clientRegion.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, (2 + (round & 1)) * size);
            if (id != round || echoed != round || bytes != size) {
                throw new IllegalStateException("echo of round " + round + ": receive " + id + ", " + bytes
                        + " bytes, carrying round " + echoed);
            }
            echoIn = true;
        }
        if (echoIn && pingDone) {
            rounds++;
            startRound();
        }
    }

    private void onServer(long connectionId, int streamId, long id, int opcode, int status, long bytes, int immediate,
            boolean hasImmediate) {
        ok(status, opcode);
        if (opcode == WorkOpcode.RECV) {
            echoPending = true; // posted after the poll, as an application's callback posting on the loop would
        }
    }

    private static void ok(int status, int opcode) {
        if (status != CompletionStatus.SUCCESS) {
            throw new IllegalStateException(WorkOpcode.name(opcode) + " failed: " + CompletionStatus.name(status));
        }
    }

    private static void check(int r, String what) {
        if (r != PostResult.OK) {
            throw new IllegalStateException(what + " refused: " + PostResult.name(r));
        }
    }

    /**
     * Runs the warm-up and the measured round trips.
     *
     * @param args as {@link EnginePairWork}'s, for {@code tools/instructions-per-packet.sh} with
     *     {@code WORK_CLASS}: bytes per message (64), a mode (ignored: always SEND), warm-up round
     *     trips (200,000), measured round trips (20,000), a go file (none)
     */
    public static void main(String[] args) throws InterruptedException {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long warmUp = args.length > 2 ? Long.parseLong(args[2]) : 200_000;
        long measured = args.length > 3 ? Long.parseLong(args[3]) : 20_000;
        Path goFile = args.length > 4 ? Path.of(args[4]) : null;
        try (Arena arena = Arena.ofConfined()) {
            EnginePingPongWork w = new EnginePingPongWork(size, arena);
            w.run(warmUp);
            if (goFile != null) {
                System.out.println("warmed up");
                System.out.flush();
                long deadline = System.nanoTime() + GO_TIMEOUT_MILLIS * 1_000_000;
                while (!Files.exists(goFile)) {
                    if (System.nanoTime() - deadline > 0) {
                        System.err.println("no " + goFile + "; nothing measured");
                        System.exit(2);
                    }
                    Thread.sleep(50);
                }
            }
            System.gc(); // callgrind: the first dump (warm-up)
            w.run(measured);
            System.gc(); // callgrind: the second dump (the measured round trips)
            String problems = w.problems();
            if (!problems.isEmpty()) {
                throw new IllegalStateException("EnginePingPongWork: " + problems);
            }
            System.out.printf("ping-pong %d B: %d round trips measured after %d of warm-up%n", size, measured,
                    warmUp);
        }
    }
}
