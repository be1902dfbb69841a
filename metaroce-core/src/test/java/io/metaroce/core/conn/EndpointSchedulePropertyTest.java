package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.harness.NetworkConditions;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.sim.metaroce.MetaroceProtocol;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The endpoint serves only the connections that may have something to do (its ready set and
 * deadline heaps, docs/architecture.md), and must miss none: a missed wake-up is a hang. Two
 * endpoints with many connections between them (opened over time, some with several paths, AIMD
 * with pacing or the fixed window, a lossy, reordering, CE-marking network) run random WRITEs,
 * READs and SENDs on random connections in both directions, pauses, closes and aborts. After every
 * event each endpoint is checked against a brute-force walk of all its connections:
 * <ul>
 *   <li>{@link Endpoint#pollTimeoutNanos} equals the minimum of every connection's next timeout;</li>
 *   <li>once the driver's transmit polls returned false, no connection has anything to send
 *       (each one polled directly at the time of that call sends nothing);</li>
 * </ul>
 * and at the end every work request has completed. With a NIC that takes time per datagram
 * ({@link Pair#nicNanosPerDatagram}), a side is not polled while its NIC is busy, so connections
 * whose next timeout has passed (a due ACK) wait, parked by the endpoint; then the
 * next timeout is still checked after every event, the parked connections must be ready and clean,
 * and once the driver could poll a side until its transmit poll returned false, no connection of
 * it has anything to send.
 */
class EndpointSchedulePropertyTest {
    private static final long US = 1_000;
    private static final int SIZE = 1 << 20;

    @Property(tries = 12)
    void scheduleServesWhatAWalkOfEveryConnectionWould(@ForAll long seed) {
        run(seed, MetaroceProtocol.simulatorConfig(), 0);
    }

    /**
     * The same behind a busy NIC (0.5 to 4 us per datagram, drawn from the seed apart from the
     * run's other draws): connections with an ACK due wait for the NIC, and the
     * endpoint parks them instead of reading them again at every call.
     */
    @Property(tries = 12)
    void parkedConnectionsBehindABusyNicAreServedAsAWalkWould(@ForAll long seed) {
        run(seed, MetaroceProtocol.simulatorConfig(), 500 + new SplittableRandom(~seed).nextLong(3_500));
    }

    /**
     * [SPEC-PATH-10] A poll that sends nothing leaves nothing to send. Seed 2 at 3,766 ns a datagram
     * (AIMD, simulator settings, 2 paths): a SUSPECT path's retransmission queue held only a packet
     * acknowledged since, so no probe was due; the packetizer dropped it and the poll returned false
     * with the probe now due, and the endpoint, which polls a connection again only when it changes
     * or a deadline comes, left it unsent (a direct poll of the connection in slot 20 at t =
     * 5,006,487,220 ns sent the PATH_PROBE). The poll now looks for a due probe again.
     */
    @Example
    void aSuspectPathWhoseQueueHeldOnlyAcknowledgedPacketsIsProbedInTheSamePoll() {
        run(2L, MetaroceProtocol.simulatorConfig(), 3_766);
    }

    /**
     * The direct polls ask at the side's last call, not at the pair's clock: seed -9272 (fixed
     * window, engine defaults, 4 paths, no NIC) has, after an advance of the clock, a DRAINING
     * connection whose ACK came due after the last call (a recheck the driver is not woken for;
     * the next call sends it, as a walk's would).
     */
    @Example
    void theDirectPollsAskAtTheSidesLastCall() {
        run(-9272L, MetaroceProtocol.simulatorConfig(), 0);
    }

    /** Parking happens: with 2 us a datagram, overdue connections are parked (counted over the run). */
    @Example
    void connectionsWaitingForABusyNicAreParked() {
        long parkedSeen = 0;
        for (long seed = 1; seed <= 4; seed++) {
            parkedSeen += run(seed, MetaroceProtocol.simulatorConfig(), 2_000);
        }
        assertThat(parkedSeen).as("checks that found a connection parked").isPositive();
    }

    /**
     * [SPEC-CC-42] on the server: it opens its paths after the first as packets arrive on them, and
     * its controller once counted the ids not open yet among the paths in service, so with two of
     * four paths open and a share of two it gave new data to the two that were not and sent no READ
     * response (109 of 116 work requests completed). Seed 35: AIMD, simulator settings, 4 paths.
     */
    @Example
    void aServerWithPathsNotOpenYetSendsOnThoseThatAre() {
        run(35L, MetaroceProtocol.simulatorConfig().toBuilder().aimdPathsForShareMin(2).build(), 0);
    }

    /**
     * [SPEC-CC-42] on at 1 to 3 (the simulator runs 2) with AIMD and the simulator's settings every
     * time, the runs where the rule decides which paths take new data.
     */
    @Property(tries = 12)
    void withPathsForTheShareTheScheduleServesWhatAWalkWould(@ForAll long seed) {
        int min = 1 + (int) Math.floorMod(seed, 3L);
        run(seed, MetaroceProtocol.simulatorConfig().toBuilder().aimdPathsForShareMin(min).build(), 0, true);
    }

    /**
     * A SUSPECT path with nothing in flight is due a probe at once, and the poll asked about it
     * before the data writer dropped the retransmission queued on that path, already acknowledged
     * through a copy on another path: the poll returned false, so the endpoint stopped serving the
     * connection, with the probe due (a poll of the connection alone sent it). Seed 1534979: 4
     * paths, [SPEC-CC-42] at 3, path 1 SUSPECT at 1.147 ms with its own loss still queued on it.
     */
    @Example
    void aProbeDueOnceTheWriterDropsAnAcknowledgedRetransmissionLeavesInThatPoll() {
        run(1534979L, MetaroceProtocol.simulatorConfig().toBuilder().aimdPathsForShareMin(3).build(), 0, true);
    }

    /** Runs one random scenario; returns how many checks found a parked connection. */
    private static long run(long seed, EngineConfig simulator, long nicNanos) {
        return run(seed, simulator, nicNanos, false);
    }

    /** {@code aimdWithSimulatorSettings}: AIMD and {@code simulator}'s settings whatever the seed draws. */
    private static long run(long seed, EngineConfig simulator, long nicNanos, boolean aimdWithSimulatorSettings) {
        SplittableRandom rnd = new SplittableRandom(seed);
        boolean aimd = rnd.nextBoolean() || aimdWithSimulatorSettings;
        boolean simulatorSettings = rnd.nextBoolean() || aimdWithSimulatorSettings;
        int paths = 1 + rnd.nextInt(4);
        EngineConfig config = simulatorSettings
                ? simulator.toBuilder().receiveCapacityBytesPerSecond(200_000_000L).build()
                : EngineConfig.defaults();
        NetworkConditions net = new NetworkConditions(rnd.nextDouble() * 0.03, rnd.nextDouble() * 0.01, 0,
                2_000 + rnd.nextLong(20_000), rnd.nextLong(3_000), rnd.nextLong(10_000), rnd.nextDouble() * 0.2);
        System.out.println("EndpointSchedulePropertyTest seed " + seed + ": AIMD " + aimd + ", simulator settings "
                + simulatorSettings + ", " + paths + " paths, " + net + ", NIC " + nicNanos + " ns a datagram");
        SplittableRandom phases = new SplittableRandom(seed ^ 0x5DEECE66DL);
        long[] completed = {0};
        Pair pair = Pair.create(seed, paths, net, config, config,
                        aimd ? c -> new AimdController(c, phases.split()) : FixedWindowController::new,
                        aimd ? c -> new AimdController(c, phases.split()) : FixedWindowController::new)
                .onClientCompletion((c, s, w, o, st, b, i, h) -> completed[0]++)
                .onServerCompletion((c, s, w, o, st, b, i, h) -> completed[0]++)
                .nicNanosPerDatagram(nicNanos)
                .connect();
        Endpoint client = pair.client();
        Endpoint server = pair.server();
        MemoryRegion clientMem = TestMemory.region(client, SIZE, Access.ALL, rnd.nextLong());
        MemoryRegion serverMem = TestMemory.region(server, SIZE, Access.ALL, rnd.nextLong());
        List<Connection> opened = new ArrayList<>();
        List<Connection> ended = new ArrayList<>();
        opened.add(pair.clientConnection());
        int[] sockets = new int[paths];
        for (int i = 0; i < paths; i++) {
            sockets[i] = i;
        }
        long parked = 0;
        int target = 8 + rnd.nextInt(40);
        long posted = 0;
        int ops = 100 + rnd.nextInt(200);
        for (int op = 0; op < ops; op++) {
            int what = rnd.nextInt(100);
            if (what < 10 && opened.size() < target) {
                opened.add(client.connect(pair.now(), Pair.SERVER_ADDRESS, sockets));
            } else if (what < 12 && opened.size() > 2) {
                Connection c = opened.remove(rnd.nextInt(opened.size()));
                ended.add(c);
                if (rnd.nextBoolean()) {
                    c.close();
                } else {
                    c.abort();
                }
            } else if (what < 14 && !ended.isEmpty()) {
                // The owner still holds a connection that ended (and its endpoint may have dropped):
                // what it calls on it is refused, and schedules nothing.
                Connection c = ended.get(rnd.nextInt(ended.size()));
                if (rnd.nextBoolean()) {
                    c.close();
                } else {
                    assertThat(c.postWrite(0, op, clientMem, 0, 1, serverMem.remoteKey(), 0))
                            .as("a post on a connection that was closed, seed %d", seed).isNotEqualTo(PostResult.OK);
                }
            } else if (what < 80) {
                Connection c = opened.get(rnd.nextInt(opened.size()));
                if (c.state() == ConnectionState.ESTABLISHED) {
                    long length = 1 + rnd.nextLong(64 * 1024);
                    long offset = rnd.nextLong(SIZE - length);
                    int stream = rnd.nextInt(4);
                    int result = rnd.nextInt(3) == 0
                            ? c.postRead(stream, op, clientMem, offset, length, serverMem.remoteKey(), offset)
                            : c.postWrite(stream, op, clientMem, offset, length, serverMem.remoteKey(), offset);
                    if (result == PostResult.OK) {
                        posted++;
                    }
                }
            } else {
                pair.advance(rnd.nextLong(200 * US));
                parked += check(pair, client, seed) + check(pair, server, seed);
                continue;
            }
            // A few events, each checked.
            int steps = 1 + rnd.nextInt(20);
            for (int i = 0; i < steps && pair.step(); i++) {
                parked += check(pair, client, seed) + check(pair, server, seed);
            }
        }
        // Everything posted completes (a connection closed or aborted completes its work too).
        long deadline = pair.now() + 20_000_000_000L;
        long expected = posted;
        while (completed[0] < expected && pair.now() < deadline && pair.step()) {
            parked += check(pair, client, seed) + check(pair, server, seed);
        }
        assertThat(completed[0]).as("work requests completed, seed %d", seed).isGreaterThanOrEqualTo(expected);
        System.out.println("EndpointSchedulePropertyTest seed " + seed + ": " + parked + " checks found parked connections");
        return parked;
    }

    private static final Transmit SCRATCH = new Transmit(ByteBuffer.allocate(65_536));
    private static final Packet PACKET = new Packet();
    private static final PacketCodec CODEC = new PacketCodec();

    /**
     * The endpoint against a walk of all its connections, right after the driver's polls; returns
     * 1 if it had parked connections.
     */
    private static int check(Pair pair, Endpoint endpoint, long seed) {
        List<Connection> all = endpoint.connectionsForTest();
        long scheduled = endpoint.pollTimeoutNanos();
        assertThat(endpoint.parkingViolationForTest()).as("parking at t=%d, seed %d", pair.now(), seed).isNull();
        int parked = endpoint.parkedForTest() > 0 ? 1 : 0;
        long latest = endpoint.latestNanos();
        long walked = Long.MAX_VALUE;
        for (Connection c : all) {
            walked = Math.min(walked, c.nextTimeoutNanos(latest));
        }
        assertThat(scheduled).as("next timeout at t=%d against a walk of %d connections, seed %d", pair.now(),
                all.size(), seed).isEqualTo(walked);
        if (!pair.polledOut(endpoint)) {
            // Its NIC holds its datagrams back: what it has to send waits (parked, or ready).
            return parked;
        }
        // At the time of the side's last transmit poll (its latest call): after advance() the
        // pair's clock is later, and a connection may have something due since that the driver is
        // not woken for (a DRAINING connection's ACK deadline is a recheck, not a timeout), which the
        // next call serves; seed -9272 without a NIC found one at the pair's time.
        for (Connection c : all) {
            assertThat(c.pollTransmit(latest, SCRATCH, PACKET, CODEC))
                    .as("a connection (slot %d, %s) had something to send the endpoint did not poll, t=%d, seed %d",
                            c.scheduleSlot(), c.state(), latest, seed)
                    .isFalse();
        }
        return parked;
    }
}
