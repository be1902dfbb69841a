package io.metaroce.bench.conformance;

import io.metaroce.core.wire.DataOpcode;
import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
import io.metaroce.core.wire.ShortSack;
import io.metaroce.core.wire.WireConstants;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * A deliberately broken implementation under test: a UDP relay in front of the reference
 * responder that breaks one rule of docs/spec.md on the wire, so the suite can be shown to FAIL
 * the cases that check it. Each address the suite sends from gets an upstream socket of its own,
 * so the responder still sees one source port per path. Seen from the suite, relay and responder
 * are one implementation.
 *
 * <p>Thread safety: runs on its own thread; {@link #close} from any thread.
 */
final class FaultyRelay implements AutoCloseable {
    /** The rule the relay breaks. */
    enum Fault {
        /** ACKs towards the suite have their lowest SACK bit cleared: a received PSN reported missing ([SPEC-SACK-3]). */
        WRONG_SACK,
        /** Datagrams towards the responder are resealed, so a bad checksum is accepted ([SPEC-WIRE-10]). */
        ACCEPT_BAD_CHECKSUM,
        /** A DATA whose CSN was seen before is turned into a new message: a duplicate delivered again ([SPEC-ADM-5]). */
        DELIVER_DUPLICATES,
        /** Retransmissions on paths other than 0 are moved to path 0 ([SPEC-LOSS-3]). */
        RESEND_ON_PATH_ZERO,
        /** Every retransmission is followed by a second copy with a PSN of its own: a hole resent twice ([SPEC-LOSS-3]). */
        RESEND_TWICE,
        /** WRITE packets after the message's first are placed one byte further into the region ([SPEC-MSG-7]). */
        WRITE_MISPLACED,
        /** Each READ_RESPONSE towards the suite has a payload byte changed: the region read wrongly ([SPEC-MSG-11]). */
        READ_CORRUPTED,
        /** NAK codes towards the suite are rotated (1 to 2, 2 to 3, 3 to 1): refusals for the wrong reason ([SPEC-NAK-2]). */
        NAK_CODES_ROTATED,
        /** The suite's NAKs reach the responder with retryAfterNanos 0: the delay asked for is ignored ([SPEC-NAK-4]). */
        RNR_DELAY_IGNORED,
        /**
         * Retransmissions on path 0 are moved to path 1 and those on path 1 to path 0: what a path in doubt lost is
         * resent on it ([SPEC-PATH-10]).
         */
        RESEND_ON_OTHER_PATH,
        /** ACKs towards the suite claim a second more of ackDelayNanos than the receiver held the packet ([SPEC-SACK-3]). */
        ACK_DELAY_INFLATED,
        /** The responder's client CONNECTs reach the suite without the cookie of the CHALLENGE ([SPEC-CONN-6]). */
        CLIENT_COOKIE_DROPPED,
        /**
         * The responder's client connection reaches the suite from one port for all its paths (the relay redirects the
         * connect command through itself): its paths are not told apart by source port ([SPEC-PATH-1]).
         */
        CLIENT_PATHS_MERGED,
        /** WRITE_WITH_IMMs reach the responder as WRITEs: placed, but no receive consumed or completed ([SPEC-MSG-8]). */
        IMMEDIATE_DROPPED,
        /** Every PATH_PROBE towards the suite is sent twice: a path probed twice as often as its timers say ([SPEC-PATH-12]). */
        PROBES_DOUBLED,
        /** A bundle towards the responder loses its ACK: only the packet behind it is handled ([SPEC-WIRE-30]). */
        BUNDLED_ACK_DROPPED,
        /** ACKs towards the responder in the 84-byte short form are dropped: only the full form is understood ([SPEC-WIRE-31]). */
        SHORT_ACK_DROPPED,
        /**
         * DATA towards the responder whose PSN is 256 or more above the highest the relay saw on its connection and
         * path is dropped: a receiver that bounds how far a PSN may run ahead ([SPEC-ADM-10]).
         */
        PSN_JUMP_DROPPED,
        /**
         * Everything the responder sends on a path goes to the suite's address that path first spoke from: a path
         * never rebound to a new source port ([SPEC-PATH-2]).
         */
        REBIND_IGNORED,
        /**
         * DATA towards the responder that it must drop as implausible is made plausible: a CSN 2^15 or more above
         * the connection's first is brought into the window, a sequenceFloor above the packet's CSN cleared: a
         * receiver that admits such packets ([SPEC-ADM-6], [SPEC-ADM-9]).
         */
        IMPLAUSIBLE_ADMITTED,
        /**
         * Every DATA towards the responder has its messageLength set to the first its message was seen with: a
         * receiver that does not check that a message's packets agree on its length ([SPEC-MSG-9]).
         */
        LENGTH_NORMALIZED,
        /** DATA towards the responder with a negative timestampNanos is dropped: a receiver that judges the sender's clock ([SPEC-WIRE-8]). */
        NEGATIVE_TIMESTAMP_DROPPED,
        /** ACKs towards the suite claim 1,000 CSNs more final than the responder said ([SPEC-SACK-10]). */
        CUMULATIVE_INFLATED,
        /**
         * DATA towards the responder whose CSN is above one the relay has not passed yet is dropped: a receiver that
         * takes nothing beyond a hole in the connection's sequence, so a message of one stream waits for another's
         * ([SPEC-MSG-14]).
         */
        STREAMS_SERIALIZED,
        /**
         * A CONNECT towards the responder naming a client id that another of the suite's addresses opened a
         * connection with reaches it under another client id (and the answers go back under the suite's): a server
         * that keys its connections by address and client id, so a live id from another address opens a second
         * connection ([SPEC-CONN-16]).
         */
        CLIENT_ID_PER_ADDRESS,
        /**
         * A CONNECT with a cookie towards the responder, for a client id whose connection the responder closed, has
         * its cookie swapped for a fresh one (the relay handshakes for it): a server that does not remember ended
         * connections, so a replayed CONNECT opens a new one ([SPEC-CONN-16]).
         */
        REPLAY_ACCEPTED,
        /**
         * The rate hint of every ACK towards the suite is made the mean of the latest hints of the suite's connections
         * that got an ACK within the last 200 ms: a receiver that splits its capacity equally, whatever the demands
         * ([SPEC-CC-10]).
         */
        HINTS_EQUALIZED,
        /**
         * A CONNECT towards the responder that breaks a rule of its layout is repaired (each field brought to the
         * nearest valid value): a server that does not check a CONNECT's fields ([SPEC-WIRE-22]).
         */
        CONNECT_REPAIRED,
        /**
         * After each CLOSE towards the suite, the last DATA the relay passed to that address goes again, as a
         * retransmission with a PSN of its own: a connection that goes on sending DATA in DRAINING ([SPEC-STATE-2]).
         */
        DATA_AFTER_CLOSE,
        /**
         * Hints towards the suite as a server that counts a connection only from its first DATA would give: every
         * ACCEPT announces the whole capacity ({@link ResponderContract#CAPACITY_BYTES_PER_SECOND}, given, not
         * learnt from the hints seen, so that the fault shows whatever ran before), every ACK the capacity divided
         * among the connections that sent DATA within the last 100 ms ({@link #ADVANCE_WINDOW_NANOS})
         * ([SPEC-CC-23]).
         */
        ADVANCE_COUNT_IGNORED,
        /**
         * {@link #ADVANCE_COUNT_IGNORED} in the ACKs only: the ACCEPTs pass as the responder wrote them, so only
         * the ACK half of {@code cc.announced-share} can see the fault ([SPEC-CC-23], [SPEC-CC-11]).
         */
        ADVANCE_COUNT_IGNORED_IN_ACKS,
        /**
         * A drain that never ends ([SPEC-STATE-7]): once the responder answered a CLOSE from an address, every later
         * CLOSE from there gets that answer again, from the relay, however long after.
         */
        DRAIN_ENDLESS,
        /**
         * The rate hint of every ACK towards the suite is the share an allocator without the held-back rule gives
         * (capacity {@link HintCases#HELD_BACK_MAX_CAPACITY}, period {@link #HELD_BACK_PERIOD_NANOS}): each
         * connection that sent DATA within the last two periods demands 5/4 of its rate over them (at least a
         * datagram of {@link #HELD_BACK_MAX_DATAGRAM} bytes a period), whatever its share; max-min, the spare
         * handed out ([SPEC-CC-11] item 2).
         */
        HELD_BACK_IGNORED,
        /**
         * After each CLOSE reply towards the suite, a CLOSE without the reply flag follows from the relay: a
         * connection that sends a CLOSE of its own in DRAINING ([SPEC-STATE-2]).
         */
        CLOSE_AFTER_CLOSE_REPLY,
        /**
         * Once the responder sent a CLOSE of its own (not a reply) to an address, DATA from there is dropped: a
         * connection closing gracefully that no longer takes its peer's last packets ([SPEC-STATE-3]).
         */
        CLOSING_DEAF,
        /**
         * Once the responder sent a CLOSE of its own (not a reply) to an address, nothing more goes there: a
         * connection in CLOSING that sends its CLOSE once, never again ([SPEC-STATE-5]), and answers nothing.
         */
        CLOSE_SENT_ONCE,
        /**
         * Once the responder sent a CLOSE of its own (not a reply) to an address, its later CLOSEs of its own to
         * there are dropped, nothing else: a connection in CLOSING that answers its peer but sends its CLOSE once,
         * never again ([SPEC-STATE-5]).
         */
        CLOSE_NOT_REPEATED,
        /**
         * The first ACK towards the suite of each connection is dropped: the first packet's ACK reaches the suite
         * only with a later one, as from a receiver that holds it back like any other ([SPEC-CC-26]).
         */
        FIRST_ACK_DROPPED,
        /**
         * The first ACK towards the suite of the relay's first connection is dropped, no other: a receiver that
         * holds one first ACK back, as a conforming one descheduled for a while would ([SPEC-CC-26]).
         */
        FIRST_ACK_DROPPED_ONCE,
        /**
         * A first transmission towards the suite (no FLAG_RETRANSMISSION) that is not its message's last packet
         * loses FLAG_ACK_NOW: a sender that asks for an ACK only at a message's end and on its copies
         * ([SPEC-SACK-5]), even on a path that loses much ([SPEC-SACK-12]).
         */
        ACK_NOW_ONLY_AT_END,
        /**
         * Retransmissions towards the suite beyond the {@link #COPIES_PASSED}-th of a CSN are dropped: in front of a
         * responder that never ends a connection for its timeouts (the most the engine allows), a connection that
         * stops resending to a silent peer after a few copies and yet does not end ([SPEC-LOSS-6]).
         */
        COPIES_STOPPED,
        /**
         * As a connection whose count of consecutive timeouts is never reset by progress: once the responder has
         * resent DATA to an address {@link #LIFETIME_TIMEOUTS} times in all (its timeouts of the connection's life,
         * each followed by a copy), that copy and everything after it, both ways, is dropped: the connection ended at
         * that timeout, as one of a responder at {@link #LIFETIME_TIMEOUTS} {@code maxConsecutiveTimeouts} that
         * counts timeouts across acknowledgements would ([SPEC-SACK-11]).
         */
        TIMEOUTS_NEVER_RESET,
        /**
         * Every ACCEPT towards the suite announces the id of the first ACCEPT the relay passed, and the suite's
         * packets naming that id are given their own connection's back: an endpoint that gives every connection
         * the same id ([SPEC-CONN-2]).
         */
        ACCEPT_IDS_SHARED
    }

    /** For {@link Fault#TIMEOUTS_NEVER_RESET}: the test responder's {@code maxConsecutiveTimeouts}. */
    static final int LIFETIME_TIMEOUTS = 4;

    /** For {@link Fault#COPIES_STOPPED}: the copies of one CSN passed to the suite. */
    static final int COPIES_PASSED = 3;

    /** For {@link Fault#HELD_BACK_IGNORED}: the fair-share period of the test's responder. */
    static final long HELD_BACK_PERIOD_NANOS = 50_000_000L;
    /** For {@link Fault#HELD_BACK_IGNORED}: the test responder's maxDatagramBytes (the engine's default). */
    private static final long HELD_BACK_MAX_DATAGRAM = 4_096;

    /**
     * For {@link Fault#ADVANCE_COUNT_IGNORED}: half a fair-share period of the test's responder (200 ms), so within
     * the two periods a connection accepted counts in advance.
     */
    private static final long ADVANCE_WINDOW_NANOS = 100_000_000L;

    /** For {@link Fault#HINTS_EQUALIZED}: how recent a connection's latest ACK must be for it to count as a sender. */
    private static final long EQUALIZED_WINDOW_NANOS = 200_000_000L;

    /** For {@link Fault#CLIENT_ID_PER_ADDRESS}: what a second address's client id is turned into. */
    private static final long ALIAS_MASK = 0x5A5A_5A5A_5A5A_5A5AL;

    /** For {@link Fault#IMPLAUSIBLE_ADMITTED}: CSNs this far above 0 count as beyond the window. */
    private static final long FAR_CSN = 1 << 15;
    /** For {@link Fault#IMPLAUSIBLE_ADMITTED}: where a far CSN is brought, well inside the window and unused. */
    private static final long PLAUSIBLE_CSN = 1_000;

    /** For {@link Fault#PSN_JUMP_DROPPED}: a jump of this many PSNs or more is dropped (the SACK window). */
    private static final long PSN_JUMP_LIMIT = WireConstants.SACK_BITS;

    /**
     * Receive buffer of the relay's sockets: the suite's sockets' (4 MiB), so that the relay, one
     * thread at the build's priority, does not drop a burst the suite sends (six 64 KiB SENDs at once).
     */
    private static final int RECEIVE_BUFFER_BYTES = 4 << 20;


    /** Added to the PSN of the second copy of {@link Fault#RESEND_TWICE}: far above any PSN the responder uses. */
    private static final long SECOND_COPY_PSN_OFFSET = 1_000_000;

    private final InetSocketAddress upstream;
    private final Fault fault;
    private final DatagramChannel front;
    private final Selector selector;
    private final Map<InetSocketAddress, DatagramChannel> upstreams = new HashMap<>();
    private final Map<Long, InetSocketAddress> pathZeroOf = new HashMap<>();
    private final Map<Long, Renumbering> renumberings = new HashMap<>();
    /** The suite's address of path 1, by the responder's connection id (the one the suite's DATA names). */
    private final Map<Long, InetSocketAddress> pathOneOf = new HashMap<>();
    /** The responder's connection id, by the suite's (from the ACCEPT). */
    private final Map<Long, Long> responderIdOf = new HashMap<>();
    /** For {@link Fault#CLIENT_COOKIE_DROPPED}: the socket between the responder's client and the suite's server. */
    private DatagramChannel clientLeg;
    private InetSocketAddress suiteServer;
    private InetSocketAddress responderClient;
    /** The responder's client's address of each path, by the path its datagrams name. */
    private final Map<Integer, InetSocketAddress> responderClientPaths = new HashMap<>();
    /** For {@link Fault#PSN_JUMP_DROPPED}: the highest PSN passed on, by connection id and path. */
    private final Map<String, Long> highestPsn = new HashMap<>();
    /** For {@link Fault#REBIND_IGNORED}: the suite's first address of each path, by the suite's connection id and path. */
    private final Map<String, InetSocketAddress> firstAddress = new HashMap<>();
    /** For {@link Fault#LENGTH_NORMALIZED}: each message's first messageLength, by connection id, stream and MSN. */
    private final Map<String, Long> firstLength = new HashMap<>();
    /** For {@link Fault#STREAMS_SERIALIZED}: the lowest CSN not passed yet, by connection id. */
    private final Map<Long, Long> nextCsn = new HashMap<>();
    /** For {@link Fault#CLIENT_ID_PER_ADDRESS}: the suite's first address to CONNECT with each client id. */
    private final Map<Long, InetSocketAddress> firstConnectFrom = new HashMap<>();
    /** For {@link Fault#REPLAY_ACCEPTED}: the suite's client ids to which the responder sent a CLOSE. */
    private final Set<Long> closedClients = new HashSet<>();
    /** For {@link Fault#REPLAY_ACCEPTED}: client ids whose fresh CHALLENGE the relay awaits, with the CONNECT to complete. */
    private final Map<Long, Packet> refreshing = new HashMap<>();
    /** For {@link Fault#HINTS_EQUALIZED}: each connection's latest hint and when it came, by the suite's id. */
    private final Map<Long, long[]> latestHints = new HashMap<>();
    /** For {@link Fault#DATA_AFTER_CLOSE}: the last DATA passed to each of the suite's addresses. */
    private final Map<InetSocketAddress, byte[]> lastData = new HashMap<>();
    /** For {@link Fault#FIRST_ACK_DROPPED} and {@link Fault#FIRST_ACK_DROPPED_ONCE}: the suite's connection ids whose first ACK was dropped. */
    private final Set<Long> firstAckDropped = new HashSet<>();
    /**
     * For {@link Fault#CLOSING_DEAF}, {@link Fault#CLOSE_SENT_ONCE} and {@link Fault#CLOSE_NOT_REPEATED}: the
     * suite's addresses the responder sent a CLOSE of its own to.
     */
    private final Set<InetSocketAddress> closedBy = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** For {@link Fault#DRAIN_ENDLESS}: the responder's first CLOSE reply to each of the suite's addresses. */
    private final Map<InetSocketAddress, byte[]> firstCloseReply = new HashMap<>();
    /** For {@link Fault#ADVANCE_COUNT_IGNORED}: when DATA last went to each of the responder's connection ids. */
    private final Map<Long, Long> lastDataTo = new HashMap<>();
    /** For {@link Fault#HELD_BACK_IGNORED}: {arrival, bytes} of each DATA towards the responder, by its connection id. */
    private final Map<Long, java.util.ArrayDeque<long[]>> arrivals = new HashMap<>();
    /** For {@link Fault#ACCEPT_IDS_SHARED}: the id every ACCEPT announces (0 until the first). */
    private long sharedId;
    /** For {@link Fault#ACCEPT_IDS_SHARED}: the responder's real id of each of the suite's addresses' connection. */
    private final Map<InetSocketAddress, Long> realIdOf = new HashMap<>();
    /** For {@link Fault#TIMEOUTS_NEVER_RESET}: the copies the responder sent to each of the suite's addresses. */
    private final Map<InetSocketAddress, Integer> lifetimeCopies = new HashMap<>();
    /** For {@link Fault#TIMEOUTS_NEVER_RESET}: the suite's addresses whose connection the relay ended. */
    private final Set<InetSocketAddress> ended = new HashSet<>();
    /** For {@link Fault#COPIES_STOPPED}: the copies passed, by the suite's connection id and CSN. */
    private final Map<String, Integer> copies = new HashMap<>();
    private final io.metaroce.core.cc.MaxMinFairShare maxMin = new io.metaroce.core.cc.MaxMinFairShare();
    private final PacketCodec codec = new PacketCodec();
    private final ByteBuffer buffer = ByteBuffer.allocate(65_536);
    private final Thread thread;
    private volatile boolean running = true;

    FaultyRelay(InetSocketAddress upstream, Fault fault) {
        this.upstream = upstream;
        this.fault = fault;
        try {
            this.selector = Selector.open();
            this.front = DatagramChannel.open();
            front.setOption(java.net.StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
            front.bind(new InetSocketAddress(upstream.getAddress(), 0));
            front.configureBlocking(false);
            front.register(selector, SelectionKey.OP_READ, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.thread = Thread.ofPlatform().daemon(true).name("faulty-relay-" + fault).start(this::run);
    }

    /** Where the suite sends. */
    InetSocketAddress address() {
        try {
            return (InetSocketAddress) front.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void run() {
        try {
            while (running) {
                selector.select(50);
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    if (key.attachment() == null) {
                        fromSuite();
                    } else if (key.channel() == clientLeg) {
                        betweenClientAndServer();
                    } else {
                        fromResponder((DatagramChannel) key.channel(), (InetSocketAddress) key.attachment());
                    }
                }
            }
        } catch (IOException e) {
            if (running) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void fromSuite() throws IOException {
        while (true) {
            buffer.clear();
            InetSocketAddress client = (InetSocketAddress) front.receive(buffer);
            if (client == null) {
                return;
            }
            buffer.flip();
            DatagramChannel up = upstreams.get(client);
            if (up == null) {
                up = DatagramChannel.open();
                up.setOption(java.net.StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
                up.bind(new InetSocketAddress(upstream.getAddress(), 0));
                up.configureBlocking(false);
                up.register(selector, SelectionKey.OP_READ, client);
                upstreams.put(client, up);
            }
            int length = buffer.remaining();
            if (fault == Fault.CONNECT_REPAIRED && length == WireConstants.CONNECT_BYTES
                    && buffer.get(1) == PacketType.CONNECT) {
                repairConnect();
            }
            int head = PacketCodec.bundledHeadLength(buffer, 0, length);
            if (fault == Fault.BUNDLED_ACK_DROPPED && head > 0) {
                buffer.put(0, buffer, head, length - head); // the packet behind the ACK, alone
                length -= head;
                buffer.limit(length);
            }
            Packet p = new Packet();
            boolean valid = codec.decode(buffer, 0, length, p) == DecodeError.OK;
            if (fault == Fault.DRAIN_ENDLESS && valid && p.type == PacketType.CLOSE && !p.closeReply
                    && firstCloseReply.containsKey(client)) {
                front.send(ByteBuffer.wrap(firstCloseReply.get(client)), client);
            }
            if (fault == Fault.ACCEPT_IDS_SHARED && valid && p.destinationConnectionId == sharedId && sharedId != 0
                    && realIdOf.containsKey(client)) {
                buffer.putLong(8, realIdOf.get(client)); // the suite's packet, to the connection it meant
                codec.reseal(buffer, 0, length);
            }
            if (fault == Fault.TIMEOUTS_NEVER_RESET && ended.contains(client)) {
                continue;
            }
            if (fault == Fault.CLOSING_DEAF && valid && p.type == PacketType.DATA && closedBy.contains(client)) {
                continue;
            }
            if (fault == Fault.SHORT_ACK_DROPPED && valid && p.type == PacketType.ACK
                    && (p.flags & WireConstants.FLAG_SHORT_SACK) != 0) {
                continue;
            }
            if (fault == Fault.STREAMS_SERIALIZED && valid && p.type == PacketType.DATA) {
                long next = nextCsn.getOrDefault(p.destinationConnectionId, 0L);
                if (p.connectionSequence > next) {
                    continue;
                }
                if (p.connectionSequence == next) {
                    nextCsn.put(p.destinationConnectionId, next + 1);
                }
            }
            if (fault == Fault.NEGATIVE_TIMESTAMP_DROPPED && valid && p.type == PacketType.DATA && p.timestampNanos < 0) {
                continue;
            }
            if (fault == Fault.PSN_JUMP_DROPPED && valid && p.type == PacketType.DATA) {
                String key = p.destinationConnectionId + "/" + p.pathId;
                Long highest = highestPsn.get(key);
                if (highest != null && p.pathSequence - highest >= PSN_JUMP_LIMIT) {
                    continue;
                }
                highestPsn.merge(key, p.pathSequence, Math::max);
            }
            if (fault == Fault.IMPLAUSIBLE_ADMITTED && valid && p.type == PacketType.DATA
                    && (p.connectionSequence >= FAR_CSN || p.sequenceFloor > p.connectionSequence)) {
                buffer.putLong(16, p.connectionSequence >= FAR_CSN ? PLAUSIBLE_CSN : p.connectionSequence);
                buffer.putLong(96, 0);
                codec.reseal(buffer, 0, length);
            }
            if (fault == Fault.LENGTH_NORMALIZED && valid && p.type == PacketType.DATA) {
                long first = firstLength.computeIfAbsent(p.destinationConnectionId + "/" + p.streamId + "/"
                        + p.messageSequence, k -> p.messageLength);
                if (first != p.messageLength) {
                    buffer.putLong(56, first);
                    codec.reseal(buffer, 0, length);
                }
            }
            if (valid && p.type == PacketType.CONNECT) {
                pathZeroOf.put(p.sourceConnectionId, client);
                InetSocketAddress firstFrom = firstConnectFrom.putIfAbsent(p.sourceConnectionId, client);
                if (fault == Fault.CLIENT_ID_PER_ADDRESS && firstFrom != null && !firstFrom.equals(client)) {
                    buffer.putLong(32, p.sourceConnectionId ^ ALIAS_MASK);
                    codec.reseal(buffer, 0, length);
                } else if (fault == Fault.REPLAY_ACCEPTED && p.hasCookie
                        && closedClients.contains(p.sourceConnectionId)) {
                    refreshing.put(p.sourceConnectionId, p);
                    p.hasCookie = false;
                    buffer.clear();
                    length = codec.encode(p, buffer, 0, null, 0);
                }
            }
            if (valid && p.type == PacketType.DATA && p.pathId == 1) {
                pathOneOf.put(p.destinationConnectionId, client);
            }
            if (valid && p.type == PacketType.DATA) {
                lastDataTo.put(p.destinationConnectionId, System.nanoTime());
            }
            if (fault == Fault.HELD_BACK_IGNORED && valid && p.type == PacketType.DATA) {
                arrivals.computeIfAbsent(p.destinationConnectionId, k -> new java.util.ArrayDeque<>())
                        .add(new long[] {System.nanoTime(), length});
            }
            if (fault == Fault.WRITE_MISPLACED && valid && p.type == PacketType.DATA && p.opcode == DataOpcode.WRITE
                    && p.payloadMessageOffset > 0) {
                buffer.putLong(72, p.remoteOffset + 1);
                codec.reseal(buffer, 0, length);
            } else if (fault == Fault.IMMEDIATE_DROPPED && valid && p.type == PacketType.DATA
                    && p.opcode == DataOpcode.WRITE_WITH_IMM) {
                byte[] payload = new byte[p.payloadLength];
                buffer.get(p.payloadOffset, payload);
                p.opcode = DataOpcode.WRITE;
                p.receiveSequence = 0;
                p.dataFlags = 0;
                p.immediate = 0;
                buffer.clear();
                length = codec.encode(p, buffer, 0, ByteBuffer.wrap(payload), 0);
            } else if (fault == Fault.RNR_DELAY_IGNORED && valid && p.type == PacketType.NAK) {
                buffer.putLong(64, 0);
                codec.reseal(buffer, 0, length);
            } else if ((fault == Fault.CLIENT_COOKIE_DROPPED || fault == Fault.CLIENT_PATHS_MERGED) && valid
                    && p.type == PacketType.DATA
                    && p.streamId == ResponderContract.CONTROL_STREAM && p.payloadLength >= 5
                    && buffer.get(p.payloadOffset) == ResponderContract.COMMAND_CONNECT) {
                redirectConnect(p, length);
            }
            if (fault == Fault.ACCEPT_BAD_CHECKSUM && length >= PacketCodec.MIN_PACKET_BYTES) {
                codec.reseal(buffer, 0, length);
            } else if (fault == Fault.DELIVER_DUPLICATES && valid && p.type == PacketType.DATA) {
                length = renumberings.computeIfAbsent(p.destinationConnectionId, id -> new Renumbering())
                        .apply(p, buffer, codec);
            }
            buffer.limit(length).position(0);
            up.send(buffer, upstream);
        }
    }

    private void fromResponder(DatagramChannel up, InetSocketAddress client) throws IOException {
        while (true) {
            buffer.clear();
            if (up.receive(buffer) == null) {
                return;
            }
            buffer.flip();
            int length = buffer.remaining();
            InetSocketAddress to = client;
            if (fault == Fault.WRONG_SACK) {
                length = rewriteAck(length, FaultyRelay::clearLowestSackBit);
            } else if (fault == Fault.ACK_DELAY_INFLATED) {
                length = rewriteAck(length, ack -> ack.ackDelayNanos += 1_000_000_000L);
            } else if (fault == Fault.CUMULATIVE_INFLATED) {
                length = rewriteAck(length, ack -> ack.cumulativeSequence += 1_000);
            } else if (fault == Fault.HINTS_EQUALIZED) {
                length = rewriteAck(length, this::equalizeHint);
            } else if (fault == Fault.HELD_BACK_IGNORED) {
                length = rewriteAck(length, this::shareWithoutHoldingBack);
            } else if (fault == Fault.ADVANCE_COUNT_IGNORED_IN_ACKS) {
                length = rewriteAck(length, this::countOnlySenders);
            } else if (fault == Fault.ADVANCE_COUNT_IGNORED) {
                length = rewriteAck(length, this::countOnlySenders);
                Packet a = new Packet();
                if (codec.decode(buffer, 0, length, a) == DecodeError.OK && a.type == PacketType.ACCEPT) {
                    a.rateHintBytesPerSecond = ResponderContract.CAPACITY_BYTES_PER_SECOND;
                    buffer.clear();
                    length = codec.encode(a, buffer, 0, null, 0);
                }
            } else if (fault == Fault.RESEND_ON_PATH_ZERO) {
                Packet p = new Packet();
                int head = PacketCodec.bundledHeadLength(buffer, 0, length);
                if (head == 0 && codec.decode(buffer, 0, length, p) == DecodeError.OK && p.type == PacketType.DATA
                        && (p.flags & WireConstants.FLAG_RETRANSMISSION) != 0 && p.pathId != 0
                        && pathZeroOf.containsKey(p.destinationConnectionId)) {
                    buffer.putShort(2, (short) 0);
                    codec.reseal(buffer, 0, length);
                    to = pathZeroOf.get(p.destinationConnectionId);
                }
            }
            int head = PacketCodec.bundledHeadLength(buffer, 0, length);
            Packet p = new Packet();
            boolean valid = codec.decode(buffer, head, length - head, p) == DecodeError.OK;
            if (fault == Fault.CLOSE_SENT_ONCE && closedBy.contains(to)) {
                continue;
            }
            if (fault == Fault.CLOSE_NOT_REPEATED && valid && p.type == PacketType.CLOSE && !p.closeReply
                    && closedBy.contains(to)) {
                continue;
            }
            if (fault == Fault.CLIENT_ID_PER_ADDRESS && valid && !client.equals(
                    firstConnectFrom.getOrDefault(p.destinationConnectionId ^ ALIAS_MASK, client))) {
                buffer.putLong(head + 8, p.destinationConnectionId ^ ALIAS_MASK); // back to the suite's id
                codec.reseal(buffer, head, length - head);
                if (head > 0) { // the ACK a bundle carries ahead of the packet names the connection too
                    buffer.putLong(8, p.destinationConnectionId ^ ALIAS_MASK);
                    codec.reseal(buffer, 0, head);
                }
                p.destinationConnectionId ^= ALIAS_MASK;
            }
            if (fault == Fault.DRAIN_ENDLESS && valid && p.type == PacketType.CLOSE && p.closeReply) {
                byte[] reply = new byte[length];
                buffer.get(0, reply);
                firstCloseReply.putIfAbsent(client, reply);
            }
            if (fault == Fault.REPLAY_ACCEPTED && valid && p.type == PacketType.CLOSE) {
                closedClients.add(p.destinationConnectionId);
            }
            if (fault == Fault.REPLAY_ACCEPTED && valid && p.type == PacketType.CHALLENGE
                    && refreshing.containsKey(p.destinationConnectionId)) {
                // The fresh cookie goes upstream in the suite's CONNECT instead of the stale one; the suite sees only
                // the ACCEPT it brings.
                Packet connect = refreshing.remove(p.destinationConnectionId);
                connect.hasCookie = true;
                System.arraycopy(p.cookie, 0, connect.cookie, 0, WireConstants.COOKIE_BYTES);
                buffer.clear();
                int n = codec.encode(connect, buffer, 0, null, 0);
                buffer.limit(n).position(0);
                up.send(buffer, upstream);
                continue;
            }
            if (valid && p.type == PacketType.ACCEPT) {
                responderIdOf.put(p.destinationConnectionId, p.sourceConnectionId);
            }
            if (fault == Fault.REBIND_IGNORED && valid) {
                to = firstAddress.computeIfAbsent(p.destinationConnectionId + "/" + p.pathId, k -> client);
            }
            if (fault == Fault.READ_CORRUPTED && valid && p.type == PacketType.DATA
                    && p.opcode == DataOpcode.READ_RESPONSE && p.payloadLength > 0) {
                buffer.put(p.payloadOffset, (byte) (buffer.get(p.payloadOffset) ^ 0x5A));
                codec.reseal(buffer, head, length - head);
            } else if (fault == Fault.NAK_CODES_ROTATED && valid && p.type == PacketType.NAK) {
                buffer.put(head + 32, (byte) (p.nakCode % 3 + 1));
                codec.reseal(buffer, head, length - head);
            } else if (fault == Fault.RESEND_ON_OTHER_PATH && head == 0 && valid && p.type == PacketType.DATA
                    && (p.flags & WireConstants.FLAG_RETRANSMISSION) != 0 && p.pathId <= 1) {
                Long responderId = responderIdOf.get(p.destinationConnectionId);
                InetSocketAddress other = p.pathId == 0
                        ? (responderId == null ? null : pathOneOf.get(responderId))
                        : pathZeroOf.get(p.destinationConnectionId);
                if (other != null) {
                    buffer.putShort(2, (short) (1 - p.pathId));
                    codec.reseal(buffer, 0, length);
                    to = other;
                }
            }
            if (fault == Fault.ACK_NOW_ONLY_AT_END && valid && p.type == PacketType.DATA
                    && (p.flags & WireConstants.FLAG_ACK_NOW) != 0
                    && (p.flags & WireConstants.FLAG_RETRANSMISSION) == 0
                    && p.payloadMessageOffset + p.payloadLength < p.messageLength) {
                buffer.putShort(head + 4, (short) (p.flags & ~WireConstants.FLAG_ACK_NOW));
                codec.reseal(buffer, head, length - head);
            }
            if (fault == Fault.COPIES_STOPPED && valid && p.type == PacketType.DATA
                    && (p.flags & WireConstants.FLAG_RETRANSMISSION) != 0
                    && copies.merge(p.destinationConnectionId + "/" + p.connectionSequence, 1, Integer::sum)
                            > COPIES_PASSED) {
                continue;
            }
            if (fault == Fault.ACCEPT_IDS_SHARED && valid && head == 0 && p.type == PacketType.ACCEPT) {
                realIdOf.put(to, p.sourceConnectionId);
                sharedId = sharedId == 0 ? p.sourceConnectionId : sharedId;
                p.sourceConnectionId = sharedId;
                buffer.clear();
                length = codec.encode(p, buffer, 0, null, 0);
            }
            if (fault == Fault.TIMEOUTS_NEVER_RESET && valid && p.type == PacketType.DATA
                    && (p.flags & WireConstants.FLAG_RETRANSMISSION) != 0
                    && lifetimeCopies.merge(to, 1, Integer::sum) >= LIFETIME_TIMEOUTS) {
                ended.add(to);
            }
            if (fault == Fault.TIMEOUTS_NEVER_RESET && ended.contains(to)) {
                continue;
            }
            if (fault == Fault.FIRST_ACK_DROPPED && valid && head == 0 && p.type == PacketType.ACK
                    && firstAckDropped.add(p.destinationConnectionId)) {
                continue;
            }
            if (fault == Fault.FIRST_ACK_DROPPED_ONCE && valid && head == 0 && p.type == PacketType.ACK
                    && firstAckDropped.isEmpty() && firstAckDropped.add(p.destinationConnectionId)) {
                continue;
            }
            buffer.limit(length).position(0);
            front.send(buffer, to);
            if (fault == Fault.DATA_AFTER_CLOSE && valid && p.type == PacketType.DATA) {
                byte[] copy = new byte[length - head]; // without the ACK a bundle carries ahead of it
                buffer.get(head, copy);
                lastData.put(to, copy);
            } else if (fault == Fault.DATA_AFTER_CLOSE && valid && p.type == PacketType.CLOSE && lastData.containsKey(to)) {
                sendAgain(lastData.remove(to), to);
            }
            if ((fault == Fault.CLOSING_DEAF || fault == Fault.CLOSE_SENT_ONCE || fault == Fault.CLOSE_NOT_REPEATED)
                    && valid && p.type == PacketType.CLOSE
                    && !p.closeReply) {
                closedBy.add(to);
            }
            if (fault == Fault.CLOSE_AFTER_CLOSE_REPLY && valid && p.type == PacketType.CLOSE && p.closeReply) {
                buffer.putShort(head + 34, (short) 0); // closeFlags: no longer a reply
                codec.reseal(buffer, head, length - head);
                buffer.limit(length).position(head);
                front.send(buffer, to);
            }
            if (fault == Fault.PROBES_DOUBLED && valid && p.type == PacketType.PATH_PROBE) {
                buffer.limit(length).position(0);
                front.send(buffer, to);
            }
            if (fault == Fault.RESEND_TWICE) {
                if (codec.decode(buffer, head, length - head, p) == DecodeError.OK && p.type == PacketType.DATA
                        && (p.flags & WireConstants.FLAG_RETRANSMISSION) != 0) {
                    buffer.putLong(head + 24, p.pathSequence + SECOND_COPY_PSN_OFFSET);
                    codec.reseal(buffer, head, length - head);
                    buffer.limit(length).position(head);
                    front.send(buffer, to);
                }
            }
        }
    }

    /**
     * Applies {@code change} to the ACK at the front of the datagram in {@link #buffer} (alone or
     * the head of a bundle, [SPEC-WIRE-30]) through the codec, so it works on either ACK form
     * ([SPEC-WIRE-31]): decoded, changed, encoded again in its own form if its SACK still has a
     * short one, otherwise in the full form, with any bundled packet after it moved along. Returns
     * the datagram's new length; a datagram that does not start with a valid ACK is left as it was.
     */
    private int rewriteAck(int length, java.util.function.Consumer<Packet> change) {
        int head = PacketCodec.bundledHeadLength(buffer, 0, length);
        int ackLength = head == 0 ? length : head;
        Packet ack = new Packet();
        if (codec.decode(buffer, 0, ackLength, ack) != DecodeError.OK || ack.type != PacketType.ACK) {
            return length;
        }
        change.accept(ack);
        if (!ShortSack.fits(ack.sackBase, ack.sackBits)) {
            ack.flags &= ~WireConstants.FLAG_SHORT_SACK;
        }
        byte[] rest = new byte[length - ackLength];
        buffer.get(ackLength, rest);
        buffer.limit(buffer.capacity());
        int written = codec.encode(ack, buffer, 0, null, 0);
        buffer.put(written, rest);
        return written + rest.length;
    }

    /** Gives the ACK the mean of the latest hints of the connections that got one lately ({@link Fault#HINTS_EQUALIZED}). */
    private void equalizeHint(Packet ack) {
        long now = System.nanoTime();
        latestHints.put(ack.destinationConnectionId, new long[] {ack.rateHintBytesPerSecond, now});
        long sum = 0;
        int n = 0;
        for (long[] h : latestHints.values()) {
            if (now - h[1] <= EQUALIZED_WINDOW_NANOS) {
                sum += h[0];
                n++;
            }
        }
        ack.rateHintBytesPerSecond = sum / n;
    }

    /**
     * Gives the ACK the share of its connection under an allocator without the held-back rule
     * ({@link Fault#HELD_BACK_IGNORED}).
     */
    private void shareWithoutHoldingBack(Packet ack) {
        Long own = responderIdOf.get(ack.destinationConnectionId);
        if (own == null) {
            return;
        }
        long now = System.nanoTime();
        long window = 2 * HELD_BACK_PERIOD_NANOS;
        long capacity = HintCases.HELD_BACK_MAX_CAPACITY;
        long least = HELD_BACK_MAX_DATAGRAM * 1_000_000_000L / HELD_BACK_PERIOD_NANOS;
        long[] demands = new long[arrivals.size()];
        int n = 0;
        long ownDemand = -1;
        for (Map.Entry<Long, java.util.ArrayDeque<long[]>> e : arrivals.entrySet()) {
            java.util.ArrayDeque<long[]> q = e.getValue();
            while (!q.isEmpty() && now - q.peekFirst()[0] > window) {
                q.pollFirst();
            }
            if (q.isEmpty()) {
                continue;
            }
            long bytes = q.stream().mapToLong(a -> a[1]).sum();
            long rate = bytes * 1_000_000_000L / window;
            long demand = Math.clamp(rate + (rate >> 2), least, capacity);
            if (e.getKey().equals(own)) {
                ownDemand = demand;
            }
            demands[n++] = demand;
        }
        if (ownDemand < 0) {
            return;
        }
        long level = maxMin.waterLevel(demands, n, capacity);
        long allotted = 0;
        for (int i = 0; i < n; i++) {
            allotted += Math.min(demands[i], level);
        }
        long spare = Math.max(0, capacity - allotted) / n;
        ack.rateHintBytesPerSecond = Math.min(capacity, Math.min(ownDemand, level) + spare);
    }

    /** Brings every field of the CONNECT in {@link #buffer} to its nearest valid value ({@link Fault#CONNECT_REPAIRED}). */
    private void repairConnect() {
        buffer.putLong(8, 0);
        if (buffer.getLong(32) == 0) {
            buffer.putLong(32, 1);
        }
        buffer.putInt(40, (int) Math.max(PacketCodec.MIN_DATAGRAM_BYTES, Integer.toUnsignedLong(buffer.getInt(40))));
        buffer.putShort(44, (short) Math.max(1, Short.toUnsignedInt(buffer.getShort(44))));
        int cookieLength = Short.toUnsignedInt(buffer.getShort(46));
        if (cookieLength != 0 && cookieLength != WireConstants.COOKIE_BYTES) {
            buffer.putShort(46, (short) 0);
        }
        buffer.putInt(48, (int) Math.max(64, Integer.toUnsignedLong(buffer.getInt(48))));
        codec.reseal(buffer, 0, WireConstants.CONNECT_BYTES);
    }

    /** Sends {@code datagram}, a DATA passed before, to {@code to} again as a retransmission with a PSN of its own. */
    private void sendAgain(byte[] datagram, InetSocketAddress to) throws IOException {
        Packet p = new Packet();
        ByteBuffer b = ByteBuffer.wrap(datagram);
        if (codec.decode(b, 0, datagram.length, p) != DecodeError.OK) {
            return;
        }
        b.putShort(4, (short) (p.flags | WireConstants.FLAG_RETRANSMISSION));
        b.putLong(24, p.pathSequence + SECOND_COPY_PSN_OFFSET);
        codec.reseal(b, 0, datagram.length);
        front.send(ByteBuffer.wrap(datagram), to);
    }

    /**
     * The responder's capacity ({@link ResponderContract#CAPACITY_BYTES_PER_SECOND}, which every test responder
     * runs) divided among the connections that sent DATA lately ({@link Fault#ADVANCE_COUNT_IGNORED}).
     */
    private void countOnlySenders(Packet ack) {
        long now = System.nanoTime();
        long senders = lastDataTo.values().stream().filter(t -> now - t <= ADVANCE_WINDOW_NANOS).count();
        ack.rateHintBytesPerSecond = ResponderContract.CAPACITY_BYTES_PER_SECOND / Math.max(1, senders);
    }

    /** Reports the ACK's lowest acknowledged PSN missing. */
    private static void clearLowestSackBit(Packet ack) {
        for (int w = 0; w < WireConstants.SACK_WORDS; w++) {
            long bits = ack.sackBits[w];
            if (bits != 0) {
                ack.sackBits[w] = bits & (bits - 1);
                return;
            }
        }
    }

    /**
     * Points the suite's connect command at {@link #clientLeg}, a socket of the relay's, and
     * remembers the suite's server address, so the responder's client connection runs through the
     * relay too.
     */
    private void redirectConnect(Packet p, int length) throws IOException {
        int at = p.payloadOffset;
        int port = Short.toUnsignedInt(buffer.getShort(at + 2));
        byte[] address = new byte[Byte.toUnsignedInt(buffer.get(at + 4))];
        buffer.get(at + 5, address);
        suiteServer = new InetSocketAddress(java.net.InetAddress.getByAddress(address), port);
        if (clientLeg == null) {
            clientLeg = DatagramChannel.open();
            clientLeg.bind(new InetSocketAddress(upstream.getAddress(), 0));
            clientLeg.configureBlocking(false);
            clientLeg.register(selector, SelectionKey.OP_READ, "client leg");
        }
        InetSocketAddress leg = (InetSocketAddress) clientLeg.getLocalAddress();
        byte[] legAddress = leg.getAddress().getAddress();
        if (legAddress.length == address.length) {
            buffer.putShort(at + 2, (short) leg.getPort());
            buffer.put(at + 5, legAddress);
            codec.reseal(buffer, 0, length);
        }
    }

    /** Relays between the responder's client and the suite's server, the client's CONNECTs without a cookie. */
    private void betweenClientAndServer() throws IOException {
        while (true) {
            buffer.clear();
            InetSocketAddress from = (InetSocketAddress) clientLeg.receive(buffer);
            if (from == null) {
                return;
            }
            buffer.flip();
            int length = buffer.remaining();
            int named = length >= 4 ? Short.toUnsignedInt(buffer.getShort(2)) : 0;
            if (from.equals(suiteServer)) {
                InetSocketAddress to = responderClientPaths.getOrDefault(named, responderClient);
                if (to != null) {
                    clientLeg.send(buffer, to);
                }
                continue;
            }
            responderClient = from;
            responderClientPaths.putIfAbsent(named, from);
            Packet p = new Packet();
            if (fault == Fault.CLIENT_COOKIE_DROPPED && codec.decode(buffer, 0, length, p) == DecodeError.OK
                    && p.type == PacketType.CONNECT && p.hasCookie) {
                p.hasCookie = false;
                java.util.Arrays.fill(p.cookie, (byte) 0);
                buffer.clear();
                length = codec.encode(p, buffer, 0, null, 0);
            }
            buffer.limit(length).position(0);
            clientLeg.send(buffer, suiteServer);
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(2_000);
            selector.close();
            front.close();
            for (DatagramChannel c : upstreams.values()) {
                c.close();
            }
            if (clientLeg != null) {
                clientLeg.close();
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Turns every repeated CSN of one connection into a new single-packet message: a fresh CSN, MSN
     * and RSN, with everything after it shifted along, so the responder admits and delivers it again.
     */
    private static final class Renumbering {
        private final Set<Long> seen = new HashSet<>();
        private long shift;
        private final Map<Integer, Long> messageShift = new HashMap<>();
        private final Map<Integer, Long> receiveShift = new HashMap<>();
        private long highestCsn = -1;
        private final Map<Integer, Long> highestMsn = new HashMap<>();
        private final Map<Integer, Long> highestRsn = new HashMap<>();

        int apply(Packet p, ByteBuffer buffer, PacketCodec codec) {
            int stream = p.streamId;
            byte[] payload = new byte[p.payloadLength];
            buffer.get(p.payloadOffset, payload);
            if (!seen.add(p.connectionSequence)) {
                p.connectionSequence = highestCsn + 1;
                p.messageSequence = highestMsn.getOrDefault(stream, -1L) + 1;
                p.receiveSequence = highestRsn.getOrDefault(stream, -1L) + 1;
                shift++;
                messageShift.merge(stream, 1L, Long::sum);
                receiveShift.merge(stream, 1L, Long::sum);
            } else {
                p.connectionSequence += shift;
                p.messageSequence += messageShift.getOrDefault(stream, 0L);
                p.receiveSequence += receiveShift.getOrDefault(stream, 0L);
            }
            highestCsn = Math.max(highestCsn, p.connectionSequence);
            highestMsn.merge(stream, p.messageSequence, Math::max);
            highestRsn.merge(stream, p.receiveSequence, Math::max);
            p.sequenceFloor = 0;
            buffer.clear();
            return codec.encode(p, buffer, 0, ByteBuffer.wrap(payload), 0);
        }
    }
}
