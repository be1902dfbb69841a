package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.api.CompletionHandler;
import io.metaroce.core.api.CompletionQueue;
import io.metaroce.core.api.ConnectionListener;
import io.metaroce.core.api.PeerAddressCodec;
import io.metaroce.core.api.Transmit;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.memory.ProtectionDomain;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Objects;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * A MetaRoCE endpoint as a sans-IO state machine: it owns connections, finds them by connection
 * id (never by address: source ports change by design), runs the handshake with anti-spoofing
 * cookies, and turns datagrams and time into datagrams, timers, completions and events.
 *
 * <p>The driver (the UDP datapath, the simulator, the test harness) calls, on one thread:
 * <ol>
 *   <li>inputs: {@link #handleDatagram} for each received datagram, {@link #handleTimeout} when
 *       the time from {@link #pollTimeoutNanos} has come;</li>
 *   <li>then outputs, in this order: {@link #pollTransmit} until it returns false,
 *       {@link #pollTimeoutNanos}, {@link #pollCompletions} and {@link #pollEvents}.</li>
 * </ol>
 * Time is a {@code long} of nanoseconds that the driver passes in; the engine never reads a
 * clock, opens a socket or starts a thread.
 *
 * <p>Not thread-safe: one thread owns an endpoint and all its connections.
 */
public final class Endpoint {
    private static final int CHALLENGE_QUEUE = 64;

    private final EngineConfig config;
    private final RandomGenerator random;
    private final ProtectionDomain protectionDomain;
    private final CookieAuthority cookies;
    private final boolean listening;
    private final Function<EngineConfig, CongestionController> congestionControllerFactory;
    private final PacketCodec codec = new PacketCodec();
    private final Packet rx = new Packet();
    private final Packet tx = new Packet();
    private final CompletionQueue completions;
    private final EndpointStats stats = new EndpointStats();
    private final FairShareAllocator fairShare;

    private final Long2ObjectHashMap<Connection> connections = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Connection> acceptedByClientId = new Long2ObjectHashMap<>();
    /**
     * Client ids of accepted connections that ended within the last cookie lifetime, with the time
     * they ended: a cookie issued before that time cannot open the connection again.
     */
    private final org.agrona.collections.Long2LongHashMap recentlyClosedClients =
            new org.agrona.collections.Long2LongHashMap(8, 0.65f, Long.MIN_VALUE);
    /** Time of the latest input, for bookkeeping done outside an input's own call. */
    private long latestNanos;
    /** The open connections; a connection's index here is its slot in the schedule below. */
    private final ArrayList<Connection> connectionList = new ArrayList<>();
    private final ConnectionEvents events = new ConnectionEvents();
    /** Round-robin position of {@link #pollTransmit}: the slot it asks first. */
    private int transmitCursor;
    // ---- The schedule (see "How the endpoint schedules connections" in docs/architecture.md) ----
    // The driver's calls touch only the connections that may have something to do, found in
    // these four structures, instead of walking every connection on every call; what they skip
    // is exactly what a walk would have found idle, so the order connections are served in (slot
    // order for timers and deadlines, round robin for transmits) is that of a walk.
    /**
     * Slots that may have something to send: a connection enters on every change (an input for
     * it, a command, a timer run, a deadline passed) and leaves when a transmit poll finds
     * nothing to send.
     */
    private final IndexSet ready = new IndexSet();
    /** Slots whose deadlines may have changed since {@link #pollTimeoutNanos} last read them. */
    private final IndexSet dirty = new IndexSet();
    /**
     * Each clean slot keyed by its connection's next timeout ({@code Connection#nextTimeoutNanos}),
     * or, for a parked slot (see {@link #overdue}), by the time it must be looked at again.
     */
    private final DeadlineHeap wakeups = new DeadlineHeap();
    /**
     * The parked slots, each keyed by its connection's next timeout, which has passed: a clean
     * connection with an ACK due (its pacing term is always later than the latest call) that waits
     * for the driver's transmit poll, which a driver whose NIC is busy does not make. A walk of
     * every connection would find the same next timeout for it at every call until it changes (only
     * its pacing term moves with time, and that is later), so it is read again only when it
     * changes, is polled, or its {@code Connection#overdueRecheckNanos} comes (its key in {@link
     * #wakeups} meanwhile); until then it is ready, as the walk would serve it at every call.
     * Without parking it was released, read again and put back at every call: the walk's cost
     * again, for every overdue connection of a busy host.
     */
    private final DeadlineHeap overdue = new DeadlineHeap();
    /**
     * Each clean slot keyed by the time a poll of its connection could next do something that is
     * not a wake-up ({@code Connection#recheckNanos}): not reported to the driver, but the first
     * call at or after it serves the connection as a walk of every connection would have.
     */
    private final DeadlineHeap rechecks = new DeadlineHeap();
    /** The earlier of the two heaps' minima: a call before it has nothing to release (one compare). */
    private long nextReleaseNanos = Long.MAX_VALUE;
    /**
     * The connection the last packet went to, and its id ({@code lastConnection} null: none): a
     * connection's packets come in runs, and a hash lookup per packet showed in the receive path.
     * Cleared whenever a connection leaves {@link #connections}.
     */
    private Connection lastConnection;
    private long lastConnectionId;
    private boolean sweepNeeded;
    private int outstandingWork;

    private final Object[] challengeAddress = new Object[CHALLENGE_QUEUE];
    private final int[] challengeSocket = new int[CHALLENGE_QUEUE];
    private final long[] challengeClientId = new long[CHALLENGE_QUEUE];
    private final long[] challengeIssuedAt = new long[CHALLENGE_QUEUE];
    private int challengeHead;
    private int challengeCount;

    private Endpoint(Builder b) {
        this.config = b.config;
        this.random = b.random;
        this.protectionDomain = new ProtectionDomain(b.random);
        this.cookies = new CookieAuthority(b.cookieSecret, b.addressCodec, b.config.cookieLifetimeNanos());
        this.listening = b.listening;
        this.congestionControllerFactory = b.congestionControllerFactory;
        this.completions = new CompletionQueue(b.config.completionQueueCapacity());
        this.fairShare = new FairShareAllocator(b.config, 0);
    }

    /** A builder; {@code random} seeds connection ids and memory keys, so a seeded one makes runs repeatable. */
    public static Builder builder(RandomGenerator random, byte[] cookieSecret, PeerAddressCodec addressCodec) {
        return new Builder(random, cookieSecret, addressCodec);
    }

    // ---- getters ----

    /** The configuration. */
    public EngineConfig config() {
        return config;
    }

    /** The protection domain every memory region used on this endpoint's connections is registered in. */
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    /** Counters. */
    public EndpointStats stats() {
        return stats;
    }

    /** Whether this endpoint accepts incoming connections. */
    public boolean isListening() {
        return listening;
    }

    /** The connection with local id {@code localId}, or null. */
    public Connection connection(long localId) {
        return connections.get(localId);
    }

    /** Open connections (every state but CLOSED). */
    public int connectionCount() {
        return connections.size();
    }

    Function<EngineConfig, CongestionController> congestionControllerFactory() {
        return congestionControllerFactory;
    }

    // ---- commands ----

    /**
     * Starts a connection to {@code remoteAddress} with one path per entry of {@code localSockets}
     * (the driver's ids of the sockets, one per UDP source port). The connection is usable once
     * {@link ConnectionListener#onConnected} reports it.
     */
    public Connection connect(long nowNanos, Object remoteAddress, int[] localSockets) {
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        Object[] perPath = new Object[localSockets == null ? 0 : localSockets.length];
        java.util.Arrays.fill(perPath, remoteAddress);
        return connect(nowNanos, perPath, localSockets);
    }

    /**
     * Starts a connection whose path {@code i} goes from local socket {@code localSockets[i]} to
     * {@code remoteAddresses[i]}: for fabrics with several planes, where the peer has an address
     * on each plane. The handshake runs on path 0. Otherwise as {@link #connect(long, Object, int[])}.
     */
    public Connection connect(long nowNanos, Object[] remoteAddresses, int[] localSockets) {
        Objects.requireNonNull(remoteAddresses, "remoteAddresses");
        if (localSockets != null && remoteAddresses.length != localSockets.length) {
            throw new IllegalArgumentException("connect needs one remote address per local socket, got "
                    + remoteAddresses.length + " addresses for " + localSockets.length + " sockets");
        }
        for (int i = 0; i < remoteAddresses.length; i++) {
            Objects.requireNonNull(remoteAddresses[i], "remoteAddresses[" + i + "]");
        }
        if (localSockets == null || localSockets.length == 0 || localSockets.length > config.maxPaths()) {
            throw new IllegalArgumentException("connect needs 1 to " + config.maxPaths()
                    + " local sockets (one per path), got " + (localSockets == null ? "null" : localSockets.length));
        }
        if (connections.size() >= config.maxConnections()) {
            throw new IllegalStateException("endpoint holds " + connections.size()
                    + " connections, the limit (EngineConfig.maxConnections); close some first");
        }
        Connection c = new Connection(this, newConnectionId(), true, localSockets.length, nowNanos);
        for (int i = 0; i < localSockets.length; i++) {
            c.addPath(i, localSockets[i], remoteAddresses[i]);
        }
        register(c, nowNanos);
        return c;
    }

    private long newConnectionId() {
        long id;
        do {
            id = random.nextLong();
        } while (id == 0 || connections.containsKey(id));
        return id;
    }

    private void register(Connection c, long nowNanos) {
        connections.put(c.localId(), c);
        int slot = connectionList.size();
        connectionList.add(c);
        ready.ensureCapacity(slot + 1);
        dirty.ensureCapacity(slot + 1);
        wakeups.ensureCapacity(slot + 1);
        rechecks.ensureCapacity(slot + 1);
        overdue.ensureCapacity(slot + 1);
        c.scheduleSlot(slot);
        scheduleChanged(c);
        if (fairShare.enabled()) {
            if (!c.isClient()) {
                // A connection a peer opened is a sender about to start [SPEC-CC-11]: it counts as
                // one for its first two periods, so connections opened together (an incast) are
                // all in the division from their first ACK on, instead of the early ones being
                // offered the whole capacity. One this side opened is most likely for this side to
                // send on: counting it would halve the share of a peer already sending here for
                // two periods [SPEC-CC-23]; it is offered a newcomer's share and joins the division
                // at its first reliable packet.
                c.inbound().lastArrivalNanos = nowNanos;
            }
            recomputeShares(nowNanos);
        }
    }

    /** Senders the fair-share allocator counted active at its last recomputation (0 when it is off). */
    public int activeSenders() {
        return fairShare.activeSenders();
    }

    // ---- inputs ----

    /**
     * Handles one received datagram. The engine only borrows {@code datagram}: payload is placed
     * into registered memory before this returns, and nothing keeps a reference to the buffer.
     * Malformed datagrams are dropped and counted in {@link #stats()}; nothing is thrown.
     *
     * @param ecn the datagram's ECN codepoint (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE), 0 if unknown
     */
    public void handleDatagram(long nowNanos, ByteBuffer datagram, int offset, int length, int localSocket,
            Object remoteAddress, int ecn) {
        stats.datagramsReceived++;
        latestNanos = nowNanos;
        maybeRecomputeShares(nowNanos);
        int head = PacketCodec.bundledHeadLength(datagram, offset, length);
        if (head > 0 && codec.decodeOwned(datagram, offset, head, rx) == DecodeError.OK) {
            // An ACK riding ahead of a DATA packet [SPEC-WIRE-30]: the ACK, then the packet after
            // it, checked on its own. A head that does not decode leaves the datagram whole (and,
            // like any other bad datagram, counted once).
            dispatch(nowNanos, datagram, localSocket, remoteAddress, ecn);
            offset += head;
            length -= head;
        }
        int error = codec.decodeOwned(datagram, offset, length, rx);
        if (error != DecodeError.OK) {
            stats.decodeErrors[error]++;
            return;
        }
        dispatch(nowNanos, datagram, localSocket, remoteAddress, ecn);
    }

    /** Hands the packet decoded into {@code rx} to its connection (or to the handshake). */
    private void dispatch(long nowNanos, ByteBuffer datagram, int localSocket, Object remoteAddress, int ecn) {
        if (rx.type == PacketType.CONNECT) {
            onConnect(nowNanos, localSocket, remoteAddress);
            return;
        }
        long id = rx.destinationConnectionId;
        Connection c = lastConnection;
        if (c == null || id != lastConnectionId) {
            c = connections.get(id);
            if (c == null) {
                stats.unknownConnection++;
                return;
            }
            lastConnection = c;
            lastConnectionId = id;
        }
        c.handlePacket(nowNanos, rx, datagram, localSocket, remoteAddress, ecn); // marks c changed first
        if (sweepNeeded) {
            sweep();
        }
    }

    private void onConnect(long nowNanos, int localSocket, Object remoteAddress) {
        if (!listening) {
            stats.connectionsRefused++;
            return;
        }
        long clientId = rx.sourceConnectionId;
        if (!rx.hasCookie || !cookies.verify(rx.cookie, clientId, remoteAddress, nowNanos)) {
            if (rx.hasCookie) {
                stats.invalidCookies++;
            }
            queueChallenge(nowNanos, localSocket, remoteAddress, clientId);
            return;
        }
        long closedAt = recentlyClosedClients.get(clientId);
        if (closedAt != Long.MIN_VALUE && CookieAuthority.issuedAt(rx.cookie) <= closedAt) {
            // A replay of the CONNECT that opened a connection which has ended since [SPEC-CONN-16].
            stats.replayedConnects++;
            return;
        }
        Connection existing = acceptedByClientId.get(clientId);
        if (existing != null) {
            if (existing.matchesPeer(remoteAddress)) {
                existing.resendAccept();
            } else {
                // Same client id from another address: not the client we accepted.
                stats.unexpectedHandshake++;
            }
            return;
        }
        if (connections.size() >= config.maxConnections()) {
            stats.connectionsRefused++;
            return;
        }
        int pathCount = Math.min(rx.pathCount, config.maxPaths());
        Connection c = new Connection(this, newConnectionId(), false, pathCount, nowNanos);
        c.addPath(0, localSocket, remoteAddress);
        c.acceptFrom(clientId, rx.maxDatagramBytes, rx.sequenceWindow);
        register(c, nowNanos);
        acceptedByClientId.put(clientId, c);
        stats.connectionsAccepted++;
        events.add(c, ConnectionEvents.ACCEPTED);
    }

    private void queueChallenge(long nowNanos, int localSocket, Object remoteAddress, long clientId) {
        if (challengeCount == CHALLENGE_QUEUE) {
            stats.challengesDropped++;
            return;
        }
        int i = (challengeHead + challengeCount++) % CHALLENGE_QUEUE;
        challengeAddress[i] = remoteAddress;
        challengeSocket[i] = localSocket;
        challengeClientId[i] = clientId;
        challengeIssuedAt[i] = nowNanos;
    }

    /** Runs every timer due at {@code nowNanos}; a call with nothing due does nothing. */
    public void handleTimeout(long nowNanos) {
        latestNanos = nowNanos;
        maybeRecomputeShares(nowNanos);
        releaseDue(nowNanos);
        // Only the connections that changed or whose deadline has come, in slot order: any other
        // finds nothing due (Connection#handleTimeout).
        for (int s = dirty.next(0); s >= 0; s = dirty.next(s + 1)) {
            connectionList.get(s).handleTimeout(nowNanos);
        }
        sweep();
    }

    // ---- outputs ----

    /**
     * Writes the next datagram to send into {@code out} (at index 0 of its buffer) and says where
     * it goes. Call until it returns false after every input.
     */
    public boolean pollTransmit(long nowNanos, Transmit out) {
        // Kept small (rare branches out of line) so that a driver's loop can inline it, as it could
        // the walk this replaced: the single-connection cost per packet depends on it.
        if (challengeCount > 0) {
            return transmitChallenge(out);
        }
        if (nowNanos > latestNanos) {
            latestNanos = nowNanos;
        }
        if (nowNanos >= nextReleaseNanos) {
            releaseDue(nowNanos);
        }
        int n = connectionList.size();
        // Round robin over the ready slots: the first at or after the cursor, wrapping once. A
        // slot not ready would have sent nothing, so the one served is the one a walk of every
        // connection from the cursor would have served.
        int s = firstReadyFrom(transmitCursor < n ? transmitCursor : (n == 0 ? 0 : transmitCursor % n));
        while (s >= 0) {
            Connection c = connectionList.get(s);
            if (!c.scheduledChange) {
                polled(s, c);
            }
            if (c.pollTransmit(nowNanos, out, tx, codec)) {
                // Next call starts with the next connection, so one busy connection cannot starve
                // the rest; this one stays ready: it may have more.
                transmitCursor = s + 1 == n ? 0 : s + 1;
                stats.datagramsSent++;
                if (sweepNeeded) {
                    sweep();
                }
                return true;
            }
            s = nothingToSend(s, c);
        }
        if (sweepNeeded) {
            sweep();
        }
        return false;
    }

    /** Slot {@code s} ({@code c}) is polled: a send changes its deadlines, read again at the next pollTimeoutNanos. */
    private void polled(int s, Connection c) {
        dirty.add(s);
        c.scheduledChange = true;
        if (overdue.contains(s)) {
            unpark(s);
        }
    }

    /** The first ready slot at or after {@code from}, wrapping once; -1 if none is ready. */
    private int firstReadyFrom(int from) {
        int s = ready.next(from);
        return s >= 0 ? s : ready.next(0);
    }

    /**
     * Slot {@code s} ({@code c}) had nothing to send: it waits for its next change or deadline.
     * Returns the next ready slot after it, wrapping once, or -1.
     */
    private int nothingToSend(int s, Connection c) {
        ready.remove(s);
        c.scheduledChange = false;
        return firstReadyFrom(s + 1);
    }

    private boolean transmitChallenge(Transmit out) {
        writeChallenge(out);
        stats.datagramsSent++;
        return true;
    }

    private void writeChallenge(Transmit out) {
        int i = challengeHead;
        challengeHead = (challengeHead + 1) % CHALLENGE_QUEUE;
        challengeCount--;
        tx.clear();
        tx.type = PacketType.CHALLENGE;
        tx.destinationConnectionId = challengeClientId[i];
        tx.hasCookie = true;
        cookies.issue(challengeClientId[i], challengeAddress[i], challengeIssuedAt[i], tx.cookie);
        out.length = codec.encode(tx, out.buffer, 0, null, 0);
        out.localSocket = challengeSocket[i];
        out.remoteAddress = challengeAddress[i];
        out.pathId = 0;
        out.ecn = 0;
        challengeAddress[i] = null;
        stats.challengesSent++;
    }

    /**
     * The earliest time {@link #handleTimeout} has work, or a paced packet may leave (call
     * {@link #handleTimeout} then {@link #pollTransmit} at that time), or {@link Long#MAX_VALUE} if none.
     */
    public long pollTimeoutNanos() {
        releaseDue(latestNanos);
        // A clean connection's deadlines are what it last reported: only its own entry points
        // change them, and each marks it dirty (the contract of Connection#nextTimeoutNanos).
        // One search site (the next dirty slot after the one read): the compiled method keeps one
        // copy of the search.
        int s = -1;
        while ((s = dirty.next(s + 1)) >= 0) {
            Connection c = connectionList.get(s);
            // Only a connection whose deadlines did not change is parked: one that changed (a
            // datagram for it, a send) most likely changes again before the next call, and
            // parking it would cost more than reading it again (the permutation's receivers).
            boolean unchanged = c.deadlinesFresh();
            long wake = c.nextTimeoutNanos(latestNanos);
            rechecks.set(s, c.recheckNanos());
            wakeups.set(s, wake > latestNanos || !unchanged ? wake : parkIfSettled(s, c, wake));
            dirty.remove(s);
            c.scheduledChange = false;
        }
        nextReleaseNanos = Math.min(wakeups.minKey(), rechecks.minKey());
        // A parked slot's key in wakeups is later than the latest call, its next timeout not.
        return Math.min(overdue.minKey(), wakeups.minKey());
    }

    /**
     * Slot {@code s} ({@code c}, clean) has next timeout {@code wake}, at or before the latest
     * call: it is parked (ready, its timeout kept in {@link #overdue}) unless it must be looked at
     * again at the next call anyway. Returns its key in {@link #wakeups}: the time it must be looked
     * at again if parked, else {@code wake} (released at the next call, as before parking).
     */
    private long parkIfSettled(int s, Connection c, long wake) {
        long recheck = c.overdueRecheckNanos();
        if (recheck <= latestNanos) {
            return wake;
        }
        overdue.set(s, wake);
        ready.add(s);
        return recheck;
    }

    /**
     * Parked slot {@code s} changed, was polled or is due: its next timeout is read again at the
     * next {@link #pollTimeoutNanos}, and until then it is in no heap but the rechecks, as a
     * released slot is.
     */
    private void unpark(int s) {
        overdue.set(s, Long.MAX_VALUE);
        wakeups.set(s, Long.MAX_VALUE);
    }

    /**
     * Every connection whose next timeout or controller recheck is at or before {@code nowNanos}
     * becomes ready and dirty: its timer may run, a paced packet may leave, its pacing term is
     * computed again.
     */
    private void releaseDue(long nowNanos) {
        if (nowNanos < nextReleaseNanos) {
            return;
        }
        while (wakeups.minKey() <= nowNanos) {
            markChanged(wakeups.pollMin());
        }
        while (rechecks.minKey() <= nowNanos) {
            markChanged(rechecks.pollMin());
        }
        nextReleaseNanos = Math.min(wakeups.minKey(), rechecks.minKey());
    }

    private void markChanged(int slot) {
        ready.add(slot);
        dirty.add(slot);
        if (overdue.contains(slot)) {
            unpark(slot);
        }
    }

    /**
     * {@code c} changed (an input, a command, a timer run): it may have something to send, and its
     * deadlines are read again at the next {@link #pollTimeoutNanos}. Every entry point of a
     * connection calls it, or its caller here does; a connection not yet registered has no slot.
     */
    void scheduleChanged(Connection c) {
        // Already ready and dirty (a run of datagrams for one connection): nothing to mark.
        if (c.scheduledChange) {
            return;
        }
        int slot = c.scheduleSlot();
        if (slot >= 0) {
            markChanged(slot);
            c.scheduledChange = true;
        }
    }

    private void maybeRecomputeShares(long nowNanos) {
        if (fairShare.maybeRecompute(nowNanos, connectionList)) {
            sharesRecomputed();
        }
    }

    private void recomputeShares(long nowNanos) {
        fairShare.recompute(nowNanos, connectionList);
        sharesRecomputed();
    }

    /** A recomputation may have made connections due to re-announce their shares [SPEC-CONN-17]. */
    private void sharesRecomputed() {
        for (int i = 0; i < connectionList.size(); i++) {
            Connection c = connectionList.get(i);
            if (c.inbound().reannounceDue) {
                scheduleChanged(c);
            }
        }
    }

    /** Delivers up to {@code limit} completions, oldest first; returns how many. */
    public int pollCompletions(CompletionHandler handler, int limit) {
        return completions.poll(handler, limit);
    }

    /** Delivers every pending connection event; returns how many. */
    public int pollEvents(ConnectionListener listener) {
        return events.drainTo(listener);
    }

    /** Completions waiting to be polled. */
    public int pendingCompletions() {
        return completions.size();
    }

    // ---- callbacks from connections ----

    /** The latest time the endpoint was given (its clock as far as it knows). */
    long latestNanos() {
        return latestNanos;
    }

    /** Slots parked (overdue, ready, clean; see {@link #overdue}), for tests of the schedule. */
    int parkedForTest() {
        return overdue.size();
    }

    /**
     * What is wrong with the parked slots, or null: each is ready and clean, its next timeout at
     * or before the latest call, its key in the wake-up heap (if any) after it. For tests of the schedule.
     */
    String parkingViolationForTest() {
        for (int s = 0; s < connectionList.size(); s++) {
            if (!overdue.contains(s)) {
                continue;
            }
            if (!ready.contains(s)) {
                return "parked slot " + s + " is not ready";
            }
            if (dirty.contains(s)) {
                return "parked slot " + s + " is dirty";
            }
            if (overdue.keyOf(s) > latestNanos) {
                return "parked slot " + s + " has its next timeout " + overdue.keyOf(s) + " after the latest call "
                        + latestNanos;
            }
            if (wakeups.contains(s) && wakeups.keyOf(s) <= latestNanos) {
                return "parked slot " + s + " is to be looked at again at " + wakeups.keyOf(s)
                        + ", not after the latest call " + latestNanos;
            }
        }
        return null;
    }

    /** The connections in slot order, closed ones not yet removed included, for tests of the schedule. */
    java.util.List<Connection> connectionsForTest() {
        return java.util.Collections.unmodifiableList(connectionList);
    }

    /**
     * The packet received datagrams are decoded into, for tests of the promise {@link #handleDatagram}
     * makes {@link PacketCodec#decodeOwned}: nothing but the codec writes it.
     */
    Packet receivedPacketForTest() {
        return rx;
    }

    /** Whether the codec's DATA header template belongs to connection {@code c} (for tests of its release). */
    boolean dataTemplateHeldBy(Connection c) {
        return codec.holdsDataTemplateOf(c.dataTemplateOwner());
    }

    void connectionEstablished(Connection c) {
        events.add(c, ConnectionEvents.CONNECTED);
    }

    void senderBecameActive(long nowNanos) {
        recomputeShares(nowNanos);
    }

    void pathStateChanged(Connection c, int pathId, int state) {
        events.add(c, ConnectionEvents.PATH_STATE, pathId, state);
    }

    /**
     * {@code c} closed. The codec's DATA header template is forgotten if it is still that
     * connection's, so that the codec does not keep a closed connection's emitter and stats
     * reachable until the next DATA packet.
     */
    void connectionClosed(Connection c) {
        codec.forgetDataTemplateOf(c.dataTemplateOwner());
        events.add(c, ConnectionEvents.CLOSED);
        sweepNeeded = true;
    }

    boolean hasCompletionRoom() {
        // Room for a completion for every work request already outstanding, and for this one.
        return outstandingWork + completions.size() < completions.capacity();
    }

    void workPosted() {
        outstandingWork++;
    }

    void workFinished() {
        outstandingWork--;
    }

    void complete(long connectionId, int streamId, long workRequestId, int opcode, int status, long bytes,
            int immediate, boolean hasImmediate) {
        completions.add(connectionId, streamId, workRequestId, opcode, status, bytes, immediate, hasImmediate);
    }

    private void sweep() {
        if (!sweepNeeded) {
            return;
        }
        sweepNeeded = false;
        lastConnection = null;
        for (int i = connectionList.size() - 1; i >= 0; i--) {
            Connection c = connectionList.get(i);
            if (c.state() == ConnectionState.CLOSED) {
                connectionList.remove(i);
                c.scheduleSlot(-1); // what its owner still calls on it schedules nothing
                c.scheduledChange = false;
                connections.remove(c.localId());
                if (!c.isClient() && acceptedByClientId.get(c.peerId()) == c) {
                    acceptedByClientId.remove(c.peerId());
                    rememberClosedClient(c.peerId());
                }
            }
        }
        transmitCursor = 0;
        // Slots moved: every connection gets its new one, and is served on the next calls as a
        // walk would (O(connections), as the removal itself).
        int n = connectionList.size();
        for (int i = 0; i < n; i++) {
            connectionList.get(i).scheduleSlot(i);
            connectionList.get(i).scheduledChange = true;
        }
        wakeups.clear();
        rechecks.clear();
        overdue.clear();
        nextReleaseNanos = Long.MAX_VALUE;
        ready.fill(n);
        dirty.fill(n);
    }

    private void rememberClosedClient(long clientId) {
        // Entries older than a cookie's lifetime can go: any cookie they could stop has expired.
        long horizon = latestNanos - config.cookieLifetimeNanos();
        var entries = recentlyClosedClients.entrySet().iterator();
        while (entries.hasNext()) {
            if (entries.next().getValue() < horizon) {
                entries.remove();
            }
        }
        recentlyClosedClients.put(clientId, latestNanos);
    }

    /** Builder for {@link Endpoint}. Not thread-safe. */
    public static final class Builder {
        private final RandomGenerator random;
        private final byte[] cookieSecret;
        private final PeerAddressCodec addressCodec;
        private EngineConfig config = EngineConfig.defaults();
        private boolean listening;
        private Function<EngineConfig, CongestionController> congestionControllerFactory = AimdController::new;

        private Builder(RandomGenerator random, byte[] cookieSecret, PeerAddressCodec addressCodec) {
            this.random = Objects.requireNonNull(random, "random");
            this.cookieSecret = Objects.requireNonNull(cookieSecret, "cookieSecret").clone();
            this.addressCodec = Objects.requireNonNull(addressCodec, "addressCodec");
        }

        /** The configuration (default {@link EngineConfig#defaults()}). */
        public Builder config(EngineConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /** Whether to accept incoming connections (default false). */
        public Builder listening(boolean value) {
            this.listening = value;
            return this;
        }

        /**
         * Makes each connection's congestion controller (default: {@link AimdController}, ECN AIMD
         * per path with delay standing in for marks where ECN is unreadable, [SPEC-CC-4]).
         * {@code FixedWindowController::new} turns congestion control off: a fixed window of
         * {@link EngineConfig#congestionWindowBytes()}, the ceiling for benchmarks on a link nothing
         * else shares.
         */
        public Builder congestionController(Function<EngineConfig, CongestionController> factory) {
            this.congestionControllerFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Builds the endpoint. */
        public Endpoint build() {
            return new Endpoint(this);
        }
    }
}
