package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.PathState;
import io.metaroce.core.api.PathStats;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.FixedWindowController;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.channel.EventLoopGroup;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real kernel fabric: two hosts in network namespaces joined by two veth links with ECMP on the
 * UDP source port, a MetaRoCE endpoint in each (their event loops moved into the namespaces, so
 * every socket lives there), the Linux datapath reading ECN from real IP headers, and nftables
 * marking, dropping or black-holing one link. Skipped, saying why, where it cannot run (not Linux,
 * not root, no {@code ip} or {@code nft}).
 *
 * <p>Which paths a link carries is the kernel's hash; the tests learn it from the traffic itself:
 * CE marks on a link show up in exactly the paths it carries.
 */
class MultipathFabricTest {
    static {
        LeakRecorder.install();
    }

    private static final int LINKS = 2;
    private static final int PATHS = 12;
    private static final int MESSAGE = 256 << 10;
    private static final long WAIT_SECONDS = 60;

    private TwoHostFabric fabric;
    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Arena arena;
    private UdpEndpoint client;
    private UdpEndpoint server;
    private UdpConnection connection;
    private MemoryRegion source;
    private MemoryRegion target;

    @BeforeAll
    static void onlyWhereNamespacesWork() {
        String why = NetworkNamespaces.whyUnavailable();
        assumeTrue(why == null, () -> "namespace fabric tests skipped: " + why);
    }

    @BeforeEach
    void buildFabric() throws Exception {
        LeakRecorder.clear();
        fabric = new TwoHostFabric(LINKS);
        arena = Arena.ofShared();
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
            if (server != null) {
                server.close();
            }
            for (EventLoopGroup g : groups) {
                g.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
            arena.close();
        } finally {
            fabric.close();
        }
        assertThat(LeakRecorder.collect()).as("Netty buffer leaks").isEmpty();
    }

    private EventLoopGroup loopIn(String namespace) throws Exception {
        EventLoopGroup g = LinuxSocketLayer.INSTANCE.newEventLoopGroup(1);
        groups.add(g);
        g.next().submit(() -> NetworkNamespaces.enter(namespace)).get(10, TimeUnit.SECONDS);
        return g;
    }

    /**
     * Connects host A to host B with {@link #PATHS} paths. The windows are kept well below the
     * socket buffers (1 MiB in flight at most) and the minimum retransmission timeout is raised to
     * 25 ms (the overdue floor to 5 ms), because both hosts share two busy cores with the build: a queue of a window's worth
     * of datagrams waiting for a descheduled receiver must not look like loss. The only losses are
     * then the ones a test makes on purpose.
     */
    private void connect(boolean aimd) throws Exception {
        connect(aimd, false);
    }

    private void connect(boolean aimd, boolean repath) throws Exception {
        connect(aimd, repath, false);
    }

    /**
     * With {@code overPlanes}, each link is a plane: both endpoints bind their two link addresses
     * ({@link UdpEndpoint.Builder#planes}), and path {@code i} runs on plane {@code i mod 2}, from
     * host A's address on that link to host B's, never through the ECMP route.
     */
    private void connect(boolean aimd, boolean repath, boolean overPlanes) throws Exception {
        long window = 1 << 20;
        // Both loss timers are kept well above the scheduling delays of a loaded 2-core host, so
        // that the losses counted are the fabric's, not timers firing on a descheduled receiver.
        EngineConfig config = EngineConfig.builder().congestionWindowBytes(window).minRtoNanos(25_000_000L)
                .overdueFloorNanos(5_000_000L).aimdMaxWindowBytes(window / PATHS).aimdInitialWindowBytes(window / PATHS).build();
        BlockingQueue<UdpConnection> accepted = new LinkedBlockingQueue<>();
        UdpEndpoint.Builder sb = UdpEndpoint.builder().datapath(Datapath.LINUX).eventLoopGroup(loopIn(fabric.b))
                .config(config).listenPort(4791).listening(true).acceptListener(accepted::add);
        UdpEndpoint.Builder cb = UdpEndpoint.builder().datapath(Datapath.LINUX).eventLoopGroup(loopIn(fabric.a))
                .config(config).repathOnFailure(repath);
        if (overPlanes) {
            sb.planes(TwoHostFabric.linkAddressB(0), TwoHostFabric.linkAddressB(1));
            cb.planes(TwoHostFabric.linkAddressA(0), TwoHostFabric.linkAddressA(1));
        } else {
            sb.bindAddress(TwoHostFabric.HOST_B);
            cb.bindAddress(TwoHostFabric.HOST_A);
        }
        // Each test says which controller it needs: AIMD (the default) where it watches the
        // reaction to marks, else a fixed window, so that what it counts (the share of each link,
        // losses charged to paths, failures) does not depend on windows cut on the way.
        sb.congestionController(aimd ? AimdController::new : FixedWindowController::new);
        cb.congestionController(aimd ? AimdController::new : FixedWindowController::new);
        server = sb.build();
        client = cb.build();
        connection = (overPlanes ? client.connect(server.localAddresses(), PATHS)
                : client.connect(new InetSocketAddress(TwoHostFabric.HOST_B, 4791), PATHS))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
    }

    /** WRITEs {@code bytes} of a seeded pattern, {@code depth} messages in flight, and checks every byte. */
    private void transferVerified(long bytes, long seed) throws Exception {
        if (source == null || source.segment().byteSize() < bytes) {
            source = client.register(arena.allocate(bytes), Access.NONE);
            target = server.register(arena.allocate(bytes), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        }
        byte[] pattern = new byte[(int) bytes];
        new SplittableRandom(seed).nextBytes(pattern);
        MemorySegment.copy(pattern, 0, source.segment(), ValueLayout.JAVA_BYTE, 0, pattern.length);
        List<CompletableFuture<Completion>> writes = new ArrayList<>();
        for (long off = 0; off < bytes; off += MESSAGE) {
            long len = Math.min(MESSAGE, bytes - off);
            writes.add(connection.postWrite((int) (off / MESSAGE) % 4, off, source, off, len, target.remoteKey(), off));
        }
        for (CompletableFuture<Completion> w : writes) {
            Completion c = w.get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(c.isSuccess()).as("%s", c).isTrue();
        }
        assertThat(target.segment().asSlice(0, bytes).mismatch(source.segment().asSlice(0, bytes)))
                .as("first differing byte").isEqualTo(-1L);
    }

    private PathStats[] paths() {
        return client.pathStats(connection);
    }

    /** Paths whose data the peer reported mostly CE-marked: the ones on the marking link. */
    private static boolean onMarkedLink(PathStats p) {
        return p.ectReported > 0 && p.ecnFraction() > 0.9;
    }

    private static boolean onClearLink(PathStats p) {
        return p.ectReported > 0 && p.ceReported == 0;
    }

    @Test
    @Timeout(120)
    void trafficSpreadsOverEveryLink() throws Exception {
        connect(false);
        long[] before = new long[LINKS];
        for (int i = 0; i < LINKS; i++) {
            before[i] = fabric.bytesSentOver(i);
        }
        transferVerified(32 << 20, 1);
        long total = 0;
        long[] delta = new long[LINKS];
        for (int i = 0; i < LINKS; i++) {
            delta[i] = fabric.bytesSentOver(i) - before[i];
            total += delta[i];
        }
        assertThat(total).as("bytes over the links").isGreaterThan(32 << 20);
        for (int i = 0; i < LINKS; i++) {
            assertThat(delta[i]).as("bytes over link %d of %d in all (%d paths)", i, total, PATHS)
                    .isGreaterThan(total / (LINKS * 6));
        }
        for (PathStats p : paths()) {
            assertThat(p.packetsSent).as("path %d carried data", p.pathId).isPositive();
        }
    }

    @Test
    @Timeout(120)
    void ceMarksOnOneLinkShowInItsPathsWhichCarryLessWhileNothingIsLost() throws Exception {
        connect(true);
        fabric.markCe(1);
        transferVerified(32 << 20, 2);
        PathStats[] paths = paths();
        long markedBytes = 0;
        long clearBytes = 0;
        int marked = 0;
        int clear = 0;
        for (PathStats p : paths) {
            if (onMarkedLink(p)) {
                marked++;
                markedBytes += p.bytesSent;
            } else if (onClearLink(p)) {
                clear++;
                clearBytes += p.bytesSent;
            }
        }
        assertThat(marked + clear).as("every path is clearly on one link: %s", (Object) paths).isEqualTo(PATHS);
        assertThat(marked).as("paths hashed onto the marking link").isPositive();
        assertThat(clear).as("paths hashed onto the clear link").isPositive();
        double markedShare = (double) markedBytes / marked;
        double clearShare = (double) clearBytes / clear;
        assertThat(markedShare).as("bytes per marked path vs per clear path").isLessThan(clearShare * 0.5);
        // Were marks taken for losses, every packet over the marking link would be resent, marked
        // again and resent again: the transfer would not end, and retransmissions would outnumber
        // first transmissions. A timer that fires because a loaded host descheduled the receiver
        // (a timeout, or an overdue verdict, [SPEC-LOSS-7]) may resend a window's worth on any
        // path, no more.
        for (PathStats p : paths) {
            if (onMarkedLink(p)) {
                assertThat(p.retransmissions).as("marks are not losses: %s", p).isLessThan(p.packetsSent / 2);
                assertThat(p.losses).as("losses only from timers: %s", p).isLessThanOrEqualTo(
                        (p.timeouts + p.overdue) * (window() / 4096 + 1));
            }
        }
    }

    private long window() {
        return client.config().aimdMaxWindowBytes();
    }

    @Test
    @Timeout(120)
    void tenPercentDropOnOneLinkIsChargedToItsPathsLosses() throws Exception {
        connect(false);
        fabric.markCe(1); // only to tell which paths link 1 carries; the fixed window ignores marks
        fabric.dropOneIn(1, 10);
        transferVerified(32 << 20, 3);
        long lossyLosses = 0;
        long lossySent = 0;
        long cleanLosses = 0;
        long cleanSent = 0;
        for (PathStats p : paths()) {
            if (onMarkedLink(p)) {
                lossyLosses += p.losses;
                lossySent += p.packetsSent;
            } else {
                cleanLosses += p.losses;
                cleanSent += p.packetsSent;
            }
        }
        assertThat(lossySent).as("paths on the lossy link carried data").isPositive();
        double lossyRate = (double) lossyLosses / lossySent;
        double cleanRate = cleanSent == 0 ? 0 : (double) cleanLosses / cleanSent;
        assertThat(lossyRate).as("fraction of the lossy link's transmissions declared lost").isGreaterThan(0.03);
        // Timers that fire on a loaded host add a little everywhere; the drops add only to link 1.
        assertThat(lossyRate).as("losses on lossy paths (%d of %d) vs clean ones (%d of %d); %s; %s",
                lossyLosses, lossySent, cleanLosses, cleanSent, fabric.rules(), Arrays.toString(paths()))
                .isGreaterThan(3 * cleanRate);
    }

    /** The ids of the paths that link {@code link} carries, learnt from a short CE-marked transfer. */
    private Set<Integer> pathsOverLink(int link) throws Exception {
        fabric.markCe(link);
        transferVerified(4 << 20, 40 + link);
        fabric.clearRules();
        Set<Integer> ids = new TreeSet<>();
        for (PathStats p : paths()) {
            if (p.ceReported > 0) {
                ids.add(p.pathId);
            }
        }
        assertThat(ids).as("paths hashed onto link %d", link).isNotEmpty().hasSizeLessThan(PATHS);
        return ids;
    }

    /**
     * Keeps verified transfers of 8 MiB going, one after another, until {@code stop} is set; the
     * future fails if any byte of any of them is wrong.
     */
    private CompletableFuture<Integer> pumpUntil(AtomicBoolean stop, long firstSeed) {
        return CompletableFuture.supplyAsync(() -> {
            int transfers = 0;
            try {
                while (!stop.get()) {
                    transferVerified(8 << 20, firstSeed + transfers++);
                }
            } catch (Exception e) {
                throw new CompletionException(e);
            }
            return transfers;
        });
    }

    /** Waits until {@code condition} holds for the client's paths; fails naming {@code what} otherwise. */
    private void awaitPaths(String what, Predicate<PathStats[]> condition, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        PathStats[] p = paths();
        while (!condition.test(p)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " within " + seconds + " s; paths: " + Arrays.toString(p));
            }
            Thread.sleep(10);
            p = paths();
        }
    }

    /** Waits until every path has carried data again, stops the pump and checks every transfer verified. */
    private void awaitEveryPathCarryingDataThenStop(AtomicBoolean stop, CompletableFuture<Integer> traffic)
            throws Exception {
        long[] sentBack = Arrays.stream(paths()).mapToLong(p -> p.packetsSent).toArray();
        awaitPaths("every path carrying data again", p -> Arrays.stream(p)
                .allMatch(x -> x.packetsSent > sentBack[x.pathId] + 10), 20);
        stop.set(true);
        assertThat(traffic.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("transfers, each verified byte for byte")
                .isPositive();
    }

    private static boolean allActive(PathStats[] paths) {
        return Arrays.stream(paths).allMatch(p -> p.state == PathState.ACTIVE);
    }

    @Test
    @Timeout(120)
    void aBlackHoledLinkFailsItsPathsTheTransferMovesAndThePathsAreProbedBackWhenItReturns() throws Exception {
        connect(false, false);
        Set<Integer> onLink1 = pathsOverLink(1);
        long[] sentBefore = Arrays.stream(paths()).mapToLong(p -> p.packetsSent).toArray();

        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Integer> traffic = pumpUntil(stop, 100);
        awaitPaths("traffic on every path", p -> Arrays.stream(p).allMatch(x -> x.packetsSent > sentBefore[x.pathId]),
                20);
        fabric.blackHole(1);
        awaitPaths("the black-holed link's paths out of service, the others in service", p -> Arrays.stream(p)
                .allMatch(x -> onLink1.contains(x.pathId) != PathState.inService(x.state)), 20);
        long[] sentWhileDown = Arrays.stream(paths()).mapToLong(p -> p.packetsSent).toArray();
        awaitPaths("traffic going on over link 0", p -> Arrays.stream(p)
                .filter(x -> !onLink1.contains(x.pathId)).allMatch(x -> x.packetsSent > sentWhileDown[x.pathId] + 100),
                20);

        fabric.clearRules();
        awaitPaths("every path probed back into service", MultipathFabricTest::allActive, 20);
        awaitEveryPathCarryingDataThenStop(stop, traffic);
        for (PathStats p : paths()) {
            if (onLink1.contains(p.pathId)) {
                assertThat(p.failures).as("path %d failed while its link was black-holed", p.pathId).isPositive();
            }
        }
        assertThat(client.stats().pathsRepathed()).as("repathing was off").isZero();
    }

    @Test
    @Timeout(120)
    void withRepathingFailedPathsMoveToNewSourcePortsAndComeBackWhileTheirLinkIsStillDown() throws Exception {
        connect(false, true);
        Set<Integer> onLink1 = pathsOverLink(1);
        int[] portsBefore = connection.stats().localSocketPorts();

        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Integer> traffic = pumpUntil(stop, 200);
        fabric.blackHole(1);
        awaitPaths("the black-holed link's paths declared failed", p -> Arrays.stream(p)
                .filter(x -> onLink1.contains(x.pathId)).allMatch(x -> x.failures > 0), 20);
        // Link 1 stays black-holed: paths back in service must have moved to ports hashed onto link 0.
        awaitPaths("every path back in service while link 1 is still down", MultipathFabricTest::allActive, 30);
        awaitEveryPathCarryingDataThenStop(stop, traffic);
        int[] portsAfter = connection.stats().localSocketPorts();
        for (int id : onLink1) {
            assertThat(portsAfter[id]).as("path %d moved to a new source port", id).isNotEqualTo(portsBefore[id]);
        }
        assertThat(client.stats().pathsRepathed()).isGreaterThanOrEqualTo(onLink1.size());
    }

    /**
     * R-PATH-3 over real sockets: losing a plane is path failure on that plane's paths. Link 1,
     * plane 1, is black-holed mid-transfer: its paths (the odd ones) go out of service, the
     * transfers go on over plane 0 with every byte verified, and when the plane returns its paths
     * are probed back and carry data again. Repathing is off: a fresh source port cannot leave a
     * plane.
     */
    @Test
    @Timeout(120)
    void losingAPlaneTakesItsPathsOutOfServiceAndTheTransfersGoOnOverTheOther() throws Exception {
        connect(false, false, true);
        for (PathStats p : paths()) {
            InetSocketAddress to = (InetSocketAddress) p.remoteAddress;
            assertThat(to.getAddress()).as("path %d runs on plane %d", p.pathId, p.pathId % 2)
                    .isEqualTo(TwoHostFabric.linkAddressB(p.pathId % 2));
        }
        long[] sentBefore = Arrays.stream(paths()).mapToLong(p -> p.packetsSent).toArray();
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Integer> traffic = pumpUntil(stop, 300);
        awaitPaths("traffic on every path", p -> Arrays.stream(p).allMatch(x -> x.packetsSent > sentBefore[x.pathId]),
                20);
        long plane0BytesBefore = fabric.bytesSentOver(0);
        fabric.blackHole(1);
        awaitPaths("plane 1's paths out of service, plane 0's in service", p -> Arrays.stream(p)
                .allMatch(x -> (x.pathId % 2 == 1) != PathState.inService(x.state)), 20);
        long[] sentWhileDown = Arrays.stream(paths()).mapToLong(p -> p.packetsSent).toArray();
        awaitPaths("traffic going on over plane 0", p -> Arrays.stream(p)
                .filter(x -> x.pathId % 2 == 0).allMatch(x -> x.packetsSent > sentWhileDown[x.pathId] + 100), 20);
        assertThat(fabric.bytesSentOver(0)).as("bytes over plane 0's link").isGreaterThan(plane0BytesBefore);

        fabric.clearRules();
        awaitPaths("plane 1's paths probed back into service", MultipathFabricTest::allActive, 20);
        awaitEveryPathCarryingDataThenStop(stop, traffic);
        for (PathStats p : paths()) {
            if (p.pathId % 2 == 1) {
                assertThat(p.failures).as("path %d failed while its plane was down", p.pathId).isPositive();
            } else {
                assertThat(p.failures).as("path %d, on the plane that stayed up", p.pathId).isZero();
            }
        }
    }
}
