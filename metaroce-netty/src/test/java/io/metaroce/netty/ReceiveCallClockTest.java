package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiveCallClock}, driven with the calls {@link UdpEndpoint} makes: announced receive
 * calls, their datagrams, drives in the middle of a call (every
 * {@link UdpEndpoint#DATAGRAMS_PER_DRIVE} datagrams) and drives after it, from a layer that
 * announces its calls and from one that stops announcing.
 */
class ReceiveCallClockTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    /** A clock that moves on by a random step at each reading and counts its readings. */
    private static final class SteppingClock {
        final SplittableRandom random;
        long nanos = 1_000;
        int readings;

        SteppingClock(SplittableRandom random) {
            this.random = random;
        }

        long read() {
            readings++;
            nanos += 1 + random.nextInt(1_000);
            return nanos;
        }
    }

    @Test
    void oneReadingPerCallMovedUpByADriveInItsMiddleAndEndedByADriveAfterIt() {
        SteppingClock clock = new SteppingClock(new SplittableRandom(1));
        ReceiveCallClock stamps = new ReceiveCallClock(clock::read);
        stamps.callStarted();
        long call = clock.nanos;
        assertThat(stamps.datagramNanos()).isEqualTo(call);
        assertThat(stamps.datagramNanos()).isEqualTo(call);
        assertThat(clock.readings).as("one reading for the call's datagrams").isEqualTo(1);

        long midDrive = clock.read();
        stamps.drove(midDrive, true);
        assertThat(stamps.datagramNanos()).as("the rest of the call at the drive's time").isEqualTo(midDrive);

        long endDrive = clock.read();
        stamps.drove(endDrive, false);
        // The layer stops announcing: its next datagram reads the clock, not the call's stale reading.
        int before = clock.readings;
        long next = stamps.datagramNanos();
        assertThat(clock.readings).isEqualTo(before + 1);
        assertThat(next).isGreaterThan(endDrive);

        // A drive in the middle of unannounced datagrams does not start a reading either.
        stamps.drove(clock.read(), true);
        before = clock.readings;
        stamps.datagramNanos();
        assertThat(clock.readings).isEqualTo(before + 1);
    }

    /**
     * Random sequences of the endpoint's calls, from a layer that announces some calls and not
     * others: a datagram's time never goes back, is never older than the last drive, and comes
     * from its own call's reading (or one drive in its middle), never from a call before.
     */
    @Test
    void aDatagramIsNeverStampedWithAnEarlierCallsReading() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            SteppingClock clock = new SteppingClock(random);
            ReceiveCallClock stamps = new ReceiveCallClock(clock::read);
            long lastStamp = Long.MIN_VALUE;
            long lastDrive = Long.MIN_VALUE;
            for (int call = 0; call < 50; call++) {
                boolean announced = random.nextInt(3) != 0;
                long callStart = clock.nanos;
                if (announced) {
                    stamps.callStarted();
                }
                int datagrams = 1 + random.nextInt(300);
                int sinceDrive = random.nextInt(UdpEndpoint.DATAGRAMS_PER_DRIVE);
                for (int d = 0; d < datagrams; d++) {
                    int readings = clock.readings;
                    long t = stamps.datagramNanos();
                    assertThat(t).as("seed %d call %d datagram %d", seed, call, d).isGreaterThanOrEqualTo(lastStamp)
                            .isGreaterThanOrEqualTo(lastDrive).isGreaterThanOrEqualTo(callStart);
                    assertThat(clock.readings - readings).as("seed %d: a reading only outside an announced call", seed)
                            .isEqualTo(announced ? 0 : 1);
                    lastStamp = t;
                    if (++sinceDrive >= UdpEndpoint.DATAGRAMS_PER_DRIVE) {
                        sinceDrive = 0;
                        lastDrive = clock.read();
                        stamps.drove(lastDrive, true);
                    }
                }
                lastDrive = clock.read();
                stamps.drove(lastDrive, false); // the batch's drive after the call's datagrams
            }
        }
    }
}
