package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A default pacing burst ([SPEC-CC-13]: {@code pacingBurstBytes} and the datagram past it) leaves
 * the Linux layer as one GSO send, not as a full run and a remainder: until session 9 a 64 KiB
 * burst of the 2,839-byte datagrams of 8 KiB messages was 24 datagrams, two more than a GSO send of
 * at most 65,000 bytes held, so every burst went as runs of 22 and 2.
 */
class PacingBurstGsoTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    @Test
    void aBurstOfTheDefaultAllowancePlusOneDatagramFitsOneGsoSendForDatagramsUpTo8163Bytes() {
        long burstBytes = EngineConfig.defaults().pacingBurstBytes();
        for (int datagram : new int[] {EngineConfig.defaults().maxDatagramBytes(), 2839, 1500, 1200, 8163}) {
            long burst = (burstBytes / datagram + 1) * datagram;
            assertThat(burst).as("a burst of %d-byte datagrams", datagram)
                    .isLessThanOrEqualTo(LinuxUdpSocket.MAX_GSO_BYTES);
            assertThat(burstBytes / datagram + 1).as("segments of a burst of %d-byte datagrams", datagram)
                    .isLessThanOrEqualTo(LinuxUdpSocket.MAX_GSO_SEGMENTS);
        }
        // The rule's bound: a burst is at most pacingBurstBytes plus one datagram.
        assertThat(burstBytes + 8163).isLessThanOrEqualTo(LinuxUdpSocket.MAX_GSO_BYTES);
    }

    @Test
    @Timeout(30)
    void aRunOfABurstsDatagramsGoesAsExactlyOneGsoSendAndArrivesInOrder() throws Exception {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        int slot = 4096;
        int datagram = 2839; // the equal-length packets of an 8 KiB message at the default 4096-byte MTU
        int run = (int) (EngineConfig.defaults().pacingBurstBytes() / datagram + 1);
        BlockingQueue<int[]> received = new LinkedBlockingQueue<>();
        DatagramReceiver sink = new DatagramReceiver() {
            @Override
            public void onDatagram(int socketId, ByteBuffer data, int offset, int length, InetSocketAddress sender,
                    int ecn) {
                received.add(new int[] {data.getShort(offset), length});
            }

            @Override
            public void onReadBatchComplete(int socketId) {
            }

            @Override
            public void onSocketError(int socketId, Throwable cause) {
                received.add(new int[] {-1, -1});
            }
        };
        EventLoopGroup group = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        EventLoop loop = group.next();
        SocketLayer.SocketOptions options = new SocketLayer.SocketOptions(4 << 20, slot, true);
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        UdpSocket a = LinuxSocketLayer.INSTANCE.bind(loop, any, 1, options, sink).get(5, TimeUnit.SECONDS);
        UdpSocket b = LinuxSocketLayer.INSTANCE.bind(loop, any, 2, options, sink).get(5, TimeUnit.SECONDS);
        try {
            long[] gso = loop.submit(() -> {
                LinuxUdpSocket sender = (LinuxUdpSocket) a;
                long sendsBefore = sender.gsoSends();
                long datagramsBefore = sender.offloadDatagrams();
                ByteBuffer buf = ByteBuffer.allocate(slot);
                for (int i = 0; i < run; i++) {
                    buf.putShort(0, (short) i);
                    assertThat(a.write(buf, datagram, b.localAddress(), 2)).isTrue();
                }
                assertThat(a.flush()).isZero();
                return new long[] {sender.gsoSends() - sendsBefore, sender.offloadDatagrams() - datagramsBefore};
            }).get(5, TimeUnit.SECONDS);
            assertThat(run).as("a 56 KiB burst of 2,839-byte datagrams").isEqualTo(21);
            assertThat(gso[0]).as("GSO sends for a burst of %d datagrams", run).isEqualTo(1);
            assertThat(gso[1]).isEqualTo(run);
            for (int i = 0; i < run; i++) {
                int[] d = received.poll(5, TimeUnit.SECONDS);
                assertThat(d).as("datagram %d", i).isNotNull();
                assertThat(d[0]).as("sequence").isEqualTo(i);
                assertThat(d[1]).as("length of datagram %d", i).isEqualTo(datagram);
            }
            assertThat(received.poll(100, TimeUnit.MILLISECONDS)).as("no extra datagram").isNull();
        } finally {
            loop.submit(() -> {
                a.close();
                b.close();
            }).get(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
