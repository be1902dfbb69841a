package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A saturated sender's drives end with its next paced packet already due (the pacing clock lags
 * the burst just sent); the endpoint then runs the engine's timers as the loop's next task, and
 * arms its timer for a deadline already passed (a {@code timerfd_settime}, an expiry and a
 * {@code read} on the Linux layer) only once per {@link UdpEndpoint#DUE_DEADLINES_PER_LOOK} of
 * them, not once per pacing burst.
 */
class DueDeadlineTest {
    private static final long WAIT_SECONDS = 20;

    @Test
    @Timeout(60)
    void aSaturatedSenderArmsItsTimerForAPassedDeadlineOnlyAfterSixteenInARowAndItsBytesArriveIntact() throws Exception {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        ConcurrentLinkedQueue<Long> armed = new ConcurrentLinkedQueue<>();
        SocketLayer recording = new SocketLayer() {
            @Override
            public String name() {
                return LinuxSocketLayer.INSTANCE.name();
            }

            @Override
            public boolean readsEcn() {
                return LinuxSocketLayer.INSTANCE.readsEcn();
            }

            @Override
            public boolean sendsInPlace() {
                return LinuxSocketLayer.INSTANCE.sendsInPlace();
            }

            @Override
            public EventLoopGroup newEventLoopGroup(int threads) {
                return LinuxSocketLayer.INSTANCE.newEventLoopGroup(threads);
            }

            @Override
            public Future<UdpSocket> bind(EventLoop loop, InetSocketAddress local, int socketId,
                    SocketOptions options, DatagramReceiver receiver) {
                return LinuxSocketLayer.INSTANCE.bind(loop, local, socketId, options, receiver);
            }

            @Override
            public LoopTimer newTimer(EventLoop loop, Runnable task) {
                LoopTimer inner = LinuxSocketLayer.INSTANCE.newTimer(loop, task);
                return new LoopTimer() {
                    @Override
                    public void arm(long delayNanos) {
                        armed.add(delayNanos);
                        inner.arm(delayNanos);
                    }

                    @Override
                    public void cancel() {
                        inner.cancel();
                    }

                    @Override
                    public void close() {
                        inner.close();
                    }
                };
            }
        };
        int size = 8192;
        long total = 512L * size;
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(Datapath.LINUX).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().socketLayer(recording).build()) {
            UdpConnection cc = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            new PatternedWrites(arena, client, server, total).writeAll(cc, size, WAIT_SECONDS);
            UdpEndpointStats stats = client.stats();
            System.out.printf("DueDeadlineTest: %d timer armings and %d passed deadlines run as tasks (%d through the"
                    + " timer) for %d datagrams sent; %s%n", armed.size(), stats.dueDeadlinesRun(),
                    stats.dueDeadlinesDeferred(), stats.datagramsSent(), cc.stats());
            // A deadline already passed is armed only after DUE_DEADLINES_PER_LOOK of them ran as
            // tasks in a row, so that the loop looks at its sockets (DueDeadlineChainTest).
            assertThat(armed.stream().filter(delay -> delay <= 0).count())
                    .as("armings for a deadline already passed").isEqualTo(stats.dueDeadlinesDeferred())
                    .isLessThanOrEqualTo(stats.dueDeadlinesRun() / UdpEndpoint.DUE_DEADLINES_PER_LOOK);
            // The deadlines already passed went somewhere: run as the loop's next task. A saturated
            // sender meets one after most pacing bursts, so far more than it armed the timer.
            assertThat(stats.dueDeadlinesRun()).as("passed deadlines run as loop tasks")
                    .isGreaterThan(armed.size());
            assertThat(stats.datagramsSent()).as("datagrams sent").isGreaterThanOrEqualTo(3 * 512);
        }
    }
}
