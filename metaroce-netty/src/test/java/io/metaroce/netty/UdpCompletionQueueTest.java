package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Completions polled from a queue, verbs-style, besides the futures: all of them, in order. */
class UdpCompletionQueueTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;

    @Test
    @Timeout(60)
    void everyCompletionOfBothSidesIsPolledFromTheQueuesInPostingOrderPerStream() throws Exception {
        UdpCompletionQueue clientCq = new UdpCompletionQueue(1024);
        UdpCompletionQueue serverCq = new UdpCompletionQueue(1024);
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).completionQueue(serverCq)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().completionQueue(clientCq).build()) {
            UdpConnection c = client.connect(server.localAddress(), 2).get(WAIT_SECONDS, TimeUnit.SECONDS);
            UdpConnection s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            MemoryRegion src = client.register(arena.allocate(1 << 16), Access.NONE);
            MemoryRegion dst = server.register(arena.allocate(1 << 16), Access.LOCAL_WRITE);
            int n = 50;
            for (int i = 0; i < n; i++) {
                s.postRecv(1, 1000 + i, dst, 0, 1 << 16);
            }
            for (int i = 0; i < n; i++) {
                c.postSend(1, i, src, 0, 1000 + i);
            }
            List<Completion> sends = drain(clientCq, n);
            List<Completion> recvs = drain(serverCq, n);
            for (int i = 0; i < n; i++) {
                assertThat(sends.get(i).workRequestId()).isEqualTo(i);
                assertThat(sends.get(i).opcode()).isEqualTo(WorkOpcode.SEND);
                assertThat(recvs.get(i).workRequestId()).isEqualTo(1000 + i);
                assertThat(recvs.get(i).byteLength()).isEqualTo(1000 + i);
            }
            assertThat(clientCq.overflows()).isZero();
            assertThat(clientCq.poll()).isNull();
        }
    }

    @Test
    @Timeout(60)
    void aFullQueueCountsOverflowsAndTheFuturesStillComplete() throws Exception {
        UdpCompletionQueue tiny = new UdpCompletionQueue(2);
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).build();
                UdpEndpoint client = UdpEndpoint.builder().completionQueue(tiny).build()) {
            UdpConnection c = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            MemoryRegion src = client.register(arena.allocate(64), Access.NONE);
            MemoryRegion dst = server.register(arena.allocate(64), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            for (int i = 0; i < 5; i++) {
                assertThat(c.postWrite(0, i, src, 0, 64, dst.remoteKey(), 0).get(WAIT_SECONDS, TimeUnit.SECONDS)
                        .isSuccess()).isTrue();
            }
            assertThat(tiny.size()).isEqualTo(2);
            assertThat(tiny.overflows()).isEqualTo(3);
            List<Long> ids = new ArrayList<>();
            assertThat(tiny.poll((conn, completion) -> ids.add(completion.workRequestId()), 10)).isEqualTo(2);
            assertThat(ids).containsExactly(0L, 1L);
        }
        assertThatThrownBy(() -> new UdpCompletionQueue(0)).hasMessageContaining("at least 1");
    }

    private static List<Completion> drain(UdpCompletionQueue cq, int n) throws InterruptedException {
        List<Completion> out = new ArrayList<>();
        while (out.size() < n) {
            UdpCompletionQueue.Entry e = cq.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(e).as("completion %d of %d", out.size(), n).isNotNull();
            out.add(e.completion());
        }
        return out;
    }
}
