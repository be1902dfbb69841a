package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import java.lang.foreign.Arena;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Equal-length packets [SPEC-MSG-3] on the Linux datapath: 8 KiB WRITEs on one path are cut into
 * three datagrams of one length, so a GSO send carries datagrams of several messages; without
 * {@code equalLengthPackets} a GSO run ends at each message's short last packet. The bytes arrive
 * intact either way.
 */
class EqualLengthOffloadTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    private static final long WAIT_SECONDS = 20;

    @Test
    @Timeout(60)
    void consecutiveEightKibWritesOnOnePathShareGsoSends() throws Exception {
        long[] carried = run(true);
        assertThat(carried[0]).as("GSO sends").isPositive();
        assertThat(carried[1]).as("datagrams per GSO send: more than one message's three")
                .isGreaterThan(3 * carried[0]);
    }

    @Test
    @Timeout(60)
    void withAShortLastPacketAGsoSendCarriesAtMostOneMessage() throws Exception {
        long[] carried = run(false);
        // A run ends at the short last packet: at most three datagrams (one message) a send.
        assertThat(carried[1]).as("datagrams per GSO send").isLessThanOrEqualTo(3 * carried[0]);
    }

    /** Sends 64 WRITEs of 8 KiB on one path, checks the bytes; returns {GSO sends, datagrams they carried}. */
    private static long[] run(boolean equalLength) throws Exception {
        assumeTrue(LinuxSocketLayer.isAvailable(),
                () -> "the linux datapath cannot run here: " + LinuxSocketLayer.unavailabilityCause());
        EngineConfig config = EngineConfig.builder().equalLengthPackets(equalLength).build();
        int size = 8192;
        int messages = 64;
        long total = (long) size * messages;
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        try (Arena arena = Arena.ofShared();
                UdpEndpoint server = UdpEndpoint.builder().datapath(Datapath.LINUX).config(config).listening(true)
                        .acceptListener(accepted::add).build();
                UdpEndpoint client = UdpEndpoint.builder().datapath(Datapath.LINUX).config(config).build()) {
            UdpConnection cc = client.connect(server.localAddress(), 1).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
            PatternedWrites transfer = new PatternedWrites(arena, client, server, total);
            UdpEndpointStats before = client.stats();
            transfer.writeAll(cc, size, WAIT_SECONDS);
            UdpEndpointStats after = client.stats();
            long sends = after.offloadSends() - before.offloadSends();
            long carried = after.offloadDatagrams() - before.offloadDatagrams();
            System.out.printf("EqualLengthOffloadTest (equalLengthPackets %s): %d GSO sends carried %d of %d"
                    + " datagrams sent; %s%n", equalLength, sends, carried,
                    after.datagramsSent() - before.datagramsSent(), cc.stats());
            // The calls and coalesced buffers the datapath counts: the client sent its datagrams in
            // fewer sendmmsg calls than datagrams; the server read them in fewer recvmmsg calls,
            // and a GRO buffer holds at least two datagrams.
            UdpEndpointStats received = server.stats();
            System.out.printf("EqualLengthOffloadTest (equalLengthPackets %s): client %d sendmmsg calls for %d"
                    + " datagrams; server %d recvmmsg calls for %d datagrams, %d GRO buffers holding %d%n",
                    equalLength, after.sendCalls(), after.datagramsSent(), received.receiveCalls(),
                    received.datagramsReceived(), received.offloadReceives(), received.offloadReceivedDatagrams());
            assertThat(after.sendCalls()).as("sendmmsg calls").isPositive().isLessThan(after.datagramsSent());
            assertThat(received.receiveCalls()).as("recvmmsg calls").isPositive()
                    .isLessThan(received.datagramsReceived());
            assertThat(received.offloadReceivedDatagrams()).as("datagrams in GRO buffers")
                    .isGreaterThanOrEqualTo(2 * received.offloadReceives())
                    .isLessThanOrEqualTo(received.datagramsReceived());
            return new long[] {sends, carried};
        }
    }
}
