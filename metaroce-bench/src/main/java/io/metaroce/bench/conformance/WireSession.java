package io.metaroce.bench.conformance;

import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.ShortSack;
import io.metaroce.core.wire.WireConstants;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The suite's end of one connection to the implementation under test (IUT), written against
 * docs/spec.md alone: it crafts every packet with the core codec ({@link PacketCodec}, whose
 * encoder writes whatever fields it is given) or by hand, sends it over {@link WirePeer}, and
 * decodes, records and checks what comes back.
 *
 * <p>It plays the client ([SPEC-CONN-4]): CONNECT, CHALLENGE, CONNECT with the cookie, ACCEPT.
 * It then sends DATA as the case scripts it, with CSNs and PSNs of its own choosing, and keeps a
 * conforming receiver's state for the IUT's DATA: per path the PSNs received, the messages of the
 * echo stream reassembled ([SPEC-CONF-2]) and, unless a case takes over ({@link #autoAck}), an
 * immediate and correct ACK for every DATA packet ([SPEC-SACK-3]). Everything the IUT sends is
 * also checked against the sender's rules that hold whatever the case; what breaks one is kept in
 * {@link #senderViolations()}.
 *
 * <p>Not thread-safe: one suite thread drives it.
 */
public final class WireSession implements AutoCloseable {
    /** CONNECTs sent before a handshake step is given up. */
    private static final int HANDSHAKE_ATTEMPTS = 3;
    /** Largest echoed message the suite reassembles. */
    private static final long MAX_REASSEMBLY_BYTES = 1 << 24;

    private final WirePeer peer;
    private final PacketCodec codec = new PacketCodec();
    private final long waitNanos;
    private final int ownMaxDatagram;
    private final int ownWindow;
    private final long localId;
    private final byte[] scratch = new byte[65_536];

    // ---- handshake ----
    private Received accept;
    private long peerId;
    private long peerMaxDatagram;
    private long peerWindow;
    private int grantedPaths;

    // ---- what the suite sends ----
    private long nextCsn;
    private final long[] nextPsn;
    private final Map<Integer, long[]> streamCounters = new HashMap<>();
    private final List<List<Sent>> sentByPath = new ArrayList<>();

    // ---- what the IUT sends ----
    private final List<Received> received = new ArrayList<>();
    private final List<List<Received>> acksByPath = new ArrayList<>();
    private final List<Received> data = new ArrayList<>();
    private final List<String> undecodable = new ArrayList<>();
    private final List<String> senderViolations = new ArrayList<>();
    private final List<TreeSet<Long>> iutPsns = new ArrayList<>();
    private final List<Map<Long, Long>> iutPsnToCsn = new ArrayList<>();
    private final long[] iutHighest;
    private final long[] iutHighestTimestamp;
    private final long[] iutHighestArrival;
    private final Map<Long, Received> firstTransmission = new HashMap<>();
    private final BitSet ackedBySuite = new BitSet();
    private final Map<Long, Incoming> incoming = new HashMap<>();
    private final List<EchoMessage> echoes = new ArrayList<>();
    private final List<EchoMessage> readResponses = new ArrayList<>();
    private final List<Received> blackHoled = new ArrayList<>();
    private final boolean[] blackHole;
    private final List<Long> probeAnswerTimes = new ArrayList<>();
    private final List<Set<Long>> withheld = new ArrayList<>();
    private boolean autoAck = true;
    private boolean answerProbes = true;
    private boolean server;
    private int acksSent;
    /** The rate hint the suite's ACKs carry ([SPEC-SACK-9]): 0, no limit, unless a case sets one. */
    private long rateHint;
    /** Whether the suite's ACKs count the IUT's DATA as ECN-capable ({@link #reportEcn}); off: both counts 0. */
    private boolean reportEct;
    /** Whether the DATA counted from now on is also counted CE-marked. */
    private boolean reportCe;
    /** Whether the suite's ACKs take the short form of [SPEC-WIRE-31] where their SACK has one. */
    private boolean shortAcks;
    /** Per path: the cumulative ECN counts the suite's ACKs carry ([SPEC-PATH-7], [SPEC-WIRE-19]). */
    private final long[] ectReported;
    private final long[] ceReported;

    /**
     * A session over {@code peer} (one path per socket) announcing {@code maxDatagramBytes} and
     * {@code sequenceWindow} in its CONNECTs; every wait for the IUT lasts at most {@code waitMillis}.
     */
    public WireSession(WirePeer peer, int maxDatagramBytes, int sequenceWindow, long waitMillis, long seed) {
        this(idFromSeed(seed), peer, maxDatagramBytes, sequenceWindow, waitMillis);
    }

    /**
     * A session as {@link #WireSession(WirePeer, int, int, long, long)} whose connection id (its
     * CONNECTs' {@code sourceConnectionId}) is {@code localId}, not one drawn from a seed: for the
     * cases that send a client id another session of theirs holds ([SPEC-CONN-16]).
     */
    static WireSession withLocalId(WirePeer peer, int maxDatagramBytes, int sequenceWindow, long waitMillis,
            long localId) {
        return new WireSession(localId, peer, maxDatagramBytes, sequenceWindow, waitMillis);
    }

    private WireSession(long localId, WirePeer peer, int maxDatagramBytes, int sequenceWindow, long waitMillis) {
        Checks.require(localId != 0, "connection id 0 is no connection's [SPEC-CONN-2]");
        this.peer = peer;
        this.ownMaxDatagram = maxDatagramBytes;
        this.ownWindow = sequenceWindow;
        this.waitNanos = TimeUnit.MILLISECONDS.toNanos(waitMillis);
        this.localId = localId;
        int paths = peer.paths();
        this.nextPsn = new long[paths];
        this.iutHighest = new long[paths];
        this.iutHighestTimestamp = new long[paths];
        this.iutHighestArrival = new long[paths];
        Arrays.fill(iutHighest, -1);
        this.ectReported = new long[paths];
        this.ceReported = new long[paths];
        this.blackHole = new boolean[paths];
        for (int i = 0; i < paths; i++) {
            sentByPath.add(new ArrayList<>());
            acksByPath.add(new ArrayList<>());
            iutPsns.add(new TreeSet<>());
            iutPsnToCsn.add(new HashMap<>());
            withheld.add(new java.util.HashSet<>());
        }
    }

    private static long idFromSeed(long seed) {
        long id = new SplittableRandom(seed).nextLong();
        return id == 0 ? 1 : id;
    }

    // =====================================================================================
    // Handshake
    // =====================================================================================

    /** Sends a CONNECT ([SPEC-CONN-4]) carrying {@code cookie} (null: none) on path 0. */
    public void sendConnect(byte[] cookie) {
        Packet p = new Packet();
        p.type = PacketType.CONNECT;
        p.sourceConnectionId = localId;
        p.maxDatagramBytes = ownMaxDatagram;
        p.pathCount = peer.paths();
        p.sequenceWindow = ownWindow;
        if (cookie != null) {
            p.hasCookie = true;
            System.arraycopy(cookie, 0, p.cookie, 0, WireConstants.COOKIE_BYTES);
        }
        sendPacket(0, p, null, 0);
    }

    /**
     * Runs the handshake: CONNECT, CHALLENGE, CONNECT with its cookie, ACCEPT, resending a CONNECT
     * that got no answer. Fails the case if the IUT does not complete it.
     *
     * @return the ACCEPT
     */
    public Received handshake() {
        Received challenge = null;
        for (int attempt = 0; attempt < HANDSHAKE_ATTEMPTS && challenge == null; attempt++) {
            int mark = received.size();
            sendConnect(null);
            challenge = awaitType(mark, PacketType.CHALLENGE, waitNanos);
        }
        Checks.check(challenge != null, "no CHALLENGE in answer to %d CONNECTs without a cookie", HANDSHAKE_ATTEMPTS);
        Received accepted = null;
        for (int attempt = 0; attempt < HANDSHAKE_ATTEMPTS && accepted == null; attempt++) {
            int mark = received.size();
            sendConnect(challenge.packet().cookie);
            accepted = awaitType(mark, PacketType.ACCEPT, waitNanos);
        }
        Checks.check(accepted != null, "no ACCEPT in answer to %d CONNECTs carrying the CHALLENGE's cookie",
                HANDSHAKE_ATTEMPTS);
        established(accepted);
        return accepted;
    }

    /** A handshake run once, without resending: the cookie its CONNECT carried and the ACCEPT. */
    record Handshake(byte[] cookie, Received accept) {
    }

    /**
     * Runs the handshake once, no CONNECT resent (for the cases that replay the cookie or count the
     * answers): CONNECT, CHALLENGE, CONNECT with its cookie, ACCEPT. Fails the case, the failure
     * naming {@code what} (e.g. " from a second address"; may be empty), if an answer does not come.
     */
    Handshake handshakeOnce(String what) {
        byte[] cookie = requestCookie(what);
        return new Handshake(cookie, connectWith(cookie, what));
    }

    /** Sends a CONNECT without a cookie and returns the cookie of the CHALLENGE that answers it ({@link #awaitCookie}). */
    byte[] requestCookie(String what) {
        int mark = received.size();
        sendConnect(null);
        return awaitCookie(mark, what);
    }

    /** Sends a CONNECT carrying {@code cookie} and returns the ACCEPT that answers it ({@link #awaitAccept}). */
    Received connectWith(byte[] cookie, String what) {
        int mark = received.size();
        sendConnect(cookie);
        return awaitAccept(mark, what);
    }

    /** The cookie (a copy) of the first CHALLENGE from {@code mark} on; fails the case if none comes. */
    byte[] awaitCookie(int mark, String what) {
        Received challenge = awaitType(mark, PacketType.CHALLENGE, waitNanos);
        Checks.check(challenge != null, "no CHALLENGE for a CONNECT without a cookie%s [SPEC-CONN-9]", what);
        return challenge.packet().cookie.clone();
    }

    /** The first ACCEPT from {@code mark} on, taken as this session's ({@link #established}); fails the case if none. */
    Received awaitAccept(int mark, String what) {
        Received accept = awaitType(mark, PacketType.ACCEPT, waitNanos);
        Checks.check(accept != null, "no ACCEPT for a CONNECT with the CHALLENGE's cookie%s [SPEC-CONN-12]", what);
        established(accept);
        return accept;
    }

    /** Takes the server's values from {@code accepted} ([SPEC-CONN-7], [SPEC-CONN-14]). */
    void established(Received accepted) {
        Packet a = accepted.packet();
        this.accept = accepted;
        this.peerId = a.sourceConnectionId;
        this.peerMaxDatagram = Integer.toUnsignedLong(a.maxDatagramBytes);
        this.peerWindow = Integer.toUnsignedLong(a.sequenceWindow);
        this.grantedPaths = Math.min(a.pathCount, peer.paths());
    }

    /**
     * Plays the server of a connection the IUT opens as a client ([SPEC-CONF-9]): from now on a
     * CONNECT (destination id 0) is no violation. {@link #acceptClient} completes the handshake.
     */
    public void serverRole() {
        this.server = true;
    }

    /** Answers the client's CONNECT {@code connect} with a CHALLENGE carrying {@code cookie} ([SPEC-CONN-9]). */
    public void sendChallenge(Received connect, byte[] cookie) {
        Packet p = new Packet();
        p.type = PacketType.CHALLENGE;
        p.destinationConnectionId = connect.packet().sourceConnectionId;
        p.hasCookie = true;
        System.arraycopy(cookie, 0, p.cookie, 0, WireConstants.COOKIE_BYTES);
        sendPacket(0, p, null, 0);
    }

    /**
     * Accepts the client's CONNECT {@code connect}: sends an ACCEPT with the suite's id, datagram
     * size, window and {@code paths} paths ([SPEC-CONN-12]), and takes the client's values.
     */
    public void acceptClient(Received connect, int paths) {
        Packet c = connect.packet();
        Packet p = new Packet();
        p.type = PacketType.ACCEPT;
        p.destinationConnectionId = c.sourceConnectionId;
        p.sourceConnectionId = localId;
        p.maxDatagramBytes = ownMaxDatagram;
        p.pathCount = paths;
        p.sequenceWindow = ownWindow;
        sendPacket(0, p, null, 0);
        this.accept = connect;
        this.peerId = c.sourceConnectionId;
        this.peerMaxDatagram = Integer.toUnsignedLong(c.maxDatagramBytes);
        this.peerWindow = Integer.toUnsignedLong(c.sequenceWindow);
        this.grantedPaths = Math.min(paths, Math.min(c.pathCount, peer.paths()));
    }

    // =====================================================================================
    // Sending
    // =====================================================================================

    /** The payload size of a DATA packet on this connection: D − 108 ([SPEC-CONN-14]). */
    public int payloadSize() {
        long d = Math.max(PacketCodec.MIN_DATAGRAM_BYTES, Math.min(ownMaxDatagram, peerMaxDatagram));
        return (int) d - WireConstants.DATA_OVERHEAD_BYTES;
    }

    /**
     * The packets of a SEND of {@code bytes} on {@code streamId}, taking the stream's next MSN and
     * RSN ([SPEC-MSG-2]), cut into packets of at most {@link #payloadSize()} bytes
     * ([SPEC-MSG-3], the cut into full packets and a shorter last one).
     */
    public List<Segment> send(int streamId, byte[] bytes) {
        long[] counters = streamCounters.computeIfAbsent(streamId, s -> new long[2]);
        long msn = counters[0]++;
        long rsn = counters[1]++;
        return segments(DataOpcode.SEND, streamId, msn, rsn, bytes, 0, 0);
    }

    /** The packets of a WRITE of {@code bytes} at {@code remoteOffset} of the region {@code remoteKey}. */
    public List<Segment> write(int streamId, byte[] bytes, int remoteKey, long remoteOffset) {
        long[] counters = streamCounters.computeIfAbsent(streamId, s -> new long[2]);
        long msn = counters[0]++;
        return segments(DataOpcode.WRITE, streamId, msn, 0, bytes, remoteKey, remoteOffset);
    }

    /**
     * The packets of a WRITE_WITH_IMM of {@code bytes} at {@code remoteOffset} of the region
     * {@code remoteKey} carrying {@code immediate}: it takes the stream's next MSN and, as it
     * consumes a receive, its next RSN ([SPEC-MSG-2], [SPEC-MSG-8]).
     */
    public List<Segment> writeWithImmediate(int streamId, byte[] bytes, int remoteKey, long remoteOffset, int immediate) {
        long[] counters = streamCounters.computeIfAbsent(streamId, s -> new long[2]);
        long msn = counters[0]++;
        long rsn = counters[1]++;
        int p = payloadSize();
        List<Segment> out = new ArrayList<>();
        int at = 0;
        do {
            int n = Math.min(p, bytes.length - at);
            out.add(new Segment(DataOpcode.WRITE_WITH_IMM, streamId, msn, rsn, bytes.length, at,
                    Arrays.copyOfRange(bytes, at, at + n), remoteKey, remoteOffset, true, immediate));
            at += n;
        } while (at < bytes.length);
        return out;
    }

    /**
     * The READ_REQUEST of a READ of {@code length} bytes at {@code remoteOffset} of the region
     * {@code remoteKey}, taking the stream's next MSN ([SPEC-MSG-2]).
     */
    public Segment read(int streamId, int remoteKey, long remoteOffset, long length) {
        long[] counters = streamCounters.computeIfAbsent(streamId, s -> new long[2]);
        return Segment.readRequest(streamId, counters[0]++, remoteKey, remoteOffset, length);
    }

    /** The packets of a SEND of {@code bytes} on {@code streamId} with receive sequence {@code rsn}, taking the next MSN. */
    public List<Segment> sendWithRsn(int streamId, byte[] bytes, long rsn) {
        long[] counters = streamCounters.computeIfAbsent(streamId, s -> new long[2]);
        long msn = counters[0]++;
        counters[1] = Math.max(counters[1], rsn + 1);
        return segments(DataOpcode.SEND, streamId, msn, rsn, bytes, 0, 0);
    }

    private List<Segment> segments(int opcode, int streamId, long msn, long rsn, byte[] bytes, int key, long offset) {
        int p = payloadSize();
        List<Segment> out = new ArrayList<>();
        int at = 0;
        do {
            int n = Math.min(p, bytes.length - at);
            out.add(new Segment(opcode, streamId, msn, rsn, bytes.length, at, Arrays.copyOfRange(bytes, at, at + n),
                    key, offset, false, 0));
            at += n;
        } while (at < bytes.length);
        return out;
    }

    /**
     * Sends the first transmission of {@code s} on {@code path}: the next CSN (unless it has one)
     * and the path's next PSN, with {@code FLAG_ACK_NOW} on the last packet of a message.
     */
    public Sent send(Segment s, int path) {
        return transmit(s, path, s.last() ? WireConstants.FLAG_ACK_NOW : 0, 0);
    }

    /** Sends {@code s} again on {@code path}: same CSN, the path's next PSN, retransmission flags. */
    public Sent resend(Segment s, int path) {
        Checks.require(s.connectionSequence >= 0, "resend of a segment never sent");
        return transmit(s, path, WireConstants.FLAG_RETRANSMISSION | WireConstants.FLAG_ACK_NOW, 0);
    }

    /** Sends {@code s} on {@code path} with the header {@code flags} and IP TOS byte {@code ipTos}. */
    public Sent transmit(Segment s, int path, int flags, int ipTos) {
        if (s.connectionSequence < 0) {
            s.connectionSequence = nextCsn++;
        }
        long psn = nextPsn[path]++;
        long ts = System.nanoTime();
        int length = encode(s, path, psn, flags, ts, scratch);
        peer.send(path, scratch, length, ipTos);
        return recordSent(path, psn, s.connectionSequence, ts, true);
    }

    /**
     * {@link #transmit} with {@code timestampNanos} in the packet in place of the suite's clock: a
     * sender's clock is opaque to the receiver, whatever its value ([SPEC-WIRE-8]).
     */
    public Sent transmitStamped(Segment s, int path, int flags, long timestampNanos) {
        if (s.connectionSequence < 0) {
            s.connectionSequence = nextCsn++;
        }
        long psn = nextPsn[path]++;
        int length = encode(s, path, psn, flags, timestampNanos, scratch);
        peer.send(path, scratch, length, 0);
        return recordSent(path, psn, s.connectionSequence, timestampNanos, true);
    }

    /**
     * The datagram of a transmission of {@code s} with PSN {@code psn} (not sent, nothing
     * recorded), for a case to tamper with. A first CSN is taken if {@code s} has none.
     */
    public byte[] encode(Segment s, int path, long psn, int flags) {
        if (s.connectionSequence < 0) {
            s.connectionSequence = nextCsn++;
        }
        int length = encode(s, path, psn, flags, System.nanoTime(), scratch);
        return Arrays.copyOf(scratch, length);
    }

    private int encode(Segment s, int path, long psn, int flags, long ts, byte[] into) {
        Packet p = new Packet();
        p.type = s.readRequest ? PacketType.READ_REQUEST : PacketType.DATA;
        p.pathId = path;
        p.flags = flags;
        p.destinationConnectionId = peerId;
        p.connectionSequence = s.connectionSequence;
        p.pathSequence = psn;
        p.opcode = s.opcode;
        p.dataFlags = s.hasImmediate ? WireConstants.DATA_FLAG_HAS_IMMEDIATE : 0;
        p.streamId = s.streamId;
        p.messageSequence = s.messageSequence;
        p.receiveSequence = s.receiveSequence;
        p.messageLength = s.messageLength;
        p.payloadMessageOffset = s.payloadMessageOffset;
        p.remoteOffset = s.remoteOffset;
        p.remoteKey = s.remoteKey;
        p.immediate = s.immediate;
        p.timestampNanos = ts;
        p.sequenceFloor = 0;
        p.payloadLength = s.payload.length;
        return codec.encode(p, ByteBuffer.wrap(into), 0, ByteBuffer.wrap(s.payload), 0);
    }

    /**
     * Makes {@code psn} path {@code path}'s next PSN, far above the last one sent: the transmissions
     * between were lost or refused, as after a long outage or receiver-not-ready wait ([SPEC-ADM-10]).
     */
    public void jumpPsn(int path, long psn) {
        Checks.require(psn > nextPsn[path] && psn <= Long.MAX_VALUE, "a PSN jump goes up, within u63");
        nextPsn[path] = psn;
    }

    /** Takes path {@code path}'s next PSN without sending anything: a transmission lost on the way. */
    public long skipPsn(int path) {
        return nextPsn[path]++;
    }

    /**
     * Sends a datagram the case built, recording it as PSN {@code psn} of {@code path} that a
     * conforming receiver records ({@code valid}) or must not.
     */
    public Sent sendRaw(int path, byte[] datagram, int length, long psn, long csn, boolean valid) {
        peer.send(path, datagram, length, 0);
        return recordSent(path, psn, csn, 0, valid);
    }

    /** Sends a datagram that is not a transmission of any PSN (a control packet, or garbage). */
    public void sendUnnumbered(int path, byte[] datagram, int length) {
        peer.send(path, datagram, length, 0);
    }

    private Sent recordSent(int path, long psn, long csn, long ts, boolean valid) {
        Sent sent = new Sent(path, psn, csn, ts, valid);
        sentByPath.get(path).add(sent);
        return sent;
    }

    /** Marks the transmission {@code sent} as one a conforming receiver does not record (it refused it). */
    public void markRefused(Sent sent) {
        List<Sent> list = sentByPath.get(sent.path());
        list.set(list.indexOf(sent), new Sent(sent.path(), sent.pathSequence(), sent.connectionSequence(),
                sent.timestampNanos(), false));
    }

    /** Encodes {@code p} (its destination id set to the IUT's unless it has one) and sends it on {@code path}. */
    public void sendPacket(int path, Packet p, byte[] payload, int ipTos) {
        if (p.type != PacketType.CONNECT && p.destinationConnectionId == 0) {
            p.destinationConnectionId = peerId;
        }
        int length = codec.encode(p, ByteBuffer.wrap(scratch), 0, payload == null ? null : ByteBuffer.wrap(payload), 0);
        peer.send(path, scratch, length, ipTos);
    }

    /** Sends a CLOSE with {@code closeCode}, as a reply or not, on path 0. */
    public void sendClose(int closeCode, boolean reply) {
        Packet p = new Packet();
        p.type = PacketType.CLOSE;
        p.closeCode = closeCode;
        p.closeReply = reply;
        sendPacket(0, p, null, 0);
    }

    /** Sends a PATH_PROBE on {@code path}. */
    public void sendProbe(int path, long probeId, long timestamp) {
        Packet p = new Packet();
        p.type = PacketType.PATH_PROBE;
        p.pathId = path;
        p.probeId = probeId;
        p.timestampNanos = timestamp;
        sendPacket(path, p, null, 0);
    }

    // =====================================================================================
    // Acknowledging the IUT's DATA
    // =====================================================================================

    /** Whether every DATA from the IUT is acknowledged at once (default true); cases that script ACKs turn it off. */
    public void autoAck(boolean value) {
        this.autoAck = value;
    }

    /**
     * The rate hint every later ACK of the suite carries, datagram bytes per second ([SPEC-SACK-9]):
     * the suite as a receiver limiting the IUT's sender; 0 (the default) is no limit.
     */
    public void rateHint(long bytesPerSecond) {
        Checks.require(bytesPerSecond >= 0, "a rate hint is a u63");
        this.rateHint = bytesPerSecond;
    }

    /**
     * The ECN counts of every later ACK ([SPEC-PATH-7], [SPEC-SACK-8]): with {@code ect}, each DATA
     * packet the ACK records that no earlier ACK counted is counted ECN-capable, and with {@code ce}
     * also CE-marked: the suite as a receiver behind a fabric that marks (it cannot read the TOS byte
     * of what it receives, so it reports what such a fabric would have done). Off (the default), both
     * counts stay where they are (0: a receiver that reads no ECN). Counts never fall.
     */
    public void reportEcn(boolean ect, boolean ce) {
        Checks.require(ect || !ce, "a CE-marked packet is ECN-capable: report ECT to report CE");
        this.reportEct = ect;
        this.reportCe = ce;
    }

    /**
     * Whether every later ACK of the suite whose SACK has a short form ([SPEC-WIRE-31]: no hole
     * more than 63 below its highest PSN) goes in that 84-byte form, as a receiver with
     * {@code shortAcks} sends it ([SPEC-SACK-16]); off (the default), every ACK has 124 bytes.
     */
    public void shortAcks(boolean value) {
        this.shortAcks = value;
    }

    /** Whether a PATH_PROBE from the IUT is answered at once with its PROBE_ACK (default true). */
    public void answerProbes(boolean value) {
        this.answerProbes = value;
    }

    /**
     * Black-holes {@code path} (or ends that): what arrives on its socket is kept in
     * {@link #blackHoled()} but otherwise ignored, as if the network had lost it; nothing is
     * acknowledged or answered on it.
     */
    public void blackHole(int path, boolean value) {
        blackHole[path] = value;
    }

    /** Sends the PROBE_ACK of {@code probe} on its path ([SPEC-STATE-9]), whether or not the path is black-holed. */
    public void answerProbe(Received probe) {
        Packet p = probe.packet();
        Packet reply = new Packet();
        reply.type = PacketType.PROBE_ACK;
        reply.pathId = p.pathId;
        reply.probeId = p.probeId;
        reply.timestampNanos = p.timestampNanos;
        sendPacket(Math.min(p.pathId, peer.paths() - 1), reply, null, 0);
        probeAnswerTimes.add(System.nanoTime());
    }

    /**
     * The suite refuses the IUT's transmission {@code psn} of {@code path} (it sent a NAK for it):
     * no later ACK of the suite acknowledges it ([SPEC-NAK-1]).
     */
    public void withhold(int path, long psn) {
        withheld.get(path).add(psn);
    }

    /**
     * The IUT's transmissions {@code psns} of {@code path}, which an ACK of the suite reported lost,
     * stay unacknowledged by every later ACK: a late acknowledgement would prove the loss spurious
     * and take it back ([SPEC-LOSS-9]).
     */
    public void reportLost(int path, Set<Long> psns) {
        withheld.get(path).addAll(psns);
    }

    /**
     * Sends a NAK ([SPEC-WIRE-20]) refusing the IUT's DATA {@code refused} with {@code nakCode}
     * and {@code retryAfterNanos}, on the refused packet's path, and withholds its PSN from later
     * ACKs ({@link #withhold}).
     */
    public void sendNak(Received refused, int nakCode, long retryAfterNanos) {
        Packet r = refused.packet();
        Packet p = new Packet();
        p.type = PacketType.NAK;
        p.pathId = r.pathId;
        p.nakCode = nakCode;
        p.streamId = r.streamId;
        p.refusedPathSequence = r.pathSequence;
        p.refusedConnectionSequence = r.connectionSequence;
        p.messageSequence = r.messageSequence;
        p.retryAfterNanos = retryAfterNanos;
        withhold(r.pathId, r.pathSequence);
        sendPacket(r.pathId, p, null, 0);
    }

    /** Sends the ACK a conforming receiver sends for {@code path} now ([SPEC-SACK-3]). */
    public void ack(int path) {
        ackExcept(path, Set.of());
    }

    /**
     * Sends an ACK for {@code path} as if the PSNs in {@code missing} had not arrived: a hole the
     * IUT must read as loss ([SPEC-LOSS-1]).
     */
    public void ackExcept(int path, Set<Long> missing) {
        send(path, currentAck(path, missing));
    }

    /**
     * Sends, in one datagram ([SPEC-WIRE-30]), the ACK a conforming receiver sends for {@code path}
     * now, with {@code FLAG_BUNDLED}, followed by the first transmission of {@code s} on that path
     * (as {@link #send(Segment, int)}): an ACK riding ahead of DATA, as [SPEC-SACK-13] has a sender
     * do. The two must fit the smaller of the two sides' datagram sizes.
     */
    public Sent sendBundled(Segment s, int path) {
        Packet ack = currentAck(path, Set.of());
        Checks.require(ack != null, "a bundle needs an ACK: nothing of the IUT's received on path " + path);
        ack.flags |= WireConstants.FLAG_BUNDLED;
        ack.destinationConnectionId = peerId;
        if (s.connectionSequence < 0) {
            s.connectionSequence = nextCsn++;
        }
        long psn = nextPsn[path]++;
        long ts = System.nanoTime();
        byte[] data = new byte[scratch.length];
        int dataLength = encode(s, path, psn, s.last() ? WireConstants.FLAG_ACK_NOW : 0, ts, data);
        int ackLength = codec.encode(ack, ByteBuffer.wrap(scratch), 0, null, 0);
        Checks.require(ackLength + dataLength <= Math.min(ownMaxDatagram, peerMaxDatagram),
                "a bundle of " + (ackLength + dataLength) + " bytes, above the datagram size");
        System.arraycopy(data, 0, scratch, ackLength, dataLength);
        peer.send(path, scratch, ackLength + dataLength, 0);
        acksSent++;
        return recordSent(path, psn, s.connectionSequence, ts, true);
    }

    /** The ACK a conforming receiver sends for {@code path} now, as if {@code missing} had not arrived; null if none. */
    private Packet currentAck(int path, Set<Long> missing) {
        long highest = iutHighest[path];
        long echoTimestamp = iutHighestTimestamp[path];
        long arrival = iutHighestArrival[path];
        if (withheld.get(path).contains(highest)) {
            // A refused packet is not recorded ([SPEC-SACK-2]): the ACK is about the highest one recorded.
            Long lower = iutPsns.get(path).lower(highest);
            while (lower != null && withheld.get(path).contains(lower)) {
                lower = iutPsns.get(path).lower(lower);
            }
            if (lower == null) {
                return null;
            }
            highest = lower;
            for (Received r : data) {
                if (r.packet().pathId == path && r.packet().pathSequence == highest) {
                    echoTimestamp = r.packet().timestampNanos;
                    arrival = r.arrivalNanos();
                }
            }
        }
        return ackPacket(path, highest, echoTimestamp, arrival, missing);
    }

    /**
     * Sends an ACK for {@code path} as if nothing above PSN {@code psn} had arrived yet (a receiver
     * acknowledging the first packet at once, [SPEC-CC-26]): its highest bit is {@code psn}, which
     * the suite received.
     */
    public void ackThrough(int path, long psn) {
        for (Received r : data) {
            if (r.packet().pathId == path && r.packet().pathSequence == psn) {
                send(path, ackPacket(path, psn, r.packet().timestampNanos, r.arrivalNanos(), Set.of()));
                return;
            }
        }
        Checks.require(false, "an ACK through PSN " + psn + " of path " + path + ", which the suite never received");
    }

    /** Sends the ACK {@code ack} on {@code path}, unless it is null (nothing to acknowledge). */
    private void send(int path, Packet ack) {
        if (ack != null) {
            sendPacket(path, ack, null, 0);
            acksSent++;
        }
    }

    /**
     * The ACK of {@code path} whose highest bit is {@code highest}, recording what it acknowledges
     * and the ECN counts it reports; null when there is nothing to acknowledge, or (the suite as a
     * server) no port of the client's to send it to.
     */
    private Packet ackPacket(int path, long highest, long echoTimestamp, long arrival, Set<Long> missing) {
        if (highest < 0 || peer.remote(path) == null) {
            return null;
        }
        Packet p = new Packet();
        p.type = PacketType.ACK;
        p.pathId = path;
        p.sackBase = Math.max(0, highest - (WireConstants.SACK_BITS - 1));
        for (long psn : iutPsns.get(path).subSet(p.sackBase, true, highest, true)) {
            if (!missing.contains(psn) && !withheld.get(path).contains(psn)) {
                int bit = (int) (psn - p.sackBase);
                p.sackBits[bit >>> 6] |= 1L << (bit & 63);
                Long csn = iutPsnToCsn.get(path).get(psn);
                if (csn != null) {
                    ackedBySuite.set(Math.toIntExact(csn));
                }
            }
        }
        if (reportEct) {
            long recorded = 0;
            for (long psn : iutPsns.get(path).headSet(highest, true)) {
                recorded += withheld.get(path).contains(psn) || missing.contains(psn) ? 0 : 1;
            }
            long newly = Math.max(0, recorded - ectReported[path]);
            ectReported[path] += newly;
            ceReported[path] += reportCe ? newly : 0;
        }
        p.ectCount = ectReported[path];
        p.ceCount = ceReported[path];
        p.echoTimestampNanos = echoTimestamp;
        p.ackDelayNanos = Math.max(0, System.nanoTime() - arrival);
        p.rateHintBytesPerSecond = rateHint;
        if (shortAcks && ShortSack.fits(p.sackBase, p.sackBits)) {
            p.flags |= WireConstants.FLAG_SHORT_SACK;
        }
        return p;
    }

    // =====================================================================================
    // Receiving
    // =====================================================================================

    /**
     * Receives and handles what arrives until {@code done} holds or {@code timeoutNanos} passed.
     *
     * @return whether {@code done} holds
     */
    public boolean await(BooleanSupplier done, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!done.getAsBoolean()) {
            if (!pump(deadline)) {
                return done.getAsBoolean();
            }
        }
        return true;
    }

    /** {@link #await(BooleanSupplier, long)} with the suite's wait. */
    public boolean await(BooleanSupplier done) {
        return await(done, waitNanos);
    }

    /** Receives and handles everything that arrives for {@code millis}. */
    public void quiet(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (pump(deadline)) {
            // keep handling until the deadline
        }
    }

    /** The first packet of {@code type} received at or after index {@code mark}, waiting up to {@code timeoutNanos}. */
    public Received awaitType(int mark, int type, long timeoutNanos) {
        Received[] found = new Received[1];
        await(() -> (found[0] = firstOfType(mark, type)) != null, timeoutNanos);
        return found[0];
    }

    /** {@link #awaitType(int, int, long)} with the suite's wait. */
    public Received awaitType(int mark, int type) {
        return awaitType(mark, type, waitNanos);
    }

    /** The first packet of {@code type} received at or after index {@code mark}, or null. */
    public Received firstOfType(int mark, int type) {
        for (int i = mark; i < received.size(); i++) {
            if (received.get(i).type() == type) {
                return received.get(i);
            }
        }
        return null;
    }

    /** Every packet of {@code type} received at or after index {@code mark}. */
    public List<Received> ofType(int mark, int type) {
        List<Received> out = new ArrayList<>();
        for (int i = mark; i < received.size(); i++) {
            if (received.get(i).type() == type) {
                out.add(received.get(i));
            }
        }
        return out;
    }

    /** The first DATA packet carrying CSN {@code csn} received at or after {@code mark}, or null. */
    public Received firstData(int mark, long csn) {
        for (int i = mark; i < received.size(); i++) {
            Received r = received.get(i);
            if (r.type() == PacketType.DATA && r.packet().connectionSequence == csn) {
                return r;
            }
        }
        return null;
    }

    /** How many packets have been received: a mark for {@link #awaitType} and {@link #ofType}. */
    public int mark() {
        return received.size();
    }

    private boolean pump(long deadline) {
        WirePeer.Datagram d = peer.receive(deadline);
        if (d == null) {
            return false;
        }
        byte[] bytes = d.bytes();
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        if (blackHole[d.path()]) {
            Packet p = new Packet();
            int head = PacketCodec.bundledHeadLength(buf, 0, bytes.length);
            if (codec.decode(buf, head, bytes.length - head, p) == DecodeError.OK) {
                blackHoled.add(new Received(p, new byte[0], d.path(), bytes.length - head, bytes.length,
                        d.arrivalNanos()));
            }
            return true;
        }
        if (bytes.length > ownMaxDatagram) {
            senderViolations.add("a datagram of " + bytes.length + " bytes, above the " + ownMaxDatagram
                    + " the suite announced [SPEC-CONN-14]");
        }
        int head = PacketCodec.bundledHeadLength(buf, 0, bytes.length);
        if (head > 0) {
            Packet first = new Packet();
            if (codec.decode(buf, 0, head, first) == DecodeError.OK) {
                handle(new Received(first, new byte[0], d.path(), head, bytes.length, d.arrivalNanos()));
                decodeAndHandle(buf, head, bytes.length - head, d);
                return true;
            }
        }
        decodeAndHandle(buf, 0, bytes.length, d);
        return true;
    }

    private void decodeAndHandle(ByteBuffer buf, int offset, int length, WirePeer.Datagram d) {
        Packet p = new Packet();
        int result = codec.decode(buf, offset, length, p);
        if (result != DecodeError.OK) {
            String what = "a datagram of " + length + " bytes that does not decode: " + DecodeError.name(result)
                    + (result == DecodeError.BAD_FIELD ? " (" + codec.lastFieldError() + ")" : "");
            undecodable.add(what);
            senderViolations.add(what + " [SPEC-WIRE-27]");
            return;
        }
        byte[] payload = new byte[p.type == PacketType.DATA ? p.payloadLength : 0];
        if (payload.length > 0) {
            buf.get(p.payloadOffset, payload);
        }
        handle(new Received(p, payload, d.path(), length, d.bytes().length, d.arrivalNanos()));
    }

    private void handle(Received r) {
        received.add(r);
        Packet p = r.packet();
        if (p.type == PacketType.CONNECT && server && p.destinationConnectionId == 0) {
            return; // a client's CONNECT, kept in received for the case
        }
        if (p.destinationConnectionId != localId) {
            senderViolations.add(r + " names connection " + Long.toUnsignedString(p.destinationConnectionId)
                    + ", not the suite's " + Long.toUnsignedString(localId) + " [SPEC-CONN-2]");
            return;
        }
        switch (p.type) {
            case PacketType.ACK -> {
                if (p.pathId < acksByPath.size()) {
                    acksByPath.get(p.pathId).add(r);
                }
            }
            case PacketType.DATA -> onData(r);
            case PacketType.PATH_PROBE -> {
                if (answerProbes) {
                    answerProbe(r);
                }
            }
            default -> {
                // kept in received for the cases to look at
            }
        }
    }

    private void onData(Received r) {
        data.add(r);
        Packet p = r.packet();
        int path = p.pathId;
        if (accept != null && path >= grantedPaths) {
            senderViolations.add(r + " on path " + path + ", beyond the " + grantedPaths + " paths granted [SPEC-CONN-15]");
            return;
        }
        if (path != r.path()) {
            senderViolations.add(r + " names path " + path + " but reached the socket of path " + r.path()
                    + " [SPEC-PATH-1]");
        }
        long psn = p.pathSequence;
        long csn = p.connectionSequence;
        if (!iutPsns.get(path).add(psn)) {
            senderViolations.add(r + " reuses PSN " + psn + " of path " + path + " [SPEC-PATH-3]");
        }
        iutPsnToCsn.get(path).put(psn, csn);
        if (psn > iutHighest[path]) {
            iutHighest[path] = psn;
            iutHighestTimestamp[path] = p.timestampNanos;
            iutHighestArrival[path] = r.arrivalNanos();
        }
        checkSenderRules(r);
        Received first = firstTransmission.putIfAbsent(csn, r);
        if (first == null) {
            deliver(r);
        } else {
            checkRetransmission(first, r);
        }
        if (autoAck) {
            ack(path);
        }
    }

    private void checkSenderRules(Received r) {
        Packet p = r.packet();
        long csn = p.connectionSequence;
        if (p.sequenceFloor > csn) {
            senderViolations.add(r + " carries sequenceFloor " + p.sequenceFloor + " above its CSN [SPEC-ADM-9]");
        }
        int lowestUnacked = ackedBySuite.nextClearBit(0);
        if (p.sequenceFloor > lowestUnacked) {
            senderViolations.add(r + " carries sequenceFloor " + p.sequenceFloor + " but CSN " + lowestUnacked
                    + " was never acknowledged [SPEC-ADM-2]");
        }
        if (accept != null) {
            long window = Math.min(ownWindow, peerWindow);
            if (csn >= lowestUnacked + window) {
                senderViolations.add(r + ": CSN " + csn + " is not below " + lowestUnacked + " (lowest CSN not"
                        + " acknowledged) + " + window + " (the sequence window) [SPEC-ADM-1]");
            }
        }
        if (p.payloadMessageOffset + p.payloadLength == p.messageLength && (p.flags & WireConstants.FLAG_ACK_NOW) == 0) {
            senderViolations.add(r + " ends its message without FLAG_ACK_NOW [SPEC-SACK-5]");
        }
    }

    private void checkRetransmission(Received first, Received again) {
        Packet a = first.packet();
        Packet b = again.packet();
        // Paths are different sockets, so a copy may be read before the first transmission: of all the
        // transmissions of a CSN, one only may lack the retransmission flags.
        int wanted = WireConstants.FLAG_RETRANSMISSION | WireConstants.FLAG_ACK_NOW;
        if ((a.flags & wanted) != wanted && (b.flags & wanted) != wanted) {
            senderViolations.add(again + " repeats CSN " + b.connectionSequence
                    + " without FLAG_RETRANSMISSION and FLAG_ACK_NOW [SPEC-PATH-5]");
        }
        if (a.opcode != b.opcode || a.streamId != b.streamId || a.messageSequence != b.messageSequence
                || a.receiveSequence != b.receiveSequence || a.messageLength != b.messageLength
                || a.payloadMessageOffset != b.payloadMessageOffset || a.remoteKey != b.remoteKey
                || a.remoteOffset != b.remoteOffset || !Arrays.equals(first.payload(), again.payload())) {
            senderViolations.add(again + " repeats CSN " + b.connectionSequence + " with other contents than "
                    + first + " [SPEC-PATH-5]");
        }
    }

    private void deliver(Received r) {
        Packet p = r.packet();
        if (p.opcode != DataOpcode.SEND && p.opcode != DataOpcode.READ_RESPONSE) {
            return;
        }
        boolean response = p.opcode == DataOpcode.READ_RESPONSE;
        long key = ((long) p.streamId << 40) ^ p.messageSequence ^ (response ? 1L << 63 : 0);
        Incoming m = incoming.get(key);
        if (m == null) {
            if (p.messageLength > MAX_REASSEMBLY_BYTES) {
                senderViolations.add(r + " starts a message of " + p.messageLength + " bytes, more than any echo");
                return;
            }
            m = new Incoming(p.streamId, p.messageSequence, p.receiveSequence, (int) p.messageLength,
                    (p.dataFlags & WireConstants.DATA_FLAG_HAS_IMMEDIATE) != 0, p.immediate, response);
            incoming.put(key, m);
        } else if (m.length != p.messageLength || m.receiveSequence != p.receiveSequence) {
            senderViolations.add(r + " disagrees with the first packet of its message on messageLength or"
                    + " receiveSequence [SPEC-MSG-3]");
            return;
        }
        if (m.complete) {
            return;
        }
        int offset = (int) p.payloadMessageOffset;
        System.arraycopy(r.payload(), 0, m.bytes, offset, r.payload().length);
        m.covered.set(offset, offset + r.payload().length);
        m.cuts.add(new long[] {offset, r.payload().length});
        if (m.covered.cardinality() == m.length) {
            m.complete = true;
            checkCut(m);
            (m.response ? readResponses : echoes).add(new EchoMessage(m.streamId, m.messageSequence,
                    m.receiveSequence, m.bytes, m.hasImmediate, m.immediate));
        }
    }

    /** The packets of a completed message follow one of the two cuts of [SPEC-MSG-3]. */
    private void checkCut(Incoming m) {
        long length = m.length;
        if (length == 0) {
            return;
        }
        long p = payloadSize();
        long n = (length + p - 1) / p;
        long q = (length + n - 1) / n;
        boolean equal = true;
        boolean full = true;
        for (long[] cut : m.cuts) {
            long o = cut[0];
            long len = cut[1];
            equal &= len == q && (o % q == 0 || o == length - q);
            full &= o % p == 0 && len == Math.min(p, length - o);
        }
        if (!equal && !full) {
            senderViolations.add("the echo of MSN " + m.messageSequence + " (" + length + " bytes) is cut into packets"
                    + " that follow neither cut of [SPEC-MSG-3] with a payload size of " + p);
        }
    }

    // =====================================================================================
    // What the suite knows
    // =====================================================================================

    /** The suite's connection id. */
    public long localId() {
        return localId;
    }

    /** The IUT's connection id from its ACCEPT. */
    public long peerId() {
        return peerId;
    }

    /** The ACCEPT, or null before the handshake. */
    public Received accept() {
        return accept;
    }

    /** Paths granted by the ACCEPT (at most the suite's sockets). */
    public int grantedPaths() {
        return grantedPaths;
    }

    /** The suite's announced datagram size. */
    public int ownMaxDatagram() {
        return ownMaxDatagram;
    }

    /** Every packet received, in arrival order. */
    public List<Received> received() {
        return received;
    }

    /** The ACKs received about {@code path}, in arrival order. */
    public List<Received> acks(int path) {
        return acksByPath.get(path);
    }

    /** The DATA packets received, in arrival order. */
    public List<Received> data() {
        return data;
    }

    /** The echoed messages reassembled so far, in the order they completed. */
    public List<EchoMessage> echoes() {
        return echoes;
    }

    /** The READ responses reassembled so far, in the order they completed ([SPEC-MSG-11]). */
    public List<EchoMessage> readResponses() {
        return readResponses;
    }

    /** The SENDs received on {@code streamId}, in the order they completed. */
    public List<EchoMessage> messagesOn(int streamId) {
        List<EchoMessage> out = new ArrayList<>();
        for (EchoMessage m : echoes) {
            if (m.streamId() == streamId) {
                out.add(m);
            }
        }
        return out;
    }

    /** What arrived on black-holed paths' sockets, in arrival order ({@link #blackHole}). */
    public List<Received> blackHoled() {
        return blackHoled;
    }

    /** When ({@link System#nanoTime()}) the suite sent each PROBE_ACK. */
    public List<Long> probeAnswerTimes() {
        return probeAnswerTimes;
    }

    /** The peer (sockets) of this session. */
    public WirePeer peer() {
        return peer;
    }

    /** What the suite sent on {@code path}, in order. */
    public List<Sent> sent(int path) {
        return sentByPath.get(path);
    }

    /** The PSNs of the IUT's DATA received on {@code path}. */
    public TreeSet<Long> iutPsns(int path) {
        return iutPsns.get(path);
    }

    /** Rules the IUT broke in what it sent, whatever the case (one line each). */
    public List<String> senderViolations() {
        return senderViolations;
    }

    /** ACKs the suite sent. */
    public int acksSent() {
        return acksSent;
    }

    /** The suite's wait for one expected answer, in nanoseconds. */
    public long waitNanos() {
        return waitNanos;
    }

    /** Sends CLOSE (a courtesy: the case is over) and closes the sockets. */
    @Override
    public void close() {
        try {
            if (accept != null) {
                sendClose(io.metaroce.core.wire.CloseCode.NO_ERROR, false);
            }
        } catch (RuntimeException ignored) {
            // the sockets close anyway
        } finally {
            peer.close();
        }
    }

    /** A message of the echo stream being reassembled. */
    private static final class Incoming {
        final int streamId;
        final long messageSequence;
        final long receiveSequence;
        final int length;
        final byte[] bytes;
        final BitSet covered;
        final boolean hasImmediate;
        final int immediate;
        final boolean response;
        final List<long[]> cuts = new ArrayList<>();
        boolean complete;

        Incoming(int streamId, long messageSequence, long receiveSequence, int length, boolean hasImmediate,
                int immediate, boolean response) {
            this.response = response;
            this.streamId = streamId;
            this.messageSequence = messageSequence;
            this.receiveSequence = receiveSequence;
            this.length = length;
            this.bytes = new byte[length];
            this.covered = new BitSet(length);
            this.hasImmediate = hasImmediate;
            this.immediate = immediate;
        }
    }

    /**
     * A SEND the IUT sent, reassembled.
     *
     * @param streamId its stream
     * @param messageSequence its MSN
     * @param receiveSequence its RSN
     * @param bytes its bytes
     * @param hasImmediate whether it carried immediate data
     * @param immediate the immediate data
     *
     * <p>Immutable by convention (the array is not copied); thread-safe to read.
     */
    public record EchoMessage(int streamId, long messageSequence, long receiveSequence, byte[] bytes,
            boolean hasImmediate, int immediate) {
    }
}
