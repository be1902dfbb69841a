package io.metaroce.bench.cli;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Completion;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpConnectionStats;
import io.metaroce.netty.UdpEndpoint;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce perf}: throughput over real UDP sockets, in the shape of the perftest tools
 * ({@code ib_send_bw}, {@code ib_write_bw}, {@code ib_read_bw}). Today only {@code loopback}: both
 * sides in one process on 127.0.0.1; {@code server} and {@code client} come later.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "COMMAND",
        description = {"Throughput of MetaRoCE over real UDP sockets, in the shape of the perftest tools",
                "(ib_send_bw, ib_write_bw, ib_read_bw): every byte verified, live progress, a per-path table.",
                "",
                "Coming: 'server' and 'client' (the two sides in separate processes or hosts) and --lat (latency)."},
        subcommands = {PerfCommand.Loopback.class})
public final class PerfCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Invoked when no subcommand is given: that is a usage error. */
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand (loopback)");
    }

    /** The operation measured. Lower case so the option reads {@code --op send}. */
    enum Op {
        send, write, read
    }

    /** {@code metaroce perf loopback}: a server and a client endpoint in this process over 127.0.0.1. */
    @Command(name = "loopback", mixinStandardHelpOptions = true,
            description = {"Runs a server and a client endpoint in this process over 127.0.0.1 (each on its own",
                    "event loop, the client with one UDP socket per path) and keeps --depth messages in flight",
                    "for --duration seconds. Every message carries a fresh pattern and every received byte is",
                    "checked; the exit code is non-zero on any mismatch or failed completion."})
    public static final class Loopback implements Callable<Integer> {
        private static final long WAIT_SECONDS = 20;
        private static final long DRAIN_SECONDS = 20;
        private static final long SEED = 0x5EED_2025L;

        @Spec
        CommandSpec spec;

        @Option(names = "--op", description = "Operation: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).",
                defaultValue = "send")
        Op op;

        @Option(names = "--size", description = "Bytes per message (default ${DEFAULT-VALUE}).", defaultValue = "8192")
        int size;

        @Option(names = "--streams", description = "Streams the messages are spread over (default ${DEFAULT-VALUE}).",
                defaultValue = "4")
        int streams;

        @Option(names = "--paths", description = "Paths of the connection, one UDP source port each (default ${DEFAULT-VALUE}).",
                defaultValue = "4")
        int paths;

        @Option(names = "--duration", description = "Seconds to run (default ${DEFAULT-VALUE}).", defaultValue = "5")
        double durationSeconds;

        @Option(names = "--drop", description = "Fraction of its own outgoing datagrams each endpoint drops (default ${DEFAULT-VALUE}).",
                defaultValue = "0")
        double drop;

        @Option(names = "--depth", description = "Messages in flight (default ${DEFAULT-VALUE}).", defaultValue = "32")
        int depth;

        @Option(names = "--window", description = "Congestion window of each connection, bytes (default ${DEFAULT-VALUE}).",
                defaultValue = "16777216")
        long windowBytes;

        @Option(names = "--warmup", description = "Seconds of traffic before the measured --duration, not counted "
                + "(default ${DEFAULT-VALUE}; the JIT needs several seconds on a small machine).", defaultValue = "0")
        double warmupSeconds;

        @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON.")
        Path jsonFile;

        // ---- shared with the event loops ----
        private volatile boolean stopping;
        private volatile boolean closing;
        private final AtomicInteger active = new AtomicInteger();
        private final AtomicLong messages = new AtomicLong();
        private final AtomicLong sendsCompleted = new AtomicLong();
        private final AtomicLong mismatches = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private final AtomicReference<String> firstFailure = new AtomicReference<>();

        // ---- set up before the run, then read-only ----
        private UdpConnection clientConn;
        private UdpConnection serverConn;
        private MemorySegment clientBuf;
        private MemoryRegion clientRegion;
        private MemorySegment serverBuf;
        private MemoryRegion serverRegion;
        private int recvRing;
        private int recvBatch;

        // ---- client event loop only ----
        private long[] slotKey;
        private long[] sendSeq;
        private long keyCounter;

        // ---- server event loop only ----
        private long[] recvNext;
        private long[] recvLowest;
        private boolean[][] recvDone;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            validate();
            out.printf(Locale.ROOT, "metaroce perf loopback: %s, %d-byte messages, %d streams, %d paths, depth %d, "
                    + "%.1f s, drop %.1f%%, window %d B, 127.0.0.1%n",
                    op, size, streams, paths, depth, durationSeconds, drop * 100, windowBytes);
            out.flush();

            EngineConfig config = EngineConfig.defaults().toBuilder().congestionWindowBytes(windowBytes).build();
            LinkedBlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
            UdpEndpoint server = null;
            UdpEndpoint client = null;
            Arena arena = Arena.ofShared();
            try {
                server = UdpEndpoint.builder().listening(true).config(config).dropProbability(drop).dropSeed(11)
                        .acceptListener(accepted::add).build();
                client = UdpEndpoint.builder().config(config).dropProbability(drop).dropSeed(12).build();
                clientConn = client.connect(server.localAddress(), paths).get(WAIT_SECONDS, TimeUnit.SECONDS);
                serverConn = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                if (serverConn == null) {
                    throw new IllegalStateException("the server did not accept the connection in " + WAIT_SECONDS + " s");
                }
                allocate(arena, client, server);
                if (op == Op.send) {
                    // Every stream's receives are posted (in one batch per stream) before the first SEND.
                    server.eventLoop().submit(this::postInitialReceives).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    server.eventLoop().submit(() -> { }).get(WAIT_SECONDS, TimeUnit.SECONDS);
                }

                active.set(depth);
                long start = System.nanoTime();
                client.eventLoop().execute(() -> {
                    for (int slot = 0; slot < depth; slot++) {
                        postSlot(slot);
                    }
                });
                long warmupEnd = start + (long) (warmupSeconds * 1e9);
                long end = warmupEnd + (long) (durationSeconds * 1e9);
                long baseMessages = 0;
                boolean warm = warmupSeconds == 0;
                long nextReport = start + 1_000_000_000L;
                long lastMessages = 0;
                long lastAt = start;
                while (true) {
                    long now = System.nanoTime();
                    if (now >= end || active.get() == 0) {
                        break;
                    }
                    if (!warm && now >= warmupEnd) {
                        warm = true;
                        baseMessages = messages.get();
                        out.printf(Locale.ROOT, "warmup done after %.1f s (%,d messages, not counted)%n",
                                (now - start) / 1e9, baseMessages);
                        out.flush();
                        warmupEnd = now;
                    }
                    if (now >= nextReport) {
                        long m = messages.get();
                        out.printf(Locale.ROOT, "t=%5.1fs  messages %,11d  goodput %7.3f Gb/s  retransmits %,9d%n",
                                (now - start) / 1e9, m, (m - lastMessages) * (double) size * 8 / (now - lastAt),
                                retransmits());
                        out.flush();
                        lastMessages = m;
                        lastAt = now;
                        nextReport += 1_000_000_000L;
                    }
                    TimeUnit.NANOSECONDS.sleep(Math.min(warm ? end : warmupEnd, Math.min(end, nextReport)) - now);
                }
                stopping = true;
                long stoppedAt = System.nanoTime();
                long measuredMessages = messages.get() - baseMessages;
                double seconds = (stoppedAt - (warm ? warmupEnd : start)) / 1e9;

                // Drain: let the messages in flight finish (and be verified).
                long drainEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
                while ((active.get() > 0 || (op == Op.send && messages.get() < sendsCompleted.get()))
                        && System.nanoTime() < drainEnd) {
                    Thread.sleep(1);
                }
                if (active.get() > 0) {
                    fail(active.get() + " messages still in flight " + DRAIN_SECONDS + " s after the end");
                }
                if (op == Op.send && messages.get() != sendsCompleted.get()) {
                    fail(sendsCompleted.get() + " SENDs completed but " + messages.get() + " receives arrived");
                }

                UdpConnectionStats clientStats = clientConn.stats();
                UdpConnectionStats serverStats = serverConn.stats();
                PathStats[] pathStats = client.pathStats(clientConn);
                long retransmits = clientStats.retransmissions() + serverStats.retransmissions();
                closing = true;
                clientConn.close().get(WAIT_SECONDS, TimeUnit.SECONDS);

                double goodputGbps = measuredMessages * (double) size * 8 / seconds / 1e9;
                double messagesPerSecond = measuredMessages / seconds;
                long errors = mismatches.get() + failures.get();
                boolean verified = errors == 0 && messages.get() > 0;
                List<PathRow> rows = new ArrayList<>();
                for (int p = 0; p < pathStats.length; p++) {
                    PathStats s = pathStats[p];
                    int port = p < clientStats.localSocketPorts().length ? clientStats.localSocketPorts()[p] : -1;
                    rows.add(s == null ? new PathRow(p, port, 0, 0, 0, 0, "closed")
                            : new PathRow(p, port, s.packetsSent, s.bytesSent, s.smoothedRttNanos / 1000.0,
                                    s.ecnFraction(), "active"));
                }

                out.println();
                out.printf(Locale.ROOT, "%-14s %12.3f Gb/s  (payload, %,d messages in %.2f s)%n", "goodput", goodputGbps,
                        measuredMessages, seconds);
                out.printf(Locale.ROOT, "%-14s %,12.0f%n", "messages/s", messagesPerSecond);
                out.printf(Locale.ROOT, "%-14s %,12d  (client %,d + server %,d; datagrams dropped on purpose: %,d)%n",
                        "retransmits", retransmits, clientStats.retransmissions(), serverStats.retransmissions(),
                        client.stats().datagramsDropped() + server.stats().datagramsDropped());
                out.println();
                out.println("path  src_port     packets           bytes   srtt_us  ecn_fraction  state   (client connection)");
                for (PathRow r : rows) {
                    out.printf(Locale.ROOT, "%4d  %8d  %,10d  %,14d  %8.1f  %12.3f  %s%n", r.path, r.srcPort, r.packets,
                            r.bytes, r.srttUs, r.ecnFraction, r.state);
                }
                out.println();
                String result = mismatches.get() > 0 ? "MISMATCH (" + mismatches.get() + " messages differ)"
                        : failures.get() > 0 ? "FAILED (" + failures.get() + " failed completions: " + firstFailure.get() + ")"
                        : messages.get() == 0 ? "FAILED (no message completed)"
                        : "verified";
                out.printf(Locale.ROOT, "result: %,d messages, every byte checked: %s%n", messages.get(), result);
                out.flush();

                if (jsonFile != null) {
                    Files.writeString(jsonFile, json(goodputGbps, messagesPerSecond, retransmits, verified, errors,
                            seconds, rows));
                }
                return verified ? 0 : 1;
            } finally {
                closing = true;
                if (client != null) {
                    client.close();
                }
                if (server != null) {
                    server.close();
                }
                arena.close();
            }
        }

        private void validate() {
            String problem = null;
            if (size < 1 || size > (16 << 20)) {
                problem = "--size must be in [1, 16777216]";
            } else if (streams < 1 || streams > 4096) {
                problem = "--streams must be in [1, 4096]";
            } else if (paths < 1 || paths > 64) {
                problem = "--paths must be in [1, 64]";
            } else if (depth < 1 || depth > 4096) {
                problem = "--depth must be in [1, 4096]";
            } else if ((long) depth * size > (1L << 30)) {
                problem = "--depth times --size must be at most 1 GiB";
            } else if (!(durationSeconds > 0) || durationSeconds > 86_400) {
                problem = "--duration must be in (0, 86400]";
            } else if (!(warmupSeconds >= 0) || warmupSeconds > 86_400) {
                problem = "--warmup must be in [0, 86400]";
            } else if (!(drop >= 0 && drop < 1)) {
                problem = "--drop must be in [0, 1)";
            } else if (windowBytes < 65_536) {
                problem = "--window must be at least 65536";
            }
            if (problem != null) {
                throw new ParameterException(spec.commandLine(), problem);
            }
        }

        private void allocate(Arena arena, UdpEndpoint client, UdpEndpoint server) {
            long slots = (long) depth * size;
            slotKey = new long[depth];
            sendSeq = new long[streams];
            clientBuf = arena.allocate(slots, 8);
            clientRegion = client.register(clientBuf, Access.LOCAL_WRITE);
            if (op == Op.send) {
                // Per stream a ring of receives, four times the SENDs that stream can have in flight;
                // freed receives are reposted in batches of one stream-depth, so at least three
                // stream-depths stay posted ahead of the SENDs.
                int perStream = (depth + streams - 1) / streams;
                recvBatch = perStream;
                recvRing = 4 * perStream;
                recvNext = new long[streams];
                recvLowest = new long[streams];
                recvDone = new boolean[streams][recvRing];
                serverBuf = arena.allocate((long) streams * recvRing * size, 8);
                serverRegion = server.register(serverBuf, Access.LOCAL_WRITE);
            } else {
                serverBuf = arena.allocate(slots, 8);
                serverRegion = server.register(serverBuf, Access.ALL);
            }
        }

        // =================================================================================
        // Client event loop
        // =================================================================================

        /** Posts the next message of {@code slot} with a fresh pattern; stops the slot once stopping. */
        private void postSlot(int slot) {
            if (stopping) {
                active.decrementAndGet();
                return;
            }
            int stream = slot % streams;
            long off = (long) slot * size;
            switch (op) {
                case send -> {
                    long key = sendKey(stream, sendSeq[stream]++);
                    fill(clientBuf, off, size, key);
                    clientConn.postSend(stream, slot, clientRegion, off, size)
                            .whenComplete((c, e) -> onClientCompletion(slot, c, e));
                }
                case write -> {
                    long key = slotKey[slot] = ++keyCounter;
                    fill(clientBuf, off, size, key);
                    clientConn.postWrite(stream, slot, clientRegion, off, size, serverRegion.remoteKey(), off)
                            .whenComplete((c, e) -> onClientCompletion(slot, c, e));
                }
                case read -> {
                    long key = slotKey[slot] = ++keyCounter;
                    fill(serverBuf, off, size, key);
                    clientConn.postRead(stream, slot, clientRegion, off, size, serverRegion.remoteKey(), off)
                            .whenComplete((c, e) -> onClientCompletion(slot, c, e));
                }
                default -> throw new IllegalStateException(op.toString());
            }
        }

        private void onClientCompletion(int slot, Completion c, Throwable e) {
            if (e != null || !c.isSuccess() || c.byteLength() != size) {
                failed(e != null ? e.toString() : c.toString());
                active.decrementAndGet();
                return;
            }
            long off = (long) slot * size;
            switch (op) {
                case send -> sendsCompleted.incrementAndGet();
                case write -> check(serverBuf, off, slotKey[slot]);
                case read -> check(clientBuf, off, slotKey[slot]);
                default -> throw new IllegalStateException(op.toString());
            }
            postSlot(slot);
        }

        // =================================================================================
        // Server event loop (SEND only)
        // =================================================================================

        private void postInitialReceives() {
            for (int s = 0; s < streams; s++) {
                postReceives(s);
            }
        }

        /** Posts receives on {@code stream} until its ring is full. */
        private void postReceives(int stream) {
            while (recvNext[stream] < recvLowest[stream] + recvRing) {
                long seq = recvNext[stream]++;
                long off = ((long) stream * recvRing + seq % recvRing) * size;
                serverConn.postRecv(stream, seq, serverRegion, off, size)
                        .whenComplete((c, e) -> onReceive(stream, seq, off, c, e));
            }
        }

        private void onReceive(int stream, long seq, long off, Completion c, Throwable e) {
            if (e != null || !c.isSuccess() || c.byteLength() != size) {
                failed(e != null ? e.toString() : c.toString());
                return;
            }
            check(serverBuf, off, sendKey(stream, seq));
            recvDone[stream][(int) (seq % recvRing)] = true;
            long before = recvLowest[stream];
            while (recvDone[stream][(int) (recvLowest[stream] % recvRing)]) {
                recvDone[stream][(int) (recvLowest[stream] % recvRing)] = false;
                recvLowest[stream]++;
            }
            if (recvLowest[stream] != before && recvLowest[stream] + recvRing - recvNext[stream] >= recvBatch) {
                postReceives(stream);
            }
        }

        // =================================================================================
        // Any thread
        // =================================================================================

        private void check(MemorySegment seg, long off, long key) {
            if (verify(seg, off, size, key)) {
                messages.incrementAndGet();
            } else {
                mismatches.incrementAndGet();
            }
        }

        private void failed(String what) {
            if (closing) {
                return; // receives flushed by the close
            }
            failures.incrementAndGet();
            firstFailure.compareAndSet(null, what);
        }

        private void fail(String what) {
            failures.incrementAndGet();
            firstFailure.compareAndSet(null, what);
        }

        private long retransmits() {
            return clientConn.stats().retransmissions() + serverConn.stats().retransmissions();
        }

        private static long sendKey(int stream, long seq) {
            return ((long) stream << 40) ^ seq ^ (1L << 62);
        }

        /** First state of the pattern of message {@code key}: never zero (xorshift). */
        private static long seedOf(long key) {
            long z = SEED ^ (key * 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
            z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
            z ^= z >>> 33;
            return z == 0 ? 1 : z;
        }

        private static long next(long x) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            return x;
        }

        static void fill(MemorySegment seg, long off, int length, long key) {
            long x = seedOf(key);
            int words = length >>> 3;
            for (int i = 0; i < words; i++) {
                x = next(x);
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, off + 8L * i, x);
            }
            x = next(x);
            for (int i = words << 3; i < length; i++) {
                seg.set(ValueLayout.JAVA_BYTE, off + i, (byte) x);
                x >>>= 8;
            }
        }

        static boolean verify(MemorySegment seg, long off, int length, long key) {
            long x = seedOf(key);
            int words = length >>> 3;
            for (int i = 0; i < words; i++) {
                x = next(x);
                if (seg.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 8L * i) != x) {
                    return false;
                }
            }
            x = next(x);
            for (int i = words << 3; i < length; i++) {
                if (seg.get(ValueLayout.JAVA_BYTE, off + i) != (byte) x) {
                    return false;
                }
                x >>>= 8;
            }
            return true;
        }

        private record PathRow(int path, int srcPort, long packets, long bytes, double srttUs, double ecnFraction,
                String state) {
        }

        private String json(double goodputGbps, double messagesPerSecond, long retransmits, boolean verified,
                long errors, double seconds, List<PathRow> rows) {
            StringBuilder b = new StringBuilder(512);
            b.append("{\n");
            b.append("  \"op\": \"").append(op).append("\",\n");
            b.append("  \"size\": ").append(size).append(",\n");
            b.append("  \"streams\": ").append(streams).append(",\n");
            b.append("  \"paths\": ").append(paths).append(",\n");
            b.append("  \"depth\": ").append(depth).append(",\n");
            b.append("  \"drop\": ").append(number(drop)).append(",\n");
            b.append("  \"window_bytes\": ").append(windowBytes).append(",\n");
            b.append("  \"warmup_s\": ").append(number(warmupSeconds)).append(",\n");
            b.append("  \"duration_s\": ").append(number(seconds)).append(",\n");
            b.append("  \"goodput_gbps\": ").append(number(goodputGbps)).append(",\n");
            b.append("  \"messages_per_s\": ").append(number(messagesPerSecond)).append(",\n");
            b.append("  \"messages\": ").append(messages.get()).append(",\n");
            b.append("  \"retransmits\": ").append(retransmits).append(",\n");
            b.append("  \"verified\": ").append(verified).append(",\n");
            b.append("  \"errors\": ").append(errors).append(",\n");
            b.append("  \"mismatches\": ").append(mismatches.get()).append(",\n");
            b.append("  \"per_path\": [");
            for (int i = 0; i < rows.size(); i++) {
                PathRow r = rows.get(i);
                b.append(i == 0 ? "\n" : ",\n");
                b.append("    {\"path\": ").append(r.path)
                        .append(", \"src_port\": ").append(r.srcPort)
                        .append(", \"packets\": ").append(r.packets)
                        .append(", \"bytes\": ").append(r.bytes)
                        .append(", \"srtt_us\": ").append(number(r.srttUs))
                        .append(", \"ecn_fraction\": ").append(number(r.ecnFraction))
                        .append(", \"state\": \"").append(r.state).append("\"}");
            }
            b.append(rows.isEmpty() ? "]\n" : "\n  ]\n");
            b.append("}\n");
            return b.toString();
        }

        private static String number(double v) {
            if (!Double.isFinite(v)) {
                return "null";
            }
            double rounded = Math.round(v * 1e6) / 1e6;
            return rounded == Math.rint(rounded) && Math.abs(rounded) < 1e15
                    ? Long.toString((long) rounded) : Double.toString(rounded);
        }
    }
}
