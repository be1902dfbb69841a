package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.WireConstants;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DATA payloads sent straight from the application's registered memory: the engine encodes the
 * header and trailer into a send slot and the Linux layer gathers the datagram from the slot and
 * the region (three iovecs), so the kernel's copy is the payload's only one on the sender. Checked
 * end to end (every byte of a WRITE arrives, native and heap regions, the counter says which way
 * each went), at the socket (gathered datagrams mixed with in-place and copied ones in batches and
 * GSO runs arrive whole and in order), for a layer without gathering (the default assembles the
 * datagram), and for the GSO size a default pacing burst needs.
 */
class GatheredPayloadTest {
    private static final long WAIT_SECONDS = 20;

    private static void assumeLinux() {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
    }

    /** WRITEs from a region of {@code native} or heap memory arrive byte for byte; returns the client's gathered count. */
    private static long gatheredAfterWrites(Datapath datapath, boolean nativeSource, long seed) throws Exception {
        int bytes = 1 << 20;
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(datapath).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(datapath).build()) {
            UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            MemorySegment source = nativeSource ? arena.allocate(bytes) : MemorySegment.ofArray(new byte[bytes]);
            SplittableRandom random = new SplittableRandom(seed);
            for (long i = 0; i < bytes; i += 8) {
                source.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
            }
            MemorySegment destination = arena.allocate(bytes);
            MemoryRegion src = client.register(source, Access.NONE);
            MemoryRegion dst = server.register(destination, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            long before = client.stats().gatheredDatagrams();
            // Messages of several sizes and offsets, the last packets of each shorter or not.
            long offset = 0;
            int message = 0;
            while (offset < bytes) {
                long length = Math.min(bytes - offset, 1 + random.nextInt(40_000));
                assertThat(c.postWrite(message % 2, message, src, offset, length, dst.remoteKey(), offset)
                        .get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).as("seed %d", seed).isTrue();
                offset += length;
                message++;
            }
            assertThat(destination.mismatch(source)).as("every byte placed, seed %d", seed).isEqualTo(-1L);
            return client.stats().gatheredDatagrams() - before;
        }
    }

    @ParameterizedTest(name = "native source {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(60)
    void writesFromANativeRegionAreGatheredAndFromAHeapRegionCopiedAndEveryByteArrives(boolean nativeSource)
            throws Exception {
        assumeLinux();
        long seed = System.nanoTime();
        long gathered = gatheredAfterWrites(Datapath.LINUX, nativeSource, seed);
        int payloadBytes = EngineConfig.defaults().maxDatagramBytes() - WireConstants.DATA_OVERHEAD_BYTES;
        if (nativeSource) {
            assertThat(gathered).as("at least one datagram per full payload of 1 MiB, seed %d", seed)
                    .isGreaterThanOrEqualTo((1 << 20) / payloadBytes);
        } else {
            assertThat(gathered).as("a heap region's payload is copied into the slot, seed %d", seed).isZero();
        }
    }

    @Test
    @Timeout(60)
    void theNioLayerCopiesEveryDatagram() throws Exception {
        assertThat(gatheredAfterWrites(Datapath.NIO, true, 42)).isZero();
    }

    /**
     * Datagrams gathered from a slot's header and trailer and a payload elsewhere, mixed with
     * in-place and copied ones in the same batches and GSO runs: each arrives whole (every byte)
     * and in order.
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void gatheredDatagramsMixWithInPlaceAndCopiedOnesAndArriveWholeAndInOrder(boolean gro) throws Exception {
        assumeLinux();
        long seed = System.nanoTime();
        int slot = 4096;
        int header = WireConstants.DATA_HEADER_BYTES;
        int trailer = WireConstants.CHECKSUM_BYTES;
        try (SocketPair pair = SocketPair.open(LinuxSocketLayer.INSTANCE, gro, slot);
                Arena arena = Arena.ofShared()) {
            SplittableRandom random = new SplittableRandom(seed);
            int[] sizes = {slot, 2839, 2839, 2839, 1100, 64, header + trailer + 1};
            int count = 5 * LinuxSocketLayer.SEND_BATCH + 3;
            int[] lengths = new int[count];
            int[] ecns = new int[count];
            int[] how = new int[count]; // 0 copied, 1 in place, 2 gathered
            for (int i = 0; i < count; i++) {
                lengths[i] = sizes[random.nextInt(sizes.length)];
                ecns[i] = random.nextInt(6) == 0 ? 0 : 2;
                // Only a datagram longer than a header and trailer has a payload to gather.
                how[i] = random.nextInt(lengths[i] > header + trailer ? 3 : 2);
            }
            // The payloads, all in one native region, each at its own place.
            MemorySegment payloads = arena.allocate((long) count * slot);
            ByteBuffer payloadView = payloads.asByteBuffer();
            int[] expected = new int[count];
            byte[] datagram = new byte[slot];
            for (int i = 0; i < count; i++) {
                for (int k = 0; k < lengths[i]; k++) {
                    datagram[k] = (byte) random.nextInt();
                }
                datagram[0] = (byte) (i >>> 8);
                datagram[1] = (byte) i;
                CRC32C crc = new CRC32C();
                crc.update(datagram, 0, lengths[i]);
                expected[i] = (int) crc.getValue();
                payloadView.put(i * slot, datagram, 0, lengths[i]);
            }
            int dropped = pair.loop.submit(() -> {
                SendSlots slots = new SendSlots(slot);
                ByteBuffer copied = ByteBuffer.allocate(slot);
                int lost = 0;
                for (int i = 0; i < count; i++) {
                    int at = i * slot;
                    InetSocketAddress to = pair.b.localAddress();
                    boolean queued;
                    if (how[i] == 0) {
                        copied.put(0, payloadView, at, lengths[i]);
                        queued = pair.a.write(copied, lengths[i], to, ecns[i]);
                    } else {
                        ByteBuffer s = slots.current();
                        // Stale bytes of an earlier use of the slot must not show.
                        s.put(0, new byte[slot]);
                        if (how[i] == 1) {
                            s.put(0, payloadView, at, lengths[i]);
                            queued = pair.a.writeInPlace(s, slots.currentAddress(), lengths[i], to, ecns[i]);
                        } else {
                            // Header and trailer in the slot, back to back; the payload stays in the region.
                            int payload = lengths[i] - header - trailer;
                            s.put(0, payloadView, at, header);
                            s.put(header, payloadView, at + header + payload, trailer);
                            queued = pair.a.writeGathered(s, slots.currentAddress(), header,
                                    payloads.address() + at + header, payload, payloadView, at + header, lengths[i],
                                    to, ecns[i]);
                        }
                        if (queued && slots.take()) {
                            lost += pair.a.flush();
                            slots.reset();
                        }
                    }
                    assertThat(queued).isTrue();
                    if (random.nextInt(50) == 0) {
                        lost += pair.a.flush();
                        slots.reset();
                    }
                }
                return lost + pair.a.flush();
            }).get(10, TimeUnit.SECONDS);
            assertThat(dropped).as("seed %d", seed).isZero();
            for (int i = 0; i < count; i++) {
                int[] d = pair.received.poll(5, TimeUnit.SECONDS);
                String where = "datagram " + i + " (" + new String[] {"copied", "in place", "gathered"}[how[i]]
                        + "), seed " + seed;
                assertThat(d).as(where).isNotNull();
                assertThat(d[0]).as("sequence of " + where).isEqualTo(i);
                assertThat(d[1]).as("length of " + where).isEqualTo(lengths[i]);
                assertThat(d[2]).as("ECN of " + where).isEqualTo(ecns[i]);
                assertThat(d[3]).as("CRC32C of the bytes of " + where).isEqualTo(expected[i]);
            }
            assertThat(pair.received.poll(100, TimeUnit.MILLISECONDS)).as("no extra datagram").isNull();
            long gathered = pair.loop.submit(() -> ((LinuxUdpSocket) pair.a).gatheredSends()).get(5, TimeUnit.SECONDS);
            long expectedGathered = java.util.Arrays.stream(how).filter(h -> h == 2).count();
            assertThat(gathered).as("seed %d", seed).isEqualTo(expectedGathered);
        }
    }

    /** A layer that does not gather (NIO) gets the datagram assembled by the default method, whole. */
    @Test
    @Timeout(30)
    void aLayerWithoutGatheringGetsTheDatagramAssembled() throws Exception {
        int slot = 4096;
        try (SocketPair pair = SocketPair.open(NioSocketLayer.INSTANCE, false, slot);
                Arena arena = Arena.ofShared()) {
            int length = 3000;
            int header = WireConstants.DATA_HEADER_BYTES;
            MemorySegment region = arena.allocate(8192);
            ByteBuffer regionView = region.asByteBuffer();
            byte[] datagram = new byte[length];
            new SplittableRandom(7).nextBytes(datagram);
            datagram[0] = 0;
            datagram[1] = 0;
            int payloadAt = 1000;
            int payload = length - header - WireConstants.CHECKSUM_BYTES;
            regionView.put(payloadAt, datagram, header, payload);
            CRC32C crc = new CRC32C();
            crc.update(datagram);
            boolean queued = pair.loop.submit(() -> {
                // The NIO layer's buffer is the endpoint's heap buffer (it sends nothing in place).
                ByteBuffer s = ByteBuffer.allocate(slot);
                s.put(0, datagram, 0, header);
                s.put(header, datagram, length - WireConstants.CHECKSUM_BYTES, WireConstants.CHECKSUM_BYTES);
                boolean ok = pair.a.writeGathered(s, 0, header, region.address() + payloadAt,
                        payload, regionView, payloadAt, length, pair.b.localAddress(), 0);
                pair.a.flush();
                return ok;
            }).get(5, TimeUnit.SECONDS);
            assertThat(queued).isTrue();
            int[] d = pair.received.poll(5, TimeUnit.SECONDS);
            assertThat(d).isNotNull();
            assertThat(d[1]).isEqualTo(length);
            assertThat(d[3]).as("the assembled datagram's bytes").isEqualTo((int) crc.getValue());
        }
    }

    /**
     * A default pacing burst ([SPEC-CC-13]: {@code pacingBurstBytes} and the datagram past it)
     * of the largest default datagram, and of the 2,839-byte datagrams of 8 KiB messages, fits in
     * one GSO send, and a run of that many datagrams goes as exactly one.
     */
    @Test
    @Timeout(30)
    void aDefaultPacingBurstGoesAsOneGsoSend() throws Exception {
        assumeLinux();
        EngineConfig defaults = EngineConfig.defaults();
        for (int datagram : new int[] {defaults.maxDatagramBytes(), 2839, 1500, 8163}) {
            long burst = (defaults.pacingBurstBytes() / datagram + 1) * datagram;
            assertThat(burst).as("burst of %d-byte datagrams", datagram).isLessThanOrEqualTo(LinuxUdpSocket.MAX_GSO_BYTES);
        }
        int slot = 4096;
        int datagram = 2839;
        int run = (int) (defaults.pacingBurstBytes() / datagram + 1);
        try (SocketPair pair = SocketPair.open(LinuxSocketLayer.INSTANCE, true, slot)) {
            long[] gso = pair.loop.submit(() -> {
                LinuxUdpSocket a = (LinuxUdpSocket) pair.a;
                long sendsBefore = a.gsoSends();
                long datagramsBefore = a.offloadDatagrams();
                ByteBuffer buf = ByteBuffer.allocate(slot);
                for (int i = 0; i < run; i++) {
                    buf.put(0, (byte) (i >>> 8));
                    buf.put(1, (byte) i);
                    assertThat(a.write(buf, datagram, pair.b.localAddress(), 2)).isTrue();
                }
                assertThat(a.flush()).isZero();
                return new long[] {a.gsoSends() - sendsBefore, a.offloadDatagrams() - datagramsBefore};
            }).get(5, TimeUnit.SECONDS);
            assertThat(gso[0]).as("GSO sends for a burst of %d", run).isEqualTo(1);
            assertThat(gso[1]).isEqualTo(run);
            for (int i = 0; i < run; i++) {
                int[] d = pair.received.poll(5, TimeUnit.SECONDS);
                assertThat(d).as("datagram %d", i).isNotNull();
                assertThat(d[0]).isEqualTo(i);
                assertThat(d[1]).isEqualTo(datagram);
            }
        }
    }

    /** Two sockets of a layer on loopback on one loop, recording (sequence, length, ECN, CRC32C of the bytes). */
    private static final class SocketPair implements AutoCloseable {
        final EventLoopGroup group;
        final EventLoop loop;
        final BlockingQueue<int[]> received = new LinkedBlockingQueue<>();
        UdpSocket a;
        UdpSocket b;

        private SocketPair(SocketLayer layer) {
            this.group = layer.newEventLoopGroup(1);
            this.loop = group.next();
        }

        static SocketPair open(SocketLayer layer, boolean gro, int slot) throws Exception {
            SocketPair pair = new SocketPair(layer);
            DatagramReceiver sink = new DatagramReceiver() {
                @Override
                public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                        int ecn) {
                    CRC32C crc = new CRC32C();
                    ByteBuffer view = data.duplicate();
                    view.limit(offset + length).position(offset);
                    crc.update(view);
                    int sequence = (data.get(offset) & 0xFF) << 8 | (data.get(offset + 1) & 0xFF);
                    pair.received.add(new int[] {sequence, length, ecn, (int) crc.getValue()});
                }

                @Override
                public void onReadBatchComplete(int socketId) {
                }

                @Override
                public void onSocketError(int socketId, Throwable cause) {
                    pair.received.add(new int[] {-1, -1, -1, -1});
                }
            };
            SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(4 << 20, slot, gro);
            InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            pair.a = layer.bind(pair.loop, any, 1, options, sink).get(5, TimeUnit.SECONDS);
            pair.b = layer.bind(pair.loop, any, 2, options, sink).get(5, TimeUnit.SECONDS);
            return pair;
        }

        @Override
        public void close() throws Exception {
            loop.submit(() -> {
                if (a != null) {
                    a.close();
                }
                if (b != null) {
                    b.close();
                }
            }).get(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
