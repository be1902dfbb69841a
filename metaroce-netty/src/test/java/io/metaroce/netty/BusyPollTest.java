package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.channel.EventLoopGroup;
import java.lang.management.ManagementFactory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link UdpEndpoint.Builder#busyPoll}: endpoints whose event loops never park carry traffic,
 * run tasks handed over from other threads, and really do spin; asking for it with a group of
 * the caller's fails fast.
 */
class BusyPollTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;
    /** Idle time over which the loops' CPU time is compared. */
    private static final long IDLE_MILLIS = 1000;
    /** A parked loop uses less CPU than this in {@link #IDLE_MILLIS}. */
    private static final long SPIN_CPU_NANOS = 20_000_000L;
    /**
     * A spinning loop gets at least this much CPU in {@link #IDLE_MILLIS} (a yielding thread on a
     * host with 8 runnable threads per core got 13 ms; an idle turn that reads no socket directly
     * and yields, at nice 19 on a host at load 20, 3.9 ms), and many times what a parked one uses
     * (70 µs there).
     */
    private static final long LEAST_SPIN_CPU_NANOS = 2_000_000L;
    private static final int SPIN_OVER_PARKED = 5;

    @ParameterizedTest
    @EnumSource(value = Datapath.class, names = {"AUTO", "NIO"})
    @Timeout(60)
    void busyPollingEndpointsCarrySendsAndReceivesPostedFromOtherThreads(Datapath datapath) throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(datapath).busyPoll(true).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(datapath).busyPoll(true).build()) {
            UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(s).isNotNull();
            int n = 32;
            int size = 5000;
            MemorySegment source = arena.allocate((long) n * size);
            for (long i = 0; i < source.byteSize(); i++) {
                source.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            MemorySegment received = arena.allocate((long) n * size);
            MemoryRegion src = client.register(source, Access.NONE);
            MemoryRegion dst = server.register(received, Access.LOCAL_WRITE);
            List<CompletableFuture<Completion>> receives = new ArrayList<>();
            List<CompletableFuture<Completion>> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                receives.add(s.postRecv(1, i, dst, (long) i * size, size));
            }
            for (int i = 0; i < n; i++) {
                sends.add(c.postSend(1, i, src, (long) i * size, size));
            }
            for (int i = 0; i < n; i++) {
                assertThat(sends.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS).isSuccess()).as("send %d", i).isTrue();
                Completion r = receives.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(r.isSuccess()).as("receive %d", i).isTrue();
                assertThat(r.byteLength()).isEqualTo(size);
            }
            assertThat(received.mismatch(source)).as("received bytes, seed %d", seed).isEqualTo(-1);
        }
    }

    @Test
    @Timeout(60)
    void aBusyPollingLoopSpinsWhileIdleAndAParkedOneDoesNot() throws Exception {
        try (UdpEndpoint busy = UdpEndpoint.builder().busyPoll(true).build();
                UdpEndpoint parked = UdpEndpoint.builder().build()) {
            long busyCpu = idleLoopCpuNanos(busy);
            long parkedCpu = idleLoopCpuNanos(parked);
            assertThat(parkedCpu).as("parked loop CPU over %d ms idle", IDLE_MILLIS).isLessThan(SPIN_CPU_NANOS);
            // Load-proof: how much CPU a yielding spinner gets depends on how many threads want the
            // cores, but a parked loop takes next to none whatever the load.
            assertThat(busyCpu).as("busy-polling loop CPU over %d ms idle (parked: %d ns)", IDLE_MILLIS, parkedCpu)
                    .isGreaterThan(LEAST_SPIN_CPU_NANOS).isGreaterThan(SPIN_OVER_PARKED * parkedCpu);
        }
    }

    @Test
    void busyPollWithAGroupOfTheCallersFailsFast() {
        EventLoopGroup group = NioSocketLayer.INSTANCE.newEventLoopGroup(1);
        try {
            assertThatThrownBy(() -> UdpEndpoint.builder().datapath(Datapath.NIO).eventLoopGroup(group).busyPoll(true)
                    .build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("busyPoll")
                    .hasMessageContaining("eventLoopGroup");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** CPU time the endpoint's loop thread used over {@link #IDLE_MILLIS} with nothing to do. */
    private static long idleLoopCpuNanos(UdpEndpoint endpoint) throws Exception {
        var threads = ManagementFactory.getThreadMXBean();
        long before = endpoint.eventLoop().submit(threads::getCurrentThreadCpuTime).get(WAIT_SECONDS, TimeUnit.SECONDS);
        Thread.sleep(IDLE_MILLIS);
        long after = endpoint.eventLoop().submit(threads::getCurrentThreadCpuTime).get(WAIT_SECONDS, TimeUnit.SECONDS);
        return after - before;
    }
}
