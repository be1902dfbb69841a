package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;

/**
 * Two endpoints on 127.0.0.1 over real UDP sockets: a client with 4 paths (4 source ports) and a
 * listening server; every operation at sizes from 1 B to 256 KiB over several streams, every byte
 * checked; clean and with 5% of each side's datagrams dropped; graceful close; no buffer leak; on
 * every datapath (AUTO, the Linux layer where it runs, and NIO).
 */
class UdpLoopbackTest {
    static {
        LeakRecorder.install();
    }

    private static final int PATHS = 4;
    private static final int STREAMS = 4;
    private static final long[] SIZES = {1, 2, 100, 1000, 4096, 5000, 65_536, 100_000, 262_144};
    private static final long WAIT_SECONDS = 20;
    /**
     * The defaults, but a silent peer is given up after about 5 s instead of about 1 s: the 12th
     * timeout in a row comes when the RTO, doubling from about 1 ms, reaches its 1 s cap; with a
     * 5 s cap and 14 timeouts, when it reaches 5 s. Both endpoints run in this JVM, and a loaded
     * build machine may deschedule one loop for a second while the other runs, which by the
     * defaults is a peer gone ([SPEC-LOSS-6]); how soon a dead peer is detected is not what this
     * test is about (PeerFailureTest). A stall of the local loop no longer counts more than one
     * timeout per path ([SPEC-LOSS-4], StalledDriverTest).
     */
    private static final EngineConfig CONFIG = EngineConfig.defaults().toBuilder()
            .maxRtoNanos(5_000_000_000L).maxConsecutiveTimeouts(14).build();

    @ParameterizedTest
    @EnumSource(Datapath.class)
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void everyOperationOverFourPaths(Datapath datapath) throws Exception {
        run(datapath, 0.0);
    }

    @ParameterizedTest
    @EnumSource(Datapath.class)
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void everyOperationWithFivePercentDropOnBothSides(Datapath datapath) throws Exception {
        run(datapath, 0.05);
    }

    private void run(Datapath datapath, double drop) throws Exception {
        assumeTrue(datapath != Datapath.LINUX || LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        assertThat(LeakRecorder.isActive()).as("leak recorder installed before Netty's buffers").isTrue();
        LeakRecorder.clear();
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        long total = Arrays.stream(SIZES).sum();
        try (Arena arena = Arena.ofShared()) {
            UdpEndpoint server = null;
            UdpEndpoint client = null;
            try {
                server = UdpEndpoint.builder().datapath(datapath).config(CONFIG).listening(true).dropProbability(drop)
                        .dropSeed(11)
                        .acceptListener(accepted::add).build();
                client = UdpEndpoint.builder().datapath(datapath).config(CONFIG).dropProbability(drop).dropSeed(12)
                        .build();

                UdpConnection cc = client.connect(server.localAddress(), PATHS).get(WAIT_SECONDS, TimeUnit.SECONDS);
                UdpConnection sc = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(sc).isNotNull();

                MemoryRegion src = client.register(filled(arena, total, 1), Access.NONE);
                MemoryRegion src2 = client.register(filled(arena, total, 2), Access.NONE);
                MemoryRegion readBack = client.register(arena.allocate(total), Access.LOCAL_WRITE);
                MemoryRegion recv = server.register(arena.allocate(total), Access.LOCAL_WRITE);
                MemoryRegion remote = server.register(arena.allocate(total),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
                MemoryRegion remote2 = server.register(arena.allocate(total),
                        Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
                MemoryRegion immRecv = server.register(arena.allocate(16 * SIZES.length), Access.LOCAL_WRITE);

                // SEND into receives posted on the server.
                List<CompletableFuture<Completion>> recvs = new ArrayList<>();
                List<CompletableFuture<Completion>> sends = new ArrayList<>();
                long off = 0;
                for (int i = 0; i < SIZES.length; i++) {
                    recvs.add(sc.postRecv(i % STREAMS, 1000 + i, recv, off, SIZES[i]));
                    off += SIZES[i];
                }
                off = 0;
                for (int i = 0; i < SIZES.length; i++) {
                    sends.add(cc.postSend(i % STREAMS, i, src, off, SIZES[i]));
                    off += SIZES[i];
                }
                for (int i = 0; i < SIZES.length; i++) {
                    assertThat(get(sends.get(i))).isEqualTo(new Completion(i, i % STREAMS, WorkOpcode.SEND, 0, SIZES[i], 0, false));
                    assertThat(get(recvs.get(i))).isEqualTo(new Completion(1000 + i, i % STREAMS, WorkOpcode.RECV, 0, SIZES[i], 0, false));
                }
                assertSame(recv.segment(), src.segment());

                // WRITE, then READ it back.
                List<CompletableFuture<Completion>> writes = new ArrayList<>();
                off = 0;
                for (int i = 0; i < SIZES.length; i++) {
                    writes.add(cc.postWrite(i % STREAMS, 7, src, off, SIZES[i], remote.remoteKey(), off));
                    off += SIZES[i];
                }
                for (int i = 0; i < SIZES.length; i++) {
                    Completion c = get(writes.get(i));
                    assertThat(c.isSuccess()).as("%s", c).isTrue();
                    assertThat(c.opcode()).isEqualTo(WorkOpcode.WRITE);
                    assertThat(c.byteLength()).isEqualTo(SIZES[i]);
                }
                assertSame(remote.segment(), src.segment());

                // WRITE_WITH_IMM: consumes a receive at the server, which gets the immediate.
                List<CompletableFuture<Completion>> immRecvs = new ArrayList<>();
                List<CompletableFuture<Completion>> immWrites = new ArrayList<>();
                for (int i = 0; i < SIZES.length; i++) {
                    immRecvs.add(sc.postRecv(i % STREAMS, 2000 + i, immRecv, 16L * i, 16));
                }
                off = 0;
                for (int i = 0; i < SIZES.length; i++) {
                    immWrites.add(cc.postWriteWithImmediate(i % STREAMS, 3000 + i, src2, off, SIZES[i],
                            remote2.remoteKey(), off, 0xC0DE0000 + i));
                    off += SIZES[i];
                }
                for (int i = 0; i < SIZES.length; i++) {
                    Completion w = get(immWrites.get(i));
                    assertThat(w.isSuccess()).as("%s", w).isTrue();
                    assertThat(w.opcode()).isEqualTo(WorkOpcode.WRITE_WITH_IMM);
                    Completion r = get(immRecvs.get(i));
                    assertThat(r).isEqualTo(new Completion(2000 + i, i % STREAMS, WorkOpcode.RECV_WRITE_WITH_IMM, 0,
                            SIZES[i], 0xC0DE0000 + i, true));
                }
                assertSame(remote2.segment(), src2.segment());

                // READ the server's remote2 back into the client.
                List<CompletableFuture<Completion>> reads = new ArrayList<>();
                off = 0;
                for (int i = 0; i < SIZES.length; i++) {
                    reads.add(cc.postRead(i % STREAMS, 4000 + i, readBack, off, SIZES[i], remote2.remoteKey(), off));
                    off += SIZES[i];
                }
                for (int i = 0; i < SIZES.length; i++) {
                    Completion c = get(reads.get(i));
                    assertThat(c.isSuccess()).as("%s", c).isTrue();
                    assertThat(c.opcode()).isEqualTo(WorkOpcode.READ);
                    assertThat(c.byteLength()).isEqualTo(SIZES[i]);
                }
                assertSame(readBack.segment(), src2.segment());

                // Four paths, four source ports, each answered by the server.
                UdpConnectionStats cs = cc.stats();
                UdpConnectionStats ss = sc.stats();
                assertThat(cs.pathCount()).isEqualTo(PATHS);
                assertThat(ss.pathCount()).isEqualTo(PATHS);
                assertThat(Arrays.stream(cs.localSocketPorts()).distinct().count()).as("%s", cs).isEqualTo(PATHS);
                assertThat(cs.localSocketPorts()).as("%s", cs).doesNotContain(-1, server.localAddress().getPort());
                assertThat(Arrays.stream(cs.localSocketDatagramsReceived()).allMatch(n -> n > 0))
                        .as("server answered every source port: %s", cs).isTrue();
                assertThat(Arrays.stream(cs.pathPacketsSent()).allMatch(n -> n > 0)).as("%s", cs).isTrue();
                assertThat(Arrays.stream(ss.pathPacketsSent()).allMatch(n -> n > 0)).as("%s", ss).isTrue();
                if (drop > 0) {
                    assertThat(client.stats().datagramsDropped()).isPositive();
                    assertThat(server.stats().datagramsDropped()).isPositive();
                    assertThat(cs.retransmissions() + ss.retransmissions()).as("%s %s", cs, ss).isPositive();
                } else {
                    assertThat(client.stats().datagramsDropped()).isZero();
                }

                // Graceful close of the client ends both sides.
                assertThat(cc.close().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.LOCAL_CLOSE);
                assertThat(sc.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(CloseReason.PEER_CLOSE);
                assertThat(client.stats().openConnections()).isZero();
                assertThat(client.stats().openSockets()).as("path sockets closed").isEqualTo(1);
                assertThat(server.stats().openConnections()).isZero();
            } finally {
                if (client != null) {
                    client.close();
                }
                if (server != null) {
                    server.close();
                }
            }
        }
        assertThat(LeakRecorder.collect()).as("Netty buffer leaks").isEmpty();
    }

    private static Completion get(CompletableFuture<Completion> f) throws Exception {
        return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static MemorySegment filled(Arena arena, long size, long seed) {
        byte[] bytes = new byte[(int) size];
        new SplittableRandom(seed).nextBytes(bytes);
        MemorySegment seg = arena.allocate(size);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return seg;
    }

    private static void assertSame(MemorySegment actual, MemorySegment expected) {
        assertThat(actual.mismatch(expected)).as("first differing byte").isEqualTo(-1L);
    }
}
