package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Linux datapath sends a DATA packet's payload from the registered region (header and trailer
 * from the send slot, the payload in an iovec of its own, {@link UdpSocket#writeGathered}): WRITEs
 * of native memory arrive byte for byte, with GSO runs and without (every datagram flushed on its
 * own), with datagrams dropped (retransmissions read the region again), over one path and four, in
 * messages whose last packet is short; a heap region's payload is copied as before.
 */
class GatheredPayloadTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 30;

    @ParameterizedTest(name = "size {0}, paths {1}, GSO {2}, drop {3}")
    @CsvSource({
        "8192, 1, true, 0",
        "8192, 4, true, 0",
        "8192, 1, false, 0",
        "8192, 2, true, 0.05",
        "8192, 1, false, 0.05",
        "5000, 3, true, 0.02",
        "100, 2, true, 0.02",
    })
    @Timeout(120)
    void writesOfNativeMemoryArriveIntactWhenTheirPayloadIsGathered(int size, int paths, boolean gso, double drop)
            throws Exception {
        assumeLinux();
        GatherWatch layer = new GatherWatch(gso);
        try (Arena arena = Arena.ofShared()) {
            long total = (long) size * 96;
            MemorySegment source = patterned(arena.allocate(total));
            transfer(layer, source, arena.allocate(total), size, paths, drop);
            assertThat(layer.gathered.get()).as("datagrams sent with their payload gathered").isPositive();
            if (!gso) {
                assertThat(layer.offloadSends.get()).as("GSO sends when every datagram is flushed alone").isZero();
            }
        }
    }

    @Test
    @Timeout(60)
    void aHeapRegionsPayloadIsCopiedIntoTheSlot() throws Exception {
        assumeLinux();
        GatherWatch layer = new GatherWatch(true);
        try (Arena arena = Arena.ofShared()) {
            int size = 8192;
            MemorySegment source = patterned(MemorySegment.ofArray(new byte[size * 16]));
            transfer(layer, source, arena.allocate(source.byteSize()), size, 1, 0);
            assertThat(layer.gathered.get()).as("datagrams with a gathered payload from a heap region").isZero();
            assertThat(layer.inPlace.get()).as("datagrams sent whole from their slot").isPositive();
        }
    }

    @Test
    @Timeout(60)
    void aLayerThatDoesNotGatherGetsWholeDatagrams() throws Exception {
        assumeLinux();
        GatherWatch layer = new GatherWatch(true) {
            @Override
            public boolean gathersPayload() {
                return false;
            }
        };
        try (Arena arena = Arena.ofShared()) {
            int size = 8192;
            MemorySegment source = patterned(arena.allocate(size * 16L));
            transfer(layer, source, arena.allocate(source.byteSize()), size, 2, 0);
            assertThat(layer.gathered.get()).isZero();
            assertThat(layer.inPlace.get()).isPositive();
        }
    }

    private static void assumeLinux() {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
    }

    private static MemorySegment patterned(MemorySegment s) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 13)));
        }
        return s;
    }

    /**
     * WRITEs {@code source} in {@code size}-byte pieces from a client on {@code layer} (dropping
     * {@code drop} of its datagrams) to {@code target} on a plain Linux server, and checks every
     * byte.
     */
    private static void transfer(SocketLayer layer, MemorySegment source, MemorySegment target, int size, int paths,
            double drop) throws Exception {
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (UdpEndpoint server = UdpEndpoint.builder().datapath(Datapath.LINUX).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().socketLayer(layer).dropProbability(drop).dropSeed(17)
                        .build()) {
            UdpConnection cc = client.connect(server.localAddress(), paths).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            MemoryRegion from = client.register(source, Access.NONE);
            MemoryRegion to = server.register(target, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            List<CompletableFuture<Completion>> writes = new ArrayList<>();
            long total = source.byteSize();
            for (long off = 0; off < total; off += size) {
                writes.add(cc.postWrite(0, off / size, from, off, (int) Math.min(size, total - off), to.remoteKey(),
                        off));
            }
            for (CompletableFuture<Completion> w : writes) {
                Completion done = w.get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(done.isSuccess()).as("WRITE succeeded: %s", done).isTrue();
            }
            assertThat(target.mismatch(source)).as("first differing byte").isEqualTo(-1L);
        }
    }

    /**
     * The Linux layer, counting the datagrams the endpoint queues whole and gathered; without GSO
     * every datagram is flushed as it is queued, so each goes alone.
     */
    private static class GatherWatch extends ForwardingSocketLayer {
        final AtomicLong gathered = new AtomicLong();
        final AtomicLong inPlace = new AtomicLong();
        final AtomicLong offloadSends = new AtomicLong();
        private final boolean gso;

        GatherWatch(boolean gso) {
            super(LinuxSocketLayer.INSTANCE);
            this.gso = gso;
        }

        @Override
        UdpSocket socket(UdpSocket inners) {
            return new ForwardingSocket(inners) {
                @Override
                public boolean writeInPlace(ByteBuffer slot, long slotAddress, int length, InetSocketAddress to,
                        int ecn) {
                    inPlace.incrementAndGet();
                    return sent(inner.writeInPlace(slot, slotAddress, length, to, ecn));
                }

                @Override
                public boolean writeGathered(ByteBuffer slot, long slotAddress, int headerLength, long payloadAddress,
                        int payloadLength, int length, InetSocketAddress to, int ecn) {
                    gathered.incrementAndGet();
                    return sent(inner.writeGathered(slot, slotAddress, headerLength, payloadAddress, payloadLength,
                            length, to, ecn));
                }

                private boolean sent(boolean queued) {
                    if (!gso) {
                        inner.flush();
                        offloadSends.set(inner.offloadSends());
                    }
                    return queued;
                }
            };
        }
    }
}
