package io.metaroce.bench.cli;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce demo}: two engines move verified data over several paths with loss injected,
 * with live progress and a per-path table. Until the UDP datapath lands the network is the
 * engine's in-memory test network (the very engine code the datapath will drive).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Moves verified data between two MetaRoCE engines over several lossy paths and prints",
                "live progress, a per-path table and a summary.",
                "The network is the in-memory test network (per-path delay and order, random loss); the",
                "UDP datapath on loopback replaces it when that milestone lands."})
public final class DemoCommand implements Callable<Integer> {
    private static final int OPS_PER_STREAM = 4;

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", description = "Seconds to run (default ${DEFAULT-VALUE}).", defaultValue = "8")
    double durationSeconds;

    @Option(names = "--paths", description = "Paths per connection (default ${DEFAULT-VALUE}).", defaultValue = "4")
    int paths;

    @Option(names = "--streams", description = "Streams (default ${DEFAULT-VALUE}).", defaultValue = "8")
    int streams;

    @Option(names = "--loss", description = "Fraction of datagrams lost (default ${DEFAULT-VALUE}).", defaultValue = "0.01")
    double loss;

    @Option(names = "--size", description = "Bytes per message (default ${DEFAULT-VALUE}).", defaultValue = "262144")
    int size;

    @Option(names = "--seed", description = "Seed of the network's randomness (default ${DEFAULT-VALUE}).", defaultValue = "1")
    long seed;

    private Pair pair;
    private MemorySegment clientSource;
    private MemorySegment clientTarget;
    private MemorySegment serverTarget;
    private MemorySegment serverSource;
    private MemoryRegion clientSourceRegion;
    private MemoryRegion clientTargetRegion;
    private MemoryRegion serverTargetRegion;
    private MemoryRegion serverSourceRegion;
    private final SplittableRandom contentRandom = new SplittableRandom(42);
    private byte[] scratch;
    private long messages;
    private long verifiedBytes;
    private long mismatches;
    private long failures;
    private long opCounter;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (paths < 1 || paths > 64 || streams < 1 || streams > 1024 || size < 1 || size > (16 << 20)
                || loss < 0 || loss >= 1 || durationSeconds <= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "need 1 <= --paths <= 64, 1 <= --streams <= 1024, 1 <= --size <= 16 MiB, 0 <= --loss < 1, --duration > 0");
        }
        NetworkConditions net = NetworkConditions.perfect().withLoss(loss).withDelay(10_000, 2_000, 40_000);
        out.printf("metaroce demo: %d streams, %d paths, %.1f%% loss, %d-byte messages (SEND, WRITE, WRITE_WITH_IMM, READ)%n",
                streams, paths, loss * 100, size);
        out.println("network: in-memory, 10 us one-way, paths skewed up to 40 us (reordering across paths), seed " + seed);
        out.flush();

        pair = Pair.create(seed, paths, net, EngineConfig.defaults())
                .onClientCompletion(this::onClientCompletion)
                .onServerCompletion(this::onServerCompletion)
                .connect();
        long bytes = (long) streams * OPS_PER_STREAM * size;
        clientSource = Arena.ofAuto().allocate(bytes);
        clientTarget = Arena.ofAuto().allocate(bytes);
        serverTarget = Arena.ofAuto().allocate(bytes);
        serverSource = Arena.ofAuto().allocate(bytes);
        clientSourceRegion = pair.client().protectionDomain().register(clientSource, Access.LOCAL_WRITE);
        clientTargetRegion = pair.client().protectionDomain().register(clientTarget, Access.LOCAL_WRITE);
        serverTargetRegion = pair.server().protectionDomain().register(serverTarget, Access.ALL);
        serverSourceRegion = pair.server().protectionDomain().register(serverSource, Access.ALL);
        scratch = new byte[size];
        for (int s = 0; s < streams; s++) {
            for (int k = 0; k < OPS_PER_STREAM; k++) {
                post(s, k);
            }
        }

        long start = System.nanoTime();
        long end = start + (long) (durationSeconds * 1e9);
        long nextReport = start + 1_000_000_000L;
        long lastBytes = 0;
        long lastReportAt = start;
        while (System.nanoTime() < end && mismatches == 0 && failures == 0) {
            // Small batches: one step moves a datagram of up to 4 KB, so 2000 steps could take tens of
            // milliseconds on a busy machine and push the once-a-second report visibly late.
            for (int i = 0; i < 256; i++) {
                if (!pair.step()) {
                    break;
                }
            }
            long now = System.nanoTime();
            if (now >= nextReport) {
                double gbps = (verifiedBytes - lastBytes) * 8.0 / (now - lastReportAt);
                out.printf("t=%4.1fs  messages %,9d  verified %8.1f MiB  %6.2f Gb/s  retransmits %,7d  virtual time %,.1f ms%n",
                        (now - start) / 1e9, messages, verifiedBytes / 1048576.0, gbps,
                        pair.clientConnection().stats().retransmissions() + pair.serverConnection().stats().retransmissions(),
                        pair.now() / 1e6);
                out.flush();
                lastBytes = verifiedBytes;
                lastReportAt = now;
                nextReport += 1_000_000_000L;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        printPaths(out);
        Connection c = pair.clientConnection();
        Connection s = pair.serverConnection();
        out.println();
        out.printf("summary: %,d messages, %.1f MiB verified byte for byte, %s%n", messages, verifiedBytes / 1048576.0,
                mismatches == 0 && failures == 0 ? "no mismatch" : mismatches + " MISMATCHES, " + failures + " FAILED");
        out.printf("  engine throughput %.2f Gb/s of payload (both engines on one thread, %.1f s wall, %.1f ms virtual)%n",
                verifiedBytes * 8.0 / seconds / 1e9, seconds, pair.now() / 1e6);
        out.printf("  network dropped %,d datagrams (%.2f%%), duplicated %,d; retransmitted %,d (client) + %,d (server); "
                + "timeouts %,d; spurious %,d%n", pair.dropped(), 100.0 * pair.dropped() / Math.max(1, pair.delivered() + pair.dropped()),
                pair.duplicated(), c.stats().retransmissions(), s.stats().retransmissions(),
                c.stats().timeouts() + s.stats().timeouts(),
                c.stats().spuriousRetransmissionsReceived() + s.stats().spuriousRetransmissionsReceived());
        boolean ok = mismatches == 0 && failures == 0 && messages > 0;
        out.println(ok ? "verified" : "FAILED");
        out.flush();
        return ok ? 0 : 1;
    }

    private void printPaths(PrintWriter out) {
        Connection c = pair.clientConnection();
        out.println();
        out.println("path  packets_sent  retransmits  losses  srtt_us   (client side)");
        for (int p = 0; p < c.pathCount(); p++) {
            out.printf("%4d  %12d  %11d  %6d  %7.1f%n", p, c.pathPacketsSent(p), c.pathRetransmissions(p), c.pathLosses(p),
                    c.smoothedRttNanos(p) / 1000.0);
        }
    }

    private long offset(int stream, int slot) {
        return ((long) stream * OPS_PER_STREAM + slot) * size;
    }

    private static long wrId(int stream, int slot, int kind) {
        return ((long) stream << 16) | ((long) slot << 4) | kind;
    }

    private void fresh(MemorySegment seg, long off) {
        contentRandom.nextBytes(scratch);
        MemorySegment.copy(scratch, 0, seg, ValueLayout.JAVA_BYTE, off, size);
    }

    /** Posts the next operation of (stream, slot), cycling SEND, WRITE, WRITE_WITH_IMM, READ, with fresh bytes. */
    private void post(int stream, int slot) {
        int kind = (int) (opCounter++ % 4);
        long off = offset(stream, slot);
        Connection client = pair.clientConnection();
        switch (kind) {
            case 0 -> {
                fresh(clientSource, off);
                posted(pair.serverConnection().postRecv(stream, wrId(stream, slot, 8), serverTargetRegion, off, size));
                posted(client.postSend(stream, wrId(stream, slot, kind), clientSourceRegion, off, size));
            }
            case 1 -> {
                fresh(clientSource, off);
                posted(client.postWrite(stream, wrId(stream, slot, kind), clientSourceRegion, off, size,
                        serverTargetRegion.remoteKey(), off));
            }
            case 2 -> {
                fresh(clientSource, off);
                posted(pair.serverConnection().postRecv(stream, wrId(stream, slot, 9), serverTargetRegion, 0, 0));
                posted(client.postWriteWithImmediate(stream, wrId(stream, slot, kind), clientSourceRegion, off, size,
                        serverTargetRegion.remoteKey(), off, (int) opCounter));
            }
            default -> {
                fresh(serverSource, off);
                posted(client.postRead(stream, wrId(stream, slot, kind), clientTargetRegion, off, size,
                        serverSourceRegion.remoteKey(), off));
            }
        }
    }

    /** A post the engine refused is a failure of the demo, not something to skip over. */
    private void posted(int result) {
        if (result != io.metaroce.core.api.PostResult.OK) {
            failures++;
        }
    }

    private void onClientCompletion(long connection, int stream, long wrId, int opcode, int status, long bytes,
            int imm, boolean hasImm) {
        int slot = (int) ((wrId >>> 4) & 0xfff);
        if (status != CompletionStatus.SUCCESS) {
            failures++;
            return;
        }
        long off = offset(stream, slot);
        boolean same = opcode == WorkOpcode.READ
                ? clientTarget.asSlice(off, size).mismatch(serverSource.asSlice(off, size)) == -1
                : serverTarget.asSlice(off, size).mismatch(clientSource.asSlice(off, size)) == -1;
        if (!same) {
            mismatches++;
        }
        messages++;
        verifiedBytes += bytes;
        post(stream, slot);
    }

    private void onServerCompletion(long connection, int stream, long wrId, int opcode, int status, long bytes,
            int imm, boolean hasImm) {
        if (status != CompletionStatus.SUCCESS) {
            failures++;
        }
    }
}
