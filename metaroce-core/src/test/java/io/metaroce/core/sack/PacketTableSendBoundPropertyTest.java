package io.metaroce.core.sack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PacketTable#sentNoEarlierThanFrom} is a true lower bound: for every CSN {@code c} in the
 * table, no transmission of any CSN from {@code c} on left before it. Random histories issue CSNs,
 * send and resend them (in time order, and in some cases with the clock going back or a CSN first
 * sent after a later one, which must switch the bound off), resolve transmissions and finish CSNs in
 * any order, through growth of the ring; after every step every bound is checked against every send
 * time on record.
 */
class PacketTableSendBoundPropertyTest {

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void noTransmissionFromACsnOnLeftBeforeItsBound(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int window = 1 << (2 + rnd.nextInt(7));
        boolean disorder = rnd.nextInt(4) == 0;
        PacketTable t = new PacketTable(window);
        long now = rnd.nextLong(1_000);
        long bounded = 0;
        for (int step = 0; step < 2_000; step++) {
            now += rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(50);
            long sendTime = disorder && rnd.nextInt(50) == 0 ? now - rnd.nextLong(200) : now;
            int op = rnd.nextInt(10);
            if (op < 3 && t.canIssue(window)) {
                long csn = t.issue(0, 0, 0, 1);
                // Usually sent at once, as the packetizer does; sometimes left unsent for a while.
                if (rnd.nextInt(8) != 0) {
                    t.sent(csn, sendTime);
                }
            } else if (op < 5 && t.next() > t.floor()) {
                long csn = t.floor() + rnd.nextLong(t.next() - t.floor());
                if (t.state(csn) == PacketTable.OUTSTANDING && (t.lastSentNanos(csn) != Long.MIN_VALUE || disorder)) {
                    t.sent(csn, sendTime); // a retransmission, or (disorder) a late first send
                }
            } else if (op < 7 && t.next() > t.floor()) {
                t.transmissionResolved(t.floor() + rnd.nextLong(t.next() - t.floor()));
            } else if (t.next() > t.floor()) {
                t.finish(t.floor() + rnd.nextLong(t.next() - t.floor()), PacketTable.DELIVERED);
            }
            bounded += check(seed, step, t);
        }
        if (!disorder) {
            assertThat(bounded).as("bounds were in force, seed %d", seed).isPositive();
        }
    }

    /** Checks every CSN's bound against the send times from it on; returns how many bounds were in force. */
    private static int check(long seed, int step, PacketTable t) {
        int bounded = 0;
        long minFrom = Long.MAX_VALUE;
        for (long c = t.next() - 1; c >= t.floor(); c--) {
            if (t.state(c) == PacketTable.OUTSTANDING && t.lastSentNanos(c) != Long.MIN_VALUE) {
                minFrom = Math.min(minFrom, t.lastSentNanos(c));
            }
            long bound = t.sentNoEarlierThanFrom(c);
            if (bound != Long.MIN_VALUE && t.state(c) == PacketTable.OUTSTANDING) {
                bounded++;
                assertThat(bound).as("seed %d step %d: CSN %d's bound against the send times from it on", seed, step, c)
                        .isLessThanOrEqualTo(minFrom);
            }
        }
        return bounded;
    }
}
