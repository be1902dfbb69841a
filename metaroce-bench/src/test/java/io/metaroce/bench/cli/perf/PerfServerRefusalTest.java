package io.metaroce.bench.cli.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.netty.UdpConnection;
import io.metaroce.netty.UdpEndpoint;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A perf server checks the run it is sent: parameters it cannot serve are refused with the
 * reason, and the server reports the failure instead of serving.
 */
class PerfServerRefusalTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void parametersOutOfRangeAreRefusedWithTheReason() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        StringWriter serverOut = new StringWriter();
        // Closed in reverse: the endpoints before the memory they registered.
        try (Arena arena = Arena.ofShared();
                PerfServer server = new PerfServer(new InetSocketAddress(loopback, 0), 0, EngineConfig.defaults());
                UdpEndpoint client = UdpEndpoint.builder().build()) {
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.serveOne(new PrintWriter(serverOut, true));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            UdpConnection connection = client.connect(server.localAddress(), 1).get(20, TimeUnit.SECONDS);
            ControlChannel control = new ControlChannel(connection, arena);
            CompletableFuture<ControlMessage> answer = control.expect();
            // What a client of another build might send: a 0-byte message size.
            RunParams bad = new RunParams(Op.send, 0, 4, 1, 8, 1_000_000_000L, 0, false, 7);
            control.send(ControlMessage.params(bad)).get(20, TimeUnit.SECONDS);

            ControlMessage refused = answer.get(20, TimeUnit.SECONDS);
            assertThat(refused.type()).isEqualTo(ControlMessage.REFUSED);
            assertThat(refused.text()).contains("--size must be in");
            assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(serverOut.toString()).contains("refused a run: --size must be in");
            connection.closeFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
