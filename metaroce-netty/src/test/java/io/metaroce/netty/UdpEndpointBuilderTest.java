package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The endpoint builder's options, seen through what the endpoint then does. */
class UdpEndpointBuilderTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;

    @Test
    @Timeout(60)
    void pathSocketsTakeFreePortsFromTheSourcePortRangeSkippingTakenOnes() throws Exception {
        int first = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
        try (DatagramChannel squatter = DatagramChannel.open()) {
            squatter.bind(new InetSocketAddress("127.0.0.1", first));
            try (UdpEndpoint server = UdpEndpoint.builder().listening(true).build();
                    UdpEndpoint client = UdpEndpoint.builder().sourcePortRange(first, first + 7).build()) {
                UdpConnection c = client.connect(server.localAddress(), 3).get(WAIT_SECONDS, TimeUnit.SECONDS);
                int[] ports = c.stats().localSocketPorts();
                assertThat(ports).hasSize(3).doesNotContain(first);
                assertThat(Arrays.stream(ports).allMatch(p -> p > first && p <= first + 7))
                        .as("ports %s within %d..%d", Arrays.toString(ports), first, first + 7).isTrue();
                assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(3);
            }
        }
    }

    @Test
    @Timeout(60)
    void aConnectFailsClearlyWhenTheSourcePortRangeIsExhausted() throws Exception {
        int first = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
        try (UdpEndpoint server = UdpEndpoint.builder().listening(true).build();
                UdpEndpoint client = UdpEndpoint.builder().sourcePortRange(first, first + 1).build()) {
            assertThatThrownBy(() -> client.connect(server.localAddress(), 3).get(WAIT_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("no free port in the source-port range");
            assertThat(client.stats().openSockets()).as("nothing left half-bound").isEqualTo(1);
        }
    }

    @Test
    @Timeout(60)
    void mtuSetsTheDatagramSizeAndDirectByteBuffersCanBeRegistered() throws Exception {
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (UdpEndpoint server = UdpEndpoint.builder().listening(true).mtu(1400).acceptListener(accepted::add)
                        .build();
                UdpEndpoint client = UdpEndpoint.builder().mtu(1400).build()) {
            assertThat(client.config().maxDatagramBytes()).isEqualTo(1400);
            UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            ByteBuffer out = ByteBuffer.allocateDirect(100_000);
            for (int i = 0; i < out.capacity(); i++) {
                out.put(i, (byte) (i * 31 + 7));
            }
            ByteBuffer in = ByteBuffer.allocateDirect(100_000);
            MemoryRegion src = client.register(out, Access.NONE);
            MemoryRegion dst = server.register(in, Access.LOCAL_WRITE);
            var recv = s.postRecv(0, 1, dst, 0, 100_000);
            assertThat(c.postSend(0, 1, src, 0, 100_000).get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(recv.get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(in.mismatch(out)).isEqualTo(-1);
            assertThat(client.stats().datagramsSent()).as("100 kB in datagrams of at most 1400 B")
                    .isGreaterThanOrEqualTo(100_000 / 1400);

            assertThatThrownBy(() -> client.register(ByteBuffer.allocate(64), Access.NONE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("direct");
        }
    }

    @Test
    @Timeout(60)
    void statsNameTheDatapathAndSayWhetherItReadsEcn() {
        try (UdpEndpoint e = UdpEndpoint.builder().datapath(Datapath.NIO).build()) {
            UdpEndpointStats s = e.stats();
            assertThat(s.datapath()).isEqualTo("nio").isEqualTo(e.datapathName());
            assertThat(s.ecnCapable()).isFalse();
            assertThat(s.openSockets()).isEqualTo(1);
        }
    }

    @Test
    void invalidOptionsFailFastWithTheValidRange() {
        UdpEndpoint.Builder b = UdpEndpoint.builder();
        assertThatThrownBy(() -> b.mtu(100)).hasMessageContaining("[256, 65507]");
        assertThatThrownBy(() -> b.sourcePortRange(10, 5)).hasMessageContaining("first <= last");
        assertThatThrownBy(() -> b.socketBufferBytes(1000)).hasMessageContaining("65536");
        assertThatThrownBy(() -> b.listenPort(70_000)).hasMessageContaining("[0, 65535]");
    }
}
