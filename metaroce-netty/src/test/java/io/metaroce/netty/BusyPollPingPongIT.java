package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A 64-byte ping-pong between two busy-polling endpoints on the Linux datapath, posted direct from
 * the completion sinks on the loops (as {@code metaroce perf --lat --busy-poll} does): the sockets
 * are read by the loops' turns themselves ({@link UdpSocket#readNow}) and every round trip is
 * answered in the turn that read it. The loops allocate nothing per round trip (R-JAVA-2): not in
 * the turns that read, drive and flush, nor in the idle turns between them.
 *
 * <p>An integration test (failsafe, in {@code verify}), so it runs in a JVM of its own, and with
 * C1 only ({@code -XX:TieredStopAtLevel=1}, in a failsafe execution of its own, {@code busy-poll-c1};
 * the test checks it): C1 removes no allocation, so the test sees every one the loops' code
 * makes, not only those C2 left in that run. Until session 11 the foreign calls allocated a slice of their {@code errno} capture
 * segment per call ({@code SharedUtils.checkCaptureSegment}) unless C2 inlined the whole call
 * site, which depended on compile order: the test failed in 1 of 4 CI runs with tiered
 * compilation (and every run at C1 or with {@code -XX:InlineSmallCode=500}), at 0.7 to 4.5 KB
 * per round trip for all of its 80 s; the datapath's calls now capture nothing
 * ({@link ThreadErrno}).
 */
class BusyPollPingPongIT {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    /** The JVM argument this test runs with (see the class comment). */
    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    private static final long WAIT_SECONDS = 20;
    private static final int SIZE = 64;
    /**
     * Measured windows: up to this many round trips or this long each, for up to
     * {@link #STEADY_WITHIN_NANOS} in all: the steady state is the first window after the loops'
     * first round trips (class loading, the JIT compiling the turn, the engine's first path
     * events); on a loaded host that can take many seconds.
     */
    private static final long WINDOW_ROUNDS = 5_000;
    private static final long WINDOW_NANOS = 2_000_000_000L;
    private static final long STEADY_WITHIN_NANOS = 80_000_000_000L;
    private static final long LEAST_WINDOW_ROUNDS = 20;
    /** What the four readings of a window allocate on the loops themselves (their boxed results: 48 B). */
    private static final long READINGS_BYTES = 64;
    /**
     * Bytes per round trip the two loops may allocate together: less than one object's header,
     * so an allocation in every round trip (or in every idle turn, of which there are many per
     * round trip) fails; what is allowed is the rare event of the engine and the JIT's own noise.
     */
    private static final double MAX_BYTES_PER_ROUND = 8;

    /** Both sides' state; each side's fields are confined to its loop but the counters. */
    private static final class PingPong {
        final AtomicLong rounds = new AtomicLong();
        final AtomicReference<String> failure = new AtomicReference<>();
        volatile boolean stopping;
        UdpConnection client;
        MemoryRegion clientRegion;
        MemoryRegion serverRegion;
        long next;

        void ping() {
            long q = next++;
            int r = client.postRecvDirect(1, q, clientRegion, SIZE, SIZE);
            int s = client.postSendDirect(1, q, clientRegion, 0, SIZE);
            if (r != PostResult.OK || s != PostResult.OK) {
                failure.compareAndSet(null, "client posts " + PostResult.name(r) + ", " + PostResult.name(s));
            }
        }

        void onClient(int opcode, int status) {
            if (status != CompletionStatus.SUCCESS) {
                failure.compareAndSet(null, "client completion " + CompletionStatus.name(status));
            } else if (opcode == WorkOpcode.RECV) {
                rounds.incrementAndGet();
                if (!stopping) {
                    ping();
                }
            }
        }

        void onServer(UdpConnection connection, long id, int opcode, int status) {
            if (status != CompletionStatus.SUCCESS) {
                failure.compareAndSet(null, "server completion " + CompletionStatus.name(status));
            } else if (opcode == WorkOpcode.RECV) {
                long buffer = (id & 1) * SIZE;
                int s = connection.postSendDirect(1, id, serverRegion, buffer, SIZE);
                int r = connection.postRecvDirect(1, id + 1, serverRegion, SIZE - buffer, SIZE);
                if (s != PostResult.OK || r != PostResult.OK) {
                    failure.compareAndSet(null, "server posts " + PostResult.name(s) + ", " + PostResult.name(r));
                }
            }
        }
    }

    @Test
    @Timeout(150)
    void busyPollingLoopsAnswerEachRoundTripAndAllocateNothingPerRoundTrip() throws Exception {
        assumeThat(LinuxSocketLayer.isAvailable()).as("the Linux datapath").isTrue();
        assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments())
                .as("this JVM's arguments: C1 only; run this test through failsafe (./mvnw verify"
                        + " -Dit.test=BusyPollPingPongIT), whose execution busy-poll-c1 in metaroce-netty/pom.xml"
                        + " adds it")
                .contains(C1_ONLY);
        PingPong p = new PingPong();
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(Datapath.LINUX).busyPoll(true).listening(true)
                        .acceptListener(accepted::add)
                        .completionSink((c, stream, id, op, st, n, imm, has) -> p.onServer(c, id, op, st)).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(Datapath.LINUX).busyPoll(true)
                        .completionSink((c, stream, id, op, st, n, imm, has) -> p.onClient(op, st)).build()) {
            p.client = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(s).isNotNull();
            p.clientRegion = client.register(arena.allocate(2 * SIZE, 8), Access.LOCAL_WRITE);
            p.serverRegion = server.register(arena.allocate(2 * SIZE, 8), Access.LOCAL_WRITE);
            int first = server.eventLoop().submit(() -> s.postRecvDirect(1, 0, p.serverRegion, 0, SIZE))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(first).isEqualTo(PostResult.OK);
            client.eventLoop().execute(p::ping);

            long end = System.nanoTime() + STEADY_WITHIN_NANOS;
            double best = Double.MAX_VALUE;
            String windows = "";
            while (System.nanoTime() < end && p.failure.get() == null) {
                long bytes0 = loopAllocatedBytes(client) + loopAllocatedBytes(server);
                long rounds0 = p.rounds.get();
                awaitRounds(p, rounds0 + WINDOW_ROUNDS, WINDOW_NANOS);
                long bytes = loopAllocatedBytes(client) + loopAllocatedBytes(server) - bytes0;
                long rounds = p.rounds.get() - rounds0;
                windows += " " + bytes + " B/" + rounds;
                if (rounds >= LEAST_WINDOW_ROUNDS) {
                    best = Math.min(best, (double) Math.max(0, bytes - READINGS_BYTES) / rounds);
                    if (best < MAX_BYTES_PER_ROUND) {
                        break;
                    }
                }
            }
            p.stopping = true;
            assertThat(p.failure.get()).isNull();
            assertThat(best).as("least bytes the loops allocated per round trip (less the readings' own) in a window of at least %d round"
                    + " trips (windows, bytes/round trips:%s)", LEAST_WINDOW_ROUNDS, windows)
                    .isLessThan(MAX_BYTES_PER_ROUND);
        }
    }

    private static void awaitRounds(PingPong p, long rounds, long maxNanos) throws InterruptedException {
        long end = System.nanoTime() + maxNanos;
        while (p.rounds.get() < rounds && System.nanoTime() < end && p.failure.get() == null) {
            Thread.sleep(10);
        }
    }

    /** Bytes the endpoint's loop thread has allocated so far, read on the loop. */
    private static long loopAllocatedBytes(UdpEndpoint endpoint) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return endpoint.eventLoop().submit(threads::getCurrentThreadAllocatedBytes).get(WAIT_SECONDS,
                TimeUnit.SECONDS);
    }
}
