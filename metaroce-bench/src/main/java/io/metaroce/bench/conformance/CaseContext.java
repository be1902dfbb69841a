package io.metaroce.bench.conformance;

import java.util.ArrayList;
import java.util.List;

/**
 * What a case runs with: the suite's options and a way to open connections to the
 * implementation under test, each on sockets of its own, all closed when the case ends.
 *
 * <p>Not thread-safe: one case on one thread.
 */
public final class CaseContext implements AutoCloseable {
    /** The datagram size the suite announces unless a case asks for another: an Ethernet MTU's worth. */
    public static final int DEFAULT_MAX_DATAGRAM = 1400;
    /** The sequence window the suite announces unless a case asks for another. */
    public static final int DEFAULT_SEQUENCE_WINDOW = 65_536;

    private final SuiteOptions options;
    private final String caseId;
    private final List<WireSession> sessions = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    CaseContext(SuiteOptions options, String caseId) {
        this.options = options;
        this.caseId = caseId;
    }

    /** The suite's options. */
    public SuiteOptions options() {
        return options;
    }

    /** A new, not yet connected, session with {@code paths} sockets and the default announced values. */
    public WireSession open(int paths) {
        return open(paths, DEFAULT_MAX_DATAGRAM, DEFAULT_SEQUENCE_WINDOW);
    }

    /** A new, not yet connected, session announcing {@code maxDatagram} and {@code window}. */
    public WireSession open(int paths, int maxDatagram, int window) {
        return add(new WirePeer(options.target(), paths), maxDatagram, window);
    }

    /**
     * A session for the suite as a server ([SPEC-CONF-9]): one socket taking datagrams from any
     * address until the case retargets it at the IUT's client ({@link WireSession#serverRole()} set).
     */
    public WireSession openServer() {
        return openServer(1);
    }

    /** {@link #openServer()} for a client of {@code paths} paths, each from a port of its own ({@link WirePeer#listening}). */
    public WireSession openServer(int paths) {
        WireSession s = add(WirePeer.listening(options.target(), paths), DEFAULT_MAX_DATAGRAM, DEFAULT_SEQUENCE_WINDOW);
        s.serverRole();
        return s;
    }

    /**
     * A new, not yet connected, session of {@code paths} sockets of its own (so another source
     * address) whose CONNECTs carry the client id {@code localId}, which another session may hold
     * ([SPEC-CONN-16]).
     */
    public WireSession openAs(int paths, long localId) {
        WirePeer peer = new WirePeer(options.target(), paths);
        return register(WireSession.withLocalId(peer, DEFAULT_MAX_DATAGRAM, DEFAULT_SEQUENCE_WINDOW,
                options.waitMillis(), localId), peer);
    }

    private WireSession add(WirePeer peer, int maxDatagram, int window) {
        long seed = options.seed() * 1_000_003L + caseId.hashCode() * 31L + sessions.size();
        return register(new WireSession(peer, maxDatagram, window, options.waitMillis(), seed), peer);
    }

    private WireSession register(WireSession s, WirePeer peer) {
        sessions.add(s);
        for (int port : peer.localPorts()) {
            ports.add(port);
        }
        return s;
    }

    /** The local ports of every socket the case opened. */
    int[] ports() {
        return ports.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A connected session with {@code paths} paths ({@link WireSession#handshake}). */
    public WireSession connect(int paths) {
        WireSession s = open(paths);
        s.handshake();
        return s;
    }

    /** A connected session announcing {@code maxDatagram} and {@code window}. */
    public WireSession connect(int paths, int maxDatagram, int window) {
        WireSession s = open(paths, maxDatagram, window);
        s.handshake();
        return s;
    }

    /**
     * With the responder's fair-share period given ([SPEC-CONF-25]), waits three periods: the
     * connections of earlier cases (counted as senders two periods after their last reliable
     * packet, or after they were accepted, [SPEC-CC-11]) leave the division, so the case's
     * connections are the only senders. Without it, returns at once (a period of 100 µs is over
     * before the next connection is open).
     */
    public void awaitEarlierSendersInactive() {
        long period = options.fairSharePeriodMillis();
        if (period > 0) {
            try {
                Thread.sleep(3 * period);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CaseSkipped("interrupted");
            }
        }
    }

    /** Listens on {@code session} for the suite's quiet spell: what must not happen has its chance. */
    public void quiet(WireSession session) {
        session.quiet(options.quietMillis());
    }

    /** The sessions opened, for the suite's checks after the case. */
    List<WireSession> sessions() {
        return sessions;
    }

    @Override
    public void close() {
        for (WireSession s : sessions) {
            s.close();
        }
    }
}
