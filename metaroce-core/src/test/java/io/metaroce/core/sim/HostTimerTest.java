package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.api.Transmit;
import io.metaroce.core.sim.fabric.BufferPreset;
import io.metaroce.core.sim.fabric.LinkSpec;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Topologies;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A host's timer: the transport's timeouts run at their exact times, and the network asks the
 * transport for its next timeout only after calling into it (not again at the wake-up itself).
 */
class HostTimerTest {

    /** A transport with a list of timer deadlines and nothing to send; counts the timeout queries. */
    private static final class TimerTransport implements SimTransport {
        private final long[] deadlines;
        private int next;
        private int queries;
        private final List<Long> fired = new ArrayList<>();

        TimerTransport(long... deadlines) {
            this.deadlines = deadlines;
        }

        @Override
        public void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
                Object remoteAddress, int ecn) {
        }

        @Override
        public boolean pollTransmit(long nowNanos, Transmit out) {
            return false;
        }

        @Override
        public long pollTimeoutNanos() {
            queries++;
            return next < deadlines.length ? deadlines[next] : Long.MAX_VALUE;
        }

        @Override
        public void handleTimeout(long nowNanos) {
            while (next < deadlines.length && deadlines[next] <= nowNanos) {
                next++;
            }
            fired.add(nowNanos);
        }
    }

    private static Network twoHosts() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        return new Network(Topologies.leafSpine(1, 1, 2, 1, link, link), 11, 9216);
    }

    @Test
    void timeoutsRunAtTheirTimesAndAreAskedForOncePerCallIntoTheTransport() {
        Network net = twoHosts();
        TimerTransport t = new TimerTransport(1_000, 3_500, 3_501);
        net.attach(0, t);
        net.wake(0);
        net.runUntil(10_000);
        assertThat(t.fired).containsExactly(1_000L, 3_500L, 3_501L);
        // One query when woken; one at the run's first wake-up (work may have been handed over
        // between runs); then one after each of the three timeouts; none at the later wake-ups.
        assertThat(t.queries).isEqualTo(5);
    }

    @Test
    void workHandedOverBetweenRunsIsSeenWithoutAWake() {
        Network net = twoHosts();
        TimerTransport t = new TimerTransport(1_000, 2_000);
        net.attach(0, t);
        net.wake(0);
        net.runUntil(500);
        // Between runs the application moves the first deadline later, without waking the host:
        // the timer armed for 1,000 must ask again and find nothing due until 2,000.
        t.deadlines[0] = 1_500;
        net.runUntil(1_200);
        assertThat(t.fired).isEmpty();
        net.runUntil(10_000);
        assertThat(t.fired).containsExactly(1_500L, 2_000L);
    }
}
