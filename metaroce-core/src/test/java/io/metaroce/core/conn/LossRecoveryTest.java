package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.cc.ForwardingController;
import io.metaroce.core.harness.LossModel;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.WireConstants;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Loss recovery as R-SACK-2 and R-SACK-3 demand: a hole on a path is resent on that path as soon
 * as an ACK reveals it, well before any timer; a lost last packet and lost ACKs are recovered by
 * the retransmission timer; reordering across paths is never taken for loss.
 */
class LossRecoveryTest {
    private static final long MIN_RTO = EngineConfig.defaults().minRtoNanos();

    /** One datagram the client sent, as the network saw it. */
    record Sent(long atNanos, int pathId, int type, long csn, long psn, int flags) {
        boolean retransmission() {
            return (flags & WireConstants.FLAG_RETRANSMISSION) != 0;
        }
    }

    /** Watches every datagram, records the client's, and drops those {@code rule} picks. */
    static final class Recorder implements LossModel {
        final List<Sent> sent = new ArrayList<>();
        final PacketCodec codec = new PacketCodec();
        final Packet packet = new Packet();
        DropRule rule = (fromClient, p, nowNanos) -> false;

        /** When the first packet {@link #dropClientPackets} dropped left, and its CSN; -1 before. */
        long droppedAt = -1;
        long droppedCsn = -1;

        interface DropRule {
            boolean drop(boolean fromClient, Packet p, long nowNanos);
        }

        /** Drops the first {@code count} packets from the client that {@code match} accepts. */
        void dropClientPackets(java.util.function.Predicate<Packet> match, int count) {
            int[] dropped = {0};
            rule = (fromClient, p, now) -> {
                if (!fromClient || dropped[0] >= count || !match.test(p)) {
                    return false;
                }
                if (dropped[0]++ == 0) {
                    droppedAt = now;
                    droppedCsn = p.connectionSequence;
                }
                return true;
            };
        }

        /** A DATA packet that ends its message. */
        static boolean lastOfItsMessage(Packet p) {
            return p.type == PacketType.DATA && p.payloadMessageOffset + p.payloadLength == p.messageLength;
        }

        @Override
        public boolean drop(boolean fromClient, int pathId, ByteBuffer datagram, int length, long nowNanos) {
            if (codec.decode(datagram, 0, length, packet) != DecodeError.OK) {
                return false;
            }
            if (fromClient) {
                sent.add(new Sent(nowNanos, packet.pathId, packet.type, packet.connectionSequence, packet.pathSequence,
                        packet.flags));
            }
            return rule.drop(fromClient, packet, nowNanos);
        }
    }

    private int completions;

    private Pair pair(long seed, int paths, NetworkConditions net, Recorder recorder) {
        return pair(seed, paths, net, recorder, EngineConfig.defaults());
    }

    private Pair pair(long seed, int paths, NetworkConditions net, Recorder recorder, EngineConfig config) {
        return Pair.create(seed, paths, net, config)
                .lossModel(recorder)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).isEqualTo(CompletionStatus.SUCCESS);
                    completions++;
                })
                .connect();
    }

    private static MemoryRegion region(io.metaroce.core.conn.Endpoint e, int size) {
        return e.protectionDomain().register(Arena.ofAuto().allocate(size), Access.ALL);
    }

    @Test
    void aHoleOnAPathIsResentOnThatPathAsSoonAsAnAckRevealsIt() {
        Recorder rec = new Recorder();
        rec.dropClientPackets(p -> p.type == PacketType.DATA && p.pathId == 1 && p.pathSequence == 2, 1);
        Pair p = pair(11, 2, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec);
        MemoryRegion src = region(p.client(), 400_000);
        MemoryRegion dst = region(p.server(), 400_000);
        p.clientConnection().postWrite(0, 1, src, 0, 400_000, dst.remoteKey(), 0);
        p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");

        assertThat(rec.droppedAt).as("the third packet of path 1 was dropped").isPositive();
        List<Sent> resent = rec.sent.stream().filter(s -> s.csn == rec.droppedCsn && s.retransmission()).toList();
        assertThat(resent).as("exactly one retransmission of the lost packet").hasSize(1);
        Sent retransmission = resent.get(0);
        assertThat(retransmission.pathId).as("resent on the path that lost it").isEqualTo(1);
        assertThat(retransmission.atNanos - rec.droppedAt)
                .as("resent about one round trip after the loss, long before the %d ns RTO", MIN_RTO)
                .isLessThan(MIN_RTO / 4);
        Connection c = p.clientConnection();
        assertThat(c.stats().timeouts()).as("no timer was needed").isZero();
        assertThat(c.stats().retransmissions()).isEqualTo(1);
        assertThat(c.pathLosses(1)).as("the loss is charged to path 1").isEqualTo(1);
        assertThat(c.pathLosses(0)).isZero();
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    @Test
    void aLostLastPacketIsRecoveredByTheRetransmissionTimer() {
        Recorder rec = new Recorder();
        int length = 50_000;
        rec.dropClientPackets(Recorder::lastOfItsMessage, 1);
        Pair p = pair(12, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec);
        MemoryRegion src = region(p.client(), length);
        MemoryRegion dst = region(p.server(), length);
        p.clientConnection().postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);
        p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");

        Sent retransmission = rec.sent.stream().filter(s -> s.csn == rec.droppedCsn && s.retransmission())
                .findFirst().orElseThrow();
        assertThat(retransmission.atNanos - rec.droppedAt).as("the timer, not an ACK, recovered it")
                .isGreaterThanOrEqualTo(MIN_RTO);
        assertThat(p.clientConnection().stats().timeouts()).isGreaterThanOrEqualTo(1);
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /**
     * [SPEC-LOSS-8]: with {@code idleResend}, a sender with nothing new to send resends the lost
     * last packet once it has waited a smoothed round trip (20 us here), not the 1 ms timer; no
     * timeout is counted and the copy is an idle resend.
     */
    @Test
    void anIdleSenderResendsALostLastPacketAfterItsOverdueTimeNotItsTimer() {
        Recorder rec = new Recorder();
        int length = 50_000;
        rec.dropClientPackets(Recorder::lastOfItsMessage, 1);
        EngineConfig config = EngineConfig.defaults().toBuilder().idleResend(true).build();
        Pair p = pair(12, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec, config);
        MemoryRegion src = region(p.client(), length);
        MemoryRegion dst = region(p.server(), length);
        p.clientConnection().postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);
        p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");

        List<Sent> resent = rec.sent.stream().filter(s -> s.csn == rec.droppedCsn && s.retransmission()).toList();
        assertThat(resent).as("copies of the lost packet").isNotEmpty()
                .hasSizeLessThan(config.idleResendMaxCopies());
        long waited = resent.get(0).atNanos - rec.droppedAt;
        assertThat(waited).as("a round trip (20 us), not the %d ns timer", MIN_RTO)
                .isGreaterThanOrEqualTo(20_000L)
                .isLessThan(MIN_RTO / 2);
        Connection c = p.clientConnection();
        assertThat(c.stats().timeouts()).isZero();
        assertThat(c.stats().idleResends()).isEqualTo(resent.size());
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /**
     * [SPEC-LOSS-8]: an idle sender resends a packet again, a smoothed round trip after its latest
     * copy, while fewer than {@code idleResendMaxCopies} of its transmissions await their verdicts:
     * the last packet and its first two copies are lost, and the fourth transmission, not the
     * 1 ms timer, completes the write. With at most two copies in flight the second copy waits for
     * the first one's verdict, which only the timer gives here (nothing sent after it arrives).
     */
    @Test
    void anIdleSenderSendsFurtherCopiesWhileTheEarlierOnesAwaitTheirVerdicts() {
        for (int maxCopies : new int[] {4, 2}) {
            Recorder rec = new Recorder();
            rec.dropClientPackets(Recorder::lastOfItsMessage, 3);
            EngineConfig config = EngineConfig.defaults().toBuilder().idleResend(true).idleResendMaxCopies(maxCopies)
                    .build();
            completions = 0;
            Pair p = pair(14, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec, config);
            int length = 50_000;
            MemoryRegion src = region(p.client(), length);
            MemoryRegion dst = region(p.server(), length);
            p.clientConnection().postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);
            p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");
            long took = p.now() - rec.droppedAt;
            Connection c = p.clientConnection();
            long transmissions = rec.sent.stream().filter(s -> s.csn == rec.droppedCsn && s.type == PacketType.DATA).count();
            assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
            if (maxCopies == 4) {
                assertThat(transmissions).as("the last packet, two lost copies and the one that arrives")
                        .isGreaterThanOrEqualTo(4);
                assertThat(took).as("recovered by copies, well before the %d ns timer", MIN_RTO).isLessThan(MIN_RTO / 2);
                assertThat(c.stats().timeouts()).isZero();
                assertThat(c.stats().idleResends()).isGreaterThanOrEqualTo(3);
            } else {
                assertThat(took).as("one idle copy at a time: the timer recovers it").isGreaterThanOrEqualTo(MIN_RTO);
                assertThat(c.stats().timeouts()).isPositive();
            }
        }
    }

    /**
     * [SPEC-LOSS-8] while work waits that cannot leave: a full sequence window with every ACK lost
     * gives no evidence, and the rest of the message still waits to be sent. The connection's next
     * timeout must include the idle resend's due time, or the driver sleeps until the timer.
     */
    @Test
    void anIdleResendIsDueWhileAFullSequenceWindowHoldsTheRestOfTheMessageBack() {
        Recorder rec = new Recorder();
        long[] blackout = {Long.MAX_VALUE};
        rec.rule = (fromClient, p, now) -> !fromClient && p.type == PacketType.ACK && now >= blackout[0]
                && now < blackout[0] + MIN_RTO;
        EngineConfig config = EngineConfig.defaults().toBuilder().idleResend(true).sequenceWindow(64).build();
        Pair p = pair(13, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec, config);
        int length = 200 * config.maxDatagramBytes();
        MemoryRegion src = region(p.client(), length);
        MemoryRegion dst = region(p.server(), length);
        blackout[0] = p.now();
        p.clientConnection().postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);
        p.advance(MIN_RTO / 2);
        Connection c = p.clientConnection();
        assertThat(c.stats().sequenceWindowStalls()).as("the sequence window held packets back").isPositive();
        assertThat(c.stats().idleResends()).as("idle resends within half the minimum RTO").isPositive();
        assertThat(c.stats().timeouts()).isZero();
        p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /**
     * [SPEC-LOSS-11]: a quarter of the data lost, then every ACK lost for a while with the window
     * full and more data waiting. With the rule, the idle sender copies its oldest packets on the
     * lossy window-full path about a round trip after they left, long before the timer; with
     * {@code fullWindowAboveLossPercent} 100 nothing leaves until the timer.
     */
    @Test
    void whileEveryWindowIsFullOnALossyPathAnIdleSenderResendsOnItBeforeTheTimer() {
        // A 64 KiB window (the harness's fixed one): the window, not the harness's unlimited rate, holds the sender.
        for (int percent : new int[] {2, 100}) {
            long resends = fullWindowResendsDuringAnAckBlackout(percent, 64 << 10, null, 8 << 20, 200_000, MIN_RTO / 2);
            if (percent == 2) {
                assertThat(resends).as("copies on the window-full lossy path within half the timer").isPositive();
            } else {
                assertThat(resends).as("without the rule nothing leaves a full window before the timer").isZero();
            }
        }
    }

    /**
     * [SPEC-LOSS-11] with pacing: while every window is full and the resend is due, the copy waits
     * only for the lossy path's pacing, and the sender wakes for it then, not at the next ACK or
     * the retransmission timer. The controller paces each path at one packet per 100 µs, longer
     * than the resend wait (about a round trip of 20 µs), and every ACK is lost for a timer's
     * length: without that wake-up no copy leaves before the timer.
     */
    @Test
    void aDueResendOnAFullLossyWindowLeavesWhenItsPacingAllowsNotAtTheTimer() {
        for (int percent : new int[] {2, 100}) {
            long resends = fullWindowResendsDuringAnAckBlackout(percent, 16 << 10,
                    c -> new PacedFixedWindow(c, 100_000), 2 << 20, 20_000_000, MIN_RTO * 8 / 10);
            if (percent == 2) {
                assertThat(resends).as("copies on the full lossy window, paced, before the timer").isPositive();
            } else {
                assertThat(resends).as("without the rule nothing leaves a full window before the timer").isZero();
            }
        }
    }

    /**
     * One client WRITE of {@code length} bytes over one path of 10 µs each way, with idle resends
     * and {@code fullWindowAboveLossPercent} at {@code percent}: every fourth DATA packet is lost
     * for {@code lossyNanos}, then every ACK for a minimum RTO. Returns the idle resends made in the
     * first {@code measuredNanos} of that blackout, having checked that no timer expired by then
     * and that the write then completes intact.
     */
    private long fullWindowResendsDuringAnAckBlackout(int percent, int windowBytes,
            Function<EngineConfig, CongestionController> congestion, int length, long lossyNanos, long measuredNanos) {
        Recorder rec = new Recorder();
        long[] blackout = {Long.MAX_VALUE};
        int[] data = {0};
        rec.rule = (fromClient, pk, now) -> {
            if (now >= blackout[0]) {
                return !fromClient && pk.type == PacketType.ACK && now < blackout[0] + MIN_RTO;
            }
            return fromClient && pk.type == PacketType.DATA && ++data[0] % 4 == 0;
        };
        EngineConfig config = EngineConfig.defaults().toBuilder().idleResend(true).congestionWindowBytes(windowBytes)
                .fullWindowAboveLossPercent(percent).build();
        completions = 0;
        Pair p = Pair.create(16, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), config, congestion, null)
                .lossModel(rec)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).isEqualTo(CompletionStatus.SUCCESS);
                    completions++;
                })
                .connect();
        MemoryRegion src = region(p.client(), length);
        MemoryRegion dst = region(p.server(), length);
        p.clientConnection().postWrite(0, 1, src, 0, length, dst.remoteKey(), 0);
        p.advance(lossyNanos);
        Connection c = p.clientConnection();
        assertThat(completions).as("the write is still going at the blackout").isZero();
        assertThat(c.pathsForTest().get(0).lossFraction).as("the path loses more than 2%").isGreaterThan(0.02);
        blackout[0] = p.now();
        long resendsBefore = c.stats().idleResends();
        long timeoutsBefore = c.stats().timeouts();
        p.advance(measuredNanos);
        long resends = c.stats().idleResends() - resendsBefore;
        assertThat(c.stats().timeouts()).as("no timer expired yet").isEqualTo(timeoutsBefore);
        p.driveUntil(() -> completions == 1, 5_000_000_000L, "write");
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
        return resends;
    }

    /** A fixed window whose paths may each send one packet per {@code gapNanos}: a pacing clock. */
    private static final class PacedFixedWindow extends ForwardingController {
        private final long gapNanos;
        private final long[] lastSentNanos = new long[256]; // path ids are u8 on the wire

        PacedFixedWindow(EngineConfig config, long gapNanos) {
            super(new FixedWindowController(config));
            this.gapNanos = gapNanos;
        }

        @Override
        public long nextSendTimeNanos(int pathId, long nowNanos) {
            return Math.max(inner.nextSendTimeNanos(pathId, nowNanos), lastSentNanos[pathId] + gapNanos);
        }

        @Override
        public boolean pacingAnswersReusable() {
            return false;
        }

        @Override
        public boolean allowanceQuestionSettled(int pathId, long nowNanos) {
            return false;
        }

        @Override
        public void onPacketSent(int pathId, int bytes, long nowNanos) {
            lastSentNanos[pathId] = nowNanos;
            super.onPacketSent(pathId, bytes, nowNanos);
        }
    }

    /**
     * [SPEC-LOSS-8] under heavy random loss of data and ACKs on four paths: idle resends add
     * copies, never deliveries; every message completes once on each side and every byte is in
     * place; the resends take the place of timeouts.
     */
    @Test
    void idleResendsUnderHeavyLossCompleteEveryMessageExactlyOnce() {
        long[] withResend = new long[2];
        long[] without = new long[2];
        // 36 seeds: since a connection's first packet is acknowledged at once ([SPEC-CC-26]) these
        // transfers time out rarely (2 timeouts over the first 12 seeds without idle resends, 7
        // before that rule). With further copies from an idle sender (session 5) the first 12
        // seeds held 2 timeouts with idle resends and 2 without; the 36 hold 5 and 15.
        for (long seed = 1; seed <= 36; seed++) {
            heavyLoss(seed, true, withResend);
            heavyLoss(seed, false, without);
        }
        assertThat(without[1]).as("the rule off: no idle resend").isZero();
        assertThat(withResend[1]).as("idle resends sent over the seeds").isPositive();
        assertThat(withResend[0]).as("timeouts with idle resends vs without").isLessThan(without[0]);
    }

    /**
     * [SPEC-SACK-14]: under 35% loss of DATA and ACKs the receiver sends each ACK two or three
     * times (more than one and a half times the ACKs of the rule off, ackRepeatAboveLossPercent
     * 100), and every message completes exactly once, intact, either way. Totals over 12 seeds.
     */
    @Test
    void aReceiverRepeatsItsAcksOnALossyPathAndEveryMessageStillCompletesOnce() {
        long[] repeated = new long[4];
        long[] single = new long[4];
        for (long seed = 1; seed <= 12; seed++) {
            heavyLoss(seed, 0.35, EngineConfig.defaults().toBuilder().idleResend(true).build(), repeated);
            heavyLoss(seed, 0.35, EngineConfig.defaults().toBuilder().idleResend(true).ackRepeatAboveLossPercent(100)
                    .build(), single);
        }
        System.out.printf("LossRecoveryTest ACK repeats: ACKs %d vs %d, duplicates received %d vs %d%n", repeated[2],
                single[2], repeated[3], single[3]);
        assertThat(repeated[2]).as("ACKs sent with repeats vs without").isGreaterThan(single[2] * 3 / 2);
    }

    private void heavyLoss(long seed, boolean idleResend, long[] totals) {
        heavyLoss(seed, 0.2, EngineConfig.defaults().toBuilder().idleResend(idleResend).build(), totals);
    }

    /**
     * Runs the transfer under {@code loss} of DATA and ACKs; adds its timeouts to {@code totals[0]}, its
     * idle resends to {@code totals[1]} and, if there is room, the ACKs and duplicates the receiver
     * sent and got to {@code totals[2]} and {@code totals[3]}.
     */
    private void heavyLoss(long seed, double loss, EngineConfig config, long[] totals) {
        boolean idleResend = config.idleResend();
        int messages = 24;
        int size = 20_000;
        Recorder rec = new Recorder();
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        rec.rule = (fromClient, p, now) -> (p.type == PacketType.DATA || p.type == PacketType.ACK) && r.nextDouble() < loss;
        int[] sendDone = {0};
        int[] receiveDone = {0};
        Pair p = Pair.create(seed, 4, NetworkConditions.perfect().withDelay(10_000, 2_000, 0), config)
                .lossModel(rec)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    assertThat(st).as("seed %d", seed).isEqualTo(CompletionStatus.SUCCESS);
                    sendDone[0]++;
                })
                .onServerCompletion((c, s, w, o, st, b, i, h) -> receiveDone[0]++)
                .connect();
        MemoryRegion src = region(p.client(), messages * size);
        MemoryRegion dst = region(p.server(), messages * size);
        for (int m = 0; m < messages; m++) {
            assertThat(p.serverConnection().postRecv(0, m, dst, (long) m * size, size)).isEqualTo(PostResult.OK);
            assertThat(p.clientConnection().postSend(0, m, src, (long) m * size, size)).isEqualTo(PostResult.OK);
        }
        p.driveUntil(() -> sendDone[0] == messages && receiveDone[0] == messages, 5_000_000_000L,
                "sends under " + loss + " loss, seed " + seed + ", idleResend " + idleResend);
        p.advance(10_000_000);
        assertThat(sendDone[0]).as("seed %d", seed).isEqualTo(messages);
        assertThat(receiveDone[0]).as("each receive completes once (seed %d)", seed).isEqualTo(messages);
        assertThat(dst.segment().mismatch(src.segment())).as("seed %d", seed).isEqualTo(-1);
        totals[0] += p.clientConnection().stats().timeouts();
        totals[1] += p.clientConnection().stats().idleResends();
        if (totals.length > 2) {
            totals[2] += p.serverConnection().stats().acksSent();
            totals[3] += p.serverConnection().stats().duplicatePackets();
        }
    }

    @Test
    void lostAcknowledgementsAreRecoveredByTheTimerAndTheDuplicatesAreHarmless() {
        Recorder rec = new Recorder();
        long[] start = {-1};
        rec.rule = (fromClient, p, now) -> {
            if (start[0] < 0) {
                return false;
            }
            // Every ACK from the server is lost for the first 3 ms of the transfer.
            return !fromClient && p.type == PacketType.ACK && now - start[0] < 3_000_000;
        };
        Pair p = pair(13, 2, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec);
        MemoryRegion src = region(p.client(), 100_000);
        MemoryRegion dst = region(p.server(), 100_000);
        int[] serverCompletions = {0};
        p.onServerCompletion((c, s, w, o, st, b, i, h) -> serverCompletions[0]++);
        p.serverConnection().postRecv(0, 9, dst, 0, 100_000);
        start[0] = p.now();
        p.clientConnection().postSend(0, 1, src, 0, 100_000);
        p.driveUntil(() -> completions == 1, 2_000_000_000L, "send");
        p.advance(10_000_000);

        assertThat(completions).isEqualTo(1);
        assertThat(serverCompletions[0]).as("the receive completes exactly once").isEqualTo(1);
        assertThat(p.clientConnection().stats().timeouts()).isGreaterThanOrEqualTo(1);
        assertThat(p.serverConnection().stats().duplicatePackets()).as("retransmissions of packets that had arrived")
                .isPositive();
        assertThat(p.serverConnection().stats().spuriousRetransmissionsReceived()).isPositive();
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /**
     * [SPEC-CC-19]: with 40% of ACKs lost, many transmissions are acknowledged only by a later ACK;
     * their send-to-acknowledgement times are not RTT samples, so the controller's smoothed RTT stays
     * what it is without ACK loss instead of counting those waits as queueing.
     */
    @Test
    void lostAcknowledgementsDoNotInflateTheControllersRoundTripTime() {
        long clean = controllerSrttWithAckLoss(0);
        long lossy = controllerSrttWithAckLoss(0.4);
        System.out.printf("LossRecoveryTest lost ACKs: controller srtt %d ns without ACK loss, %d ns with 40%%%n",
                clean, lossy);
        assertThat(lossy).as("controller srtt with ACK loss against %d ns without", clean)
                .isLessThan(clean + clean / 4);
    }

    private static long controllerSrttWithAckLoss(double ackLoss) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(14);
        boolean[] lossy = {false};
        int[] completed = {0};
        io.metaroce.core.cc.AimdController[] client = new io.metaroce.core.cc.AimdController[1];
        // The halving AIMD without slow start this was measured with: a window small enough that
        // lost ACKs leave transmissions to be declared lost.
        EngineConfig halving = EngineConfig.builder().aimdLossCutScaledByAlpha(false).aimdSlowStart(false).build();
        Pair p = Pair.create(14, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), halving,
                        halving, config -> client[0] = new io.metaroce.core.cc.AimdController(config),
                        io.metaroce.core.cc.AimdController::new)
                .lossModel((fromClient, pathId, datagram, length, now) -> lossy[0] && !fromClient
                        && random.nextDouble() < ackLoss)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> completed[0]++)
                .connect();
        MemoryRegion src = region(p.client(), 64 * 1024);
        MemoryRegion dst = region(p.server(), 64 * 1024);
        lossy[0] = true;
        int posted = 0;
        long deadline = p.now() + 2_000_000_000L;
        while (posted < 400) {
            if (posted - completed[0] < 8) {
                assertThat(p.clientConnection().postWrite(0, posted++, src, 0, 64 * 1024, dst.remoteKey(), 0))
                        .as("post %d, connection %s (%s), %d timeouts", posted, p.clientConnection().state(),
                                p.clientConnection().closeReason(), p.clientConnection().stats().timeouts()).isEqualTo(PostResult.OK);
            }
            p.advance(5_000);
            assertThat(p.now()).as("%d of %d WRITEs completed in time, connection %s", completed[0], posted,
                    p.clientConnection().state()).isLessThan(deadline);
        }
        p.driveUntil(() -> completed[0] == 400, 2_000_000_000L, "writes");
        if (ackLoss > 0) {
            assertThat(p.clientConnection().stats().losses()).as("ACK loss made the sender resend").isPositive();
        }
        return client[0].smoothedRttNanos(0);
    }

    /**
     * [SPEC-SACK-12]: on a path that loses a quarter of its packets, every first transmission asks
     * for an immediate ACK; without loss only the last packet of each message does.
     */
    @Test
    void aLossyPathAsksForAnAckOnEveryPacket() {
        double lossless = ackRequestedFraction(0);
        double lossy = ackRequestedFraction(0.3);
        System.out.printf("LossRecoveryTest ACK requests: %.3f of first transmissions without loss, %.3f at 30%%%n",
                lossless, lossy);
        assertThat(lossless).as("only each message's last packet").isLessThan(0.1);
        assertThat(lossy).as("once the path's lost fraction is above 0.15").isGreaterThan(0.8);
    }

    private double ackRequestedFraction(double loss) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(15);
        Recorder rec = new Recorder();
        boolean[] lossy = {false};
        rec.rule = (fromClient, p, now) -> lossy[0] && fromClient && p.type == PacketType.DATA
                && random.nextDouble() < loss;
        completions = 0;
        Pair p = pair(15, 1, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec);
        int size = 64 * 1024;
        MemoryRegion src = region(p.client(), size);
        MemoryRegion dst = region(p.server(), size);
        lossy[0] = true;
        // One WRITE at a time, so that later packets leave after earlier verdicts have arrived.
        for (int i = 0; i < 40; i++) {
            p.clientConnection().postWrite(0, i, src, 0, size, dst.remoteKey(), 0);
            int done = i + 1;
            p.driveUntil(() -> completions == done, 2_000_000_000L, "write " + i);
        }
        // The second half of the transfer, once the path's lost fraction has had time to rise.
        List<Sent> data = rec.sent.stream().filter(x -> x.type() == PacketType.DATA && !x.retransmission()).toList();
        List<Sent> late = data.subList(data.size() / 2, data.size());
        return late.stream().filter(x -> (x.flags() & WireConstants.FLAG_ACK_NOW) != 0).count() / (double) late.size();
    }

    @Test
    void reorderingAcrossPathsIsNotLoss() {
        Recorder rec = new Recorder();
        // Paths differ by up to 200 us while each keeps its order: heavy reordering across paths.
        Pair p = pair(14, 8, NetworkConditions.perfect().withDelay(5_000, 3_000, 200_000), rec);
        MemoryRegion src = region(p.client(), 2_000_000);
        MemoryRegion dst = region(p.server(), 2_000_000);
        p.clientConnection().postWrite(0, 1, src, 0, 2_000_000, dst.remoteKey(), 0);
        p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");

        Connection c = p.clientConnection();
        assertThat(c.stats().retransmissions()).isZero();
        assertThat(c.stats().losses()).isZero();
        for (int path = 0; path < 8; path++) {
            assertThat(c.pathPacketsSent(path)).as("path %d carried data", path).isPositive();
        }
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /** R-SACK-2: fabrics that reorder within a path are tolerated through the per-path reordering allowance. */
    @Test
    void theReorderingAllowanceAbsorbsReorderingWithinAPath() {
        // Packets of one path overtake each other by up to 3 us. A 32 KiB window keeps at most 8
        // packets in flight, so none can land more than 8 places early.
        NetworkConditions net = NetworkConditions.perfect().withDelay(10_000, 0, 0).withInPathReordering(3_000);
        long strict = spuriousRetransmissions(net, 0);
        long tolerant = spuriousRetransmissions(net, 16);
        assertThat(strict).as("with no allowance, reordering within a path looks like loss").isPositive();
        assertThat(tolerant).as("an allowance of 16 packets absorbs it").isZero();
    }

    private long spuriousRetransmissions(NetworkConditions net, int allowance) {
        EngineConfig config = EngineConfig.builder().reorderAllowancePackets(allowance)
                .congestionWindowBytes(32 * 1024).build();
        int[] done = {0};
        Pair p = Pair.create(16, 2, net, config).onClientCompletion((c, s, w, o, st, b, i, h) -> done[0]++).connect();
        MemoryRegion src = region(p.client(), 2_000_000);
        MemoryRegion dst = region(p.server(), 2_000_000);
        p.clientConnection().postWrite(0, 1, src, 0, 2_000_000, dst.remoteKey(), 0);
        p.driveUntil(() -> done[0] == 1, 2_000_000_000L, "write with allowance " + allowance);
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
        return p.serverConnection().stats().spuriousRetransmissionsReceived();
    }

    @Test
    void anAckRevealingAHoleTriggersRetransmissionUnderRandomLossWithoutTimers() {
        // 2% loss on data only, ACKs intact: holes are found by SACK, so timers rarely fire.
        Recorder rec = new Recorder();
        java.util.SplittableRandom r = new java.util.SplittableRandom(15);
        rec.rule = (fromClient, p, now) -> fromClient && p.type == PacketType.DATA && r.nextDouble() < 0.02;
        Pair p = pair(15, 4, NetworkConditions.perfect().withDelay(10_000, 0, 30_000), rec);
        MemoryRegion src = region(p.client(), 4_000_000);
        MemoryRegion dst = region(p.server(), 4_000_000);
        p.clientConnection().postWrite(0, 1, src, 0, 4_000_000, dst.remoteKey(), 0);
        p.driveUntil(() -> completions == 1, 2_000_000_000L, "write");

        Connection c = p.clientConnection();
        assertThat(c.stats().retransmissions()).isPositive();
        assertThat(c.stats().timeouts()).as("only a lost tail or a lost retransmission needs the timer")
                .isLessThanOrEqualTo(c.stats().retransmissions() / 4);
        assertThat(p.serverConnection().stats().spuriousRetransmissionsReceived()).isZero();
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
    }

    /** An outage that loses more than a path window is repaired: retransmissions run ahead of anything recorded. */
    @Test
    void anOutageLongerThanThePathWindowIsRepaired() {
        int[] ok = {0};
        int[] bad = {0};
        long[] outage = {Long.MAX_VALUE, 0};
        EngineConfig config = EngineConfig.builder().pathWindowPackets(64).build();
        Pair p = Pair.create(17, 1, NetworkConditions.perfect(), config)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> {
                    if (st == CompletionStatus.SUCCESS) {
                        ok[0]++;
                    } else {
                        bad[0]++;
                    }
                })
                .lossModel((fromClient, pathId, d, len, now) -> now >= outage[0] && now < outage[1])
                .connect();
        MemoryRegion local = region(p.client(), 1 << 16);
        MemoryRegion remote = region(p.server(), 1 << 16);
        outage[0] = p.now();
        outage[1] = p.now() + 4_000_000; // 4 ms of silence both ways
        for (int k = 0; k < 200; k++) {
            p.clientConnection().postWrite(0, k, local, k * 8L, 8, remote.remoteKey(), k * 8L);
        }
        p.driveUntil(() -> ok[0] + bad[0] == 200, 60_000_000_000L, "writes across the outage");
        assertThat(bad[0]).isZero();
        assertThat(p.clientConnection().stats().timeouts()).isPositive();
        assertThat(remote.segment().asSlice(0, 1600).mismatch(local.segment().asSlice(0, 1600))).isEqualTo(-1);
    }

    /**
     * [SPEC-SACK-15]: one DATA packet lost on path 1 of two. With {@code ackEachPacketAfterGap}
     * the receiver acknowledges every later packet of path 1 at once (an ACK per DATA packet),
     * while path 0, which lost nothing, keeps one ACK per {@code ackEveryPackets}; with the field
     * off, path 1 keeps one per {@code ackEveryPackets} too. The write completes intact either way.
     */
    @Test
    void aReceiverAcknowledgesEveryPacketOfAPathOnceItHasSeenThatPathLoseOne() {
        assertEveryLaterPacketOfPathOneIsAcknowledgedAfterLosing(2, "path 1's third");
    }

    /**
     * [SPEC-SACK-15] when the lost packet is the path's first: the receiver never saw the path at
     * {@code highest + 1} before the skip (its first arrival is sequence number 1), and the rule
     * holds all the same.
     */
    @Test
    void aReceiverAcknowledgesEveryPacketOfAPathWhoseFirstPacketWasLost() {
        assertEveryLaterPacketOfPathOneIsAcknowledgedAfterLosing(0, "path 1's first");
    }

    private void assertEveryLaterPacketOfPathOneIsAcknowledgedAfterLosing(int lostPsn, String lost) {
        int every = EngineConfig.defaults().ackEveryPackets();
        assertThat(every).as("the rule is only visible above one packet per ACK").isGreaterThan(1);
        double[] on = acksPerDataPacketAfterALoss(EngineConfig.defaults().toBuilder().ackEachPacketAfterGap(true).build(), lostPsn);
        double[] off = acksPerDataPacketAfterALoss(EngineConfig.defaults(), lostPsn);
        System.out.printf("LossRecoveryTest ACKs per DATA packet after losing %s, path 0 / path 1: on %.3f / %.3f,"
                + " off %.3f / %.3f%n", lost, on[0], on[1], off[0], off[1]);
        assertThat(on[1]).as("the path that lost a packet: an ACK for every packet").isGreaterThan(0.95);
        assertThat(on[0]).as("the path that lost nothing: one ACK per %d packets", every)
                .isLessThan(1.5 / every);
        assertThat(off[1]).as("field off: one ACK per %d packets on the lossy path too", every)
                .isLessThan(1.5 / every);
    }

    /**
     * A 400 KB write over two paths with DATA packet {@code lostPsn} of path 1 lost; per path, the
     * ACKs the receiver sent once that packet's successor left, divided by the DATA packets sent on
     * the path from then on.
     */
    private double[] acksPerDataPacketAfterALoss(EngineConfig config, long lostPsn) {
        Recorder rec = new Recorder();
        long[] acks = new long[2];
        long[] data = new long[2];
        boolean[] lost = {false};
        rec.rule = (fromClient, pk, now) -> {
            if (fromClient && pk.type == PacketType.DATA && pk.pathId == 1 && pk.pathSequence == lostPsn) {
                lost[0] = true;
                return true;
            }
            if (lost[0]) {
                if (fromClient && pk.type == PacketType.DATA) {
                    data[pk.pathId]++;
                } else if (!fromClient && pk.type == PacketType.ACK) {
                    acks[pk.pathId]++;
                }
            }
            return false;
        };
        completions = 0;
        Pair p = pair(17, 2, NetworkConditions.perfect().withDelay(10_000, 0, 0), rec, config);
        MemoryRegion src = region(p.client(), 400_000);
        MemoryRegion dst = region(p.server(), 400_000);
        p.clientConnection().postWrite(0, 1, src, 0, 400_000, dst.remoteKey(), 0);
        p.driveUntil(() -> completions == 1, 1_000_000_000L, "write");
        assertThat(lost[0]).as("the packet was lost").isTrue();
        assertThat(p.clientConnection().stats().retransmissions()).as("and resent").isPositive();
        assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1);
        assertThat(data[0]).as("path 0 carried data after the loss").isGreaterThan(30);
        assertThat(data[1]).as("path 1 carried data after the loss").isGreaterThan(30);
        return new double[] {acks[0] / (double) data[0], acks[1] / (double) data[1]};
    }
}
