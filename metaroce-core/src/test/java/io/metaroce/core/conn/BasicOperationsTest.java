package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Each operation once over a clean network: the behaviour every other test builds on. */
class BasicOperationsTest {
    record Done(long wrId, int opcode, int status, long bytes, int imm, boolean hasImm) { }

    private final List<Done> clientDone = new ArrayList<>();
    private final List<Done> serverDone = new ArrayList<>();

    private Pair pair(long seed, int paths, NetworkConditions net) {
        return Pair.create(seed, paths, net, EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(w, o, st, b, i, h)))
                .onServerCompletion((c, s, w, o, st, b, i, h) -> serverDone.add(new Done(w, o, st, b, i, h)))
                .connect();
    }


    @Test
    void sendLandsInThePostedReceive() {
        Pair p = pair(1, 2, NetworkConditions.perfect());
        MemoryRegion src = TestMemory.region(p.client(), 100_000, 0, 42);
        MemoryRegion dst = TestMemory.region(p.server(), 100_000, Access.LOCAL_WRITE, 0);
        assertThat(p.serverConnection().postRecv(3, 77, dst, 0, 100_000)).isEqualTo(PostResult.OK);
        assertThat(p.clientConnection().postSend(3, 5, src, 0, 100_000)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> clientDone.size() == 1 && serverDone.size() == 1, 1_000_000_000L, "send");
        assertThat(clientDone).containsExactly(new Done(5, WorkOpcode.SEND, CompletionStatus.SUCCESS, 100_000, 0, false));
        assertThat(serverDone).containsExactly(new Done(77, WorkOpcode.RECV, CompletionStatus.SUCCESS, 100_000, 0, false));
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
        assertThat(p.clientConnection().stats().retransmissions()).isZero();
    }

    @Test
    void writeReadAndWriteWithImmediate() {
        Pair p = pair(2, 4, NetworkConditions.perfect().withDelay(5_000, 2_000, 20_000));
        MemoryRegion local = TestMemory.region(p.client(), 65_536, Access.LOCAL_WRITE, 7);
        MemoryRegion readBack = TestMemory.region(p.client(), 65_536, Access.LOCAL_WRITE, 0);
        MemoryRegion remote = TestMemory.region(p.server(), 65_536, Access.REMOTE_WRITE | Access.REMOTE_READ | Access.LOCAL_WRITE, 0);
        MemoryRegion recvBuf = TestMemory.region(p.server(), 16, Access.LOCAL_WRITE, 0);
        var c = p.clientConnection();
        p.serverConnection().postRecv(0, 900, recvBuf, 0, 16);
        assertThat(c.postWrite(0, 1, local, 0, 30_000, remote.remoteKey(), 0)).isEqualTo(PostResult.OK);
        assertThat(c.postWriteWithImmediate(0, 2, local, 30_000, 35_536, remote.remoteKey(), 30_000, 0xCAFE)).isEqualTo(PostResult.OK);
        assertThat(c.postRead(0, 3, readBack, 0, 65_536, remote.remoteKey(), 0)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> clientDone.size() == 3 && serverDone.size() == 1, 1_000_000_000L, "ops");
        assertThat(clientDone).extracting(Done::wrId).containsExactly(1L, 2L, 3L);
        assertThat(clientDone).allMatch(d -> d.status() == CompletionStatus.SUCCESS);
        assertThat(serverDone).containsExactly(new Done(900, WorkOpcode.RECV_WRITE_WITH_IMM, 0, 35_536, 0xCAFE, true));
        assertThat(remote.segment().mismatch(local.segment())).isEqualTo(-1);
        assertThat(readBack.segment().mismatch(local.segment())).isEqualTo(-1);
    }
}
