package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.WorkOpcode;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Programming errors are thrown at once, with a message that says what is wrong and how to fix
 * it; conditions a correct program meets at run time are result codes.
 */
class ApiMisuseTest {
    private static final long SEED = 77;
    private static final int LENGTH = 4_096;

    record Done(long wrId, int opcode, int status) { }

    private final List<Done> clientDone = new ArrayList<>();

    private Pair connected(EngineConfig config) {
        return Pair.create(SEED, 1, NetworkConditions.perfect(), config)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(w, o, st)))
                .connect();
    }

    private static MemoryRegion region(Endpoint e, int access) {
        return e.protectionDomain().register(Arena.ofAuto().allocate(LENGTH), access);
    }

    @Test
    void postingWithANullRegionNamesTheProblemAndTheFix() {
        Pair p = connected(EngineConfig.defaults());
        Connection c = p.clientConnection();
        assertThatThrownBy(() -> c.postSend(0, 1, null, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postSend").hasMessageContaining("null").hasMessageContaining("register");
        assertThatThrownBy(() -> c.postRecv(0, 1, null, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRecv").hasMessageContaining("null").hasMessageContaining("register");
        assertThatThrownBy(() -> c.postWrite(0, 1, null, 0, 10, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postWrite").hasMessageContaining("null");
        assertThatThrownBy(() -> c.postRead(0, 1, null, 0, 10, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRead").hasMessageContaining("null");
        assertThat(c.outstandingWork()).isZero();
    }

    @Test
    void postingARegionOfAnotherEndpointsProtectionDomainNamesTheProblemAndTheFix() {
        Pair p = connected(EngineConfig.defaults());
        Connection c = p.clientConnection();
        // Registered with the server: perfectly valid memory, wrong protection domain.
        MemoryRegion foreign = region(p.server(), Access.ALL);
        assertThat(foreign.isOpen()).isTrue();
        assertThatThrownBy(() -> c.postSend(0, 1, foreign, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postSend")
                .hasMessageContaining("protection domain");
        assertThatThrownBy(() -> c.postRecv(0, 2, foreign, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRecv")
                .hasMessageContaining("protection domain");
        assertThat(c.outstandingWork()).isZero();
    }

    static Stream<Arguments> badRanges() {
        return Stream.of(
                Arguments.of(-1L, 10L),
                Arguments.of(0L, -1L),
                Arguments.of(0L, LENGTH + 1L),
                Arguments.of(LENGTH - 9L, 10L),
                Arguments.of((long) LENGTH, 1L),
                Arguments.of(Long.MAX_VALUE, 1L),
                Arguments.of(1L, Long.MAX_VALUE),
                Arguments.of(Long.MIN_VALUE, 10L));
    }

    @ParameterizedTest(name = "offset {0}, length {1}")
    @MethodSource("badRanges")
    void postingAnOutOfRangeOffsetOrLengthNamesTheRangeAndTheRegionLength(long offset, long length) {
        Pair p = connected(EngineConfig.defaults());
        Connection c = p.clientConnection();
        MemoryRegion r = region(p.client(), Access.LOCAL_WRITE);
        String range = "[" + offset + ", +" + length + ")";
        assertThatThrownBy(() -> c.postSend(0, 1, r, offset, length))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postSend").hasMessageContaining(range)
                .hasMessageContaining("OUT_OF_BOUNDS").hasMessageContaining("length " + LENGTH);
        assertThatThrownBy(() -> c.postRecv(0, 1, r, offset, length))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRecv").hasMessageContaining(range)
                .hasMessageContaining("OUT_OF_BOUNDS").hasMessageContaining("length " + LENGTH);
        assertThatThrownBy(() -> c.postRead(0, 1, r, offset, length, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRead").hasMessageContaining("OUT_OF_BOUNDS");
        assertThat(c.outstandingWork()).isZero();
    }

    @Test
    void anOutOfRangeReceiveOrReadIsNotBlamedOnAMissingAccessRight() {
        Pair p = connected(EngineConfig.defaults());
        Connection c = p.clientConnection();
        // The region has LOCAL_WRITE; only the range is wrong, so the hint must not send the
        // user after the access flags.
        MemoryRegion r = region(p.client(), Access.LOCAL_WRITE);
        assertThatThrownBy(() -> c.postRecv(0, 1, r, 0, LENGTH + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OUT_OF_BOUNDS")
                .hasMessageNotContaining("needs Access.LOCAL_WRITE");
        assertThatThrownBy(() -> c.postRead(0, 2, r, -1, 10, 1234, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OUT_OF_BOUNDS")
                .hasMessageNotContaining("needs Access.LOCAL_WRITE");
    }

    @Test
    void postingOnAStreamIdOutsideMaxStreamsNamesTheValidRangeAndTheSetting() {
        Pair p = connected(EngineConfig.builder().maxStreams(8).build());
        Connection c = p.clientConnection();
        MemoryRegion r = region(p.client(), Access.LOCAL_WRITE);
        for (int stream : new int[] {8, 9, Integer.MAX_VALUE, -1, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> c.postSend(stream, 1, r, 0, 10)).as("stream %d", stream)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("streamId " + stream).hasMessageContaining("0 to 7")
                    .hasMessageContaining("maxStreams");
            assertThatThrownBy(() -> c.postRecv(stream, 1, r, 0, 10)).as("stream %d", stream)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("streamId " + stream).hasMessageContaining("maxStreams");
        }
        // The last valid id is fine.
        assertThat(c.postRecv(7, 1, r, 0, 10)).isEqualTo(PostResult.OK);
    }

    @Test
    void readOrReceiveIntoARegionWithoutLocalWriteNamesTheMissingRight() {
        Pair p = connected(EngineConfig.defaults());
        Connection c = p.clientConnection();
        MemoryRegion readOnly = region(p.client(), Access.REMOTE_READ | Access.REMOTE_WRITE);
        assertThatThrownBy(() -> c.postRecv(0, 1, readOnly, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRecv").hasMessageContaining("ACCESS_DENIED")
                .hasMessageContaining("Access.LOCAL_WRITE");
        assertThatThrownBy(() -> c.postRead(0, 2, readOnly, 0, 10, 1234, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRead").hasMessageContaining("ACCESS_DENIED")
                .hasMessageContaining("Access.LOCAL_WRITE");
        // Reading local memory (a SEND or WRITE source) needs no right.
        MemoryRegion none = region(p.client(), Access.NONE);
        assertThat(c.postSend(0, 3, none, 0, 10)).isEqualTo(PostResult.OK);
        assertThat(c.postWrite(0, 4, none, 0, 10, 1234, 0)).isEqualTo(PostResult.OK);
    }

    @Test
    void negativeRemoteOffsetIsRejectedNamingTheField() {
        Pair p = connected(EngineConfig.defaults());
        Connection c = p.clientConnection();
        MemoryRegion r = region(p.client(), Access.LOCAL_WRITE);
        assertThatThrownBy(() -> c.postWrite(0, 1, r, 0, 10, 1234, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postWrite").hasMessageContaining("remoteOffset");
        assertThatThrownBy(() -> c.postRead(0, 1, r, 0, 10, 1234, Long.MIN_VALUE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postRead").hasMessageContaining("remoteOffset");
        assertThat(c.outstandingWork()).isZero();
    }

    @Test
    void rejectedPostsLeaveNoTraceAndTheNextPostWorks() {
        Pair p = connected(EngineConfig.builder().maxStreams(4).build());
        Connection c = p.clientConnection();
        Connection s = p.serverConnection();
        MemoryRegion src = region(p.client(), Access.NONE);
        MemoryRegion dst = region(p.server(), Access.LOCAL_WRITE);
        MemoryRegion foreign = region(p.server(), Access.ALL);
        List<Runnable> misuse = List.of(
                () -> c.postSend(0, 900, null, 0, 10),
                () -> c.postSend(0, 901, foreign, 0, 10),
                () -> c.postSend(0, 902, src, 0, LENGTH + 1),
                () -> c.postSend(4, 903, src, 0, 10),
                () -> c.postRead(0, 904, src, 0, 10, dst.remoteKey(), 0));
        for (Runnable r : misuse) {
            assertThatThrownBy(r::run).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(c.outstandingWork()).isZero();
        assertThat(s.postRecv(0, 50, dst, 0, 100)).isEqualTo(PostResult.OK);
        assertThat(c.postSend(0, 1, src, 0, 100)).isEqualTo(PostResult.OK);
        p.driveUntil(() -> clientDone.size() == 1, 1_000_000_000L, "send after misuse (seed " + SEED + ")");
        // The receive matched the first SEND that was accepted: rejected posts consumed no sequence number.
        assertThat(clientDone).containsExactly(new Done(1, WorkOpcode.SEND, CompletionStatus.SUCCESS));
        p.advance(10_000_000L);
        assertThat(clientDone).hasSize(1);
        assertThat(s.outstandingWork()).isZero();
    }

    @Test
    void postingBeforeTheHandshakeFinishesReturnsNotConnected() {
        Pair p = Pair.create(SEED, 1, NetworkConditions.perfect(), EngineConfig.defaults())
                .onClientCompletion((c, s, w, o, st, b, i, h) -> clientDone.add(new Done(w, o, st)));
        Connection c = p.client().connect(p.now(), Pair.SERVER_ADDRESS, new int[] {0});
        MemoryRegion r = region(p.client(), Access.LOCAL_WRITE);
        assertThat(c.state()).isEqualTo(ConnectionState.CONNECTING);
        assertThat(c.postSend(0, 1, r, 0, 10)).isEqualTo(PostResult.NOT_CONNECTED);
        assertThat(c.postSendWithImmediate(0, 2, r, 0, 10, 5)).isEqualTo(PostResult.NOT_CONNECTED);
        assertThat(c.postWrite(0, 3, r, 0, 10, 1234, 0)).isEqualTo(PostResult.NOT_CONNECTED);
        assertThat(c.postWriteWithImmediate(0, 4, r, 0, 10, 1234, 0, 5)).isEqualTo(PostResult.NOT_CONNECTED);
        assertThat(c.postRead(0, 5, r, 0, 10, 1234, 0)).isEqualTo(PostResult.NOT_CONNECTED);
        assertThat(c.postRecv(0, 6, r, 0, 10)).isEqualTo(PostResult.NOT_CONNECTED);
        assertThat(c.outstandingWork()).isZero();
        // Misuse is still misuse before the handshake.
        assertThatThrownBy(() -> c.postSend(0, 7, null, 0, 10)).isInstanceOf(IllegalArgumentException.class);

        p.driveUntil(() -> c.state() == ConnectionState.ESTABLISHED, 1_000_000_000L, "handshake (seed " + SEED + ")");
        p.advance(10_000_000L);
        assertThat(clientDone).as("NOT_CONNECTED means no completion follows").isEmpty();
        assertThat(c.postRecv(0, 8, r, 0, 10)).isEqualTo(PostResult.OK);
    }

    @Test
    void connectWithoutLocalSocketsOrTooManyIsRejected() {
        Pair p = Pair.create(SEED, 1, NetworkConditions.perfect(), EngineConfig.builder().maxPaths(4).build());
        assertThatThrownBy(() -> p.client().connect(0, Pair.SERVER_ADDRESS, new int[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 4");
        assertThatThrownBy(() -> p.client().connect(0, Pair.SERVER_ADDRESS, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 4");
        assertThatThrownBy(() -> p.client().connect(0, Pair.SERVER_ADDRESS, new int[5]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 4").hasMessageContaining("5");
        assertThat(p.client().connectionCount()).isZero();
    }

    // =====================================================================================
    // EngineConfig
    // =====================================================================================

    static Stream<Arguments> invalidConfigs() {
        return Stream.of(
                invalid("sequenceWindow", 100, b -> b.sequenceWindow(100)),
                invalid("sequenceWindow", 32, b -> b.sequenceWindow(32)),
                invalid("sequenceWindow", 0, b -> b.sequenceWindow(0)),
                invalid("pathWindowPackets", 1000, b -> b.pathWindowPackets(1000)),
                invalid("maxDatagramBytes", 100, b -> b.maxDatagramBytes(100)),
                invalid("maxDatagramBytes", 70_000, b -> b.maxDatagramBytes(70_000)),
                invalid("maxPaths", 0, b -> b.maxPaths(0)),
                invalid("maxStreams", 0, b -> b.maxStreams(0)),
                invalid("maxWorkRequests", 0, b -> b.maxWorkRequests(0)),
                invalid("maxPostedReceives", -1, b -> b.maxPostedReceives(-1)),
                invalid("completionQueueCapacity", 8, b -> b.completionQueueCapacity(8)),
                invalid("maxConnections", 0, b -> b.maxConnections(0)),
                invalid("ackEveryPackets", 0, b -> b.ackEveryPackets(0)),
                invalid("maxAckDelayNanos", 0, b -> b.maxAckDelayNanos(0)),
                invalid("reorderAllowancePackets", -1, b -> b.reorderAllowancePackets(-1)),
                invalid("initialRttNanos", -5, b -> b.initialRttNanos(-5)),
                invalid("minRtoNanos", 0, b -> b.minRtoNanos(0)),
                invalid("maxRtoNanos", 10, b -> b.maxRtoNanos(10)),
                invalid("maxConsecutiveTimeouts", 0, b -> b.maxConsecutiveTimeouts(0)),
                invalid("rnrRetryDelayNanos", 0, b -> b.rnrRetryDelayNanos(0)),
                invalid("congestionWindowBytes", 1000, b -> b.congestionWindowBytes(1000)),
                invalid("handshakeRetryNanos", 0, b -> b.handshakeRetryNanos(0)),
                invalid("handshakeTimeoutNanos", 0, b -> b.handshakeTimeoutNanos(0)),
                invalid("cookieLifetimeNanos", 0, b -> b.cookieLifetimeNanos(0)),
                invalid("idleTimeoutNanos", 0, b -> b.idleTimeoutNanos(0)),
                invalid("keepAliveNanos", -1, b -> b.keepAliveNanos(-1)),
                invalid("keepAliveNanos", 15_000_000_000L, b -> b.keepAliveNanos(15_000_000_000L)),
                invalid("closeRetryNanos", 0, b -> b.closeRetryNanos(0)),
                invalid("closeRetries", 101, b -> b.closeRetries(101)),
                invalid("pathFailureTimeouts", 0, b -> b.pathFailureTimeouts(0)),
                invalid("pathProbeIntervalNanos", 0, b -> b.pathProbeIntervalNanos(0)),
                invalid("pathProbeMaxIntervalNanos", 10, b -> b.pathProbeMaxIntervalNanos(10)),
                invalid("receiveCapacityBytesPerSecond", -1, b -> b.receiveCapacityBytesPerSecond(-1)),
                invalid("receiveCapacityBytesPerSecond", 1L << 39, b -> b.receiveCapacityBytesPerSecond(1L << 39)),
                invalid("fairSharePeriodNanos", 0, b -> b.fairSharePeriodNanos(0)),
                invalid("aimdPacingGainPercent", 99, b -> b.aimdPacingGainPercent(99)),
                invalid("pacingBurstBytes", -1, b -> b.pacingBurstBytes(-1)),
                invalid("pacingWakeQuantumBytes", -1, b -> b.pacingWakeQuantumBytes(-1)));
    }

    private static Arguments invalid(String field, long value, UnaryOperator<EngineConfig.Builder> edit) {
        return Arguments.of(field, value, edit);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("invalidConfigs")
    void invalidConfigurationValueIsRejectedNamingTheFieldAndTheValue(String field, long value,
            UnaryOperator<EngineConfig.Builder> edit) {
        EngineConfig.Builder b = edit.apply(EngineConfig.builder());
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(field)
                .hasMessageContaining(String.valueOf(value));
    }

    @Test
    void validConfigurationsRoundTripThroughTheBuilder() {
        assertThat(EngineConfig.builder().build()).isEqualTo(EngineConfig.defaults());
        EngineConfig c = EngineConfig.builder().sequenceWindow(128).keepAliveNanos(0).idleTimeoutNanos(1).build();
        assertThat(c.sequenceWindow()).isEqualTo(128);
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }
}
