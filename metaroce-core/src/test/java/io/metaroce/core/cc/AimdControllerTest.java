package io.metaroce.core.cc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.stream.Segmentation;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The AIMD controller's rules ([SPEC-CC-5] to [SPEC-CC-9], [SPEC-CC-31]) one event at a time, with
 * the default sizes: 4096-byte datagrams, a 64 KiB initial window, an 8 KiB floor and g = 1/16.
 */
class AimdControllerTest {
    /**
     * The defaults with the halving loss cut, additive increase from the start and an 8 KiB pacing
     * burst (the defaults until session 6): the rules these tests check one by one; the scaled
     * loss cut and slow start have tests of their own.
     */
    private static final EngineConfig CONFIG = EngineConfig.defaults().toBuilder().aimdLossCutScaledByAlpha(false)
            .aimdSlowStart(false).pacingBurstBytes(8 << 10).build();
    private static final int D = CONFIG.maxDatagramBytes();
    private static final long INITIAL = CONFIG.aimdInitialWindowBytes();
    private static final long MIN = CONFIG.aimdMinWindowBytes();

    /** Sends {@code bytes} as one flight, then acknowledges it all: a path that uses its window. */
    private static void sendFlightThenAck(AimdController cc, int path, long bytes) {
        for (long b = 0; b < bytes; b += D) {
            cc.onPacketSent(path, D, 0);
        }
        for (long b = 0; b < bytes; b += D) {
            cc.onPacketAcked(path, D, -1, 0);
        }
    }

    private static void sendAndAck(AimdController cc, int path, long bytes) {
        for (long b = 0; b < bytes; b += D) {
            cc.onPacketSent(path, D, 0);
            cc.onPacketAcked(path, D, -1, 0);
        }
    }

    @Test
    void theDefaultsAreAsDocumented() {
        assertThat(INITIAL).isEqualTo(64 * 1024);
        assertThat(MIN).isEqualTo(8 * 1024);
        assertThat(CONFIG.aimdMaxWindowBytes()).isEqualTo(CONFIG.congestionWindowBytes());
        assertThat(CONFIG.aimdEcnGainShift()).isEqualTo(4);
        AimdController cc = new AimdController(CONFIG);
        assertThat(cc.windowBytes(0)).isEqualTo(INITIAL);
        assertThat(cc.alpha(0)).as("alpha starts at 1, as in DCTCP").isEqualTo(1.0);
        assertThat(cc.nextSendTimeNanos(0, 123)).as("nothing sent yet: may send now").isEqualTo(123);
    }

    /**
     * [SPEC-PATH-14]: a path in service that takes no new data (SUSPECT beside an ACTIVE path) gets
     * no share of the hint, so the paths that do carry new data get all of it; its share comes back
     * with it.
     */
    @Test
    void aPathThatTakesNoNewDataGetsNoShareOfTheHint() {
        AimdController cc = new AimdController(CONFIG);
        for (int path = 0; path < 4; path++) {
            cc.sendAllowanceBytes(path, 0);
        }
        cc.onRateHint(409_600_000L, 0); // below the four paths' own rates: the hint is shared
        assertThat(cc.pacingRateBytesPerSecond(0)).isCloseTo(102.4e6, within(1.0));
        cc.onPathNewData(1, false, 1_000);
        cc.onPathNewData(2, false, 1_000);
        assertThat(cc.pacingRateBytesPerSecond(0)).as("two of four paths left: half the hint each")
                .isCloseTo(204.8e6, within(1.0));
        assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(3)).isCloseTo(409.6e6, within(1.0));
        cc.onPathNewData(1, true, 2_000);
        assertThat(cc.pacingRateBytesPerSecond(0)).as("three paths share it again")
                .isCloseTo(409.6e6 / 3, within(1.0));
    }

    @Test
    void pacingSpacesPacketsByBytesOverRate() {
        // [SPEC-CC-13]: rate = 1.25 * 64 KiB / 100 us (initialRttNanos, no sample yet) = 819.2 MB/s,
        // so a 4096-byte datagram every 5000 ns; 8 KiB of burst lets 8 KiB plus one datagram go at once.
        AimdController cc = new AimdController(CONFIG);
        assertThat(cc.pacingRateBytesPerSecond(0)).isCloseTo(819.2e6, within(1.0));
        int atOnce = 0;
        while (cc.nextSendTimeNanos(0, 0) <= 0 && atOnce < 100) {
            cc.onPacketSent(0, D, 0);
            atOnce++;
        }
        assertThat(atOnce).as("pacingBurstBytes / datagram + 1 back to back from idle").isEqualTo(3);
        long t = cc.nextSendTimeNanos(0, 0);
        assertThat(t).isEqualTo(5_000);
        for (int i = 0; i < 10; i++) {
            cc.onPacketSent(0, D, t);
            long next = cc.nextSendTimeNanos(0, t);
            assertThat(next - t).as("busy: exactly bytes / rate apart").isEqualTo(5_000);
            t = next;
        }
        // Under a hint of half its own rate, the path's rate is the hint.
        cc.onRateHint(409_600_000L, t);
        assertThat(cc.pacingRateBytesPerSecond(0)).as("the paths seen share the hint")
                .isCloseTo(409.6e6, within(1.0));
        cc.onPacketSent(0, D, t);
        assertThat(cc.nextSendTimeNanos(0, t) - t).isEqualTo(10_000);
        // Two paths: the hint is divided in proportion to their own rates (equal here).
        cc.sendAllowanceBytes(1, t);
        assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(1)).isCloseTo(409.6e6, within(1.0));
        assertThat(cc.pacingRateBytesPerSecond(1)).isCloseTo(204.8e6, within(1.0));
    }

    @Test
    void theWindowDoesNotGrowWhileTheHintLimitsTheRate() {
        AimdController cc = new AimdController(CONFIG);
        cc.onRateHint(1_000_000L, 0); // far below the window's rate
        sendAndAck(cc, 0, 10 * INITIAL);
        assertThat(cc.windowBytes(0)).isEqualTo(INITIAL);
        cc.onRateHint(0, 0);
        sendAndAck(cc, 0, INITIAL);
        assertThat(cc.windowBytes(0)).as("no hint: additive increase again").isEqualTo(INITIAL + D);
    }

    /**
     * [SPEC-CC-21]: under a hint the window still grows when it, not pacing, held a packet back:
     * losses awaiting detection fill a window whose rate on paper is above the hint.
     */
    @Test
    void aWindowThatHeldAPacketBackGrowsEvenWhileTheHintLimitsTheRate() {
        AimdController cc = fullWindowUnderTightHint();
        long now = 1_000_000_000L; // long after any paced send time
        assertThat(cc.sendAllowanceBytes(0, now)).as("the window is full").isLessThanOrEqualTo(0);
        for (long b = 0; b < INITIAL; b += D) {
            cc.onPacketAcked(0, D, -1, now);
        }
        assertThat(cc.windowBytes(0)).as("held back by its window: one datagram more").isEqualTo(INITIAL + D);
        // Acknowledged again without the window having held anything back: the hint rules.
        sendAndAck(cc, 0, 4 * INITIAL);
        assertThat(cc.windowBytes(0)).as("not held back since: no growth under the hint").isEqualTo(INITIAL + D);
    }

    /** A controller whose path 0 has used up its window at time 0, under a hint far below the window's rate. */
    private static AimdController fullWindowUnderTightHint() {
        AimdController cc = new AimdController(CONFIG);
        cc.onRateHint(1_000_000L, 0);
        for (long b = 0; b < INITIAL; b += D) {
            cc.onPacketSent(0, D, 0);
        }
        return cc;
    }

    /**
     * [SPEC-CC-21]: a window counts as having held a packet back only when an allowance question
     * found it used up at or after the pacing time. A connection asks only while it has something
     * to send on the path (not with nothing waiting, nor on a path that takes no new data, nor
     * without sequence room), so a full window past its pacing time that no question finds does not
     * grow under the hint: the flag cannot be derived from the window and the clock alone.
     */
    @Test
    void aFullWindowNoQuestionFoundDoesNotGrowUnderTheHint() {
        AimdController cc = fullWindowUnderTightHint();
        long now = 1_000_000_000L; // long after any paced send time
        for (long b = 0; b < INITIAL; b += D) {
            cc.onPacketAcked(0, D, -1, now);
        }
        assertThat(cc.windowBytes(0)).as("full, but never asked: the hint rules").isEqualTo(INITIAL);
    }

    @Test
    void untilTheFirstHintTheConnectionSendsOnlyItsFirstFlight() {
        // [SPEC-CC-16]: one datagram across all paths until an ACK brings the hint (0 included).
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdFirstFlightBytes(D).build());
        assertThat(cc.sendAllowanceBytes(0, 0)).isEqualTo(D);
        cc.onPacketSent(0, D, 0);
        for (int path = 0; path < 4; path++) {
            assertThat(cc.sendAllowanceBytes(path, 0)).as("path %d", path).isLessThanOrEqualTo(0);
        }
        cc.onPacketAcked(0, D, 10_000, 10_000);
        assertThat(cc.sendAllowanceBytes(1, 10_000)).as("no hint yet: still capped").isEqualTo(D);
        cc.onRateHint(0, 10_000);
        assertThat(cc.sendAllowanceBytes(1, 10_000)).as("the receiver spoke: the windows rule").isEqualTo(INITIAL);
        AimdController uncapped = new AimdController(CONFIG);
        uncapped.onPacketSent(0, D, 0);
        assertThat(uncapped.sendAllowanceBytes(1, 0)).as("0: no cap").isEqualTo(INITIAL);
    }

    /**
     * [SPEC-CC-16]: the first flight is whole datagrams. Packets shorter than a datagram (the
     * equal-length cut of a 16 KiB message: 3,277 bytes each) do not slip a second one past a
     * one-datagram cap because some allowance is left; a cap of two datagrams takes two full ones,
     * or two short ones, but not a third short one that would have fitted in bytes.
     */
    @Test
    void theFirstFlightIsWholeDatagramsWhateverThePacketLength() {
        int shortPacket = Segmentation.packetPayload(16_384, D - 64) + 64;
        assertThat(shortPacket).as("an equal-length packet of a 16 KiB message").isLessThan(D);
        AimdController one = new AimdController(CONFIG.toBuilder().aimdFirstFlightBytes(D).build());
        assertThat(one.sendAllowanceBytes(0, 0)).isEqualTo(D);
        one.onPacketSent(0, shortPacket, 0);
        assertThat(one.sendAllowanceBytes(1, 0)).as("a short packet in flight, a one-datagram cap")
                .isLessThanOrEqualTo(0);

        AimdController two = new AimdController(CONFIG.toBuilder().aimdFirstFlightBytes(2L * D).build());
        two.onPacketSent(0, D, 0);
        assertThat(two.sendAllowanceBytes(1, 0)).as("one full datagram in flight of two").isPositive();
        two.onPacketSent(1, D, 0);
        assertThat(two.sendAllowanceBytes(2, 0)).as("two full datagrams in flight of two").isLessThanOrEqualTo(0);

        AimdController twoShort = new AimdController(CONFIG.toBuilder().aimdFirstFlightBytes(2L * D).build());
        twoShort.onPacketSent(0, shortPacket, 0);
        assertThat(twoShort.sendAllowanceBytes(1, 0)).as("one short packet in flight of two datagrams").isPositive();
        twoShort.onPacketSent(1, shortPacket, 0);
        assertThat(twoShort.sendAllowanceBytes(2, 0))
                .as("two short packets in flight: a third would fit in bytes (%d of %d) but not as a datagram",
                        3 * shortPacket, 2 * D)
                .isLessThanOrEqualTo(0);
    }

    @Test
    void withASeededRandomSourceTheFirstPacketWaitsARandomTimeBelowTheSpread() {
        // [SPEC-CC-16]: connections that start in the same instant land their first flights apart.
        EngineConfig config = CONFIG.toBuilder().aimdFirstFlightBytes(D).aimdFirstFlightSpreadNanos(20_000).build();
        SplittableRandom seeds = new SplittableRandom(7);
        java.util.Set<Long> starts = new java.util.HashSet<>();
        for (int i = 0; i < 50; i++) {
            AimdController cc = new AimdController(config, seeds.split());
            long start = cc.nextSendTimeNanos(0, 1_000);
            assertThat(start).as("connection %d", i).isBetween(1_000L, 20_999L);
            assertThat(cc.nextSendTimeNanos(3, 5_000)).as("the same start for every path").isEqualTo(Math.max(start, 5_000));
            starts.add(start);
            cc.onPacketSent(0, D, start);
            cc.onRateHint(0, start + 10_000);
            assertThat(cc.nextSendTimeNanos(1, start + 10_000)).as("after the first ACK no start delay").isEqualTo(start + 10_000);
        }
        assertThat(starts.size()).as("50 draws over 20,000 ns").isGreaterThan(40);
        AimdController unseeded = new AimdController(config);
        assertThat(unseeded.nextSendTimeNanos(0, 1_000)).as("no random source: at once").isEqualTo(1_000);
    }

    @Test
    void aFreshShareAnnouncedInAcceptSpreadsTheFirstPacketOverIntervalsOfItAndStartsTheClockAtTheAskAtItsPhase() {
        // [SPEC-CC-28]: 409.6 MB/s announced is one 4096-byte datagram per 10 us, so the first
        // packet leaves within 2 x 10 us of the first request (1 us), not within the configured
        // 50 us; and the clock under the first hint (4096 bytes every 40 us) starts at 1 + 40 + v 40 us,
        // counted from the request, with v the first packet's fraction of its spread (session 6:
        // the same phase, not a second draw).
        EngineConfig config = CONFIG.toBuilder().aimdFirstFlightBytes(D).aimdFirstFlightSpreadNanos(50_000)
                .aimdAnnouncedSpreadIntervals(2).build();
        assertThat(D).isEqualTo(4096);
        long hint = 102_400_000L;
        long latest = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController cc = new AimdController(config, new SplittableRandom(seed));
            cc.onAnnouncedShare(409_600_000L, 0);
            long start = cc.nextSendTimeNanos(0, 1_000);
            assertThat(start).as("seed %d: within two intervals of the announced share", seed).isBetween(1_000L, 20_999L);
            latest = Math.max(latest, start);
            cc.onPacketSent(0, D, start);
            cc.onPacketAcked(0, D, 10_000, start + 10_000);
            cc.onRateHint(hint, start + 10_000);
            long clock = cc.nextSendTimeNanos(1, start + 10_000);
            assertThat(clock).as("seed %d: one interval after the request, at the first packet's phase", seed)
                    .isBetween(41_000L + 2 * (start - 1_000) - 1, 41_000L + 2 * (start - 1_000));
        }
        assertThat(latest).as("the draws span the two intervals").isGreaterThan(15_000L);
        // An announcement more than two fair-share periods (2 x 100 us) old, or of 0, is not used.
        long staleLatest = 0;
        long noneLatest = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController stale = new AimdController(config, new SplittableRandom(seed));
            stale.onAnnouncedShare(409_600_000L, 0);
            staleLatest = Math.max(staleLatest, stale.nextSendTimeNanos(0, 201_000) - 201_000);
            AimdController none = new AimdController(config, new SplittableRandom(seed));
            none.onAnnouncedShare(0, 0);
            noneLatest = Math.max(noneLatest, none.nextSendTimeNanos(0, 1_000) - 1_000);
        }
        assertThat(staleLatest).as("a stale announcement: the configured 50 us").isBetween(25_000L, 49_999L);
        assertThat(noneLatest).as("no announcement: the configured 50 us").isBetween(25_000L, 49_999L);
        // The configured spread does not cap it (session 6: n first flights must spread over n of
        // the server's intervals), the announcement's lifetime does: 4.096 MB/s would be 2 ms,
        // the draw stays below two fair-share periods (200 us).
        long slowLatest = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController slow = new AimdController(config, new SplittableRandom(seed));
            slow.onAnnouncedShare(4_096_000L, 0);
            slowLatest = Math.max(slowLatest, slow.nextSendTimeNanos(0, 1_000) - 1_000);
        }
        assertThat(slowLatest).isBetween(100_000L, 199_999L);
        // Without a first-flight cap (aimdFirstFlightBytes 0) there is no first flight to size
        // from the share: the configured spread stays (it once collapsed to a few nanoseconds).
        EngineConfig uncapped = config.toBuilder().aimdFirstFlightBytes(0).build();
        long uncappedLatest = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController cc = new AimdController(uncapped, new SplittableRandom(seed));
            cc.onAnnouncedShare(409_600_000L, 0);
            uncappedLatest = Math.max(uncappedLatest, cc.nextSendTimeNanos(0, 1_000) - 1_000);
        }
        assertThat(uncappedLatest).as("no cap: the configured 50 us").isBetween(25_000L, 49_999L);
        // A tiny share off the wire does not wrap the product into a negative spread.
        AimdController tiny = new AimdController(config.toBuilder().aimdAnnouncedSpreadIntervals(64).build(),
                new SplittableRandom(5));
        tiny.onAnnouncedShare(1, 0);
        assertThat(tiny.nextSendTimeNanos(0, 1_000)).isBetween(1_000L, 200_999L);
    }

    /**
     * Sends on path 0 whenever the controller lets it, from {@code from} until {@code until} or until
     * {@code max} packets: the send times, as a driver that polls at every send time would.
     */
    private static java.util.List<Long> sendWhileAllowed(AimdController cc, long from, long until, int max) {
        java.util.List<Long> sent = new java.util.ArrayList<>();
        long t = from;
        while (sent.size() < max) {
            t = Math.max(t, cc.nextSendTimeNanos(0, t));
            if (t >= until || cc.sendAllowanceBytes(0, t) <= 0) {
                break;
            }
            cc.onPacketSent(0, D, t);
            sent.add(t);
        }
        return sent;
    }

    @Test
    void withTheAnnouncedFirstRoundTripTheConnectionIsPacedAtTheFreshShareFromItsFirstPacket() {
        // [SPEC-CC-43]: 409.6 MB/s announced is one 4096-byte datagram per 10 us; with the
        // default initialRttNanos (100 us) its bandwidth-delay product is 10 datagrams. The first
        // round trip carries those 10, 10 us apart from the first packet's drawn start, where the
        // first flight alone (aimdFirstFlightBytes, one datagram) would send one and wait.
        EngineConfig off = CONFIG.toBuilder().aimdFirstFlightBytes(D).aimdFirstFlightSpreadNanos(50_000)
                .aimdAnnouncedSpreadIntervals(1).build();
        EngineConfig on = off.toBuilder().aimdAnnouncedFirstRoundTrip(true).build();
        assertThat(off.aimdAnnouncedFirstRoundTrip()).as("off by default").isFalse();
        assertThat(CONFIG.initialRttNanos()).isEqualTo(100_000L);
        long share = 409_600_000L;
        for (long seed = 0; seed < 20; seed++) {
            AimdController without = new AimdController(off, new SplittableRandom(seed));
            without.onAnnouncedShare(share, 0);
            assertThat(sendWhileAllowed(without, 1_000, 1_000_000, 100)).as("seed %d: one first flight", seed).hasSize(1);

            AimdController cc = new AimdController(on, new SplittableRandom(seed));
            cc.onAnnouncedShare(share, 0);
            java.util.List<Long> sent = sendWhileAllowed(cc, 1_000, 1_000_000, 100);
            assertThat(sent).as("seed %d: the share's bandwidth-delay product", seed).hasSize(10);
            assertThat(sent.get(0)).as("seed %d: the first packet within one interval of the ask", seed)
                    .isBetween(1_000L, 10_999L);
            for (int i = 1; i < sent.size(); i++) {
                assertThat(sent.get(i) - sent.get(i - 1)).as("seed %d: paced at the share", seed)
                        .isBetween(9_999L, 10_001L);
            }
            assertThat(cc.rateHintBytesPerSecond()).as("the share is not a hint").isZero();
            // The first hint (half the share) takes over: the next packet within one of its
            // intervals (20 us), then 20 us apart.
            long ack = sent.get(sent.size() - 1) + 5_000;
            cc.onPacketAcked(0, D, ack - sent.get(0), ack);
            cc.onRateHint(share / 2, ack);
            java.util.List<Long> after = sendWhileAllowed(cc, ack, ack + 100_000, 4);
            assertThat(after).hasSize(4);
            assertThat(after.get(0)).isBetween(ack, ack + 20_000);
            for (int i = 1; i < after.size(); i++) {
                assertThat(after.get(i) - after.get(i - 1)).as("seed %d: paced at the hint", seed).isBetween(19_999L, 20_001L);
            }
            assertThat(cc.rateHintBytesPerSecond()).isEqualTo(share / 2);
        }
        // A stale announcement (more than two fair-share periods old) or none: one first flight.
        AimdController stale = new AimdController(on, new SplittableRandom(3));
        stale.onAnnouncedShare(share, 0);
        assertThat(sendWhileAllowed(stale, 201_000, 2_000_000, 100)).hasSize(1);
        AimdController none = new AimdController(on, new SplittableRandom(3));
        assertThat(sendWhileAllowed(none, 1_000, 2_000_000, 100)).hasSize(1);
        // A tiny share read off the wire: one packet (the first flight's whole datagram), and the
        // first hint paces the connection from then, not from the tiny share's far clock.
        AimdController tiny = new AimdController(on, new SplittableRandom(3));
        tiny.onAnnouncedShare(1, 0);
        java.util.List<Long> first = sendWhileAllowed(tiny, 1_000, 1_000_000, 100);
        assertThat(first).hasSize(1);
        tiny.onPacketAcked(0, D, 10_000, first.get(0) + 10_000);
        tiny.onRateHint(share, first.get(0) + 10_000);
        assertThat(tiny.nextSendTimeNanos(0, first.get(0) + 10_000)).isLessThanOrEqualTo(first.get(0) + 20_000);
    }

    @Test
    void theAnnouncedFirstFlightPercentBoundsTheFirstRoundTripToThatPartOfTheSharesProduct() {
        // [SPEC-CC-44]: the share of the test above (409.6 MB/s, 10 datagrams over the default
        // initialRttNanos of 100 us) with 50 percent: 5 datagrams before the first hint, still 10 us
        // apart from the first packet's draw; 100 (the default) keeps all 10; a percent so small that
        // its part is below aimdFirstFlightBytes still sends that first flight.
        EngineConfig on = CONFIG.toBuilder().aimdFirstFlightBytes(D).aimdFirstFlightSpreadNanos(50_000)
                .aimdAnnouncedSpreadIntervals(1).aimdAnnouncedFirstRoundTrip(true).build();
        assertThat(on.aimdAnnouncedFirstFlightPercent()).as("the whole product by default").isEqualTo(100);
        EngineConfig half = on.toBuilder().aimdAnnouncedFirstFlightPercent(50).build();
        EngineConfig tiny = on.toBuilder().aimdAnnouncedFirstFlightPercent(1).build();
        long share = 409_600_000L;
        for (long seed = 0; seed < 20; seed++) {
            AimdController whole = new AimdController(on, new SplittableRandom(seed));
            whole.onAnnouncedShare(share, 0);
            assertThat(sendWhileAllowed(whole, 1_000, 1_000_000, 100)).as("seed %d", seed).hasSize(10);

            AimdController cc = new AimdController(half, new SplittableRandom(seed));
            cc.onAnnouncedShare(share, 0);
            java.util.List<Long> sent = sendWhileAllowed(cc, 1_000, 1_000_000, 100);
            assertThat(sent).as("seed %d: half the share's bandwidth-delay product", seed).hasSize(5);
            assertThat(cc.bytesInFlight()).isEqualTo(5L * D);
            for (int i = 1; i < sent.size(); i++) {
                assertThat(sent.get(i) - sent.get(i - 1)).as("seed %d: paced at the share", seed)
                        .isBetween(9_999L, 10_001L);
            }
            // The first hint ends the cap: the next packets leave at the hint's pace.
            long ack = sent.get(sent.size() - 1) + 5_000;
            cc.onPacketAcked(0, D, ack - sent.get(0), ack);
            cc.onRateHint(share, ack);
            assertThat(sendWhileAllowed(cc, ack, ack + 100_000, 4)).as("seed %d: after the first hint", seed).hasSize(4);

            AimdController least = new AimdController(tiny, new SplittableRandom(seed));
            least.onAnnouncedShare(share, 0);
            assertThat(sendWhileAllowed(least, 1_000, 1_000_000, 100)).as("seed %d: the first flight", seed).hasSize(1);
        }
        assertThatThrownBy(() -> on.toBuilder().aimdAnnouncedFirstFlightPercent(0).build())
                .hasMessageContaining("aimdAnnouncedFirstFlightPercent");
        assertThatThrownBy(() -> on.toBuilder().aimdAnnouncedFirstFlightPercent(101).build())
                .hasMessageContaining("aimdAnnouncedFirstFlightPercent");
    }

    @Test
    void aNewerAnnouncementBeforeTheFirstPacketRescalesItsDelayFromTheSameAsk() {
        // [SPEC-CONN-17]: asked at 1 us with 409.6 MB/s announced (one interval: 10 us), the draw
        // is the fraction v of 10 us; the server then announces a fifth of that (50 us): the first
        // packet waits v of 50 us from the same ask. After the first packet has left, or after a
        // hint, a newer announcement moves nothing.
        EngineConfig config = CONFIG.toBuilder().aimdFirstFlightBytes(D).aimdFirstFlightSpreadNanos(5_000_000)
                .aimdAnnouncedSpreadIntervals(1).build();
        for (long seed = 0; seed < 20; seed++) {
            AimdController cc = new AimdController(config, new SplittableRandom(seed));
            cc.onAnnouncedShare(409_600_000L, 0);
            long early = cc.nextSendTimeNanos(0, 1_000) - 1_000;
            assertThat(early).as("seed %d", seed).isBetween(0L, 9_999L);
            cc.onAnnouncedShare(81_920_000L, 2_000);
            long later = cc.nextSendTimeNanos(0, 2_000) - 1_000;
            assertThat(later).as("seed %d: the same fraction of five times the span", seed)
                    .isBetween(Math.max(1_000L, 5 * early - 5), Math.max(1_000L, 5 * early));
            cc.onPacketSent(0, D, 1_000 + later);
            cc.onAnnouncedShare(40_960_000L, 1_000 + later);
            cc.onPacketAcked(0, D, 10_000, 11_000 + later);
            cc.onRateHint(81_920_000L, 11_000 + later);
            assertThat(cc.nextSendTimeNanos(1, 11_000 + later)).as("seed %d: clock at ask + I + v I", seed)
                    .isBetween(51_000 + 5 * early - 6, 51_000 + 5 * early);
        }
    }

    /**
     * [SPEC-CC-16], [SPEC-CC-22], [SPEC-CC-28]: told that its first packet is 3,385 bytes (a 16 KiB
     * message cut into equal-length packets of 4,096-byte datagrams), a connection spreads its
     * first flight over one interval of the announced share in packets of that length (10 us at
     * 338.5 MB/s, not the 12.1 us of a full datagram), and its clock under a hint equal to the
     * announcement starts exactly one such interval after its first packet: the first packet is
     * the first of its paced pattern, and the senders' phases, uniform over the first flights'
     * span, stay uniform over the interval their packets leave at. Told nothing, it counts in full
     * datagrams: the clock is 12.1 us after the first packet while the packets go 10 us apart,
     * so the senders drawn late in their span land on the next packets of those drawn early.
     */
    @Test
    void toldTheFirstPacketsLengthTheFirstFlightAndTheClockCountInPacketsOfThatLength() {
        EngineConfig config = CONFIG.toBuilder().aimdFirstFlightBytes(D).aimdFirstFlightSpreadNanos(50_000)
                .aimdAnnouncedSpreadIntervals(1).build();
        int packet = Segmentation.packetPayload(16_384, EngineConfig.payloadBytesFor(D))
                + (D - EngineConfig.payloadBytesFor(D));
        assertThat(packet).isEqualTo(3_385);
        long share = 338_500_000L; // one 3,385-byte packet every 10 us
        long latest = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController cc = new AimdController(config, new SplittableRandom(seed));
            cc.onAnnouncedShare(share, 0);
            cc.onFirstPacketBytes(packet, 500);
            long start = cc.nextSendTimeNanos(0, 1_000);
            assertThat(start).as("seed %d: within one interval of 3,385-byte packets", seed).isBetween(1_000L, 10_999L);
            latest = Math.max(latest, start);
            cc.onPacketSent(0, packet, start);
            cc.onPacketAcked(0, packet, 10_000, start + 10_000);
            cc.onRateHint(share, start + 10_000);
            long clock = cc.nextSendTimeNanos(1, start + 10_000);
            assertThat(clock).as("seed %d: one interval of the packets after the first", seed)
                    .isBetween(start + 10_000 - 1, start + 10_000);
            cc.onPacketSent(1, packet, clock);
            assertThat(cc.nextSendTimeNanos(2, clock)).as("seed %d: and the next one more", seed)
                    .isBetween(clock + 10_000 - 1, clock + 10_000);
            cc.onFirstPacketBytes(100, clock);
            assertThat(cc.nextSendTimeNanos(2, clock)).as("told after the ask: nothing moves").isBetween(clock + 9_999, clock + 10_000);
        }
        assertThat(latest).as("the draws span the interval").isGreaterThan(8_000L);

        long widest = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController untold = new AimdController(config, new SplittableRandom(seed));
            untold.onAnnouncedShare(share, 0);
            long start = untold.nextSendTimeNanos(0, 1_000);
            assertThat(start).as("seed %d: a full datagram's interval, 12.1 us", seed).isBetween(1_000L, 13_100L);
            untold.onPacketSent(0, packet, start);
            untold.onPacketAcked(0, packet, 10_000, start + 10_000);
            untold.onRateHint(share, start + 10_000);
            long clock = untold.nextSendTimeNanos(1, start + 10_000);
            assertThat(clock - start).as("seed %d: a full datagram's interval after the first packet", seed)
                    .isBetween(12_100L - 1, 12_101L);
            widest = Math.max(widest, start - 1_000);
        }
        assertThat(widest).as("told nothing, the draws reach past 10 us").isGreaterThan(10_000L);

        // A first-flight cap of two datagrams lets out two 3,385-byte packets (a third would not
        // leave a datagram of room): the spread is two of them, 20 us of the share.
        long two = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController cc = new AimdController(config.toBuilder().aimdFirstFlightBytes(2L * D).build(),
                    new SplittableRandom(seed));
            cc.onAnnouncedShare(share, 0);
            cc.onFirstPacketBytes(packet, 0);
            long start = cc.nextSendTimeNanos(0, 1_000);
            assertThat(start).as("seed %d", seed).isBetween(1_000L, 20_999L);
            two = Math.max(two, start - 1_000);
        }
        assertThat(two).isGreaterThan(15_000L);
    }

    @Test
    void theFirstNonZeroHintSizesTheWindowsToItsBandwidthDelayProduct() {
        // [SPEC-CC-17]: 20 GB/s x a 20 us first sample = 400,000 bytes over the 4 paths in service.
        AimdController cc = new AimdController(CONFIG);
        for (int path = 0; path < 4; path++) {
            cc.sendAllowanceBytes(path, 0);
        }
        cc.onPacketSent(0, D, 0);
        cc.onPacketAcked(0, D, 20_000, 20_000);
        cc.onRateHint(20_000_000_000L, 20_000);
        for (int path = 0; path < 4; path++) {
            assertThat(cc.windowBytes(path)).as("path %d", path).isEqualTo(100_000);
        }
        assertThat(cc.windowBytes(7)).as("a path seen later starts there too").isEqualTo(100_000);
        cc.onRateHint(40_000_000_000L, 30_000);
        assertThat(cc.windowBytes(0)).as("only the first hint sizes them").isEqualTo(100_000);
        // A busy receiver's small hint keeps the initial window: it never shrinks a window.
        AimdController busy = new AimdController(CONFIG);
        busy.onRateHint(1_000_000L, 0);
        assertThat(busy.windowBytes(0)).isEqualTo(INITIAL);
    }

    @Test
    void marksWhileTheHintLimitsKeepTheRateAndDelayThePacingPhaseByLessThanGOfAnInterval() {
        // [SPEC-CC-18]: the windows are far above the hint's rate; a mark moves the connection's
        // clock later by a random time below g x interval, once per round trip, and the rate stays.
        long hint = 409_600_000L; // 4096 bytes every 10 us
        long interval = 10_000;
        for (long seed = 0; seed < 20; seed++) {
            AimdController cc = new AimdController(CONFIG, new SplittableRandom(seed));
            for (int path = 0; path < 8; path++) {
                cc.sendAllowanceBytes(path, 0); // 8 paths of 64 KiB: far more than the hint on paper
            }
            cc.onRateHint(hint, 0);
            long t = cc.nextSendTimeNanos(0, 0);
            assertThat(t).as("seed %d: the clock starts within one interval", seed).isBetween(0L, interval);
            for (int i = 0; i < 4; i++) {
                cc.onPacketSent(i % 8, D, t);
                long next = cc.nextSendTimeNanos((i + 1) % 8, t);
                assertThat(next - t).as("seed %d: paced at the hint", seed).isEqualTo(interval);
                t = next;
            }
            double rate = 0;
            for (int path = 0; path < 8; path++) {
                rate += cc.pacingRateBytesPerSecond(path);
            }
            cc.onEcnFeedback(0, 2, 1, t - 1);
            long shifted = cc.nextSendTimeNanos(4, t - 1);
            assertThat(shifted - t).as("seed %d: delayed by under g of an interval", seed)
                    .isBetween(1L, interval >> CONFIG.aimdEcnGainShift());
            double after = 0;
            for (int path = 0; path < 8; path++) {
                after += cc.pacingRateBytesPerSecond(path);
            }
            assertThat(after).as("seed %d: the rate is the hint's, before and after", seed).isCloseTo(rate, within(1.0))
                    .isCloseTo(hint, within(1.0));
            cc.onEcnFeedback(1, 2, 2, t - 1);
            assertThat(cc.nextSendTimeNanos(4, t - 1)).as("seed %d: at most once per round trip", seed).isEqualTo(shifted);
            for (int path = 0; path < 4; path++) {
                cc.onPacketAcked(path, D, 10_000, shifted);
            }
            cc.onEcnFeedback(1, 2, 1, shifted);
            assertThat(cc.nextSendTimeNanos(4, shifted)).as("seed %d: a round trip later it may move again", seed)
                    .isBetween(shifted + 1, shifted + (interval >> CONFIG.aimdEcnGainShift()));
        }
        // Without a random source marks under the hint leave the clock alone.
        AimdController plain = new AimdController(CONFIG);
        plain.onRateHint(hint, 0);
        plain.onPacketSent(0, D, 0);
        plain.onPacketSent(1, D, 0);
        long next = plain.nextSendTimeNanos(2, 0);
        plain.onEcnFeedback(0, 1, 1, 0);
        assertThat(plain.nextSendTimeNanos(2, 0)).isEqualTo(next);
    }

    @Test
    void theFirstHintStartsTheClockOneIntervalAfterTheFirstFlightAtARandomPoint() {
        // [SPEC-CC-22]: 4096 bytes every 40 us; the first flight left at 5 us and was acknowledged at
        // 18 us, so the first paced packet leaves in [45 us, 85 us), not at the ACK.
        EngineConfig config = CONFIG.toBuilder().aimdFirstFlightBytes(D).build();
        long hint = 102_400_000L;
        java.util.Set<Long> starts = new java.util.HashSet<>();
        for (long seed = 0; seed < 50; seed++) {
            AimdController cc = new AimdController(config, new SplittableRandom(seed));
            cc.onPacketSent(0, D, 5_000);
            cc.onPacketAcked(0, D, 13_000, 18_000);
            cc.onRateHint(hint, 18_000);
            long start = cc.nextSendTimeNanos(1, 18_000);
            assertThat(start).as("seed %d", seed).isBetween(45_000L, 84_999L);
            starts.add(start);
        }
        assertThat(starts.size()).as("50 draws over 40,000 ns").isGreaterThan(40);
    }

    @Test
    void aClockStartAlreadyPastAtTheFirstHintLetsThePacketsDueLeaveUnlessTheFirstFlightWasLost() {
        // [SPEC-CC-22]: a faster hint (4096 bytes every 10 us, pacingBurstBytes 4 KiB): the clock
        // starts at 5 + 10 + u us (u in [0, 10 us)), which may be already past at the ACK (18 us).
        // The first paced packet then leaves at the ACK and the next one a whole interval after the
        // start, not after the ACK: the sender keeps the share of its first round trip.
        EngineConfig config = CONFIG.toBuilder().aimdFirstFlightBytes(D).pacingBurstBytes(4L << 10).build();
        long hint = 409_600_000L;
        int caughtUp = 0;
        for (long seed = 0; seed < 50; seed++) {
            AimdController cc = new AimdController(config, new SplittableRandom(seed));
            cc.onPacketSent(0, D, 5_000);
            cc.onPacketAcked(0, D, 13_000, 18_000);
            cc.onRateHint(hint, 18_000);
            long first = cc.nextSendTimeNanos(1, 18_000);
            assertThat(first).as("seed %d", seed).isBetween(18_000L, 24_999L);
            cc.onPacketSent(1, D, first);
            long second = cc.nextSendTimeNanos(2, first);
            long start = second - 10_000;
            assertThat(start).as("seed %d: the clock start, one interval after the first flight plus u", seed)
                    .isBetween(15_000L, 24_999L);
            assertThat(first).as("seed %d", seed).isEqualTo(Math.max(18_000L, start));
            if (second < 28_000) {
                caughtUp++;
            }
        }
        assertThat(caughtUp).as("starts before the ACK (u < 3 us of 10 us) gain on a clock started at the ACK")
                .isBetween(5, 30);
        // The same, but the first flight was declared lost before the hint (its resend's ACK came a
        // timeout late, 70 us): the clock starts no earlier than the ACK, at a random point of an interval.
        for (long seed = 0; seed < 20; seed++) {
            AimdController lost = new AimdController(config, new SplittableRandom(seed));
            lost.onPacketSent(0, D, 5_000);
            lost.onPacketLost(0, D, 60_000);
            lost.onPacketSent(0, D, 60_000);
            lost.onPacketAcked(0, D, 10_000, 70_000);
            lost.onRateHint(hint, 70_000);
            long first = lost.nextSendTimeNanos(1, 70_000);
            assertThat(first).as("seed %d", seed).isBetween(70_000L, 79_999L);
            lost.onPacketSent(1, D, first);
            assertThat(lost.nextSendTimeNanos(2, first)).as("seed %d: no burst", seed).isEqualTo(first + 10_000);
        }
    }

    @Test
    void marksOnSomePathsMoveTheirShareToTheOthersAndUnderTheHintNoMarksCutTheRate() {
        // [SPEC-CC-8], [SPEC-CC-13], [SPEC-CC-18]: the same marks, on some paths (an ECMP collision)
        // or on all of them (the receiver's port), with windows far above the hint's rate so the
        // hint limits throughout: the marked paths' windows shrink, so the hint's pacing moves
        // their share to the clear paths, and in neither case does the connection give up its hint.
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int paths = 2 + random.nextInt(7);
            int marked = 1 + random.nextInt(paths - 1);
            String where = "seed " + seed + ", " + marked + " of " + paths + " paths marked";
            long hint = 100_000_000L;
            AimdController collision = new AimdController(CONFIG);
            AimdController everywhere = new AimdController(CONFIG);
            collision.onRateHint(hint, 0);
            everywhere.onRateHint(hint, 0);
            long now = 0;
            for (int round = 0; round < 64; round++) {
                now += 10_000;
                for (int p = 0; p < paths; p++) {
                    for (AimdController cc : new AimdController[] {collision, everywhere}) {
                        cc.onPacketSent(p, D, now);
                        cc.onPacketAcked(p, D, 10_000, now);
                    }
                    collision.onEcnFeedback(p, 4, p < marked ? 4 : 0, now);
                    everywhere.onEcnFeedback(p, 4, 4, now);
                }
            }
            for (AimdController cc : new AimdController[] {collision, everywhere}) {
                double total = 0;
                for (int p = 0; p < paths; p++) {
                    total += cc.pacingRateBytesPerSecond(p);
                }
                assertThat(total).as("the paths' rates add up to the whole hint: %s", where)
                        .isCloseTo((double) hint, within(hint * 1e-6));
            }
            for (int p = marked; p < paths; p++) {
                assertThat(collision.pacingRateBytesPerSecond(0)).as("marked path 0 below clear path %d: %s", p, where)
                        .isLessThan(collision.pacingRateBytesPerSecond(p) / 4);
            }
        }
    }

    @Test
    void underAHintTheConnectionHasOnePacingClockAcrossItsPaths() {
        // [SPEC-CC-13]: 8 paths idle may not each send a burst: the connection sends
        // pacingBurstBytes plus one datagram, then bytes / hint apart whatever the path.
        AimdController cc = new AimdController(CONFIG);
        long hint = 409_600_000L; // 4096 bytes every 10 us
        cc.onRateHint(hint, 0);
        long now = 1_000_000;
        int sent = 0;
        for (int round = 0; round < 3; round++) {
            for (int path = 0; path < 8; path++) {
                if (cc.nextSendTimeNanos(path, now) <= now && cc.sendAllowanceBytes(path, now) > 0) {
                    cc.onPacketSent(path, D, now);
                    sent++;
                }
            }
        }
        assertThat(sent).isEqualTo((int) (CONFIG.pacingBurstBytes() / D) + 1);
        long next = Long.MAX_VALUE;
        for (int path = 0; path < 8; path++) {
            next = Math.min(next, cc.nextSendTimeNanos(path, now));
        }
        assertThat(next - now).isEqualTo(10_000);
    }

    @Test
    void aRestoredPathRestartsAtTheMinimumWindow() {
        AimdController cc = new AimdController(CONFIG);
        cc.onPacketSent(0, D, 0);
        cc.onPacketLost(0, D, 0);
        cc.onPathFailed(0, 0);
        cc.onPathRestored(0, 0);
        assertThat(cc.windowBytes(0)).isEqualTo(MIN);
        assertThat(cc.bytesInFlight(0)).isZero();
    }

    @Test
    void additiveIncreaseIsOneDatagramPerWindowAcknowledged() {
        AimdController cc = new AimdController(CONFIG);
        sendAndAck(cc, 0, INITIAL - D);
        assertThat(cc.windowBytes(0)).as("a window less one datagram acknowledged: no increase").isEqualTo(INITIAL);
        sendAndAck(cc, 0, D);
        assertThat(cc.windowBytes(0)).as("one window acknowledged").isEqualTo(INITIAL + D);
        sendAndAck(cc, 0, INITIAL + D);
        assertThat(cc.windowBytes(0)).as("the next, larger window acknowledged").isEqualTo(INITIAL + 2 * D);
        assertThat(cc.windowBytes(1)).as("other paths untouched").isEqualTo(INITIAL);
        assertThat(cc.bytesInFlight(0)).isZero();
    }

    @Test
    void theWindowNeverExceedsTheMaximum() {
        EngineConfig config = CONFIG.toBuilder().aimdMaxWindowBytes(INITIAL + D).build();
        AimdController cc = new AimdController(config);
        sendAndAck(cc, 0, 20 * INITIAL);
        assertThat(cc.windowBytes(0)).isEqualTo(INITIAL + D);
    }

    @Test
    void ecnFeedbackCutsByHalfAlphaAtMostOncePerRoundTrip() {
        AimdController cc = new AimdController(CONFIG);
        for (int i = 0; i < 16; i++) {
            cc.onPacketSent(0, D, 0); // a full window in flight
        }
        cc.onEcnFeedback(0, 10, 5, 0);
        // alpha = 1 + (0.5 - 1) / 16 = 0.96875; window = 64 KiB * (1 - 0.96875 / 2)
        assertThat(cc.alpha(0)).isEqualTo(0.96875);
        long afterFirst = INITIAL - (long) (INITIAL * 0.96875 / 2);
        assertThat(cc.windowBytes(0)).isEqualTo(afterFirst);

        cc.onEcnFeedback(0, 10, 5, 0);
        assertThat(cc.windowBytes(0)).as("a second mark in the same round trip does not cut").isEqualTo(afterFirst);
        double alpha = cc.alpha(0);
        assertThat(alpha).as("but alpha still moves").isLessThan(0.96875);

        // Acknowledge the window in flight at the cut, all but one datagram: still the same round trip.
        for (int i = 0; i < 15; i++) {
            cc.onPacketAcked(0, D, -1, 0);
        }
        assertThat(cc.windowBytes(0)).as("additive increase goes on after a cut").isEqualTo(afterFirst + D);
        cc.onEcnFeedback(0, 4, 0, 0);
        assertThat(cc.windowBytes(0)).as("feedback without marks never cuts").isEqualTo(afterFirst + D);
        cc.onEcnFeedback(0, 4, 4, 0);
        assertThat(cc.windowBytes(0)).as("one datagram short of the round trip: no cut").isEqualTo(afterFirst + D);
        alpha = cc.alpha(0);
        cc.onPacketAcked(0, D, -1, 0);
        long window = cc.windowBytes(0);
        cc.onEcnFeedback(0, 4, 4, 0);
        double newAlpha = alpha + (1.0 - alpha) / 16;
        assertThat(cc.alpha(0)).isCloseTo(newAlpha, within(1e-5));
        assertThat(cc.windowBytes(0)).as("a round trip later the next mark cuts")
                .isCloseTo((long) (window * (1 - cc.alpha(0) / 2)), within(2L));
        assertThat(cc.windowBytes(1)).as("marks on path 0 leave path 1 alone").isEqualTo(INITIAL);
    }

    /**
     * [SPEC-CC-29]: with {@code aimdSharedMarkCutPercent} 50, the least alpha of the paths in
     * service counts half in a path's ECN cut; the marks above it cut in full, and one path alone
     * cuts as [SPEC-CC-8] says.
     */
    @Test
    void theMarksEveryPathSharesCutOnlyTheConfiguredPercent() {
        EngineConfig half = CONFIG.toBuilder().aimdSharedMarkCutPercent(50).build();
        AimdController shared = new AimdController(half);
        AimdController full = new AimdController(CONFIG);
        for (AimdController cc : new AimdController[] {shared, full}) {
            cc.onPacketSent(1, D, 0); // path 1 in service: it sent
            for (int i = 0; i < 8; i++) {
                cc.onEcnFeedback(1, 10, 0, 0); // path 1 clear: alpha 1 -> (15/16)^8
            }
            for (int i = 0; i < 16; i++) {
                cc.onPacketSent(0, D, 0);
            }
            cc.onEcnFeedback(0, 10, 5, 0); // path 0 marked: alpha 0.96875, cut at once
        }
        double least = Math.pow(15.0 / 16, 8);
        assertThat(shared.alpha(1)).isCloseTo(least, within(1e-5));
        assertThat(shared.alpha(0)).isEqualTo(0.96875);
        assertThat(full.windowBytes(0)).as("percent 100: DCTCP's alpha / 2")
                .isCloseTo(INITIAL - (long) (INITIAL * 0.96875 / 2), within(2L));
        assertThat(shared.windowBytes(0)).as("the shared part (path 1's alpha) counts half")
                .isCloseTo(INITIAL - (long) (INITIAL * (0.96875 - least / 2) / 2), within(2L));
        assertThat(shared.windowBytes(1)).as("no marks on path 1: no cut").isEqualTo(INITIAL);

        // The same marks on every path: the cut is half of DCTCP's.
        AimdController alike = new AimdController(half);
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < 16; i++) {
                alike.onPacketSent(p, D, 0);
            }
        }
        alike.onEcnFeedback(1, 10, 5, 0);
        alike.onEcnFeedback(0, 10, 5, 0);
        assertThat(alike.windowBytes(0)).isCloseTo(INITIAL - (long) (INITIAL * 0.96875 / 4), within(2L));
        assertThat(alike.windowBytes(1)).isCloseTo(INITIAL - (long) (INITIAL * 0.96875 / 4), within(2L));

        // One path in service: nothing to compare with, the full cut.
        AimdController alone = new AimdController(half);
        for (int i = 0; i < 16; i++) {
            alone.onPacketSent(0, D, 0);
        }
        alone.onEcnFeedback(0, 10, 5, 0);
        assertThat(alone.windowBytes(0)).isCloseTo(INITIAL - (long) (INITIAL * 0.96875 / 2), within(2L));
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdSharedMarkCutPercent(101).build())
                .hasMessageContaining("aimdSharedMarkCutPercent");
    }

    /**
     * [SPEC-CC-29], [SPEC-CC-40]: the paths in service for the shared-marks cut are those that
     * take new data, as the balanced increase counts them: a path the sender only asked about,
     * that never sent (its alpha still the initial 1), is not one. Path 0 sending, path 1 only
     * queried, every packet of path 0 marked: path 0 is alone and its cut is DCTCP's alpha / 2,
     * half the window, not the shared rule's quarter; once path 1 has sent, it counts.
     */
    @Test
    void aPathOnlyAskedAboutIsNotInServiceForTheSharedMarksCut() {
        EngineConfig least = CONFIG.toBuilder().aimdSharedMarkCutPercent(50).build();
        EngineConfig mean = least.toBuilder().aimdSharedMarkByMeanAlpha(true).build();
        for (EngineConfig config : new EngineConfig[] {least, mean}) {
            AimdController queried = new AimdController(config);
            AimdController sent = new AimdController(config);
            for (AimdController cc : new AimdController[] {queried, sent}) {
                for (int i = 0; i < 16; i++) {
                    cc.onPacketSent(0, D, 0);
                }
                assertThat(cc.sendAllowanceBytes(1, 0)).as("path 1 asked about").isEqualTo(INITIAL);
            }
            sent.onPacketSent(1, D, 0);
            queried.onEcnFeedback(0, 10, 10, 0); // 100% CE: alpha stays 1
            sent.onEcnFeedback(0, 10, 10, 0);
            assertThat(queried.alpha(0)).isEqualTo(1.0);
            assertThat(queried.windowBytes(0)).as("alone in service: the full cut, half the window")
                    .isEqualTo(INITIAL / 2);
            assertThat(queried.windowBytes(1)).isEqualTo(INITIAL);
            assertThat(sent.windowBytes(0)).as("path 1 sent (alpha 1): the shared half counts half")
                    .isEqualTo(INITIAL - INITIAL / 4);
        }
    }

    /**
     * [SPEC-CC-40]: with {@code aimdSharedMarkByMeanAlpha}, the shared part of a path's
     * {@code alpha} is its connection's mean {@code alpha} weighted by the paths' windows (at most
     * the path's own), not the least: a marked path beside a clear one cuts by
     * {@code (own - mean * (1 - percent)) / 2}, less than with the least {@code alpha}, more than
     * with no shared part; a path marked less than the mean is cut for its own marks only by the
     * configured percent of them.
     */
    @Test
    void withTheMeanAlphaTheSharedPartIsTheConnectionsWeightedMarkedFraction() {
        EngineConfig least = CONFIG.toBuilder().aimdSharedMarkCutPercent(50).build();
        EngineConfig mean = least.toBuilder().aimdSharedMarkByMeanAlpha(true).build();
        AimdController byLeast = new AimdController(least);
        AimdController byMean = new AimdController(mean);
        for (AimdController cc : new AimdController[] {byLeast, byMean}) {
            cc.onPacketSent(1, D, 0); // paths 1 and 2 in service: they sent
            cc.onPacketSent(2, D, 0);
            for (int i = 0; i < 8; i++) {
                cc.onEcnFeedback(1, 10, 0, 0); // path 1 clear: alpha 1 -> (15/16)^8
            }
            cc.onEcnFeedback(2, 10, 0, 0); // path 2 a little clearer than 1: alpha 15/16, no cut
            for (int i = 0; i < 16; i++) {
                cc.onPacketSent(0, D, 0);
            }
            cc.onEcnFeedback(0, 10, 5, 0); // path 0 marked: alpha 0.96875, cut at once
        }
        double clear = Math.pow(15.0 / 16, 8);
        double own = 0.96875;
        double weighted = (own + clear + 15.0 / 16) / 3; // three equal windows before the cut
        assertThat(byMean.alpha(0)).isEqualTo(own);
        assertThat(byLeast.windowBytes(0)).as("the least alpha counts half")
                .isCloseTo(INITIAL - (long) (INITIAL * (own - clear / 2) / 2), within(2L));
        assertThat(byMean.windowBytes(0)).as("the windows' mean alpha counts half")
                .isCloseTo(INITIAL - (long) (INITIAL * (own - weighted / 2) / 2), within(2L));
        assertThat(byMean.windowBytes(0)).isGreaterThan(byLeast.windowBytes(0));

        // A path marked more than the least but less than the mean (least < own < mean): the mean is
        // capped at its own alpha, so its own marks cut by half; the least alpha would cut it more.
        AimdController middleByLeast = new AimdController(least);
        AimdController middleByMean = new AimdController(mean);
        for (AimdController cc : new AimdController[] {middleByLeast, middleByMean}) {
            for (int i = 0; i < 16; i++) {
                cc.onPacketSent(1, D, 0);
            }
            cc.onPacketSent(2, D, 0); // path 2 in service: it sent
            for (int i = 0; i < 8; i++) {
                cc.onEcnFeedback(2, 10, 0, 0); // path 2 the clearest: alpha (15/16)^8, the least
            }
            for (int i = 0; i < 4; i++) {
                cc.onEcnFeedback(1, 10, 0, 0); // path 1: alpha (15/16)^4
            }
            cc.onPacketSent(0, D, 0); // path 0 in service at alpha 1
            cc.onEcnFeedback(1, 1000, 1, 0); // path 1 marked a little: cut
        }
        double a1 = middleByMean.alpha(1);
        double middleMean = (1 + a1 + clear) / 3; // three equal windows before the cut
        assertThat(clear).isLessThan(a1);
        assertThat(a1).isLessThan(middleMean);
        assertThat(middleByMean.windowBytes(1)).as("the mean, capped at its own alpha, counts half")
                .isCloseTo(INITIAL - (long) (INITIAL * (a1 / 2) / 2), within(2L));
        assertThat(middleByLeast.windowBytes(1)).as("the least alpha counts half")
                .isCloseTo(INITIAL - (long) (INITIAL * (a1 - clear / 2) / 2), within(2L));
        assertThat(middleByMean.windowBytes(1)).isGreaterThan(middleByLeast.windowBytes(1) + 2);
    }

    @Test
    void alphaConvergesToTheMarkedFraction() {
        AimdController cc = new AimdController(CONFIG);
        for (int i = 0; i < 400; i++) {
            cc.onEcnFeedback(0, 4, 1, 0);
        }
        assertThat(cc.alpha(0)).as("constant quarter marked").isCloseTo(0.25, within(1e-4));
        for (int i = 0; i < 400; i++) {
            cc.onEcnFeedback(0, 4, 0, 0);
        }
        assertThat(cc.alpha(0)).as("no more marks").isEqualTo(0.0);

        long seed = 42;
        SplittableRandom r = new SplittableRandom(seed);
        double p = 0.3;
        double sum = 0;
        int samples = 0;
        for (int i = 0; i < 20_000; i++) {
            int ce = 0;
            for (int k = 0; k < 4; k++) {
                ce += r.nextDouble() < p ? 1 : 0;
            }
            cc.onEcnFeedback(1, 4, ce, 0);
            if (i >= 1_000) {
                sum += cc.alpha(1);
                samples++;
            }
        }
        assertThat(sum / samples).as("mean alpha under random 30%% marking (seed %d)", seed).isCloseTo(p, within(0.01));
        assertThat(cc.alpha(1)).as("alpha stays near the fraction (seed %d)", seed).isCloseTo(p, within(0.2));
    }

    @Test
    void withTheLossCutScaledByAlphaALossOnAnUnmarkedPathKeepsItsWindowAndOnAMarkedOneHalvesIt() {
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdLossCutScaledByAlpha(true).build());
        for (int i = 0; i < 16; i++) {
            cc.onPacketSent(0, D, 0);
            cc.onPacketSent(1, D, 0);
        }
        // Path 0 hears of 2000 packets with no mark: alpha decays to 0. Path 1: every packet marked.
        for (int i = 0; i < 200; i++) {
            cc.onEcnFeedback(0, 10, 0, 0);
        }
        assertThat(cc.alpha(0)).isZero();
        long before0 = cc.windowBytes(0);
        cc.onPacketLost(0, D, 0);
        assertThat(cc.windowBytes(0)).as("random loss on a clear path").isEqualTo(before0);
        assertThat(cc.bytesInFlight(0)).as("the lost packet left the flight").isEqualTo(15L * D);
        cc.onPacketLost(1, D, 0);
        assertThat(cc.alpha(1)).isEqualTo(1.0);
        assertThat(cc.windowBytes(1)).as("loss on a path that is marked (alpha 1)").isEqualTo(INITIAL / 2);
        // The default still halves whatever alpha is.
        AimdController halving = new AimdController(CONFIG);
        halving.onPacketSent(0, D, 0);
        for (int i = 0; i < 200; i++) {
            halving.onEcnFeedback(0, 10, 0, 0);
        }
        halving.onPacketLost(0, D, 0);
        assertThat(halving.windowBytes(0)).isEqualTo(INITIAL / 2);
    }

    /**
     * [SPEC-CC-24]: where ECN is read, a loss cuts the window (by alpha / 2) only within a round
     * trip of a mark; later, with no mark since, a loss leaves the window alone however high alpha
     * still is: random loss is not congestion.
     */
    @Test
    void whereEcnIsReadALossCutsOnlyWithinARoundTripOfAMark() {
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdLossCutScaledByAlpha(true).build());
        for (int i = 0; i < 16; i++) {
            cc.onPacketSent(0, D, 0);
        }
        cc.onEcnFeedback(0, 4, 4, 0); // every packet marked: alpha stays 1, the mark cuts the window
        long afterMark = cc.windowBytes(0);
        assertThat(afterMark).as("the mark's own cut").isEqualTo(INITIAL / 2);
        // Half the round trip later another mark (no cut yet: [SPEC-CC-8]); then the rest of the
        // first cut's round trip: the latest mark is still less than a round trip old.
        for (int i = 0; i < 8; i++) {
            cc.onPacketAcked(0, D, -1, 0);
        }
        cc.onEcnFeedback(0, 4, 4, 0);
        for (int i = 0; i < 8; i++) {
            cc.onPacketAcked(0, D, -1, 0);
            cc.onPacketSent(0, D, 0);
        }
        long beforeLoss = cc.windowBytes(0);
        assertThat(beforeLoss).as("no second ECN cut within the round trip").isGreaterThanOrEqualTo(afterMark);
        cc.onPacketLost(0, D, 0);
        assertThat(cc.windowBytes(0)).as("a loss within a round trip of a mark: cut by alpha / 2")
                .isEqualTo(beforeLoss / 2);
        // More than a round trip (what was in flight at the mark) acknowledged without ECN feedback:
        // alpha is still 1, but the mark is old.
        while (cc.bytesInFlight(0) > 0) {
            cc.onPacketAcked(0, D, -1, 0);
        }
        sendAndAck(cc, 0, INITIAL);
        assertThat(cc.alpha(0)).isEqualTo(1.0);
        long before = cc.windowBytes(0);
        for (int i = 0; i < 5; i++) {
            cc.onPacketSent(0, D, 0);
            cc.onPacketLost(0, D, 0);
        }
        assertThat(cc.windowBytes(0)).as("losses a round trip after the last mark cut nothing").isEqualTo(before);
        // A path whose ECN is never reported keeps the rule of [SPEC-CC-9]: alpha (1 here) / 2.
        cc.onPacketSent(1, D, 0);
        cc.onPacketLost(1, D, 0);
        assertThat(cc.windowBytes(1)).isEqualTo(INITIAL / 2);
    }

    /**
     * [SPEC-CC-30] the other way round: marks within a round trip of a loss cut do not cut again
     * (one congestion cut per round trip); a round trip later they do.
     */
    @Test
    void marksWithinARoundTripOfALossCutDoNotCutAgain() {
        AimdController cc = new AimdController(CONFIG);
        for (int i = 0; i < 16; i++) {
            cc.onPacketSent(0, D, 0);
        }
        cc.onPacketLost(0, D, 0); // no ECN seen yet: the loss cuts ([SPEC-CC-24] needs ECN read)
        long afterLoss = cc.windowBytes(0);
        assertThat(afterLoss).as("the loss cut").isEqualTo(INITIAL / 2);
        cc.onEcnFeedback(0, 4, 4, 0);
        assertThat(cc.windowBytes(0)).as("marks in the loss cut's round trip").isEqualTo(afterLoss);
        while (cc.bytesInFlight(0) > 0) {
            cc.onPacketAcked(0, D, -1, 0);
        }
        sendAndAck(cc, 0, INITIAL);
        long before = cc.windowBytes(0);
        cc.onEcnFeedback(0, 8, 8, 0);
        assertThat(cc.windowBytes(0)).as("marks a round trip later cut").isLessThan(before);
    }

    /**
     * [SPEC-CC-30]: one congestion cut per round trip. A loss within a round trip of an ECN cut
     * leaves the window alone (the marks already cut for that congestion); once the path has
     * acknowledged what it had in flight at the ECN cut, a loss cuts again. In the simulator's loss
     * scenario at 1% per link most random losses came within a round trip of a mark (the lossless
     * run is marked too), and cut the windows the marks had just cut.
     */
    @Test
    void aLossWithinARoundTripOfAnEcnCutDoesNotCutAgain() {
        for (boolean scaled : new boolean[] {false, true}) {
            AimdController cc = new AimdController(CONFIG.toBuilder().aimdLossCutScaledByAlpha(scaled).build());
            for (int i = 0; i < 16; i++) {
                cc.onPacketSent(0, D, 0);
            }
            cc.onEcnFeedback(0, 4, 4, 0);
            long afterMark = cc.windowBytes(0);
            assertThat(afterMark).as("the ECN cut (alpha 1), scaled %s", scaled).isEqualTo(INITIAL / 2);
            for (int i = 0; i < 4; i++) {
                cc.onPacketLost(0, D, 0);
            }
            assertThat(cc.windowBytes(0)).as("losses in the ECN cut's round trip, scaled %s", scaled)
                    .isEqualTo(afterMark);
            while (cc.bytesInFlight(0) > 0) {
                cc.onPacketAcked(0, D, -1, 0);
            }
            sendAndAck(cc, 0, INITIAL);
            long beforeSecondMark = cc.windowBytes(0);
            cc.onEcnFeedback(0, 4, 4, 0); // a round trip later: a new mark, a new ECN cut
            long afterSecondMark = cc.windowBytes(0);
            assertThat(afterSecondMark).as("the second ECN cut, scaled %s", scaled).isEqualTo(beforeSecondMark / 2);
            cc.onPacketSent(0, D, 0);
            cc.onPacketLost(0, D, 0);
            assertThat(cc.windowBytes(0)).as("right after the second ECN cut, scaled %s", scaled)
                    .isEqualTo(afterSecondMark);
            for (int i = 0; i < 2 * afterMark / D; i++) {
                cc.onPacketSent(0, D, 0);
                cc.onPacketAcked(0, D, -1, 0);
            }
            long before = cc.windowBytes(0);
            cc.onPacketSent(0, D, 0);
            cc.onPacketLost(0, D, 0);
            if (scaled) {
                // ECN is read and nothing was marked for a round trip: the loss is taken for random
                // loss and cuts nothing [SPEC-CC-24].
                assertThat(cc.windowBytes(0)).as("a loss a round trip after the last mark, where ECN is read")
                        .isEqualTo(before);
            } else {
                assertThat(cc.windowBytes(0)).as("a round trip after the ECN cut a loss halves").isEqualTo(before / 2);
            }
        }
        // Without marks the loss cut is [SPEC-CC-9]'s, once per round trip, as before.
        AimdController plain = new AimdController(CONFIG);
        plain.onPacketSent(0, D, 0);
        plain.onPacketLost(0, D, 0);
        assertThat(plain.windowBytes(0)).isEqualTo(INITIAL / 2);
    }

    /**
     * [SPEC-CC-25]: losses without marks raise the rate allowed under the hint to
     * {@code hint / (1 - loss / 2)} (loss taken at most 1/2: at most 4/3 of the hint); marked
     * losses do not, acknowledgements bring it back down, and the default loss rule has no such
     * compensation.
     */
    @Test
    void unmarkedLossesLetTheSenderPaceAboveTheHintByAtMostAThird() {
        EngineConfig scaled = CONFIG.toBuilder().aimdLossCutScaledByAlpha(true).build();
        long hint = 1_000_000L; // far below the window's own rate: the hint limits
        AimdController cc = new AimdController(scaled);
        cc.onPacketSent(0, D, 0);
        cc.onEcnFeedback(0, 1, 0, 0);
        cc.onRateHint(hint, 0);
        assertThat(cc.pacingRateBytesPerSecond(0)).isCloseTo(hint, within(1.0));
        cc.onPacketLost(0, D, 0);
        double once = cc.pacingRateBytesPerSecond(0);
        assertThat(once).as("one unmarked loss: loss average 1/16, rate hint / (1 - 1/32)")
                .isCloseTo(hint / (1 - 1.0 / 32), within(50.0));
        for (int i = 0; i < 200; i++) {
            cc.onPacketSent(0, D, 0);
            cc.onPacketLost(0, D, 0);
        }
        assertThat(cc.pacingRateBytesPerSecond(0)).as("every transmission lost: capped at 4/3 of the hint")
                .isCloseTo(hint * 4.0 / 3, within(1.0));
        for (int i = 0; i < 200; i++) {
            cc.onPacketSent(0, D, 0);
            cc.onPacketAcked(0, D, -1, 0);
        }
        assertThat(cc.pacingRateBytesPerSecond(0)).as("acknowledgements bring it back to the hint")
                .isCloseTo(hint, within(hint * 0.001));
        // Marked losses: congestion, no compensation.
        AimdController marked = new AimdController(scaled);
        marked.onPacketSent(0, D, 0);
        marked.onEcnFeedback(0, 1, 1, 0);
        marked.onRateHint(hint, 0);
        marked.onPacketLost(0, D, 0);
        assertThat(marked.pacingRateBytesPerSecond(0)).isLessThanOrEqualTo(hint + 1.0);
        // The default loss rule (halving): no compensation either.
        AimdController halving = new AimdController(CONFIG);
        halving.onPacketSent(0, D, 0);
        halving.onEcnFeedback(0, 1, 0, 0);
        halving.onRateHint(hint, 0);
        halving.onPacketLost(0, D, 0);
        assertThat(halving.pacingRateBytesPerSecond(0)).isCloseTo(hint, within(1.0));
    }

    /**
     * [SPEC-CC-25] with {@code aimdLossCompensationPercent}: one unmarked loss (average 1/16)
     * raises the hint by 1 / (1 - 1/16 * percent / 100): nothing at 0, half the average at the
     * default 50, all of it at 100; every transmission lost still caps it at 4/3 of the hint.
     */
    @Test
    void theShareOfTheUnmarkedLossThatRaisesTheHintIsTheConfiguredPercent() {
        assertThat(EngineConfig.defaults().aimdLossCompensationPercent()).isEqualTo(50);
        long hint = 1_000_000L;
        for (int percent : new int[] {0, 50, 100}) {
            EngineConfig config = CONFIG.toBuilder().aimdLossCutScaledByAlpha(true)
                    .aimdLossCompensationPercent(percent).build();
            AimdController cc = new AimdController(config);
            cc.onPacketSent(0, D, 0);
            cc.onEcnFeedback(0, 1, 0, 0);
            cc.onRateHint(hint, 0);
            cc.onPacketLost(0, D, 0);
            assertThat(cc.pacingRateBytesPerSecond(0)).as("one unmarked loss, %d%%", percent)
                    .isCloseTo(hint / (1 - percent / 100.0 / 16), within(50.0));
            for (int i = 0; i < 200; i++) {
                cc.onPacketSent(0, D, 0);
                cc.onPacketLost(0, D, 0);
            }
            assertThat(cc.pacingRateBytesPerSecond(0)).as("every transmission lost, %d%%", percent)
                    .isCloseTo(percent == 0 ? hint : hint * 4.0 / 3, within(1.0));
        }
        assertThatThrownBy(() -> EngineConfig.builder().aimdLossCompensationPercent(101).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aimdLossCompensationPercent");
    }

    /**
     * [SPEC-CC-37] with {@code aimdLossAverageOnUnmarkedPaths}: path 0 has no mark, path 1 is
     * marked before each of its acknowledgements. After one unmarked loss on path 0 (average
     * 1/16), 40 acknowledgements on the marked path leave the raised hint where it was with the
     * rule, and dilute the average by (15/16)^40 without it; acknowledgements on the unmarked path
     * move it toward 0 either way. The connection's rate under the hint is the sum of the paths'
     * pacing rates.
     */
    @Test
    void withTheLossAverageOnUnmarkedPathsTheAcksOfMarkedPathsDoNotDiluteIt() {
        assertThat(EngineConfig.defaults().aimdLossAverageOnUnmarkedPaths()).isFalse();
        long hint = 1_000_000L;
        for (boolean rule : new boolean[] {false, true}) {
            EngineConfig config = CONFIG.toBuilder().aimdLossCutScaledByAlpha(true)
                    .aimdLossCompensationPercent(100).aimdLossAverageOnUnmarkedPaths(rule).build();
            AimdController cc = new AimdController(config);
            for (int path = 0; path < 2; path++) {
                cc.onPacketSent(path, D, 0);
                cc.onEcnFeedback(path, 1, 0, 0);
            }
            cc.onRateHint(hint, 0);
            cc.onPacketLost(0, D, 0);
            double raised = hint / (1 - 1.0 / 16);
            assertThat(rate(cc)).as("one unmarked loss, rule %s", rule).isCloseTo(raised, within(50.0));
            for (int i = 0; i < 40; i++) {
                cc.onPacketSent(1, D, i);
                cc.onEcnFeedback(1, 1, 1, i);
                cc.onPacketAcked(1, D, 10_000, i);
            }
            double diluted = hint / (1 - Math.pow(15.0 / 16, 40) / 16);
            assertThat(rate(cc)).as("40 acknowledgements on the marked path, rule %s", rule)
                    .isCloseTo(rule ? raised : diluted, within(50.0));
            for (int i = 0; i < 200; i++) {
                cc.onPacketSent(0, D, 100 + i);
                cc.onPacketAcked(0, D, 10_000, 100 + i);
            }
            assertThat(rate(cc)).as("200 acknowledgements on the unmarked path, rule %s", rule)
                    .isCloseTo(hint, within(hint * 1e-4));
        }
    }

    /** The sum of the two paths' pacing rates: the connection's rate while the hint limits it. */
    private static double rate(AimdController cc) {
        return cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(1);
    }

    /**
     * [SPEC-CC-35]: under a hint that limits the rate, once the unmarked losses are above
     * {@code fullWindowAboveLossPercent}, a path whose window is full leaves its share of the
     * (compensated) hint to the path with room; below it, or with 100, the shares stay as they are,
     * and a window with room again takes its share back.
     */
    @Test
    void underRandomLossAFullWindowsShareOfTheHintGoesToThePathsWithRoom() {
        long hint = 1_000_000L; // far below the windows' own rates: the hint limits
        for (int percent : new int[] {2, 100}) {
            EngineConfig scaled = CONFIG.toBuilder().aimdLossCutScaledByAlpha(true).fullWindowAboveLossPercent(percent)
                    .build();
            AimdController cc = new AimdController(scaled);
            for (int path = 0; path < 2; path++) {
                cc.onPacketSent(path, D, 0);
                cc.onEcnFeedback(path, 1, 0, 0);
            }
            cc.onRateHint(hint, 0);
            int filled = 0;
            while (cc.sendAllowanceBytes(0, 0) > 0) {
                cc.onPacketSent(0, D, 0);
                filled++;
            }
            assertThat(cc.pacingRateBytesPerSecond(1)).as("no loss yet: path 1 keeps its half")
                    .isCloseTo(hint / 2.0, within(1.0));
            cc.onPacketSent(1, D, 0);
            cc.onPacketLost(1, D, 0); // unmarked: the loss average is 1/16, above 2%
            double compensated = hint / (1 - 1.0 / 32);
            if (percent == 2) {
                assertThat(cc.pacingRateBytesPerSecond(1)).as("path 0's window is full: path 1 takes all of it")
                        .isCloseTo(compensated, within(50.0));
            } else {
                assertThat(cc.pacingRateBytesPerSecond(1)).as("100: the shares stay")
                        .isCloseTo(compensated / 2, within(50.0));
            }
            cc.onPacketAcked(0, filled * D, -1, 0);
            assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(1))
                    .as("path 0 has room again: the two share the hint").isCloseTo(compensated, within(hint * 0.005));
            assertThat(cc.pacingRateBytesPerSecond(1)).as("path 1 gives path 0 its share back")
                    .isLessThan(compensated * 0.9);
        }
    }

    /**
     * [SPEC-CC-25]: losses on a path that takes no new data (SUSPECT beside an ACTIVE path, as a
     * black-holed path during a failover) or that has failed do not raise the rate allowed under
     * the hint; the same losses on a path that carries new data do.
     */
    @Test
    void lossesOnAPathInDoubtOrFailedDoNotRaiseTheRateAboveTheHint() {
        EngineConfig scaled = CONFIG.toBuilder().aimdLossCutScaledByAlpha(true).build();
        long hint = 1_000_000L; // far below the windows' own rates: the hint limits
        AimdController cc = new AimdController(scaled);
        for (int path = 0; path < 3; path++) {
            cc.onPacketSent(path, D, 0);
            cc.onEcnFeedback(path, 1, 0, 0);
        }
        cc.onRateHint(hint, 0);
        double before = cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(2);
        cc.onPathNewData(1, false, 10);
        assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(2))
                .as("path 1 takes no new data: the other two share the hint").isCloseTo(hint, within(1.0));
        for (int i = 0; i < 50; i++) {
            cc.onPacketSent(1, D, 20);
            cc.onPacketLost(1, D, 30);
        }
        assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(2))
                .as("50 unmarked losses on the path in doubt").isCloseTo(hint, within(1.0));
        cc.onPathFailed(1, 40);
        cc.onPacketLost(1, D, 50);
        assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(2))
                .as("a loss on the failed path").isCloseTo(hint, within(1.0));
        cc.onPacketSent(2, D, 60);
        cc.onPacketLost(2, D, 70);
        assertThat(cc.pacingRateBytesPerSecond(0) + cc.pacingRateBytesPerSecond(2))
                .as("one unmarked loss on a path that carries new data: hint / (1 - 1/32)")
                .isCloseTo(hint / (1 - 1.0 / 32), within(50.0));
        assertThat(before).as("three paths shared the hint").isCloseTo(hint * 2.0 / 3, within(1.0));
    }

    @Test
    void lossHalvesTheWindowAtMostOncePerRoundTrip() {
        AimdController cc = new AimdController(CONFIG);
        for (int i = 0; i < 16; i++) {
            cc.onPacketSent(2, D, 0);
        }
        cc.onPacketLost(2, D, 0);
        assertThat(cc.windowBytes(2)).isEqualTo(INITIAL / 2);
        cc.onPacketLost(2, D, 0);
        assertThat(cc.windowBytes(2)).as("a second loss in the same round trip").isEqualTo(INITIAL / 2);
        assertThat(cc.bytesInFlight(2)).as("losses leave the flight").isEqualTo(14L * D);
        // The cut was made with 15 datagrams in flight: the round trip ends when as many are acknowledged.
        for (int i = 0; i < 14; i++) {
            cc.onPacketAcked(2, D, -1, 0);
        }
        long grown = cc.windowBytes(2);
        assertThat(grown).as("additive increase goes on after a cut").isEqualTo(INITIAL / 2 + D);
        cc.onPacketSent(2, D, 0);
        cc.onPacketLost(2, D, 0);
        assertThat(cc.windowBytes(2)).as("still the same round trip").isEqualTo(grown);
        cc.onPacketSent(2, D, 0);
        cc.onPacketAcked(2, D, -1, 0);
        long window = cc.windowBytes(2);
        cc.onPacketSent(2, D, 0);
        cc.onPacketLost(2, D, 0);
        assertThat(cc.windowBytes(2)).as("the next round trip").isEqualTo(window / 2);
        assertThat(cc.bytesInFlight(2)).isZero();
    }

    @Test
    void cutsStopAtTheMinimumWindow() {
        AimdController cc = new AimdController(CONFIG);
        for (int round = 0; round < 20; round++) {
            cc.onPacketSent(0, D, 0);
            cc.onPacketLost(0, D, 0);
            cc.onEcnFeedback(1, 4, 4, 0);
            sendAndAck(cc, 0, cc.windowBytes(0));
            sendAndAck(cc, 1, cc.windowBytes(1));
            assertThat(cc.windowBytes(0)).isGreaterThanOrEqualTo(MIN);
            assertThat(cc.windowBytes(1)).isGreaterThanOrEqualTo(MIN);
        }
        cc.onPacketLost(0, 0, 0);
        cc.onEcnFeedback(1, 4, 4, 0);
        assertThat(cc.windowBytes(0)).as("loss floor").isEqualTo(MIN);
        assertThat(cc.windowBytes(1)).as("ECN floor").isEqualTo(MIN);
    }

    @Test
    void theAllowanceIsPerPathAndTheConnectionWindowIsTheSum() {
        AimdController cc = new AimdController(CONFIG);
        cc.onPacketSent(1, D, 0);
        cc.onPacketSent(1, D, 0);
        cc.onPacketSent(3, 1000, 0);
        assertThat(cc.sendAllowanceBytes(0, 0)).isEqualTo(INITIAL);
        assertThat(cc.sendAllowanceBytes(1, 0)).isEqualTo(INITIAL - 2 * D);
        assertThat(cc.sendAllowanceBytes(3, 0)).isEqualTo(INITIAL - 1000);
        assertThat(cc.bytesInFlight(1)).isEqualTo(2L * D);
        assertThat(cc.bytesInFlight()).isEqualTo(2L * D + 1000);
        assertThat(cc.windowBytes()).as("paths 0 to 3").isEqualTo(4 * INITIAL);
        cc.onPacketDiscarded(1, D, 0);
        assertThat(cc.sendAllowanceBytes(1, 0)).as("a discard leaves the flight, window unchanged").isEqualTo(INITIAL - D);
        while (cc.sendAllowanceBytes(0, 0) > 0) {
            cc.onPacketSent(0, D, 0);
        }
        assertThat(cc.sendAllowanceBytes(0, 0)).isZero();
        assertThat(cc.sendAllowanceBytes(1, 0)).as("a full path 0 does not block path 1").isPositive();
        cc.onRateHint(1, 0);
        assertThat(cc.sendAllowanceBytes(1, 0)).as("rate hints are ignored").isEqualTo(INITIAL - D);
        assertThatThrownBy(() -> cc.sendAllowanceBytes(CONFIG.maxPaths(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPaths");
    }

    @Test
    void invalidSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdMinWindowBytes(0).build()).hasMessageContaining("aimdMinWindowBytes");
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdInitialWindowBytes(MIN - 1).build())
                .hasMessageContaining("aimdInitialWindowBytes");
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdMaxWindowBytes(INITIAL - 1).build())
                .hasMessageContaining("aimdMaxWindowBytes");
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdEcnGainShift(0).build()).hasMessageContaining("aimdEcnGainShift");
    }

    @Test
    void eventsDoNotAllocateOnceEveryPathIsSeen() {
        AimdController cc = new AimdController(CONFIG);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = 0;
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 6; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                int path = i & 7;
                cc.onPacketSent(path, D, i);
                sink += cc.sendAllowanceBytes(path, i) + cc.nextSendTimeNanos(path, i);
                if ((i & 15) == 0) {
                    cc.onPacketLost(path, D, i);
                } else {
                    cc.onPacketAcked(path, D, -1, i);
                }
                cc.onEcnFeedback(path, 4, i & 1, i);
                cc.onRateHint(0, i);
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (round >= 2) {
                // An allocation per event would cost at least 100 000 x 16 bytes in every round; a
                // few hundred bytes once (the JIT settling, a class initialised late in a long
                // suite) is not the controller's, so the quietest warm round must be near zero.
                assertThat(allocated).as("bytes allocated by 100 000 rounds of events, round %d (sink %d)", round, sink)
                        .isLessThan(100_000);
                least = Math.min(least, allocated);
            }
        }
        assertThat(least).as("bytes allocated by the quietest 100 000 rounds of events").isLessThan(1024);
    }

    /** Sends one datagram on {@code path} and acknowledges it with an RTT sample of {@code rttNanos}. */
    private static void sampleRtt(AimdController cc, int path, long rttNanos, long now) {
        cc.onPacketSent(path, D, now);
        cc.onPacketAcked(path, D, rttNanos, now + rttNanos);
    }

    @Test
    void withoutEcnFeedbackQueueingDelayAboveTheThresholdCutsTheWindowLikeAMark() {
        // [SPEC-CC-15]: no ECN feedback ever; samples at the base RTT grow the window, samples more
        // than aimdDelayThresholdNanos above it count as marks and cut it.
        long threshold = CONFIG.aimdDelayThresholdNanos();
        assertThat(threshold).isEqualTo(500_000);
        AimdController cc = new AimdController(CONFIG);
        for (int i = 0; i < 64; i++) {
            sampleRtt(cc, 0, 50_000, i * 100_000L);
        }
        long grown = cc.windowBytes(0);
        assertThat(grown).as("no delay: additive increase only").isGreaterThan(INITIAL);
        assertThat(cc.alpha(0)).as("unmarked samples pull alpha down").isLessThan(0.1);

        sampleRtt(cc, 0, 50_000 + threshold + 1, 10_000_000);
        assertThat(cc.windowBytes(0)).as("one delayed sample: a DCTCP-style cut").isLessThan(grown);

        AimdController other = new AimdController(CONFIG);
        for (int i = 0; i < 64; i++) {
            sampleRtt(other, 1, 50_000, i * 100_000L);
        }
        long before = other.windowBytes(1);
        sampleRtt(other, 1, 50_000 + threshold, 10_000_000);
        assertThat(other.windowBytes(1)).as("exactly at the threshold is not a mark").isGreaterThanOrEqualTo(before);
    }

    @Test
    void onceThePeerReportsEcnDelayNoLongerCountsAndAZeroThresholdTurnsDelayOff() {
        AimdController cc = new AimdController(CONFIG);
        cc.onEcnFeedback(0, 10, 0, 0); // the route carries ECN: marks, not delay, from now on
        for (int i = 0; i < 32; i++) {
            sampleRtt(cc, 0, 50_000, i * 100_000L);
        }
        long w = cc.windowBytes(0);
        sampleRtt(cc, 0, 10_000_000, 5_000_000);
        assertThat(cc.windowBytes(0)).as("a long RTT on an ECN path is not a mark").isGreaterThanOrEqualTo(w);

        AimdController off = new AimdController(CONFIG.toBuilder().aimdDelayThresholdNanos(0).build());
        for (int i = 0; i < 32; i++) {
            sampleRtt(off, 0, 50_000, i * 100_000L);
        }
        long w2 = off.windowBytes(0);
        sampleRtt(off, 0, 10_000_000, 5_000_000);
        assertThat(off.windowBytes(0)).as("threshold 0: no delay signal").isGreaterThanOrEqualTo(w2);
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdDelayThresholdNanos(-1).build())
                .hasMessageContaining("aimdDelayThresholdNanos");
    }

    @Test
    void slowStartDoublesTheWindowEveryRoundTripUntilTheFirstCongestionCut() {
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdSlowStart(true).build());
        assertThat(cc.inSlowStart(0)).isTrue();
        sendFlightThenAck(cc, 0, INITIAL);
        assertThat(cc.windowBytes(0)).as("one window acknowledged doubles it").isEqualTo(2 * INITIAL);
        sendFlightThenAck(cc, 0, 2 * INITIAL);
        assertThat(cc.windowBytes(0)).isEqualTo(4 * INITIAL);

        cc.onEcnFeedback(0, 1, 1, 0); // alpha starts at 1 and every packet is marked: the cut halves
        assertThat(cc.inSlowStart(0)).as("a congestion cut ends slow start").isFalse();
        long cut = cc.windowBytes(0);
        assertThat(cut).isEqualTo(2 * INITIAL);
        sendAndAck(cc, 0, cut);
        assertThat(cc.windowBytes(0)).as("then one datagram per window").isEqualTo(cut + D);
        assertThat(CONFIG.toBuilder().aimdSlowStart(true).pacingBurstBytes(56 << 10)
                .build()).isEqualTo(EngineConfig.defaults());
        assertThat(EngineConfig.defaults().aimdSlowStart()).isTrue();
    }

    @Test
    void aRandomLossKeepsSlowStartWhereLossCutsAreScaledAndEndsItWhereTheyHalve() {
        EngineConfig scaled = CONFIG.toBuilder().aimdSlowStart(true).aimdLossCutScaledByAlpha(true).build();
        AimdController unmarked = new AimdController(scaled);
        unmarked.onEcnFeedback(0, 10, 0, 0); // ECN is read on the path, nothing marked
        sendFlightThenAck(unmarked, 0, 2 * INITIAL);
        unmarked.onPacketSent(0, D, 0);
        long before = unmarked.windowBytes(0);
        unmarked.onPacketLost(0, D, 0);
        assertThat(unmarked.windowBytes(0)).as("[SPEC-CC-24]: no cut").isEqualTo(before);
        assertThat(unmarked.inSlowStart(0)).isTrue();

        AimdController halving = new AimdController(CONFIG.toBuilder().aimdSlowStart(true).build());
        halving.onPacketSent(0, D, 0);
        halving.onPacketLost(0, D, 0);
        assertThat(halving.windowBytes(0)).isEqualTo(INITIAL / 2);
        assertThat(halving.inSlowStart(0)).as("a halving loss cut is congestion").isFalse();
        halving.onSpuriousLoss(0, D, 0);
        assertThat(halving.windowBytes(0)).isEqualTo(INITIAL);
        assertThat(halving.inSlowStart(0)).as("undoing the cut undoes its end of slow start").isTrue();

        halving.onPathFailed(0, 0);
        halving.onPathRestored(0, 0);
        assertThat(halving.inSlowStart(0)).as("a restored path grows additively").isFalse();
        assertThat(new AimdController(CONFIG).inSlowStart(3)).as("aimdSlowStart false").isFalse();
    }

    /**
     * [SPEC-CC-31]: slow start grows only a window the path uses. A sender with one packet in flight
     * at a time (request and response) grows its window additively at most, however much it has
     * sent; a flight of a whole window doubles it, but no further than twice that flight.
     */
    @Test
    void slowStartDoesNotGrowAWindowThePathDoesNotUse() {
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdSlowStart(true).build());
        sendAndAck(cc, 0, 64 * INITIAL); // one packet in flight at a time, 4 MiB in all
        // Additive increase only (a datagram per window acknowledged); slow start would have taken
        // the window to aimdMaxWindowBytes (16 MiB).
        assertThat(cc.windowBytes(0)).as("one packet at a time").isLessThanOrEqualTo(INITIAL + 64L * D);
        assertThat(cc.inSlowStart(0)).isTrue();

        AimdController flights = new AimdController(CONFIG.toBuilder().aimdSlowStart(true).build());
        sendFlightThenAck(flights, 0, INITIAL);
        sendFlightThenAck(flights, 0, INITIAL);
        assertThat(flights.windowBytes(0)).as("twice the largest flight, not more").isEqualTo(2 * INITIAL);
    }

    /**
     * [SPEC-CC-31]: a mark ends slow start even where it cuts nothing, within a round trip of a loss
     * cut ([SPEC-CC-30]); the window does not double again on a path that is marking.
     */
    @Test
    void aMarkWithinARoundTripOfALossCutStillEndsSlowStart() {
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdSlowStart(true).build());
        for (int i = 0; i < 16; i++) {
            cc.onPacketSent(0, D, 0);
        }
        cc.onSpuriousLoss(0, D, 0); // nothing to undo: stays in slow start
        cc.onPacketLost(0, D, 0);
        assertThat(cc.inSlowStart(0)).as("a halving loss cut ends slow start").isFalse();
        cc.onSpuriousLoss(0, D, 0);
        assertThat(cc.inSlowStart(0)).as("undone: back in slow start").isTrue();
        long w = cc.windowBytes(0);
        cc.onEcnFeedback(0, 4, 4, 0); // marks within the loss cut's round trip: no cut
        assertThat(cc.windowBytes(0)).as("no second cut within the round trip").isEqualTo(w);
        assertThat(cc.inSlowStart(0)).as("but the mark ends slow start").isFalse();
    }

    /** BALIA's weight of a path at rate {@code x} beside a fastest path at {@code largest} [SPEC-CC-32]. */
    private static double baliaWeight(double x, double largest) {
        double a = largest / x;
        return x * x * (1 + a) / 2 * (4 + a) / 5;
    }

    /** Sends nothing but makes the controller see paths 0 to {@code paths - 1}, all in service. */
    private static void touch(AimdController cc, int paths) {
        for (int p = 0; p < paths; p++) {
            cc.onPacketSent(p, D, 0);
            cc.onPacketDiscarded(p, D, 0);
        }
    }

    /** Cuts path {@code p} once by alpha / 2 with alpha still 1: its window halves. */
    private static void halve(AimdController cc, int p) {
        cc.onEcnFeedback(p, 10, 10, 0);
    }

    /**
     * [SPEC-CC-32]: with {@code aimdBalancedIncrease}, a window acknowledged grows the path by its
     * BALIA share of n datagrams (n paths in service), so the faster path (larger window over
     * srtt) gets more than a datagram and the slower less; without it, or with one path in
     * service, every path grows by one datagram.
     */
    @Test
    void theBalancedIncreaseGivesTheFasterPathsMoreOfTheConnectionsDatagramPerPath() {
        EngineConfig balanced = CONFIG.toBuilder().aimdBalancedIncrease(true).build();
        double x0 = INITIAL;
        double x1 = INITIAL / 2.0;
        double g0 = baliaWeight(x0, x0);
        double g1 = baliaWeight(x1, x0);
        long[] grew = new long[2];
        for (int p = 0; p < 2; p++) {
            AimdController cc = new AimdController(balanced);
            touch(cc, 2);
            halve(cc, 1); // path 1 at half of path 0's window, the same (initial) srtt: half its rate
            long before = cc.windowBytes(p);
            sendAndAck(cc, p, before);
            grew[p] = cc.windowBytes(p) - before;
        }
        assertThat(grew[0]).as("the faster path: 2 g0 / (g0 + g1) datagrams").isEqualTo((long) (D * 2 * g0 / (g0 + g1)));
        assertThat(grew[1]).as("the slower path: 2 g1 / (g0 + g1) datagrams").isEqualTo((long) (D * 2 * g1 / (g0 + g1)));
        assertThat(grew[0]).isGreaterThan(D);
        assertThat(grew[1]).isLessThan(D);
        assertThat(grew[0] + grew[1]).as("the connection grows by a datagram per path in all").isBetween(2L * D - 2, 2L * D);

        AimdController uncoupled = new AimdController(CONFIG);
        touch(uncoupled, 2);
        halve(uncoupled, 1);
        long w = uncoupled.windowBytes(1);
        sendAndAck(uncoupled, 1, w);
        assertThat(uncoupled.windowBytes(1) - w).as("without the rule: one datagram").isEqualTo(D);

        AimdController alone = new AimdController(balanced);
        touch(alone, 2);
        halve(alone, 1);
        alone.onPathFailed(0, 0);
        w = alone.windowBytes(1);
        sendAndAck(alone, 1, w);
        assertThat(alone.windowBytes(1) - w).as("one path in service: one datagram").isEqualTo(D);
    }

    /**
     * [SPEC-CC-32]: the rate, not the window, weighs: of two paths with the same window, the one
     * whose round trip is twice as long is the slower and grows less.
     */
    @Test
    void theBalancedIncreaseWeighsWindowOverSmoothedRtt() {
        EngineConfig balanced = CONFIG.toBuilder().aimdBalancedIncrease(true).build();
        long[] grew = new long[2];
        for (int p = 0; p < 2; p++) {
            AimdController cc = new AimdController(balanced);
            sampleRtt(cc, 0, 10_000, 0);
            sampleRtt(cc, 1, 20_000, 0);
            long before = cc.windowBytes(p);
            assertThat(before).isEqualTo(INITIAL);
            sendAndAck(cc, p, before);
            grew[p] = cc.windowBytes(p) - before;
        }
        double g0 = baliaWeight(1.0, 1.0);
        double g1 = baliaWeight(0.5, 1.0);
        assertThat(grew[0]).isEqualTo((long) (D * 2 * g0 / (g0 + g1)));
        assertThat(grew[1]).isEqualTo((long) (D * 2 * g1 / (g0 + g1)));
    }

    /**
     * [SPEC-CC-32], over random round trips and windows (seeded; the seed is in the failure message): each path's
     * increase is at least a byte, a faster path never grows less than a slower one, and the
     * increases of one round trip of every path add up to n datagrams less the rounding.
     */
    @Test
    void theBalancedIncreaseKeepsTheConnectionsTotalAndTheOrderOfTheRates() {
        EngineConfig balanced = CONFIG.toBuilder().aimdBalancedIncrease(true).build();
        SplittableRandom seeds = new SplittableRandom(32);
        for (int round = 0; round < 40; round++) {
            long seed = seeds.nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            int n = 2 + r.nextInt(7);
            long[] rtt = new long[n];
            boolean[] halved = new boolean[n];
            for (int p = 0; p < n; p++) {
                rtt[p] = 5_000 + r.nextLong(75_000);
                halved[p] = r.nextBoolean();
            }
            double[] rate = new double[n];
            long[] grew = new long[n];
            for (int p = 0; p < n; p++) {
                AimdController cc = new AimdController(balanced);
                for (int q = 0; q < n; q++) {
                    sampleRtt(cc, q, rtt[q], 0);
                    if (halved[q]) {
                        halve(cc, q);
                    }
                }
                long window = cc.windowBytes(p);
                rate[p] = (double) window / rtt[p];
                sendAndAck(cc, p, window);
                grew[p] = cc.windowBytes(p) - window;
            }
            long total = 0;
            for (int p = 0; p < n; p++) {
                assertThat(grew[p]).as("seed %d path %d", seed, p).isPositive();
                total += grew[p];
                for (int q = 0; q < n; q++) {
                    if (rate[p] > rate[q]) {
                        assertThat(grew[p]).as("seed %d: path %d faster than %d", seed, p, q).isGreaterThanOrEqualTo(grew[q]);
                    }
                }
            }
            assertThat(total).as("seed %d", seed).isBetween((long) n * D - n, (long) n * D);
        }
    }

    /**
     * [SPEC-CC-39]: with {@code aimdBalancedIncreaseMaxDatagrams} <i>c</i>, a connection of
     * <i>n</i> paths grows by min(<i>n</i>, <i>c</i>) datagrams per round trip in all, shared out
     * by the same BALIA weights as without the cap: each path's growth is the uncapped growth
     * scaled by min(<i>n</i>, <i>c</i>) / <i>n</i> (so the faster paths still get more), and a cap
     * of <i>n</i> or more changes nothing. 40 seeded draws of 2 to 16 paths, caps 1 to 12.
     */
    @Test
    void theIncreaseCapBoundsTheConnectionsGrowthAndKeepsTheSplit() {
        EngineConfig balanced = CONFIG.toBuilder().aimdBalancedIncrease(true).build();
        SplittableRandom seeds = new SplittableRandom(39);
        for (int round = 0; round < 40; round++) {
            long seed = seeds.nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            int n = 2 + r.nextInt(15);
            int cap = 1 + r.nextInt(12);
            long[] rtt = new long[n];
            boolean[] halved = new boolean[n];
            for (int p = 0; p < n; p++) {
                rtt[p] = 5_000 + r.nextLong(75_000);
                halved[p] = r.nextBoolean();
            }
            EngineConfig capped = balanced.toBuilder().aimdBalancedIncreaseMaxDatagrams(cap).build();
            long[] free = growthPerPath(balanced, rtt, halved);
            long[] bounded = growthPerPath(capped, rtt, halved);
            int datagrams = Math.min(n, cap);
            long total = 0;
            for (int p = 0; p < n; p++) {
                String at = "seed " + seed + " (" + n + " paths, cap " + cap + ") path " + p;
                total += bounded[p];
                if (cap >= n) {
                    assertThat(bounded[p]).as(at).isEqualTo(free[p]);
                } else {
                    // The same share: free[p] * datagrams / n, each side truncated to whole bytes once.
                    assertThat((double) bounded[p]).as(at).isCloseTo((double) free[p] * datagrams / n, within(2.0));
                }
                for (int q = 0; q < n; q++) {
                    if (free[p] > free[q]) {
                        assertThat(bounded[p]).as(at + " against " + q).isGreaterThanOrEqualTo(bounded[q]);
                    }
                }
            }
            assertThat(total).as("seed %d: %d paths, cap %d", seed, n, cap)
                    .isBetween((long) datagrams * D - n, (long) datagrams * D);
        }
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdBalancedIncreaseMaxDatagrams(1025).build())
                .hasMessageContaining("aimdBalancedIncreaseMaxDatagrams");
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdBalancedIncreaseMaxDatagrams(-1).build())
                .hasMessageContaining("aimdBalancedIncreaseMaxDatagrams");
    }

    /**
     * Per path {@code p} of {@code rtt.length}: a fresh controller of {@code config}, every path
     * given its round trip (and halved where {@code halved} says), then one window of {@code p}
     * acknowledged; what {@code p}'s window grew by.
     */
    private static long[] growthPerPath(EngineConfig config, long[] rtt, boolean[] halved) {
        int n = rtt.length;
        long[] grew = new long[n];
        for (int p = 0; p < n; p++) {
            AimdController cc = new AimdController(config);
            for (int q = 0; q < n; q++) {
                sampleRtt(cc, q, rtt[q], 0);
                if (halved[q]) {
                    halve(cc, q);
                }
            }
            long window = cc.windowBytes(p);
            sendAndAck(cc, p, window);
            grew[p] = cc.windowBytes(p) - window;
        }
        return grew;
    }

    /**
     * [SPEC-CC-32]: only paths the controller heard of count among those taking new data. A
     * controller told of paths 0 and 3 (its arrays grow to id 3, so ids 1 and 2 exist but were
     * never used) shares two datagrams between those two, not four among four.
     */
    @Test
    void theBalancedIncreaseCountsOnlyThePathsTheControllerHeardOf() {
        EngineConfig balanced = CONFIG.toBuilder().aimdBalancedIncrease(true).build();
        int[] used = {0, 3};
        long[] rtt = {10_000, 60_000};
        long total = 0;
        long[] grew = new long[2];
        for (int k = 0; k < 2; k++) {
            AimdController cc = new AimdController(balanced);
            for (int j = 0; j < 2; j++) {
                sampleRtt(cc, used[j], rtt[j], 0);
                halve(cc, used[j]);
            }
            long window = cc.windowBytes(used[k]);
            sendAndAck(cc, used[k], window);
            grew[k] = cc.windowBytes(used[k]) - window;
            total += grew[k];
        }
        assertThat(grew[0]).as("the faster path gets more").isGreaterThan(grew[1]);
        assertThat(total).as("two datagrams between the two paths heard of").isBetween(2L * D - 2, 2L * D);
    }

    /**
     * [SPEC-CC-36]: with {@code aimdAlphaRoundTripGainShift}, feedback within a round trip
     * of the path only counts; alpha moves once, when the bytes the path had in flight at the
     * start of the round trip are acknowledged, toward the fraction of that round trip's reported
     * packets that were marked, whatever the number of ACKs that carried them.
     */
    @Test
    void withThePerRoundTripGainAlphaMovesOncePerRoundTripTowardThatRoundTripsMarkedFraction() {
        EngineConfig perRoundTrip = CONFIG.toBuilder().aimdAlphaRoundTripGainShift(2).build();
        AimdController cc = new AimdController(perRoundTrip);
        AimdController perAck = new AimdController(CONFIG);
        for (AimdController c : new AimdController[] {cc, perAck}) {
            for (int i = 0; i < 4; i++) {
                c.onPacketSent(0, D, 0);
            }
            // No feedback yet: the round trip does not close; its credit (0 at the start) is spent,
            // so it closes at the first resolution after feedback comes in.
            c.onPacketAcked(0, D, -1, 0);
            for (int i = 0; i < 3; i++) {
                c.onEcnFeedback(0, 2, 0, 0);
                c.onEcnFeedback(0, 2, 1, 0);
            }
        }
        assertThat(cc.alpha(0)).as("feedback alone moves nothing within the round trip").isEqualTo(1.0);
        assertThat(perAck.alpha(0)).as("per ACK, six steps of 1/16").isLessThan(0.9);
        assertThat(cc.windowBytes(0)).as("the first mark still cuts at once, by alpha / 2")
                .isEqualTo(INITIAL / 2);
        cc.onPacketAcked(0, D, -1, 0);
        // Round trip closed: 3 of 12 reported packets marked, alpha 1 + (0.25 - 1) / 4 = 0.8125.
        assertThat(cc.alpha(0)).isEqualTo(0.8125);
        for (int i = 0; i < 2; i++) {
            cc.onPacketAcked(0, D, -1, 0);
        }
        cc.onEcnFeedback(0, 1, 1, 0);
        assertThat(cc.alpha(0)).as("the next round trip has not ended (a window to acknowledge)").isEqualTo(0.8125);
        for (int i = 0; i < 20; i++) {
            cc.onPacketSent(0, D, 0);
            cc.onPacketAcked(0, D, -1, 0);
        }
        // That round trip: 1 of 1 marked, one ACK only, weighs as much as the twelve packets before.
        assertThat(cc.alpha(0)).isEqualTo(0.8125 + (1 - 0.8125) / 4);
        assertThatThrownBy(() -> CONFIG.toBuilder().aimdAlphaRoundTripGainShift(17).build())
                .hasMessageContaining("aimdAlphaRoundTripGainShift");
    }

    /**
     * [SPEC-CC-36]: a round trip of the per-round-trip gain lasts as many resolved bytes as the
     * larger of the path's window and its bytes in flight when it began: one byte short of that,
     * alpha has not moved whatever feedback came in; the next packet resolved moves it. Lost bytes
     * end the round trip as acknowledged ones do.
     */
    @Test
    void aPerRoundTripGainRoundTripLastsTheLargerOfWindowAndFlightAtItsStartLostBytesIncluded() {
        EngineConfig perRoundTrip = CONFIG.toBuilder().aimdAlphaRoundTripGainShift(2).build();
        for (boolean byLoss : new boolean[] {false, true}) {
            AimdController cc = new AimdController(perRoundTrip);
            long sent = 0;
            while (sent < 2 * INITIAL) { // more in flight than the window
                cc.onPacketSent(0, D, 0);
                sent += D;
            }
            cc.onEcnFeedback(0, 4, 0, 0);
            cc.onPacketAcked(0, D, -1, 0); // closes the first round trip: 0 of 4 marked
            assertThat(cc.alpha(0)).isEqualTo(0.75);
            long roundTrip = Math.max(cc.windowBytes(0), cc.bytesInFlight(0));
            assertThat(roundTrip).as("the flight, not the window, sets this round trip's length")
                    .isEqualTo(cc.bytesInFlight(0)).isGreaterThan(cc.windowBytes(0));
            cc.onEcnFeedback(0, 4, 1, 0);
            cc.onEcnFeedback(0, 4, 3, 0);
            long resolved = 0;
            while (resolved + D < roundTrip) {
                resolve(cc, byLoss, D);
                resolved += D;
            }
            assertThat(cc.alpha(0)).as("lost %s: %d of %d bytes resolved, the round trip goes on", byLoss, resolved, roundTrip)
                    .isEqualTo(0.75);
            resolve(cc, byLoss, D);
            // 4 of 8 marked: 0.75 + (0.5 - 0.75) / 4.
            assertThat(cc.alpha(0)).as("lost %s: the round trip's bytes resolved", byLoss).isEqualTo(0.6875);
        }
    }

    private static void resolve(AimdController cc, boolean byLoss, int bytes) {
        if (byLoss) {
            cc.onPacketLost(0, bytes, 0);
        } else {
            cc.onPacketAcked(0, bytes, -1, 0);
        }
    }

    /**
     * [SPEC-CC-36]: a path back from a failure starts a fresh round trip: the feedback counted
     * before the failure is dropped, and the first feedback after it closes the round trip at the
     * next ACK, whatever was owed before.
     */
    @Test
    void aRestoredPathDropsTheRoundTripItWasInWithThePerRoundTripGain() {
        AimdController cc = new AimdController(CONFIG.toBuilder().aimdAlphaRoundTripGainShift(2).build());
        for (int i = 0; i < 40; i++) {
            cc.onPacketSent(0, D, 0);
        }
        cc.onEcnFeedback(0, 4, 0, 0);
        cc.onPacketAcked(0, D, -1, 0); // closes the first round trip: alpha 0.75
        cc.onEcnFeedback(0, 4, 4, 0); // all marked, in a round trip that is far from over
        cc.onPathFailed(0, 0);
        cc.onPathRestored(0, 0);
        assertThat(cc.alpha(0)).isEqualTo(0.75);
        cc.onPacketSent(0, D, 0);
        cc.onEcnFeedback(0, 4, 0, 0);
        cc.onPacketAcked(0, D, -1, 0);
        assertThat(cc.alpha(0)).as("closed at once, on the feedback since the restoration only (0 of 4 marked)")
                .isEqualTo(0.75 - 0.75 / 4);
    }
}
