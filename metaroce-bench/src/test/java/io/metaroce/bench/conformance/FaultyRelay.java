package io.metaroce.bench.conformance;

import io.metaroce.core.wire.DecodeError;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketCodec;
import io.metaroce.core.wire.PacketType;
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
        RESEND_TWICE
    }

    /** Added to the PSN of the second copy of {@link Fault#RESEND_TWICE}: far above any PSN the responder uses. */
    private static final long SECOND_COPY_PSN_OFFSET = 1_000_000;

    private final InetSocketAddress upstream;
    private final Fault fault;
    private final DatagramChannel front;
    private final Selector selector;
    private final Map<InetSocketAddress, DatagramChannel> upstreams = new HashMap<>();
    private final Map<Long, InetSocketAddress> pathZeroOf = new HashMap<>();
    private final Map<Long, Renumbering> renumberings = new HashMap<>();
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
                up.bind(new InetSocketAddress(upstream.getAddress(), 0));
                up.configureBlocking(false);
                up.register(selector, SelectionKey.OP_READ, client);
                upstreams.put(client, up);
            }
            int length = buffer.remaining();
            Packet p = new Packet();
            boolean valid = codec.decode(buffer, 0, length, p) == DecodeError.OK;
            if (valid && p.type == PacketType.CONNECT) {
                pathZeroOf.put(p.sourceConnectionId, client);
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
            if (fault == Fault.WRONG_SACK && length >= WireConstants.ACK_BYTES && buffer.get(1) == PacketType.ACK) {
                for (int w = 0; w < WireConstants.SACK_WORDS; w++) {
                    long bits = buffer.getLong(40 + 8 * w);
                    if (bits != 0) {
                        buffer.putLong(40 + 8 * w, bits & (bits - 1));
                        break;
                    }
                }
                codec.reseal(buffer, 0, WireConstants.ACK_BYTES);
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
            buffer.limit(length).position(0);
            front.send(buffer, to);
            if (fault == Fault.RESEND_TWICE) {
                Packet p = new Packet();
                int head = PacketCodec.bundledHeadLength(buffer, 0, length);
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
