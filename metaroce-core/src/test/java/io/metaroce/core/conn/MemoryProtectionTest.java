package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * R-OOO-3: a WRITE or READ outside a region, with a wrong key, or without the access right is
 * refused, counted and reported to the peer as a remote access error, and never touches memory.
 */
class MemoryProtectionTest {
    record Done(long wrId, int opcode, int status, long bytes) { }

    private final List<Done> clientDone = new ArrayList<>();
    private final List<Done> serverDone = new ArrayList<>();
    private Pair pair;
    private MemoryRegion local;
    private MemorySegment localBefore;

    private void setUp(long seed, NetworkConditions net) {
        pair = Pair.create(seed, 2, net, EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(w, o, st, b)))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new Done(w, o, st, b)))
                .connect();
        local = TestMemory.region(pair.client(), 20_000, Access.LOCAL_WRITE, seed);
        localBefore = TestMemory.snapshot(local);
    }



    private void drive(int clientCount) {
        pair.driveUntil(() -> clientDone.size() >= clientCount, 2_000_000_000L, "completions");
        pair.advance(2_000_000);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"beyond-end", "wrong-key", "no-right", "closed-region", "offset-overflow"})
    void aRefusedWriteLeavesTheRegionUntouchedAndFailsTheWorkRequest(String violation) {
        setUp(violation.hashCode(), NetworkConditions.perfect().withDelay(5_000, 1_000, 10_000));
        int access = violation.equals("no-right") ? Access.REMOTE_READ | Access.LOCAL_WRITE : Access.ALL;
        MemoryRegion remote = TestMemory.region(pair.server(), 10_000, access, 99);
        MemorySegment remoteBefore = TestMemory.snapshot(remote);
        int key = violation.equals("wrong-key") ? remote.remoteKey() ^ 0x5a5a5a5a : remote.remoteKey();
        long offset = switch (violation) {
            case "beyond-end" -> 10_000 - 4_000;
            case "offset-overflow" -> Long.MAX_VALUE - 100;
            default -> 0;
        };
        if (violation.equals("closed-region")) {
            remote.close();
        }
        Connection c = pair.clientConnection();
        c.postWrite(0, 1, local, 0, 8_000, key, offset);
        // The stream carries on: a good WRITE after the refused one succeeds.
        MemoryRegion good = TestMemory.region(pair.server(), 8_000, Access.ALL, 7);
        c.postWrite(0, 2, local, 0, 8_000, good.remoteKey(), 0);
        drive(2);

        assertThat(clientDone).containsExactly(
                new Done(1, WorkOpcode.WRITE, CompletionStatus.REMOTE_ACCESS_ERROR, 8_000),
                new Done(2, WorkOpcode.WRITE, CompletionStatus.SUCCESS, 8_000));
        if (!violation.equals("closed-region")) {
            assertThat(remote.segment().mismatch(remoteBefore)).as("refused region untouched").isEqualTo(-1);
        }
        assertThat(good.segment().mismatch(local.segment().asSlice(0, 8_000))).isEqualTo(-1);
        assertThat(pair.serverConnection().stats().accessRefusals()).isPositive();
        assertThat(pair.clientConnection().stats().naksReceived()).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"beyond-end", "wrong-key", "no-right"})
    void aRefusedReadLeavesTheLocalBufferUntouched(String violation) {
        setUp(violation.hashCode() + 1, NetworkConditions.perfect());
        int access = violation.equals("no-right") ? Access.REMOTE_WRITE : Access.ALL;
        MemoryRegion remote = TestMemory.region(pair.server(), 10_000, access, 5);
        int key = violation.equals("wrong-key") ? remote.remoteKey() + 1 : remote.remoteKey();
        long offset = violation.equals("beyond-end") ? 1 : 0;
        pair.clientConnection().postRead(3, 1, local, 0, 10_000, key, offset);
        drive(1);

        assertThat(clientDone).containsExactly(new Done(1, WorkOpcode.READ, CompletionStatus.REMOTE_ACCESS_ERROR, 10_000));
        assertThat(local.segment().mismatch(localBefore)).isEqualTo(-1);
        assertThat(pair.serverConnection().stats().accessRefusals()).isPositive();
    }

    @Test
    void aRefusedWriteWithImmediateConsumesTheReceiveWithTheError() {
        setUp(21, NetworkConditions.perfect());
        MemoryRegion recv = TestMemory.region(pair.server(), 64, Access.LOCAL_WRITE, 1);
        pair.serverConnection().postRecv(0, 500, recv, 0, 64);
        pair.clientConnection().postWriteWithImmediate(0, 1, local, 0, 100, 12345, 0, 7);
        drive(1);
        pair.driveUntil(() -> serverDone.size() == 1, 100_000_000L, "receive completion");

        assertThat(clientDone).containsExactly(new Done(1, WorkOpcode.WRITE_WITH_IMM, CompletionStatus.REMOTE_ACCESS_ERROR, 100));
        assertThat(serverDone).containsExactly(new Done(500, WorkOpcode.RECV_WRITE_WITH_IMM, CompletionStatus.REMOTE_ACCESS_ERROR, 100));
    }

    @Test
    void aSendLongerThanItsReceiveWritesNothingPastTheReceive() {
        setUp(22, NetworkConditions.perfect());
        MemoryRegion recv = TestMemory.region(pair.server(), 4_096, Access.LOCAL_WRITE, 3);
        MemorySegment before = TestMemory.snapshot(recv);
        pair.serverConnection().postRecv(0, 600, recv, 1_000, 1_000);
        pair.clientConnection().postSend(0, 1, local, 0, 5_000);
        drive(1);
        pair.driveUntil(() -> serverDone.size() == 1, 100_000_000L, "receive completion");

        assertThat(clientDone).containsExactly(new Done(1, WorkOpcode.SEND, CompletionStatus.REMOTE_INVALID_REQUEST, 5_000));
        assertThat(serverDone).containsExactly(new Done(600, WorkOpcode.RECV, CompletionStatus.LOCAL_LENGTH_ERROR, 5_000));
        assertThat(recv.segment().mismatch(before)).as("no byte written anywhere").isEqualTo(-1);
    }

    @Test
    void lostNaksAreRecoveredBecauseTheRefusedPacketIsNeverAcknowledged() {
        PacketCodec codec = new PacketCodec();
        Packet p = new Packet();
        int[] naksDropped = {0};
        setUp(23, NetworkConditions.perfect().withDelay(10_000, 0, 0));
        pair.lossModel((fromClient, path, buf, len, now) -> {
            if (!fromClient && codec.decode(buf, 0, len, p) == DecodeError.OK && p.type == PacketType.NAK
                    && naksDropped[0] < 5) {
                naksDropped[0]++;
                return true;
            }
            return false;
        });
        MemoryRegion remote = TestMemory.region(pair.server(), 1_000, Access.ALL, 4);
        MemorySegment remoteBefore = TestMemory.snapshot(remote);
        pair.clientConnection().postWrite(0, 1, local, 0, 20_000, remote.remoteKey(), 0);
        drive(1);

        assertThat(naksDropped[0]).isEqualTo(5);
        assertThat(clientDone).containsExactly(new Done(1, WorkOpcode.WRITE, CompletionStatus.REMOTE_ACCESS_ERROR, 20_000));
        assertThat(remote.segment().mismatch(remoteBefore)).isEqualTo(-1);
    }
}
