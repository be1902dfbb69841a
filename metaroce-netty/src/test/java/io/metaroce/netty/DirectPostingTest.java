package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The zero-allocation posting path: posts without futures on the event loop, completions with
 * primitive arguments to the {@link CompletionSink}, alongside posts with futures.
 */
class DirectPostingTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;

    /** One completion as the sink saw it. */
    private record Seen(UdpConnection connection, int stream, long id, int opcode, int status, long bytes, int immediate,
            boolean hasImmediate) {
    }

    @Test
    @Timeout(60)
    void directSendsWritesAndReceivesCompleteToTheSinkWithTheApplicationsIdsAndTheBytesArrive() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        BlockingQueue<Seen> clientSeen = new LinkedBlockingQueue<>();
        BlockingQueue<Seen> serverSeen = new LinkedBlockingQueue<>();
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).acceptListener(accepted::add)
                        .completionSink((c, s, id, op, st, n, imm, has) -> serverSeen.add(
                                new Seen(c, s, id, op, st, n, imm, has)))
                        .build();
                UdpEndpoint client = UdpEndpoint.builder()
                        .completionSink((c, s, id, op, st, n, imm, has) -> clientSeen.add(
                                new Seen(c, s, id, op, st, n, imm, has)))
                        .build()) {
            UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            int n = 40;
            int size = 9000;
            MemorySegment source = arena.allocate((long) n * size);
            for (long i = 0; i < source.byteSize(); i++) {
                source.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            MemoryRegion src = client.register(source, Access.NONE);
            MemorySegment received = arena.allocate((long) n * size);
            MemorySegment written = arena.allocate((long) n * size);
            MemoryRegion recv = server.register(received, Access.LOCAL_WRITE);
            MemoryRegion target = server.register(written, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            // Large ids (bit 62 set) come back unchanged; receives first, on the server's loop.
            long base = 1L << 62;
            int[] results = server.eventLoop().submit(() -> {
                int[] r = new int[n];
                for (int i = 0; i < n; i++) {
                    r[i] = s.postRecvDirect(i % 3, base + 1000 + i, recv, (long) i * size, size);
                }
                return r;
            }).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(results).containsOnly(PostResult.OK);
            int[] sent = client.eventLoop().submit(() -> {
                int[] r = new int[2 * n];
                for (int i = 0; i < n; i++) {
                    r[i] = c.postSendWithImmediateDirect(i % 3, base + i, src, (long) i * size, size, i);
                    r[n + i] = c.postWriteDirect(3, base + n + i, src, (long) i * size, size, target.remoteKey(),
                            (long) i * size);
                }
                return r;
            }).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(sent).containsOnly(PostResult.OK);
            // A post with a future on the same connection: its completion reaches the sink and the future.
            Completion viaFuture = c.postWrite(3, 7, src, 0, 100, target.remoteKey(), 0)
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(viaFuture.isSuccess()).isTrue();
            boolean[] sendDone = new boolean[n];
            boolean[] writeDone = new boolean[n];
            boolean futureSeen = false;
            for (int k = 0; k < 2 * n + 1; k++) {
                Seen e = clientSeen.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(e).as("client completion %d, seed %d", k, seed).isNotNull();
                assertThat(e.connection()).isSameAs(c);
                assertThat(e.status()).isEqualTo(CompletionStatus.SUCCESS);
                if (e.id() == 7) {
                    futureSeen = true;
                    assertThat(e.opcode()).isEqualTo(WorkOpcode.WRITE);
                } else if (e.id() < base + n) {
                    assertThat(e.opcode()).isEqualTo(WorkOpcode.SEND);
                    sendDone[(int) (e.id() - base)] = true;
                } else {
                    assertThat(e.opcode()).isEqualTo(WorkOpcode.WRITE);
                    writeDone[(int) (e.id() - base - n)] = true;
                }
            }
            assertThat(futureSeen).isTrue();
            assertThat(sendDone).containsOnly(true);
            assertThat(writeDone).containsOnly(true);
            for (int k = 0; k < n; k++) {
                Seen e = serverSeen.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(e).as("server completion %d, seed %d", k, seed).isNotNull();
                int i = (int) (e.id() - base - 1000);
                assertThat(e.stream()).isEqualTo(i % 3);
                assertThat(e.bytes()).isEqualTo(size);
                assertThat(e.hasImmediate()).isTrue();
                assertThat(e.immediate()).isEqualTo(i);
            }
            assertThat(received.mismatch(source)).as("received bytes, seed %d", seed).isEqualTo(-1);
            assertThat(written.asSlice(100).mismatch(source.asSlice(100))).as("written bytes, seed %d", seed)
                    .isEqualTo(-1);
        }
    }

    @Test
    @Timeout(60)
    void directPostsFailFastOffTheLoopWithoutASinkOrWithANegativeId() throws Exception {
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().completionSink((c, s, id, op, st, n, imm, has) -> { })
                        .build()) {
            UdpConnection c = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            MemoryRegion src = client.register(arena.allocate(64), Access.NONE);
            MemoryRegion dst = server.register(arena.allocate(64), Access.LOCAL_WRITE);
            assertThatThrownBy(() -> c.postSendDirect(0, 1, src, 0, 64)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("event loop");
            Throwable[] thrown = new Throwable[2];
            CountDownLatch done = new CountDownLatch(2);
            client.eventLoop().execute(() -> {
                try {
                    c.postSendDirect(0, -1, src, 0, 64);
                } catch (RuntimeException e) {
                    thrown[0] = e;
                }
                done.countDown();
            });
            server.eventLoop().execute(() -> {
                try {
                    s.postRecvDirect(0, 1, dst, 0, 64);
                } catch (RuntimeException e) {
                    thrown[1] = e;
                }
                done.countDown();
            });
            assertThat(done.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(thrown[0]).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 2^63)");
            assertThat(thrown[1]).isInstanceOf(IllegalStateException.class).hasMessageContaining("completionSink");
            // After the connection ends a direct post is refused with CLOSED, not thrown.
            c.abort().get(WAIT_SECONDS, TimeUnit.SECONDS);
            int result = client.eventLoop().submit(() -> c.postSendDirect(0, 1, src, 0, 64))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(result).isEqualTo(PostResult.CLOSED);
        }
    }
}
