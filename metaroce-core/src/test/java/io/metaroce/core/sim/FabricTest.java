package io.metaroce.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.sim.fabric.BufferPreset;
import io.metaroce.core.sim.fabric.EcnMarking;
import io.metaroce.core.sim.fabric.LinkSpec;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Topologies;
import io.metaroce.core.sim.workload.RawTransport;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The fabric model: serialization, queues, marking, ECMP, failures, with protocol-free traffic. */
class FabricTest {
    /** 4034-byte datagrams are 4100 bytes on the wire: exactly 328 ns at 100 Gbit/s. */
    private static final int EXACT_DATAGRAM = 4034;
    private static final long SLOT = 328;

    private static RawTransport[] attachRaw(Network net) {
        RawTransport[] t = new RawTransport[net.hostCount()];
        for (int h = 0; h < t.length; h++) {
            t[h] = new RawTransport();
            net.attach(h, t[h]);
        }
        return t;
    }

    @Test
    void serializationAndPropagationTimingIsExact() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        Network net = new Network(Topologies.leafSpine(1, 1, 2, 1, link, link), 7, 9216);
        RawTransport[] t = attachRaw(net);
        int m = 50;
        t[0].sendTo(net.address(1, 0), EXACT_DATAGRAM, m, 1);
        net.wake(0);
        net.runUntil(1_000_000L);
        assertThat(t[1].received()).isEqualTo(m);
        // Packet i leaves the sender's NIC at (i+1)*328, reaches the leaf 500 later, leaves it 328 later, lands 500 later.
        assertThat(t[1].firstArrivalNanos()).isEqualTo(2 * SLOT + 1_000);
        assertThat(t[1].lastArrivalNanos()).isEqualTo((m + 1) * SLOT + 1_000);
    }

    @Test
    void aSlowerLinkPacesArrivalsAtItsRateToTheNanosecond() {
        // 25 Gbit/s: 320 ps per byte; 1000-byte datagrams are 1066 wire bytes = 341.12 ns each.
        LinkSpec fast = LinkSpec.of(100, 0, BufferPreset.DEEP);
        LinkSpec slow = LinkSpec.of(25, 0, BufferPreset.DEEP);
        Network net = new Network(Topologies.leafSpine(2, 1, 1, 1, fast, slow), 3, 9216);
        RawTransport[] t = attachRaw(net);
        int m = 1_000;
        t[0].sendTo(net.address(1, 0), 1_000, m, 1);
        net.wake(0);
        net.runUntil(10_000_000L);
        assertThat(t[1].received()).isEqualTo(m);
        double span = (m - 1) * 341.12;
        assertThat((double) (t[1].lastArrivalNanos() - t[1].firstArrivalNanos())).isBetween(span - 1, span + 1);
    }

    @Test
    void aSwitchPortTailDropsAtItsBufferAndMarksAboveK() {
        // Two senders on one leaf send m packets each to a third host on the same leaf, in lockstep:
        // a pair arrives every slot and the port to the receiver sends one per slot.
        long frame = EXACT_DATAGRAM + Network.FRAME_OVERHEAD_BYTES;
        long buffer = 10 * frame;
        long k = 4 * frame;
        LinkSpec link = new LinkSpec(100, 500, buffer, EcnMarking.threshold(k));
        Network net = new Network(Topologies.leafSpine(1, 1, 3, 1, link, link), 11, 9216);
        RawTransport[] t = attachRaw(net);
        int m = 40;
        t[0].sendTo(net.address(2, 0), EXACT_DATAGRAM, m, 1);
        t[1].sendTo(net.address(2, 0), EXACT_DATAGRAM, m, 1);
        net.wake(0);
        net.wake(1);
        net.runUntil(1_000_000L);

        // Reference: at slot i, i packets have left, so the queue holds accepted - i before the pair.
        long accepted = 0;
        long drops = 0;
        long marks = 0;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < 2; j++) {
                long q = (accepted - i) * frame;
                if (q + frame > buffer) {
                    drops++;
                } else {
                    if (q >= k) {
                        marks++;
                    }
                    accepted++;
                }
            }
        }
        int port = net.lastHopPort(2, 0);
        assertThat(drops).isPositive();
        assertThat(net.portTailDrops(port)).isEqualTo(drops);
        assertThat(net.portMarks(port)).isEqualTo(marks);
        assertThat(t[2].received()).isEqualTo(2L * m - drops);
        assertThat(t[2].receivedCe()).isEqualTo(marks);
        assertThat(net.tailDrops()).isEqualTo(drops);
        assertThat(net.marks()).isEqualTo(marks);
    }

    @Test
    void redMarkingIsProbabilisticBetweenItsThresholds() {
        long frame = EXACT_DATAGRAM + Network.FRAME_OVERHEAD_BYTES;
        LinkSpec link = new LinkSpec(100, 500, 1L << 30, EcnMarking.red(2 * frame, 30 * frame, 0.5));
        Network net = new Network(Topologies.leafSpine(1, 1, 3, 1, link, link), 5, 9216);
        RawTransport[] t = attachRaw(net);
        t[0].sendTo(net.address(2, 0), EXACT_DATAGRAM, 40, 1);
        t[1].sendTo(net.address(2, 0), EXACT_DATAGRAM, 40, 1);
        net.wake(0);
        net.wake(1);
        net.runUntil(1_000_000L);
        // Queue reaches 40 frames: at least everything from 30 frames on is marked, not everything from 2 on.
        long marks = net.portMarks(net.lastHopPort(2, 0));
        assertThat(marks).isGreaterThanOrEqualTo(20).isLessThan(78);
        assertThat(t[2].received()).isEqualTo(80);
    }

    @Test
    void ecmpSpreadsSourcePortsOverSpinesAndKeepsEachTupleOnOneRoute() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        Network net = new Network(Topologies.leafSpine(2, 4, 2, 1, link, link), 99, 9216);
        int[] perSpine = new int[net.nodeCount()];
        for (int socket = 1; socket <= 256; socket++) {
            int[] route = net.trace(0, socket, 3, 0);
            assertThat(route).hasSize(4); // host->leaf, leaf->spine, spine->leaf, leaf->host
            assertThat(net.portPeerNode(route[route.length - 1])).isEqualTo(3);
            perSpine[net.portPeerNode(route[1])]++;
            assertThat(net.trace(0, socket, 3, 0)).isEqualTo(route);
        }
        Set<Integer> used = new HashSet<>();
        for (int n = 0; n < perSpine.length; n++) {
            if (perSpine[n] > 0) {
                assertThat(net.nodeName(n)).startsWith("spine");
                assertThat(perSpine[n]).as("spine %s", net.nodeName(n)).isBetween(32, 96); // 64 expected each
                used.add(n);
            }
        }
        assertThat(used).hasSize(4);

        // Real packets follow the traced routes: count them on the leaf's uplinks.
        RawTransport[] t = attachRaw(net);
        t[0].sendTo(net.address(3, 0), 1_000, 64, 1, 2, 3, 4, 5, 6, 7, 8);
        net.wake(0);
        net.runUntil(1_000_000L);
        long[] expected = new long[2 * net.linkCount()];
        for (int socket = 1; socket <= 8; socket++) {
            expected[net.trace(0, socket, 3, 0)[1]] += 8;
        }
        for (int p = 0; p < expected.length; p++) {
            if (net.portNode(p) == net.portNode(net.trace(0, 1, 3, 0)[1])) {
                assertThat(net.portTxPackets(p)).as(net.portName(p)).isEqualTo(expected[p]);
            }
        }
        assertThat(t[3].received()).isEqualTo(64);
    }

    @Test
    void differentSaltsGiveDifferentRoutes() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        Network a = new Network(Topologies.leafSpine(2, 4, 2, 1, link, link), 1, 9216);
        Network b = new Network(Topologies.leafSpine(2, 4, 2, 1, link, link), 2, 9216);
        int differ = 0;
        for (int socket = 1; socket <= 64; socket++) {
            if (a.trace(0, socket, 3, 0)[1] != b.trace(0, socket, 3, 0)[1]) {
                differ++;
            }
        }
        assertThat(differ).isPositive();
    }

    @Test
    void aFailedLinkBlackHolesExactlyTheFlowsHashedOnItUntilWithdrawn() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        Network net = new Network(Topologies.leafSpine(2, 4, 1, 1, link, link), 42, 9216);
        RawTransport[] t = attachRaw(net);
        int[] sockets = new int[16];
        for (int i = 0; i < sockets.length; i++) {
            sockets[i] = i + 1;
        }
        int victim = net.trace(0, 1, 1, 0)[1] / 2; // the leaf-spine link socket 1 hashes onto
        boolean[] hashedOnVictim = new boolean[sockets.length + 1];
        int onVictim = 0;
        for (int s : sockets) {
            hashedOnVictim[s] = net.trace(0, s, 1, 0)[1] / 2 == victim;
            onVictim += hashedOnVictim[s] ? 1 : 0;
        }
        assertThat(onVictim).isBetween(1, 15);
        net.failLink(victim, 0, 200_000L);
        t[0].sendTo(net.address(1, 0), 1_000, 16 * 100, sockets);
        net.wake(0);
        net.runUntil(190_000L); // all sent (136 us at line rate) and landed before the withdrawal
        for (int s : sockets) {
            assertThat(t[1].receivedFromSocket(s)).as("socket %d", s).isEqualTo(hashedOnVictim[s] ? 0 : 100);
        }
        assertThat(net.blackholeDrops()).isEqualTo(100L * onVictim);

        net.runUntil(300_000L); // withdrawn: the same tuples now hash over the remaining spines
        t[0].sendTo(net.address(1, 0), 1_000, 16 * 200, sockets);
        net.wake(0);
        net.runUntil(500_000L);
        for (int s : sockets) {
            assertThat(t[1].receivedFromSocket(s)).as("socket %d victim %s drops %d/%d", s, hashedOnVictim[s], net.tailDrops(), net.blackholeDrops()).isEqualTo(hashedOnVictim[s] ? 100 : 200);
            assertThat(net.trace(0, s, 1, 0)[1] / 2).isNotEqualTo(victim);
        }
    }

    @Test
    void randomLossDropsAboutTheGivenShareAndIsCounted() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        Network net = new Network(Topologies.leafSpine(1, 1, 2, 1, link, link), 8, 9216);
        RawTransport[] t = attachRaw(net);
        net.setLossEverywhere(0.1);
        t[0].sendTo(net.address(1, 0), 1_000, 10_000, 1);
        net.wake(0);
        net.runUntil(10_000_000L);
        assertThat(t[1].received() + net.lossDrops()).isEqualTo(10_000);
        // Two links crossed: 1 - 0.9^2 = 19% lost.
        assertThat(net.lossDrops()).isBetween(1_700L, 2_100L);
    }

    @Test
    void eachPlaneCarriesThePathsWhosePortsMapToIt() {
        LinkSpec link = LinkSpec.of(100, 500, BufferPreset.DEEP);
        Network net = new Network(Topologies.fatTree(4, 4, link), 5, 9216);
        assertThat(net.planes()).isEqualTo(4);
        for (int socket = 1; socket <= 8; socket++) {
            int plane = net.planeOf(socket, 0);
            int[] route = net.trace(0, socket, 15, 0);
            for (int p : route) {
                assertThat(net.portPlane(p)).isEqualTo(plane);
            }
            assertThat(net.planeOf(0, socket)).as("answers travel the same plane").isEqualTo(plane);
        }
        RawTransport[] t = attachRaw(net);
        net.degradePlane(1, 0, 1.0, 0);
        t[0].sendTo(net.address(15, 0), 1_000, 400, 1, 2, 3, 4);
        net.wake(0);
        net.runUntil(1_000_000L);
        assertThat(t[15].received()).isEqualTo(400);
        assertThat(t[15].receivedCe()).isEqualTo(100); // the quarter that took plane 1
        for (int pl = 0; pl < 4; pl++) {
            assertThat(net.portTxPackets(net.hostPort(0, pl))).isEqualTo(100);
        }
    }
}
