package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.lang.foreign.Arena;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every future an application holds is answered when the endpoint closes: nothing hangs. */
class UdpEndpointCloseTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static void assertFailsPromptly(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("expected the future to fail, it succeeded");
        } catch (ExecutionException expected) {
            // answered with an error, as it should be
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the future was never answered", e);
        }
    }

    @Test
    @Timeout(30)
    void postsAndConnectsAfterCloseFailAtOnceOnAnOwnedAndASharedEventLoop() throws Exception {
        MultiThreadIoEventLoopGroup shared = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().listening(true).acceptListener(accepted::add).build()) {
            for (boolean useShared : new boolean[] {false, true}) {
                UdpEndpoint.Builder b = UdpEndpoint.builder();
                if (useShared) {
                    b.eventLoopGroup(shared);
                }
                UdpEndpoint client = b.build();
                UdpConnection c = client.connect(server.localAddress(), 2).get(10, TimeUnit.SECONDS);
                MemoryRegion src = client.register(arena.allocate(1024), Access.NONE);
                client.close();

                assertFailsPromptly(c.postSend(0, 1, src, 0, 1024));
                assertFailsPromptly(client.connect(server.localAddress(), 1));
                assertThat(c.close().get(5, TimeUnit.SECONDS)).isNotNull();
            }
        } finally {
            shared.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
