package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.api.PathStats;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two planes on loopback (127.0.0.1 and 127.0.0.2, both local on Linux): each endpoint listens on
 * both, and a connection's paths alternate between them, each plane's paths reaching the server's
 * address on that plane.
 */
class PlanesTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;

    @ParameterizedTest
    @EnumSource(value = Datapath.class, names = {"LINUX", "NIO"})
    @Timeout(60)
    void pathsAlternateOverThePlanesAndEachPlaneCarriesVerifiedData(Datapath datapath) throws Exception {
        assumeTrue(datapath != Datapath.LINUX || LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        InetAddress plane0 = InetAddress.getByName("127.0.0.1");
        InetAddress plane1 = InetAddress.getByName("127.0.0.2");
        assumeTrue(canBind(plane1), "127.0.0.2 is not a local address on this machine");
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(datapath).planes(plane0, plane1).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(datapath).planes(plane0, plane1).build()) {
            assertThat(server.localAddresses()).extracting(InetSocketAddress::getAddress).containsExactly(plane0, plane1);
            UdpConnection c = client.connect(server.localAddresses(), 4).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(s).isNotNull();

            int size = 1 << 20;
            MemorySegment pattern = arena.allocate(size);
            for (int i = 0; i < size; i++) {
                pattern.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 5));
            }
            MemoryRegion src = client.register(pattern, Access.NONE);
            MemoryRegion dst = server.register(arena.allocate(size), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            assertThat(c.postWrite(0, 1, src, 0, size, dst.remoteKey(), 0).get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .isSuccess()).isTrue();
            assertThat(dst.segment().mismatch(pattern)).isEqualTo(-1L);

            // The server sees path i arrive from the client's plane i mod 2, on its own plane i mod 2.
            PathStats[] serverPaths = server.pathStats(s);
            for (PathStats p : serverPaths) {
                InetSocketAddress from = (InetSocketAddress) p.remoteAddress;
                assertThat(from.getAddress()).as("path %d comes from plane %d", p.pathId, p.pathId % 2)
                        .isEqualTo(p.pathId % 2 == 0 ? plane0 : plane1);
                assertThat(p.localSocket).as("path %d answered from the listen socket of its plane", p.pathId)
                        .isEqualTo(p.pathId % 2);
            }
            UdpConnectionStats ss = s.stats();
            long[] perPlane = ss.localSocketDatagramsReceived();
            assertThat(perPlane).hasSize(2);
            assertThat(Arrays.stream(perPlane).allMatch(n -> n > 0))
                    .as("both planes' listen sockets carried traffic: %s", Arrays.toString(perPlane)).isTrue();
        }
    }

    private static boolean canBind(InetAddress address) {
        try (java.nio.channels.DatagramChannel ch = java.nio.channels.DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(address, 0));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
