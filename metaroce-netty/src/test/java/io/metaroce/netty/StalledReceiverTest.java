package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.FixedWindowController;
import java.lang.foreign.Arena;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Over UDP loopback nothing is lost, yet a receiver whose event loop does not run for a while (a
 * descheduled thread on a busy host) lets the sender's retransmission timer expire. With
 * {@code timeoutProbes} [SPEC-LOSS-10] each expiry resends one packet; without it the first
 * expiry declared the whole flight lost and resent it, and each later one the resent flight again.
 */
class StalledReceiverTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 30;
    private static final int SIZE = 8192;
    /** 128 WRITEs of 8 KiB: 384 datagrams, 1 MiB, well within the receiver's socket buffer. */
    private static final int MESSAGES = 128;
    private static final long STALL_MILLIS = 40;

    @Test
    @Timeout(120)
    void aStalledReceiverCostsOneResendPerExpiryNotTheFlight() throws Exception {
        UdpConnectionStats probing = run(true, STALL_MILLIS);
        UdpConnectionStats whole = run(false, STALL_MILLIS);
        // A 40 ms stall against a 1 ms minimum RTO doubling per expiry: about six expiries.
        assertThat(whole.timeouts()).as("the stall outlasts the timer").isPositive();
        // Without probes an expiry declares every transmission at least an RTO old: the whole flight
        // when it all left at once (768 to 2,536 losses seen), fewer when the sender was itself slow
        // to send it (42 once, on a quiet machine); always more than one per expiry.
        assertThat(whole.losses()).as("without probes an expiry declares what had been sent an RTO before")
                .isGreaterThan(whole.timeouts());
        assertThat(probing.timeouts()).as("the stall outlasts the timer").isPositive();
        assertThat(probing.losses()).as("one loss per expiry (plus what the host's own stalls add)")
                .isLessThanOrEqualTo(probing.timeouts() + 16)
                .isLessThan(whole.losses());
        assertThat(probing.spuriousLosses()).as("the probed packets are then found to have arrived").isPositive();
    }

    @Test
    @Timeout(120)
    void aLosslessRunDeclaresAlmostNothingLost() throws Exception {
        UdpConnectionStats s = run(true, 0);
        // The host's own scheduling may stall a loop past the 1 ms timer now and then: a packet each.
        assertThat(s.losses()).as("losses declared in a lossless run of %d datagrams", s.packetsSent())
                .isLessThanOrEqualTo(Math.max(16, s.packetsSent() / 100));
    }

    /**
     * Writes {@link #MESSAGES} messages while the server's loop sleeps {@code stallMillis}; checks
     * the bytes. The fixed window puts all of them in flight at once (AIMD, the default, would send
     * its first window only): the test is about what an expiry declares lost, not about the window.
     */
    private static UdpConnectionStats run(boolean timeoutProbes, long stallMillis) throws Exception {
        EngineConfig config = EngineConfig.builder().timeoutProbes(timeoutProbes).build();
        long total = (long) SIZE * MESSAGES;
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().config(config).congestionController(FixedWindowController::new)
                        .listening(true).acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().config(config)
                        .congestionController(FixedWindowController::new).build()) {
            UdpConnection cc = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            PatternedWrites transfer = new PatternedWrites(arena, client, server, total);
            if (stallMillis > 0) {
                CountDownLatch stalled = new CountDownLatch(1);
                server.eventLoop().execute(() -> {
                    stalled.countDown();
                    try {
                        Thread.sleep(stallMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertThat(stalled.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            }
            transfer.writeAll(cc, SIZE, WAIT_SECONDS);
            UdpConnectionStats stats = cc.stats();
            System.out.printf("StalledReceiverTest (timeoutProbes %s, stall %d ms): %s%n", timeoutProbes,
                    stallMillis, stats);
            return stats;
        }
    }
}
