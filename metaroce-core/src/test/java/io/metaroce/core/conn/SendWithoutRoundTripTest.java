package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * R-OOO-2: a SEND is matched to its posted receive from the packet alone, without a round trip
 * first. Over a network whose one-way delay is fixed, a SEND posted on an established connection
 * lands in its receive (at the receive's offset) and completes there less than two one-way delays
 * after the post: a request and its answer before the data could leave would take at least that.
 */
class SendWithoutRoundTripTest {
    private static final long ONE_WAY_NANOS = 200_000;
    private static final int STREAM = 3;
    private static final long RECEIVE_OFFSET = 5_000;

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 1_000, 3_000})
    void aSendLandsInItsReceiveWithinOneWayOfThePostNotARoundTrip(int size) {
        List<long[]> serverDone = new ArrayList<>();
        Pair[] holder = new Pair[1];
        Pair pair = Pair.create(size, 1, NetworkConditions.perfect().withDelay(ONE_WAY_NANOS, 0, 0),
                        EngineConfig.defaults())
                .onServerCompletion((c, s, w, o, st, b, i, h) ->
                        serverDone.add(new long[] {holder[0].now(), s, w, o, st, b}))
                .connect();
        holder[0] = pair;
        MemoryRegion src = TestMemory.region(pair.client(), size, Access.ALL, 7);
        MemoryRegion dst = TestMemory.region(pair.server(), RECEIVE_OFFSET + size, Access.ALL, 0);
        pair.serverConnection().postRecv(STREAM, 41, dst, RECEIVE_OFFSET, size);
        pair.advance(3 * ONE_WAY_NANOS); // let the handshake's last packets settle

        long postedAt = pair.now();
        pair.clientConnection().postSend(STREAM, 9, src, 0, size);
        pair.driveUntil(() -> !serverDone.isEmpty(), 100 * ONE_WAY_NANOS, "the receive's completion");

        long[] done = serverDone.get(0);
        assertThat(done[1]).isEqualTo(STREAM);
        assertThat(done[2]).isEqualTo(41);
        assertThat(done[3]).isEqualTo(WorkOpcode.RECV);
        assertThat(done[4]).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(done[5]).isEqualTo(size);
        assertThat(done[0] - postedAt).as("from the post to the receive's completion, one-way delay %d ns", ONE_WAY_NANOS)
                .isGreaterThanOrEqualTo(ONE_WAY_NANOS).isLessThan(2 * ONE_WAY_NANOS);
        assertThat(dst.segment().asSlice(RECEIVE_OFFSET, size).mismatch(src.segment())).as("the bytes at the receive's offset")
                .isEqualTo(-1);
        assertThat(dst.segment().asSlice(0, RECEIVE_OFFSET).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .as("nothing before the receive's offset").containsOnly(0);
    }
}
