package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.api.PathStats;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Linux socket layer on this machine: chosen automatically, ECN read and written per datagram,
 * batches larger than one system call's worth delivered whole, GSO runs sent and (with GRO or
 * without) received as the datagrams they were, and a whole engine running on it.
 * Skipped, saying why, where the layer cannot run (not Linux, no epoll).
 */
class LinuxDatapathTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;

    @BeforeAll
    static void onlyWhereTheLayerRuns() {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
    }

    @Test
    void autoChoosesTheLinuxLayerForAnIpv4EndpointAndItReadsEcn() {
        try (UdpEndpoint e = UdpEndpoint.builder().build()) {
            assertThat(e.datapathName()).isEqualTo("linux");
            assertThat(e.stats().ecnCapable()).isTrue();
        }
    }

    @Test
    void theLinuxLayerRefusesAnNioEventLoopGroupWithAClearMessage() {
        EventLoopGroup nio = NioSocketLayer.INSTANCE.newEventLoopGroup(1);
        try {
            assertThatThrownBy(() -> UdpEndpoint.builder().datapath(Datapath.LINUX).eventLoopGroup(nio).build())
                    .hasMessageContaining("epoll event loop");
            try (UdpEndpoint e = UdpEndpoint.builder().eventLoopGroup(nio).build()) {
                assertThat(e.datapathName()).as("AUTO follows the group's kind").isEqualTo("nio");
            }
        } finally {
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    @Timeout(30)
    void everyEcnCodepointIsSentAndReadPerDatagramAcrossSeveralBatches() throws Exception {
        EventLoopGroup group = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        EventLoop loop = group.next();
        BlockingQueue<int[]> received = new LinkedBlockingQueue<>();
        DatagramReceiver sink = recorder(received,
                (data, offset, length, ecn, sender) -> new int[] {data.get(offset), length, ecn, sender.getPort()});
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(1 << 20, 2048);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        UdpSocket a = LinuxSocketLayer.INSTANCE.bind(loop, any, 1, options, sink).get(5, TimeUnit.SECONDS);
        UdpSocket b = LinuxSocketLayer.INSTANCE.bind(loop, any, 2, options, sink).get(5, TimeUnit.SECONDS);
        try {
            int count = 3 * LinuxSocketLayer.SEND_BATCH + 5; // more than one sendmmsg and one recvmmsg
            loop.submit(() -> {
                ByteBuffer buf = ByteBuffer.allocate(2048);
                for (int i = 0; i < count; i++) {
                    buf.put(0, (byte) i);
                    assertThat(a.write(buf, 100 + i, b.localAddress(), i & 3)).isTrue();
                }
                return a.flush();
            }).get(5, TimeUnit.SECONDS);
            List<int[]> got = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int[] d = received.poll(5, TimeUnit.SECONDS);
                assertThat(d).as("datagram %d of %d", i, count).isNotNull();
                got.add(d);
            }
            for (int i = 0; i < count; i++) {
                int[] d = got.get(i);
                assertThat(d[0]).as("order on loopback").isEqualTo((byte) i);
                assertThat(d[1]).as("length").isEqualTo(100 + i);
                assertThat(d[2]).as("ECN codepoint of datagram %d", i).isEqualTo(i & 3);
                assertThat(d[3]).as("sender port").isEqualTo(a.localAddress().getPort());
            }
        } finally {
            loop.submit(() -> {
                a.close();
                b.close();
            }).get(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Two Linux-layer sockets on loopback on one epoll loop, recording what either receives as
     * (sequence, length, ECN, last byte); closed with the loop.
     */
    private static final class SocketPair implements AutoCloseable {
        final EventLoopGroup group = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        final EventLoop loop = group.next();
        final BlockingQueue<int[]> received = new LinkedBlockingQueue<>();
        UdpSocket a;
        UdpSocket b;

        static SocketPair open(boolean gro, int slot) throws Exception {
            SocketPair pair = new SocketPair();
            DatagramReceiver sink = recorder(pair.received, (data, offset, length, ecn, sender) ->
                    new int[] {data.getInt(offset), length, ecn, data.get(offset + length - 1)});
            SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(4 << 20, slot, gro);
            InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            pair.a = LinuxSocketLayer.INSTANCE.bind(pair.loop, any, 1, options, sink).get(5, TimeUnit.SECONDS);
            pair.b = LinuxSocketLayer.INSTANCE.bind(pair.loop, any, 2, options, sink).get(5, TimeUnit.SECONDS);
            return pair;
        }

        /** Datagram {@code i} arrived with {@code lengths[i]}, {@code ecns[i]} and its bytes, in order, and no more. */
        void expectInOrder(int[] lengths, int[] ecns, String where) throws InterruptedException {
            int count = lengths.length;
            for (int i = 0; i < count; i++) {
                int[] d = received.poll(5, TimeUnit.SECONDS);
                assertThat(d).as("datagram %d of %d%s", i, count, where).isNotNull();
                assertThat(d[0]).as("sequence%s", where).isEqualTo(i);
                assertThat(d[1]).as("length of datagram %d%s", i, where).isEqualTo(lengths[i]);
                assertThat(d[2]).as("ECN of datagram %d%s", i, where).isEqualTo(ecns[i]);
                assertThat(d[3]).as("last byte of datagram %d%s", i, where).isEqualTo((int) (byte) (i * 7));
            }
            assertThat(received.poll(100, TimeUnit.MILLISECONDS)).as("no extra datagram%s", where).isNull();
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

    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void runsOfFullSizeDatagramsGoAsGsoSendsAndArriveAsSeparateDatagramsInOrder(boolean gro) throws Exception {
        int slot = 4096;
        try (SocketPair pair = SocketPair.open(gro, slot)) {
            EventLoop loop = pair.loop;
            UdpSocket a = pair.a;
            UdpSocket b = pair.b;
            // Runs of full-size datagrams (GSO), broken by an ECN change and by a short datagram.
            int count = 2 * LinuxSocketLayer.SEND_BATCH + 7;
            int[] lengths = new int[count];
            int[] ecns = new int[count];
            for (int i = 0; i < count; i++) {
                lengths[i] = i % 20 == 19 ? 1000 : slot;
                ecns[i] = i < 40 ? 2 : 3;
            }
            int dropped = loop.submit(() -> {
                ByteBuffer buf = ByteBuffer.allocate(slot);
                for (int i = 0; i < count; i++) {
                    buf.putInt(0, i);
                    buf.put(lengths[i] - 1, (byte) (i * 7));
                    assertThat(a.write(buf, lengths[i], b.localAddress(), ecns[i])).isTrue();
                }
                return a.flush();
            }).get(5, TimeUnit.SECONDS);
            assertThat(dropped).isZero();
            pair.expectInOrder(lengths, ecns, "");
            long coalesced = loop.submit(() -> ((LinuxUdpSocket) b).coalescedReceives()).get(5, TimeUnit.SECONDS);
            if (gro) {
                assertThat(coalesced).as("loopback hands GSO runs to a GRO socket whole").isPositive();
            } else {
                assertThat(coalesced).isZero();
            }
        }
    }

    /**
     * The socket's own {@code IP_TOS} is ECT(0), the engine's codepoint for data: ECT(0) datagrams,
     * single or in GSO runs, go without a control message and still arrive ECT(0); every datagram
     * with another codepoint (Not-ECT, ECT(1), CE) carries its own, which overrides the socket's.
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void ectZeroRidesOnTheSocketsOwnTosAndOtherCodepointsCarryTheirOwnControlMessage(boolean gro) throws Exception {
        int slot = 1024;
        try (SocketPair pair = SocketPair.open(gro, slot)) {
            EventLoop loop = pair.loop;
            LinuxUdpSocket a = (LinuxUdpSocket) pair.a;
            UdpSocket b = pair.b;
            assertThat(loop.submit(a::socketEcn).get(5, TimeUnit.SECONDS)).as("the socket's own codepoint")
                    .isEqualTo(LinuxSocketLayer.STICKY_ECN);
            // sendmmsg entries: a GSO run of ECT(0), Not-ECT, ECT(1), CE, a GSO run of ECT(0), a
            // short Not-ECT, a run of short ECT(0), one short ECT(0) after a Not-ECT.
            int[] lengths = {slot, slot, slot, slot, slot, slot, slot, slot, slot, slot, slot, slot, slot, slot, slot,
                slot, 100, 100, 100, 100, 64, 64};
            int[] ecns = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 1, 3, 2, 2, 2, 0, 2, 2, 2, 0, 2};
            int otherCodepoints = 5; // entries 0, 1, 3, 0 and 0 above
            long controlsBefore = loop.submit(a::tosControls).get(5, TimeUnit.SECONDS);
            int dropped = loop.submit(() -> {
                ByteBuffer buf = ByteBuffer.allocate(slot);
                for (int i = 0; i < lengths.length; i++) {
                    buf.putInt(0, i);
                    buf.put(lengths[i] - 1, (byte) (i * 7));
                    assertThat(a.write(buf, lengths[i], b.localAddress(), ecns[i])).isTrue();
                }
                return a.flush();
            }).get(5, TimeUnit.SECONDS);
            assertThat(dropped).isZero();
            long controls = loop.submit(a::tosControls).get(5, TimeUnit.SECONDS) - controlsBefore;
            assertThat(controls).as("IP_TOS control messages: one per datagram whose codepoint is not ECT(0)")
                    .isEqualTo(otherCodepoints);
            assertThat(loop.submit(a::gsoSends).get(5, TimeUnit.SECONDS)).as("the ECT(0) runs go as GSO sends")
                    .isGreaterThanOrEqualTo(3);
            pair.expectInOrder(lengths, ecns, "");
        }
    }

    /**
     * A busy-polling loop's direct read ({@link LinuxUdpSocket#readNow}): after a poll that found
     * the socket empty, the first datagram is read alone (the loop answers it before it looks for
     * more); the next poll reads the rest as one batch; a poll that read something is followed by
     * full batches.
     */
    @Test
    @Timeout(30)
    void aDirectReadAfterAnEmptyPollTakesTheFirstDatagramAloneAndTheNextTheRest() throws Exception {
        List<Integer> got = new ArrayList<>();
        DatagramReceiver sink = new DatagramReceiver() {
            @Override
            public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                    int ecn) {
                got.add(data.getInt(offset));
            }

            @Override
            public void onReadBatchComplete(int socketId) {
            }

            @Override
            public void onSocketError(int socketId, Throwable cause) {
            }
        };
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(1 << 20, 2048, false);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        LinuxUdpSocket tx = LinuxSocketLayer.openUnregistered(any, options, sink);
        LinuxUdpSocket rx = LinuxSocketLayer.openUnregistered(any, options, sink);
        try {
            ByteBuffer buf = ByteBuffer.allocate(256);
            int[] next = {0};
            java.util.function.IntConsumer send = count -> {
                for (int i = 0; i < count; i++) {
                    buf.putInt(0, next[0]++);
                    assertThat(tx.write(buf, 64 + (next[0] % 2), rx.localAddress(), 2)).isTrue();
                }
                assertThat(tx.flush()).isZero();
            };
            assertThat(rx.readNow()).as("an empty socket").isZero();
            send.accept(3); // loopback delivers within the send
            assertThat(rx.readNow()).as("after an empty poll: the first alone").isEqualTo(1);
            assertThat(rx.readNow()).as("the rest").isEqualTo(2);
            assertThat(rx.readNow()).as("empty again").isZero();
            send.accept(40);
            assertThat(rx.readNow()).as("after an empty poll: the first alone").isEqualTo(1);
            send.accept(5);
            assertThat(rx.readNow()).as("the rest, 39 + 5, in full batches").isEqualTo(44);
            send.accept(2);
            assertThat(rx.readNow()).as("after a poll that read: a full batch").isEqualTo(2);
            assertThat(rx.readNow()).isZero();
            assertThat(got).as("every datagram once, in order").hasSize(next[0]);
            for (int i = 0; i < got.size(); i++) {
                assertThat(got.get(i)).isEqualTo(i);
            }
            assertThat(rx.receiveCalls()).as("calls that read something").isEqualTo(6);
        } finally {
            tx.close();
            rx.close();
        }
    }

    /**
     * A flush of one entry (a lone datagram, every send of a ping-pong, or one GSO run) is one
     * {@code sendmsg}, a flush of several one {@code sendmmsg}; either way a datagram the kernel
     * refuses (port 0: {@code EINVAL}) is dropped and counted alone, and what was queued around it
     * arrives whole, in order, with its ECN codepoint.
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void aFlushOfOneEntryIsOneSendmsgAndARefusedDatagramIsDroppedAloneEitherWay(boolean gro) throws Exception {
        int slot = 1024;
        try (SocketPair pair = SocketPair.open(gro, slot)) {
            EventLoop loop = pair.loop;
            LinuxUdpSocket a = (LinuxUdpSocket) pair.a;
            InetSocketAddress to = pair.b.localAddress();
            InetSocketAddress refused = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            ByteBuffer buf = ByteBuffer.allocate(slot);
            int[] sequence = {0};
            // Each flush: its datagrams (length, ECN, destination), then the drops and the
            // sendmsg and sendmmsg calls it must make.
            record Flush(int[] lengths, int[] ecns, boolean[] toRefused, int dropped, int sendmsgs, int sendmmsgs) {
            }
            List<Flush> flushes = List.of(
                    new Flush(new int[] {64}, new int[] {2}, new boolean[] {false}, 0, 1, 0),
                    new Flush(new int[] {64}, new int[] {0}, new boolean[] {false}, 0, 1, 0),
                    new Flush(new int[] {100, 100, 100}, new int[] {2, 2, 2}, new boolean[3], 0, 1, 0),
                    new Flush(new int[] {50, 100}, new int[] {2, 2}, new boolean[2], 0, 0, 1),
                    new Flush(new int[] {64}, new int[] {2}, new boolean[] {true}, 1, 1, 0),
                    // sendmmsg sends the first and stops at the refused one, which the next
                    // sendmmsg refuses first and is skipped; the last goes on its own.
                    new Flush(new int[] {64, 80, 96}, new int[] {2, 0, 2}, new boolean[] {false, true, false}, 1, 1, 2),
                    new Flush(new int[] {64}, new int[] {2}, new boolean[] {false}, 0, 1, 0));
            List<Integer> lengths = new ArrayList<>();
            List<Integer> ecns = new ArrayList<>();
            for (Flush f : flushes) {
                long[] before = loop.submit(() -> new long[] {a.messageSends(), a.sendCalls()}).get(5, TimeUnit.SECONDS);
                int dropped = loop.submit(() -> {
                    for (int i = 0; i < f.lengths().length; i++) {
                        buf.putInt(0, f.toRefused()[i] ? -1 : sequence[0]);
                        buf.put(f.lengths()[i] - 1, (byte) (sequence[0] * 7));
                        assertThat(a.write(buf, f.lengths()[i], f.toRefused()[i] ? refused : to, f.ecns()[i])).isTrue();
                        if (!f.toRefused()[i]) {
                            lengths.add(f.lengths()[i]);
                            ecns.add(f.ecns()[i]);
                            sequence[0]++;
                        }
                    }
                    return a.flush();
                }).get(5, TimeUnit.SECONDS);
                long[] after = loop.submit(() -> new long[] {a.messageSends(), a.sendCalls()}).get(5, TimeUnit.SECONDS);
                String what = java.util.Arrays.toString(f.lengths()) + " refused " + java.util.Arrays.toString(f.toRefused());
                assertThat(dropped).as("dropped of %s", what).isEqualTo(f.dropped());
                assertThat(after[0] - before[0]).as("sendmsg calls for %s", what).isEqualTo(f.sendmsgs());
                assertThat(after[1] - before[1]).as("send calls for %s", what).isEqualTo(f.sendmsgs() + f.sendmmsgs());
            }
            // The refused datagrams went nowhere: the receiver sees the others only, in order.
            int[] l = lengths.stream().mapToInt(Integer::intValue).toArray();
            int[] e = ecns.stream().mapToInt(Integer::intValue).toArray();
            pair.expectInOrder(l, e, "");
        }
    }

    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void runsOfEqualShortDatagramsGoAsGsoSendsAndArriveWholeAndInOrder(boolean gro) throws Exception {
        long seed = System.nanoTime();
        int slot = 4096;
        try (SocketPair pair = SocketPair.open(gro, slot)) {
            EventLoop loop = pair.loop;
            UdpSocket a = pair.a;
            UdpSocket b = pair.b;
            // Lengths from a small set, so runs of equal lengths (full-size or not) form, broken
            // where the length grows or the ECN changes; the first batch is one run of 1100 bytes.
            SplittableRandom random = new SplittableRandom(seed);
            int[] sizes = {slot, 1100, 1100, 600, 64, 8};
            int count = 4 * LinuxSocketLayer.SEND_BATCH + 5;
            int[] lengths = new int[count];
            int[] ecns = new int[count];
            for (int i = 0; i < count; i++) {
                lengths[i] = i < LinuxSocketLayer.SEND_BATCH ? 1100 : sizes[random.nextInt(sizes.length)];
                ecns[i] = i < LinuxSocketLayer.SEND_BATCH || random.nextInt(8) != 0 ? 2 : 0;
            }
            long gsoBefore = loop.submit(() -> ((LinuxUdpSocket) a).gsoSends()).get(5, TimeUnit.SECONDS);
            int dropped = loop.submit(() -> {
                ByteBuffer buf = ByteBuffer.allocate(slot);
                int lost = 0;
                for (int i = 0; i < count; i++) {
                    buf.putInt(0, i);
                    buf.put(lengths[i] - 1, (byte) (i * 7));
                    assertThat(a.write(buf, lengths[i], b.localAddress(), ecns[i])).isTrue();
                    if (i == LinuxSocketLayer.SEND_BATCH - 1) {
                        lost += a.flush();
                    }
                }
                return lost + a.flush();
            }).get(5, TimeUnit.SECONDS);
            long gsoAfter = loop.submit(() -> ((LinuxUdpSocket) a).gsoSends()).get(5, TimeUnit.SECONDS);
            assertThat(dropped).as("seed %d", seed).isZero();
            assertThat(gsoAfter - gsoBefore).as("the first batch (1100-byte datagrams) is one GSO send, more follow;"
                    + " seed %d", seed).isGreaterThan(1);
            pair.expectInOrder(lengths, ecns, ", seed " + seed);
        }
    }

    /**
     * Datagrams encoded in the endpoint's {@link SendSlots} and sent in place, mixed with copied
     * ones in the same batches and GSO runs: each arrives whole and in order, and a batch entry
     * that sent from a slot sends its own copy again when next written.
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void datagramsSentInPlaceFromSlotsMixWithCopiedOnesAndArriveWholeAndInOrder(boolean gro) throws Exception {
        long seed = System.nanoTime();
        int slot = 4096;
        try (SocketPair pair = SocketPair.open(gro, slot)) {
            EventLoop loop = pair.loop;
            UdpSocket a = pair.a;
            UdpSocket b = pair.b;
            SplittableRandom random = new SplittableRandom(seed);
            int[] sizes = {slot, 2839, 2839, 2839, 1100, 64};
            int count = 5 * LinuxSocketLayer.SEND_BATCH + 3;
            int[] lengths = new int[count];
            int[] ecns = new int[count];
            boolean[] inPlace = new boolean[count];
            for (int i = 0; i < count; i++) {
                lengths[i] = sizes[random.nextInt(sizes.length)];
                ecns[i] = random.nextInt(6) == 0 ? 0 : 2;
                inPlace[i] = random.nextBoolean();
            }
            int dropped = loop.submit(() -> {
                SendSlots slots = new SendSlots(slot);
                ByteBuffer copied = ByteBuffer.allocate(slot);
                int lost = 0;
                for (int i = 0; i < count; i++) {
                    ByteBuffer buf = inPlace[i] ? slots.current() : copied;
                    // Stale bytes in a reused slot or buffer must not show: every byte is written.
                    for (int k = 0; k < lengths[i]; k++) {
                        buf.put(k, (byte) (i * 7));
                    }
                    buf.putInt(0, i);
                    if (inPlace[i]) {
                        assertThat(a.writeInPlace(buf, slots.currentAddress(), lengths[i], b.localAddress(), ecns[i]))
                                .isTrue();
                        if (slots.take(lengths[i], 1)) {
                            lost += a.flush();
                            slots.reset();
                        }
                    } else {
                        assertThat(a.write(buf, lengths[i], b.localAddress(), ecns[i])).isTrue();
                    }
                    if (random.nextInt(50) == 0) {
                        lost += a.flush();
                        slots.reset();
                    }
                }
                return lost + a.flush();
            }).get(10, TimeUnit.SECONDS);
            assertThat(dropped).as("seed %d", seed).isZero();
            pair.expectInOrder(lengths, ecns, ", seed " + seed);
        }
    }

    /**
     * A bulk flow's datagrams of one length sent in place: once {@link SendSlots} packed its slots
     * at that length, a GSO run's datagrams lie back to back and go as one iovec; each arrives
     * whole, in order, with its ECN, across batch flushes, a shorter last datagram of a run, an
     * ECN change and the slots running out.
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void packedSlotsSendARunAsOneIovecAndEveryDatagramArrivesWholeAndInOrder(boolean gro) throws Exception {
        int slot = 4096;
        int datagram = 2839; // the equal-length packets of an 8 KiB message at the default 4096-byte MTU
        try (SocketPair pair = SocketPair.open(gro, slot)) {
            EventLoop loop = pair.loop;
            UdpSocket a = pair.a;
            UdpSocket b = pair.b;
            int count = 2 * SendSlots.PACK_AFTER_DATAGRAMS + SendSlots.MAX_SLOTS;
            int[] lengths = new int[count];
            int[] ecns = new int[count];
            for (int i = 0; i < count; i++) {
                lengths[i] = i % 21 == 20 ? 1500 : datagram; // a shorter one ends a run, as a message's last packet may
                ecns[i] = i % 97 < 90 ? 2 : 3;
            }
            long[] contiguous = new long[2];
            int[] strides = new int[1];
            int dropped = loop.submit(() -> {
                SendSlots slots = new SendSlots(slot);
                contiguous[0] = ((LinuxUdpSocket) a).contiguousSends();
                int lost = 0;
                for (int i = 0; i < count; i++) {
                    ByteBuffer buf = slots.current();
                    for (int k = 0; k < lengths[i]; k++) {
                        buf.put(k, (byte) (i * 7));
                    }
                    buf.putInt(0, i);
                    assertThat(a.writeInPlace(buf, slots.currentAddress(), lengths[i], b.localAddress(), ecns[i]))
                            .isTrue();
                    // Flush as the endpoint does: when the slots run out, and after each pacing burst.
                    if (slots.take(lengths[i], 1) || i % 21 == 20) {
                        lost += a.flush();
                        slots.reset();
                    }
                }
                lost += a.flush();
                contiguous[1] = ((LinuxUdpSocket) a).contiguousSends();
                strides[0] = slots.stride();
                return lost;
            }).get(10, TimeUnit.SECONDS);
            assertThat(dropped).isZero();
            assertThat(strides[0]).as("packed at the bulk length").isEqualTo(datagram);
            assertThat(contiguous[1] - contiguous[0]).as("GSO runs sent as one iovec").isPositive();
            pair.expectInOrder(lengths, ecns, "");
        }
    }

    /**
     * A read that brought a bulk batch ({@link LinuxUdpSocket#READ_AGAIN_DATAGRAMS} datagrams or
     * more) reads again, so datagrams that arrived while it was handled are delivered in the same
     * batch (before {@link DatagramReceiver#onReadBatchComplete}, i.e. under the same drive); after
     * a smaller one the read stops and they come with the next wake-up.
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void aBulkReadReadsAgainSoWhatArrivedMeanwhileJoinsItsBatchAndATrickleDoesNot(boolean gro) throws Exception {
        int bulk = LinuxUdpSocket.READ_AGAIN_DATAGRAMS;
        assertThat(batchesOfTwoGroups(gro, bulk, 5)).as("bulk first group: one batch").containsOnly(0);
        int[] trickle = batchesOfTwoGroups(gro, bulk - 1, 5);
        assertThat(trickle).as("a trickle first: the second group comes with a later batch").contains(0);
        for (int i = bulk - 1; i < trickle.length; i++) {
            assertThat(trickle[i]).as("batch of datagram %d (second group)", i).isPositive();
        }
    }

    /**
     * Sends {@code first} datagrams from one socket to another; while the receiver handles the
     * first of them it sends {@code second} more. Returns, per datagram in sequence order, the
     * number of read batches completed before it was delivered.
     */
    private static int[] batchesOfTwoGroups(boolean gro, int first, int second) throws Exception {
        EventLoopGroup group = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        EventLoop loop = group.next();
        int total = first + second;
        int[] batchOf = new int[total];
        java.util.Arrays.fill(batchOf, -1);
        int[] batches = {0};
        int[] delivered = {0};
        UdpSocket[] sockets = new UdpSocket[2];
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        ByteBuffer buf = ByteBuffer.allocate(256);
        DatagramReceiver receiver = new DatagramReceiver() {
            @Override
            public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                    int ecn) {
                int sequence = data.getInt(offset);
                batchOf[sequence] = batches[0];
                if (sequence == 0) {
                    // Arrives while the first read is being handled.
                    for (int i = first; i < total; i++) {
                        buf.putInt(0, i);
                        sockets[0].write(buf, 100, sockets[1].localAddress(), 0);
                    }
                    sockets[0].flush();
                }
                if (++delivered[0] == total) {
                    done.countDown();
                }
            }

            @Override
            public void onReadBatchComplete(int socketId) {
                batches[0]++;
            }

            @Override
            public void onSocketError(int socketId, Throwable cause) {
            }
        };
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(1 << 20, 2048, gro);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try {
            sockets[0] = LinuxSocketLayer.INSTANCE.bind(loop, any, 1, options, receiver).get(5, TimeUnit.SECONDS);
            sockets[1] = LinuxSocketLayer.INSTANCE.bind(loop, any, 2, options, receiver).get(5, TimeUnit.SECONDS);
            loop.submit(() -> {
                for (int i = 0; i < first; i++) {
                    buf.putInt(0, i);
                    sockets[0].write(buf, 100, sockets[1].localAddress(), 0);
                }
                return sockets[0].flush();
            }).get(5, TimeUnit.SECONDS);
            assertThat(done.await(5, TimeUnit.SECONDS)).as("all %d datagrams delivered", total).isTrue();
            return loop.submit(batchOf::clone).get(5, TimeUnit.SECONDS);
        } finally {
            closeOnLoop(loop, sockets, group);
        }
    }

    /**
     * Each {@code recvmmsg} call that read datagrams is announced to the receiver once
     * ({@link DatagramReceiver#onReceiveCall}), before the datagrams it read and after those of the
     * call before: the endpoint reads its clock there, once for all of them, instead of once per
     * datagram. Enough datagrams for several calls (several batches without GRO).
     */
    @ParameterizedTest(name = "receiver GRO {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void eachReadCallIsAnnouncedOnceBeforeTheDatagramsItRead(boolean gro) throws Exception {
        EventLoopGroup group = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        EventLoop loop = group.next();
        int total = 3 * LinuxSocketLayer.BATCH + 7;
        List<Integer> events = new ArrayList<>(); // -1 per announced call, else a datagram's sequence
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(total);
        DatagramReceiver receiver = new DatagramReceiver() {
            @Override
            public void onReceiveCall(int socketId) {
                events.add(-1);
            }

            @Override
            public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                    int ecn) {
                events.add(data.getInt(offset));
                done.countDown();
            }

            @Override
            public void onReadBatchComplete(int socketId) {
            }

            @Override
            public void onSocketError(int socketId, Throwable cause) {
            }
        };
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(1 << 20, 2048, gro);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        UdpSocket[] sockets = new UdpSocket[2];
        try {
            sockets[0] = LinuxSocketLayer.INSTANCE.bind(loop, any, 1, options, receiver).get(5, TimeUnit.SECONDS);
            sockets[1] = LinuxSocketLayer.INSTANCE.bind(loop, any, 2, options, receiver).get(5, TimeUnit.SECONDS);
            // Sent in three rounds, each on a later turn of the loop: reads on several wake-ups.
            for (int round = 0; round < 3; round++) {
                int from = round * total / 3;
                int to = (round + 1) * total / 3;
                loop.submit(() -> {
                    ByteBuffer buf = ByteBuffer.allocate(256);
                    for (int i = from; i < to; i++) {
                        buf.putInt(0, i);
                        assertThat(sockets[0].write(buf, 120, sockets[1].localAddress(), 0)).isTrue();
                    }
                    return sockets[0].flush();
                }).get(5, TimeUnit.SECONDS);
            }
            assertThat(done.await(5, TimeUnit.SECONDS)).as("all %d datagrams delivered", total).isTrue();
            List<Integer> seen = loop.submit(() -> List.copyOf(events)).get(5, TimeUnit.SECONDS);
            long calls = loop.submit(() -> sockets[1].receiveCalls()).get(5, TimeUnit.SECONDS);
            assertThat(seen.getFirst()).as("a call announced before the first datagram").isEqualTo(-1);
            assertThat(seen.stream().filter(e -> e == -1).count()).as("one announcement per call that read")
                    .isEqualTo(calls);
            for (int k = 0; k + 1 < seen.size(); k++) {
                if (seen.get(k) == -1) {
                    assertThat(seen.get(k + 1)).as("event %d: an announced call brought a datagram", k + 1)
                            .isNotEqualTo(-1);
                }
            }
            assertThat(seen.stream().filter(e -> e != -1).toList()).as("every datagram once, in order")
                    .isEqualTo(java.util.stream.IntStream.range(0, total).boxed().toList());
            if (!gro) {
                assertThat(calls).as("more datagrams than one call reads").isGreaterThan(1);
            }
        } finally {
            closeOnLoop(loop, sockets, group);
        }
    }

    @Test
    @Timeout(30)
    void theTimerfdTimerFiresOnceAfterItsDelayTakesTheLastArmingAndStaysQuietWhenCancelled() throws Exception {
        EventLoopGroup group = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        EventLoop loop = group.next();
        BlockingQueue<Long> fired = new LinkedBlockingQueue<>();
        LoopTimer timer = LinuxSocketLayer.INSTANCE.newTimer(loop, () -> fired.add(System.nanoTime()));
        try {
            assertThat(timer).isInstanceOf(LinuxTimer.class);
            // Armed late, then earlier: only the last arming counts, and it fires once.
            long start = loop.submit(() -> {
                timer.arm(5_000_000_000L);
                long t = System.nanoTime();
                timer.arm(20_000_000L);
                return t;
            }).get(5, TimeUnit.SECONDS);
            Long at = fired.poll(5, TimeUnit.SECONDS);
            assertThat(at).as("fired").isNotNull();
            assertThat(at - start).as("not before its delay").isGreaterThanOrEqualTo(20_000_000L);
            assertThat(fired.poll(200, TimeUnit.MILLISECONDS)).as("fired once").isNull();
            // Cancelled: quiet; armed with 0: fires at once.
            loop.submit(() -> {
                timer.arm(30_000_000L);
                timer.cancel();
            }).get(5, TimeUnit.SECONDS);
            assertThat(fired.poll(300, TimeUnit.MILLISECONDS)).as("cancelled").isNull();
            loop.submit(() -> timer.arm(0)).get(5, TimeUnit.SECONDS);
            assertThat(fired.poll(5, TimeUnit.SECONDS)).as("armed with 0").isNotNull();
        } finally {
            loop.submit(timer::close).get(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    @Timeout(60)
    void dataPacketsArriveEcnCapableOverTheLinuxLayerAndNotOverNio() throws Exception {
        assertThat(ectReportedAfterATransfer(Datapath.LINUX)).as("ECT(0) data packets seen by the peer").isPositive();
        assertThat(ectReportedAfterATransfer(Datapath.NIO)).as("NIO neither sets nor reads ECN").isZero();
    }

    private static long ectReportedAfterATransfer(Datapath datapath) throws Exception {
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(datapath).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(datapath).build()) {
            UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            MemoryRegion src = client.register(arena.allocate(1 << 20), Access.NONE);
            MemoryRegion dst = server.register(arena.allocate(1 << 20), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            assertThat(c.postWrite(0, 1, src, 0, 1 << 20, dst.remoteKey(), 0).get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .isSuccess()).isTrue();
            long ect = 0;
            for (PathStats p : client.pathStats(c)) {
                ect += p.ectReported;
                assertThat(p.ceReported).as("no CE marks on loopback").isZero();
            }
            return ect;
        }
    }

    /** What a test keeps of each received datagram. */
    @FunctionalInterface
    private interface Summary {
        int[] of(ByteBuffer data, int offset, int length, int ecn, InetSocketAddress sender);
    }

    /** A receiver that adds a summary of every datagram to {@code into}, and a row of -1s per socket error. */
    private static DatagramReceiver recorder(BlockingQueue<int[]> into, Summary summary) {
        return new DatagramReceiver() {
            @Override
            public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                    int ecn) {
                into.add(summary.of(data, offset, length, ecn, sender));
            }

            @Override
            public void onReadBatchComplete(int socketId) {
            }

            @Override
            public void onSocketError(int socketId, Throwable cause) {
                into.add(new int[] {-1, -1, -1, -1});
            }
        };
    }

    /** Closes the sockets on their event loop, then shuts the loop's group down. */
    private static void closeOnLoop(EventLoop loop, UdpSocket[] sockets, EventLoopGroup group) throws Exception {
        loop.submit(() -> {
            for (UdpSocket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }).get(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
