package io.metaroce.netty;

import static io.metaroce.netty.LinuxSyscalls.CMSG_HEADER_BYTES;
import static io.metaroce.netty.LinuxSyscalls.CMSG_LEVEL;
import static io.metaroce.netty.LinuxSyscalls.CMSG_SPACE_SMALL;
import static io.metaroce.netty.LinuxSyscalls.CMSG_TYPE;
import static io.metaroce.netty.LinuxSyscalls.EAGAIN;
import static io.metaroce.netty.LinuxSyscalls.EINTR;
import static io.metaroce.netty.LinuxSyscalls.EINVAL;
import static io.metaroce.netty.LinuxSyscalls.EIO;
import static io.metaroce.netty.LinuxSyscalls.IPPROTO_IP;
import static io.metaroce.netty.LinuxSyscalls.IP_TOS;
import static io.metaroce.netty.LinuxSyscalls.MSG_DONTWAIT;
import static io.metaroce.netty.LinuxSyscalls.SOL_UDP;
import static io.metaroce.netty.LinuxSyscalls.UDP_GRO;
import static io.metaroce.netty.LinuxSyscalls.UDP_SEGMENT;

import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One UDP socket of the {@link LinuxSocketLayer}: a non-blocking IPv4 socket made with libc calls
 * and registered on Netty's epoll event loop as an {@link EpollIoHandle}, so reads happen on the
 * loop's thread in the same turn as the engine's timers and tasks.
 *
 * <p>Receive: on each readiness event, {@code recvmmsg} fills a {@link MessageBatch} of up to
 * {@link LinuxSocketLayer#BATCH} datagrams at a time (at most {@link #MAX_CALLS_PER_WAKEUP} calls,
 * so one busy socket cannot starve the loop; epoll is level-triggered and reports the rest; it reads
 * again after a full batch, or after one that brought at least {@link #READ_AGAIN_DATAGRAMS}
 * datagrams), and
 * each datagram is handed over with the ECN bits of its IP header, read from the {@code IP_TOS}
 * control message that {@code IP_RECVTOS} asks for. With GRO ({@code UDP_GRO}, where the kernel
 * has it) a slot may hold a run of datagrams coalesced by the kernel; they are handed over one by
 * one, cut at the segment size the kernel reports. Send: datagrams are queued in a second
 * batch with their destination, and {@code sendmmsg} sends the batch on flush (or when it is
 * full; a flush of a single datagram or GSO run goes as one {@code sendmsg}). The socket's own
 * {@code IP_TOS} carries the ECN codepoint of most datagrams (ECT(0),
 * {@link LinuxSocketLayer#STICKY_ECN}, set once when the socket is made); a datagram with another
 * codepoint carries it in an {@code IP_TOS} control message of its own. A datagram
 * the endpoint encoded in one of its {@link SendSlots} is sent from there (the batch's iovec points
 * at the slot, {@link #writeInPlace}); one given to {@link #write} is copied into the batch. Nothing is
 * allocated per datagram once every peer address has been seen. Runs of equal-length datagrams to
 * one destination go as GSO sends (see {@link #flush()}).
 *
 * <p>Confined to the event loop; {@link #close()} may be called from any thread once.
 */
final class LinuxUdpSocket implements UdpSocket {
    /** recvmmsg calls per readiness event. */
    static final int MAX_CALLS_PER_WAKEUP = 8;
    /**
     * A call that did not fill the batch but brought at least this many datagrams is followed by
     * another: a bulk flow's next burst has usually arrived while these were handled, and reading
     * it now puts it under the same drive (one ACK, one flush, one {@code epoll_wait} fewer) instead
     * of the next wake-up's. A trickle (a ping, a few ACKs) stops at once, so a round trip pays no
     * call that only finds the socket empty. See docs/benchmarks.md, "Receive datapath round
     * (session 9)".
     */
    static final int READ_AGAIN_DATAGRAMS = 16;
    /** {@code CMSG_LEN(sizeof(int))}: header plus an int TOS value. */
    private static final int TOS_CMSG_LEN = CMSG_HEADER_BYTES + 4;
    /** {@code CMSG_LEN(sizeof(u16))}: header plus the GSO segment size. */
    private static final int SEGMENT_CMSG_LEN = CMSG_HEADER_BYTES + 2;
    /** Receive slots when GRO is on, each large enough for the biggest coalesced buffer. */
    static final int GRO_BATCH = 8;
    static final int GRO_SLOT_BYTES = 65_536;
    /** The kernel's limit on segments in one GSO send ({@code UDP_MAX_SEGMENTS}). */
    static final int MAX_GSO_SEGMENTS = 64;
    /**
     * Bytes of UDP payload one GSO send may carry: it travels as one IP datagram until segmented,
     * so the kernel's limit is 65,535 less the IPv4 and UDP headers. A pacing burst of the
     * default 56 KiB ({@code EngineConfig.pacingBurstBytes}) and the datagram past it fit in one
     * for datagrams of up to 8,163 bytes.
     */
    static final int MAX_GSO_BYTES = 65_535 - 20 - 8;

    private final int fd;
    private final FileDescriptor descriptor;
    private final int socketId;
    private final DatagramReceiver receiver;
    private final EventLoop loop;
    private final Arena arena;
    private final MemorySegment errnoState;
    private final ThreadErrno threadErrno = new ThreadErrno();
    /** The {@code errno} of the last {@link #receiveCall} or {@link #sendCall} that returned -1. */
    private int callErrno;
    private final MessageBatch receive;
    private final MessageBatch send;
    private final Ipv4AddressCache addresses = new Ipv4AddressCache();
    private final InetSocketAddress localAddress;
    /** Per queued datagram: destination (packed), ECN codepoint, length. */
    private final long[] destination = new long[LinuxSocketLayer.SEND_BATCH];
    private final int[] ecnOf = new int[LinuxSocketLayer.SEND_BATCH];
    private final int[] lengthOf = new int[LinuxSocketLayer.SEND_BATCH];
    /** The {@code mmsghdr}s handed to {@code sendmmsg}: one per datagram or GSO run. */
    private final MemorySegment wire;
    /** {@link #wire} as a buffer (native order), for copying headers in. */
    private final ByteBuffer wireView;
    /** {@link #wire} from entry {@code k} on, made once: a partial send resumes there without allocating. */
    private final MemorySegment[] wireFrom = new MemorySegment[LinuxSocketLayer.SEND_BATCH];
    /** Datagrams in each entry of {@link #wire}. */
    private final int[] entrySize = new int[LinuxSocketLayer.SEND_BATCH];
    private boolean gso = true;
    /**
     * The ECN codepoint of the socket's own {@code IP_TOS}: what a datagram sent without an
     * {@code IP_TOS} control message carries ({@link LinuxSocketLayer#STICKY_ECN}, or 0 where the
     * kernel refused it).
     */
    private final int socketEcn;
    /** {@code sendmmsg} entries (datagrams or GSO runs) that carried an {@code IP_TOS} control message. */
    private long tosControls;
    /** Send calls made as {@code sendmsg}: flushes of a single entry ({@link #sendOne}). */
    private long messageSends;
    /**
     * Entries of {@link #receive} the last {@code recvmmsg} filled: the kernel writes the
     * value-result fields (name and control lengths, flags, {@code msg_len}) of the messages it
     * returns and of no others, so only these need resetting before the next call.
     */
    private int receiveEntriesFilled;
    /** Whether the last {@link #readNow} read nothing (a busy loop's idle turn), from the start on. */
    private boolean emptyOnLastPoll = true;
    /** What {@link #readControl} found for the message being delivered. */
    private int receivedEcn;
    private int receivedSegmentBytes;
    private long coalescedReceives;
    /** Datagrams held by the {@link #coalescedReceives}. */
    private long coalescedDatagrams;
    private long receiveCalls;
    private long sendCalls;
    private long gsoSends;
    /** Datagrams carried by {@link #gsoSends}. */
    private long gsoDatagrams;
    /** {@link #gsoSends} whose datagrams lay back to back and went as one iovec. */
    private long contiguousSends;
    private IoRegistration registration;
    private int queued;
    private boolean closed;

    LinuxUdpSocket(int fd, InetSocketAddress localAddress, int socketId, int maxDatagramBytes, boolean gro,
            int socketEcn, DatagramReceiver receiver, EventLoop loop) {
        this.fd = fd;
        this.socketEcn = socketEcn;
        this.descriptor = new FileDescriptor(fd);
        this.localAddress = localAddress;
        this.socketId = socketId;
        this.receiver = receiver;
        this.loop = loop;
        this.arena = Arena.ofShared();
        this.errnoState = LinuxSyscalls.newErrnoState(arena);
        // With GRO the kernel hands over runs of datagrams as one buffer of up to 64 KiB: fewer,
        // larger slots. The control buffer holds the TOS and the GRO segment size.
        this.receive = gro
                ? new MessageBatch(arena, GRO_BATCH, GRO_SLOT_BYTES, 2 * CMSG_SPACE_SMALL)
                : new MessageBatch(arena, LinuxSocketLayer.BATCH, maxDatagramBytes, 2 * CMSG_SPACE_SMALL);
        this.send = new MessageBatch(arena, LinuxSocketLayer.SEND_BATCH, maxDatagramBytes, 2 * CMSG_SPACE_SMALL);
        this.wire = arena.allocate((long) LinuxSocketLayer.SEND_BATCH * LinuxSyscalls.MMSGHDR_BYTES, 8);
        this.wireView = wire.asByteBuffer().order(ByteOrder.nativeOrder());
        for (int k = 0; k < wireFrom.length; k++) {
            wireFrom[k] = wire.asSlice((long) k * LinuxSyscalls.MMSGHDR_BYTES);
        }
    }

    /** What the event loop registers: readiness of this socket's descriptor. */
    final EpollIoHandle ioHandle = new EpollIoHandle() {
        @Override
        public FileDescriptor fd() {
            return descriptor;
        }

        @Override
        public void handle(IoRegistration reg, IoEvent event) {
            EpollIoOps ops = ((EpollIoEvent) event).ops();
            if (!closed && (ops.contains(EpollIoOps.EPOLLIN) || ops.contains(EpollIoOps.EPOLLERR))) {
                readAvailable();
            }
        }

        @Override
        public void close() {
            // The loop is shutting down with the socket still registered.
            closeNow();
        }
    };

    void registered(IoRegistration value) {
        this.registration = value;
        value.submit(EpollIoOps.EPOLLIN);
    }

    // ---- receive ----

    /** Reads what the socket holds (up to {@link #MAX_CALLS_PER_WAKEUP} batches) into the receiver. */
    void readAvailable() {
        readBatches();
        receiver.onReadBatchComplete(socketId);
    }

    /**
     * Reads what the socket holds now, as a readiness event would but without waiting for one and
     * without {@link DatagramReceiver#onReadBatchComplete}: a busy-polling loop calls it on every
     * turn and drives the engine itself. A call that finds the socket empty ({@code EAGAIN}) is
     * not counted in {@link #receiveCalls()}, which stays the count of calls that read something.
     * The first call after a poll that found the socket empty reads one message and ends the read
     * there: the loop answers it and reads the rest on its next turn.
     */
    @Override
    public int readNow() {
        if (closed) {
            return 0;
        }
        // After a turn that found the socket empty, the first datagram is read alone: a call with
        // room for 32 looks for a second one inside the kernel (about 0.3 us, docs/benchmarks.md
        // "Latency round (session 12)") before the loop can answer the first; the next turn looks
        // for the rest, as it would anyway. A burst costs one turn more at its start only.
        int n = readBatches(emptyOnLastPoll ? 1 : receive.capacity);
        emptyOnLastPoll = n == 0;
        return n;
    }

    /** Up to {@link #MAX_CALLS_PER_WAKEUP} {@code recvmmsg} calls into the receiver; returns the messages read. */
    private int readBatches() {
        return readBatches(receive.capacity);
    }

    /**
     * {@link #readBatches()}, the first call with room for {@code firstCount} messages; a first
     * call with room for fewer than the batch ends the read once it brought something.
     */
    private int readBatches(int firstCount) {
        int messages = 0;
        for (int call = 0; call < MAX_CALLS_PER_WAKEUP && !closed; call++) {
            int room = call == 0 ? firstCount : receive.capacity;
            int n = receiveCall(room);
            if (n < 0) {
                int errno = callErrno;
                if (errno == EAGAIN) {
                    break; // empty: nothing read, not counted
                }
                receiveCalls++;
                if (errno == EINTR) {
                    continue;
                }
                // Rare (the socket is being closed, say): the endpoint counts and logs it.
                receiver.onSocketError(socketId, new IOException("recvmmsg: " + LinuxSyscalls.describe(errno)));
                break;
            }
            receiveCalls++;
            messages += n;
            receiver.onReceiveCall(socketId);
            // The receiver may drive the engine in the middle of a read, and what it completes may
            // close this socket (and free the batch): stop there.
            int datagrams = 0;
            for (int i = 0; i < n && !closed; i++) {
                datagrams += deliver(i);
            }
            if (room < receive.capacity || (n < room && datagrams < READ_AGAIN_DATAGRAMS)) {
                // A lone first read, the socket empty, or a trickle: no call that would only find it empty.
                break;
            }
        }
        return messages;
    }

    /**
     * One {@code recvmmsg} into {@link #receive} with room for {@code room} messages; on -1 its
     * {@code errno} is in {@link #callErrno}.
     * A busy loop's idle turns all end here with {@code EAGAIN}, so the call captures no
     * {@code errno} (a capturing call allocates unless C2 removes it, R-JAVA-2); the
     * thread's {@code errno} read after it is trusted when it says {@code EAGAIN}, and anything
     * else is asked again with a capturing call, which reads what the socket holds by then or the
     * true cause. Were an {@code EAGAIN} wrong, an error of the call itself would meet the next
     * read again, but a pending socket error (an ICMP {@code ECONNREFUSED}, say) is consumed by
     * the call that reports it and would be lost: harmless, because these sockets are unconnected
     * and set no {@code IP_RECVERR}, so the kernel queues no such error on them. On the error path
     * (a persistent refusal: {@code EPERM}, {@code EMSGSIZE}, {@code ECONNREFUSED}) each refused
     * call or send entry costs two system calls and the capturing call's allocation
     * (docs/compliance.md, R-JAVA-2).
     */
    private int receiveCall(int room) {
        // Only the entries the last call filled were written by the kernel: a failed call writes
        // none, so a busy loop's empty polls reset nothing, and a ping resets one entry, not 32.
        receive.prepareReceive(receiveEntriesFilled);
        int n = LinuxSyscalls.recvmmsgUncaptured(fd, receive.headers, room, MSG_DONTWAIT);
        if (n >= 0) {
            receiveEntriesFilled = n;
            return n;
        }
        receiveEntriesFilled = 0;
        callErrno = threadErrno.read();
        if (callErrno == EAGAIN) {
            return n;
        }
        n = LinuxSyscalls.recvmmsg(errnoState, fd, receive.headers, room, MSG_DONTWAIT);
        if (n < 0) {
            callErrno = LinuxSyscalls.errno(errnoState);
        } else {
            receiveEntriesFilled = n;
        }
        return n;
    }

    /**
     * One {@code sendmmsg} of {@code count} entries from {@code from}; on -1 its {@code errno} is in
     * {@link #callErrno}. Without capture as {@link #receiveCall}: {@code EAGAIN} read from the
     * thread is trusted (were it wrong, the rest of the batch is lost rather than one entry, and
     * the engine recovers both alike); anything else is asked again with a capturing call, which
     * is safe because a call that returns -1 sent nothing. A refused entry thus costs two calls
     * and the capture's allocation ({@link #receiveCall}).
     */
    private int sendCall(MemorySegment from, int count) {
        if (count == 1) {
            return sendOne(from);
        }
        int n = LinuxSyscalls.sendmmsgUncaptured(fd, from, count, MSG_DONTWAIT);
        if (n >= 0) {
            return n;
        }
        callErrno = threadErrno.read();
        if (callErrno == EAGAIN) {
            return n;
        }
        n = LinuxSyscalls.sendmmsg(errnoState, fd, from, count, MSG_DONTWAIT);
        if (n < 0) {
            callErrno = LinuxSyscalls.errno(errnoState);
        }
        return n;
    }

    /**
     * {@link #sendCall} of one entry (a lone datagram or one GSO run: every send of a ping-pong) as
     * {@code sendmsg} of its {@code msghdr}, which costs the kernel less than {@code sendmmsg} of
     * one (no {@code mmsghdr} array to walk, no {@code msg_len} to write back; about 0.15 to 0.35
     * µs a call on the reference host, docs/benchmarks.md "Latency round (session 12)"). Returns 1
     * once it is sent, -1 as {@link #sendCall} otherwise.
     */
    private int sendOne(MemorySegment entry) {
        messageSends++;
        if (LinuxSyscalls.sendmsgUncaptured(fd, entry, MSG_DONTWAIT) >= 0) {
            return 1;
        }
        callErrno = threadErrno.read();
        if (callErrno == EAGAIN) {
            return -1;
        }
        if (LinuxSyscalls.sendmsg(errnoState, fd, entry, MSG_DONTWAIT) >= 0) {
            return 1;
        }
        callErrno = LinuxSyscalls.errno(errnoState);
        return -1;
    }

    /** Hands message {@code i} of the last read to the receiver; returns the datagrams it held (more than 1 with GRO). */
    private int deliver(int i) {
        int name = receive.nameOffset(i);
        int address = receive.namesBigEndian.getInt(name + 4);
        int port = Short.toUnsignedInt(receive.namesBigEndian.getShort(name + 2));
        InetSocketAddress sender = addresses.toAddress(Ipv4AddressCache.pack(address, port));
        readControl(i);
        int length = receive.receivedLength(i);
        ByteBuffer view = receive.payloadView(i);
        if (receivedSegmentBytes <= 0 || receivedSegmentBytes >= length) {
            receiver.onDatagram(socketId, view, 0, length, sender, receivedEcn);
            return 1;
        }
        // GRO: a run of datagrams from one sender with one TOS, each of the segment size but the last.
        int count = (length + receivedSegmentBytes - 1) / receivedSegmentBytes;
        coalescedReceives++;
        coalescedDatagrams += count;
        for (int offset = 0; offset < length && !closed; offset += receivedSegmentBytes) {
            receiver.onDatagram(socketId, view, offset, Math.min(receivedSegmentBytes, length - offset), sender,
                    receivedEcn);
        }
        return count;
    }

    /**
     * Reads message {@code i}'s control messages: the ECN bits of its {@code IP_TOS} (0 if absent)
     * into {@link #receivedEcn}, and its GRO segment size (0 if not coalesced) into
     * {@link #receivedSegmentBytes}.
     */
    private void readControl(int i) {
        receivedEcn = 0;
        receivedSegmentBytes = 0;
        // The kernel never reports more than the buffer it was given; the bound guards the views.
        long length = Math.min(receive.receivedControlLength(i), receive.controlBytes);
        ByteBuffer controls = receive.controlsView;
        int base = receive.controlOffset(i);
        long at = 0;
        while (at + CMSG_HEADER_BYTES <= length) {
            int c = base + (int) at;
            long cmsgLength = controls.getLong(c);
            if (cmsgLength < CMSG_HEADER_BYTES) {
                break;
            }
            int level = controls.getInt(c + CMSG_LEVEL);
            int type = controls.getInt(c + CMSG_TYPE);
            if (level == IPPROTO_IP && type == IP_TOS) {
                receivedEcn = controls.get(c + CMSG_HEADER_BYTES) & 3;
            } else if (level == SOL_UDP && type == UDP_GRO) {
                receivedSegmentBytes = controls.getInt(c + CMSG_HEADER_BYTES);
            }
            at += (cmsgLength + 7) & ~7L;
        }
    }

    // ---- send ----

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public boolean write(ByteBuffer source, int length, InetSocketAddress to, int ecn) {
        int i = enqueue(length, to, ecn);
        if (i < 0) {
            return false;
        }
        if (source.hasArray()) {
            send.payloadsView.put(send.payloadOffset(i), source.array(), source.arrayOffset(), length);
        } else {
            send.payloadsView.put(send.payloadOffset(i), source, 0, length);
        }
        // The entry may have pointed at an endpoint slot in an earlier batch: back to its own.
        send.pointAt(i, send.payloadAddress(i));
        return true;
    }

    /** Queues the datagram where the endpoint encoded it: the iovec points at the slot, no copy. */
    @Override
    public boolean writeInPlace(ByteBuffer slot, long slotAddress, int length, InetSocketAddress to, int ecn) {
        int i = enqueue(length, to, ecn);
        if (i < 0) {
            return false;
        }
        send.pointAt(i, slotAddress);
        return true;
    }

    /**
     * Takes the next entry of the send batch (flushing a full one first) for a datagram of
     * {@code length} bytes to {@code to} and fills in its destination; the caller points its
     * iovec at the payload. Returns the entry, or -1 if the datagram cannot be queued.
     */
    private int enqueue(int length, InetSocketAddress to, int ecn) {
        if (closed || length > send.slotBytes) {
            return -1;
        }
        long packed = addresses.toPacked(to);
        if (packed < 0) {
            return -1; // not IPv4: this layer is IPv4 only (the endpoint checks at build time)
        }
        if (queued == send.capacity) {
            flush();
        }
        int i = queued++;
        int name = send.nameOffset(i);
        send.namesView.putShort(name, (short) LinuxSyscalls.AF_INET);
        send.namesBigEndian.putShort(name + 2, (short) packed);
        send.namesBigEndian.putInt(name + 4, (int) (packed >>> 16));
        destination[i] = packed;
        ecnOf[i] = ecn & 3;
        lengthOf[i] = length;
        return i;
    }

    /**
     * Sends everything queued with as few system calls as it takes: one {@code sendmmsg} for the
     * batch, in which each run of datagrams of one length (the last may be shorter) to the same
     * destination with the same ECN goes as one GSO super-datagram ({@code UDP_SEGMENT}): the
     * kernel cuts it into datagrams of the run's length after one trip through the stack. A run's
     * message gathers its datagrams' slots with one iovec each, or with one iovec for the run when
     * they lie back to back (the endpoint's {@link SendSlots} packed at the run's length).
     */
    @Override
    public int flush() {
        if (queued == 0) {
            return 0;
        }
        int entries = plan();
        int dropped = 0;
        int start = 0;
        while (start < entries) {
            MemorySegment from = wireFrom[start];
            int n = sendCall(from, entries - start);
            sendCalls++;
            if (n >= 0) {
                // sendmmsg stops at the first entry the kernel refuses and reports those before it;
                // the next call starts with that entry and, if it is refused again, skips it below.
                start += n;
                continue;
            }
            int errno = callErrno;
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                // The socket's send buffer is full: what is left is lost; the engine recovers it.
                for (int k = start; k < entries; k++) {
                    dropped += entrySize[k];
                }
                break;
            }
            if (entrySize[start] > 1 && (errno == EIO || errno == EINVAL) && gso) {
                // The route's device cannot segment: send datagram by datagram from now on.
                gso = false;
            }
            // This entry was refused (an unreachable destination, a firewall): skip it, send the rest.
            dropped += entrySize[start];
            start++;
        }
        queued = 0;
        return dropped;
    }

    /** Fills {@link #wire} with one {@code mmsghdr} per datagram or GSO run; returns how many. */
    private int plan() {
        int entries = 0;
        int i = 0;
        while (i < queued) {
            int j = i;
            long total = lengthOf[i];
            if (gso) {
                // A run: datagrams of the first one's length to one destination with one ECN; only
                // the last may be shorter (the kernel cuts at the first's length). Equal lengths,
                // not only full-size ones: the last packets of messages of one size interleaved
                // over streams, and small messages, are runs too.
                int segment = lengthOf[i];
                while (j + 1 < queued && j + 1 - i < MAX_GSO_SEGMENTS && lengthOf[j] == segment
                        && lengthOf[j + 1] <= segment
                        && destination[j + 1] == destination[i] && ecnOf[j + 1] == ecnOf[i]
                        && total + lengthOf[j + 1] <= MAX_GSO_BYTES) {
                    j++;
                    total += lengthOf[j];
                }
            }
            int controlLength = 0;
            ByteBuffer controls = send.controlsView;
            int c = send.controlOffset(i);
            if (ecnOf[i] != socketEcn) {
                // Another codepoint than the socket's (Not-ECT included): this one overrides it.
                tosControls++;
                controls.putLong(c, TOS_CMSG_LEN);
                controls.putInt(c + CMSG_LEVEL, IPPROTO_IP);
                controls.putInt(c + CMSG_TYPE, IP_TOS);
                controls.putInt(c + CMSG_HEADER_BYTES, ecnOf[i]);
                controlLength = CMSG_SPACE_SMALL;
            }
            if (j > i) {
                gsoSends++;
                gsoDatagrams += j - i + 1;
                int g = c + controlLength;
                controls.putLong(g, SEGMENT_CMSG_LEN);
                controls.putInt(g + CMSG_LEVEL, SOL_UDP);
                controls.putInt(g + CMSG_TYPE, UDP_SEGMENT);
                controls.putShort(g + CMSG_HEADER_BYTES, (short) lengthOf[i]);
                controlLength += CMSG_SPACE_SMALL;
            }
            if (j > i && contiguous(i, j)) {
                // Packed slots (SendSlots): one iovec for the run instead of one a datagram.
                contiguousSends++;
                send.prepareSendContiguous(i, total, controlLength);
            } else {
                send.prepareSend(i, j - i + 1, lengthOf, controlLength);
            }
            wireView.put(entries * LinuxSyscalls.MMSGHDR_BYTES, send.headersView, i * LinuxSyscalls.MMSGHDR_BYTES,
                    LinuxSyscalls.MMSGHDR_BYTES);
            entrySize[entries++] = j - i + 1;
            i = j + 1;
        }
        return entries;
    }

    /** Whether the payloads of queued datagrams {@code i..j} lie back to back in memory. */
    private boolean contiguous(int i, int j) {
        long end = send.iovecAddress(i) + lengthOf[i];
        for (int k = i + 1; k <= j; k++) {
            if (send.iovecAddress(k) != end) {
                return false;
            }
            end += lengthOf[k];
        }
        return true;
    }

    /** GSO runs sent with one iovec, their datagrams' payloads lying back to back (packed {@link SendSlots}). */
    long contiguousSends() {
        return contiguousSends;
    }

    /**
     * Entries handed to {@code sendmmsg} (a datagram or a GSO run) that carried an {@code IP_TOS}
     * control message: those whose ECN codepoint differs from the socket's own.
     */
    long tosControls() {
        return tosControls;
    }

    /** Send calls made as {@code sendmsg} (a flush of one datagram or GSO run), out of {@link #sendCalls()}. */
    long messageSends() {
        return messageSends;
    }

    /** The ECN codepoint of the socket's own {@code IP_TOS}, carried by datagrams without a control message. */
    int socketEcn() {
        return socketEcn;
    }

    /** Messages handed to {@code sendmmsg} that carried a GSO run (more than one datagram). */
    long gsoSends() {
        return gsoSends;
    }

    @Override
    public long offloadSends() {
        return gsoSends;
    }

    @Override
    public long offloadDatagrams() {
        return gsoDatagrams;
    }

    /** Buffers received holding more than one datagram (GRO). */
    long coalescedReceives() {
        return coalescedReceives;
    }

    @Override
    public long offloadReceives() {
        return coalescedReceives;
    }

    @Override
    public long offloadReceivedDatagrams() {
        return coalescedDatagrams;
    }

    @Override
    public long sendCalls() {
        return sendCalls;
    }

    @Override
    public long receiveCalls() {
        return receiveCalls;
    }

    // ---- close ----

    @Override
    public Future<?> close() {
        if (loop == null) {
            closeNow(); // not registered on a loop (a benchmark's socket)
            return null;
        }
        if (loop.inEventLoop()) {
            closeNow();
            return loop.newSucceededFuture(null);
        }
        return loop.submit(this::closeNow);
    }

    private void closeNow() {
        if (closed) {
            return;
        }
        closed = true;
        if (registration != null) {
            registration.cancel();
        }
        try {
            descriptor.close();
        } catch (IOException e) {
            receiver.onSocketError(socketId, e);
        }
        arena.close();
    }

    @Override
    public String toString() {
        return "linux socket " + localAddress + " (fd " + fd + ")";
    }
}
