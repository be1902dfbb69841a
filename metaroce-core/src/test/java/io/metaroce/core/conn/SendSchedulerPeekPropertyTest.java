package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SendScheduler#peekWork}: at any moment it names the work request the next
 * {@link SendScheduler#nextWorkToSend} returns (the length of the first packet told to the
 * congestion controller [SPEC-CC-16] is that request's), and peeking changes nothing. Random
 * histories post stream messages and queue READ responses, finish requests (some while still
 * queued, as an abandoned response is), pause and resume streams; before every take the peek is
 * asked twice and must match the take.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} runs more and a
 * failure names its seed.
 */
class SendSchedulerPeekPropertyTest {
    static LongStream seeds() {
        return PropertySeeds.of(100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aPeekNamesTheWorkTheNextTakeReturns(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 71);
        int streamCount = 1 + rnd.nextInt(5);
        ScheduledWork tables = new ScheduledWork(streamCount);
        StreamTable streams = tables.streams;
        WorkRequests work = tables.work;
        SendScheduler scheduler = tables.scheduler;
        List<Integer> taken = new ArrayList<>();
        long now = 0;
        int responsesTaken = 0;
        int checks = 0;
        for (int step = 0; step < 400 && work.hasRoom(); step++) {
            String at = "seed " + seed + ", step " + step;
            switch (rnd.nextInt(7)) {
                case 0, 1 -> taken.add(tables.postMessage(rnd.nextInt(streamCount)));
                case 2 -> taken.add(tables.queueResponse(rnd.nextInt(streamCount)));
                case 3 -> {
                    if (!taken.isEmpty()) {
                        work.allSent[taken.get(rnd.nextInt(taken.size()))] = true; // finished out of turn
                    }
                }
                case 4 -> streams.pausedUntilNanos(rnd.nextInt(streamCount), now + rnd.nextLong(5_000));
                default -> {
                    now += rnd.nextLong(2_000);
                    scheduler.resumePaused(now);
                    int peeked = scheduler.peekWork(now);
                    assertThat(scheduler.peekWork(now)).as("peeked twice, %s", at).isEqualTo(peeked);
                    int next = scheduler.nextWorkToSend(now);
                    assertThat(peeked).as("peek against take, %s", at).isEqualTo(next);
                    checks++;
                    if (next != StreamTable.NONE) {
                        if (work.kind[next] == WorkRequests.READ_RESPONSE) {
                            responsesTaken++;
                        }
                        if (rnd.nextBoolean()) {
                            work.allSent[next] = true;
                            scheduler.advanceCursor(next);
                        }
                    }
                }
            }
        }
        assertThat(checks).as("seed %d checked", seed).isPositive();
        assertThat(responsesTaken).as("seed %d took READ responses", seed).isPositive();
        System.out.println("SendSchedulerPeekPropertyTest seed " + seed + ": " + checks + " checks, "
                + responsesTaken + " READ responses taken");
    }
}
