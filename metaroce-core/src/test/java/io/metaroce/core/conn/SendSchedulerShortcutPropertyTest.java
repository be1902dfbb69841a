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
 * {@link SendScheduler#nextWorkToSend}'s single-stream shortcut (the one ready stream looked at in
 * place instead of taken off the round robin's queue and put back) takes the same turns as the
 * rotation it skips ({@link SendScheduler#nextWorkToSendByRotation}). Two schedulers, each with its
 * own streams and work requests, live the same random history: stream messages posted, READ
 * responses queued, requests finished (some out of turn, as an abandoned response is), streams
 * paused and resumed; at every take the two must name the same work request, and at every step
 * they must agree on whether work is waiting and on what a peek would name. Half of the cases use
 * one stream, where the shortcut applies whenever that stream has a packet to send.
 *
 * <p>Each case is generated from its seed; {@code -Dmetaroce.property.cases=N} runs more and a
 * failure names its seed.
 */
class SendSchedulerShortcutPropertyTest {
    static LongStream seeds() {
        return PropertySeeds.of(100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theShortcutTakesTheTurnsOfTheRotation(long seed) {
        SplittableRandom rnd = PropertySeeds.generator(seed, 73);
        int streamCount = rnd.nextBoolean() ? 1 : 1 + rnd.nextInt(5);
        ScheduledWork shortcut = new ScheduledWork(streamCount);
        ScheduledWork rotation = new ScheduledWork(streamCount);
        List<Integer> taken = new ArrayList<>();
        long now = 0;
        int takes = 0;
        int streamTakes = 0;
        for (int step = 0; step < 600 && shortcut.work.hasRoom(); step++) {
            String at = "seed " + seed + ", step " + step;
            switch (rnd.nextInt(9)) {
                case 0, 1 -> {
                    int s = rnd.nextInt(streamCount);
                    int w = shortcut.postMessage(s);
                    assertThat(rotation.postMessage(s)).as("slots, %s", at).isEqualTo(w);
                    taken.add(w);
                }
                case 2 -> {
                    int s = rnd.nextInt(streamCount);
                    int w = shortcut.queueResponse(s);
                    assertThat(rotation.queueResponse(s)).as("slots, %s", at).isEqualTo(w);
                    taken.add(w);
                }
                case 3 -> {
                    if (!taken.isEmpty()) {
                        int w = taken.get(rnd.nextInt(taken.size())); // finished out of turn
                        shortcut.work.allSent[w] = true;
                        rotation.work.allSent[w] = true;
                    }
                }
                case 4 -> {
                    int s = rnd.nextInt(streamCount);
                    long until = now + rnd.nextLong(5_000);
                    shortcut.streams.pausedUntilNanos(s, until);
                    rotation.streams.pausedUntilNanos(s, until);
                }
                default -> {
                    now += rnd.nextLong(2_000);
                    shortcut.scheduler.resumePaused(now);
                    rotation.scheduler.resumePaused(now);
                    int next = shortcut.scheduler.nextWorkToSend(now);
                    assertThat(rotation.scheduler.nextWorkToSendByRotation(now)).as("take, %s", at).isEqualTo(next);
                    takes++;
                    if (next != StreamTable.NONE) {
                        if (shortcut.work.kind[next] != WorkRequests.READ_RESPONSE) {
                            streamTakes++;
                        }
                        if (rnd.nextInt(4) == 0) { // most messages send several packets
                            shortcut.work.allSent[next] = true;
                            shortcut.scheduler.advanceCursor(next);
                            rotation.work.allSent[next] = true;
                            rotation.scheduler.advanceCursor(next);
                        }
                    }
                }
            }
            assertThat(rotation.scheduler.hasWork()).as("work waiting, %s", at).isEqualTo(shortcut.scheduler.hasWork());
            assertThat(rotation.scheduler.peekWork(now)).as("peek, %s", at).isEqualTo(shortcut.scheduler.peekWork(now));
            assertThat(rotation.scheduler.nextResumeNanos()).as("next resume, %s", at)
                    .isEqualTo(shortcut.scheduler.nextResumeNanos());
        }
        assertThat(streamTakes).as("seed %d took stream work", seed).isPositive();
        System.out.println("SendSchedulerShortcutPropertyTest seed " + seed + ": " + streamCount + " streams, " + takes
                + " takes, " + streamTakes + " of stream work");
    }
}
