package io.metaroce.netty;

import static io.metaroce.netty.LinuxSyscalls.IOVEC_BYTES;
import static io.metaroce.netty.LinuxSyscalls.MMSGHDR_BYTES;
import static io.metaroce.netty.LinuxSyscalls.MSG_CONTROL;
import static io.metaroce.netty.LinuxSyscalls.MSG_CONTROLLEN;
import static io.metaroce.netty.LinuxSyscalls.MSG_FLAGS;
import static io.metaroce.netty.LinuxSyscalls.MSG_IOV;
import static io.metaroce.netty.LinuxSyscalls.MSG_IOVLEN;
import static io.metaroce.netty.LinuxSyscalls.MSG_LEN;
import static io.metaroce.netty.LinuxSyscalls.MSG_NAME;
import static io.metaroce.netty.LinuxSyscalls.MSG_NAMELEN;
import static io.metaroce.netty.LinuxSyscalls.SOCKADDR_IN_BYTES;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable array of {@code struct mmsghdr} for {@code recvmmsg} or {@code sendmmsg}: for each
 * message one payload slot, one {@code sockaddr_in} and one control buffer, all in one arena, with
 * the pointers between them written once. Between calls only lengths change, so a batch costs no
 * allocation.
 *
 * <p>Per-datagram reads and writes go through {@link ByteBuffer} views of the segments (native byte
 * order; {@link #namesBigEndian} for the network-order fields of a {@code sockaddr_in}), made once.
 * The segments themselves are what the system calls take. Why views: HotSpot compiles a
 * {@code MemorySegment.get/set} of an unaligned layout into a long inlined access path, about
 * 20 times the machine code of the same access on a direct buffer (37 KB against 1.7 KB for
 * {@link #prepareSend}), and ran it about twice as slowly in a loop of these very stores; on a
 * 2-vCPU host the larger code also keeps the JIT busy for seconds longer.
 *
 * <p>Confined to the event loop.
 */
final class MessageBatch {
    private static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    final int capacity;
    final int slotBytes;
    final int controlBytes;
    final MemorySegment headers;
    final MemorySegment iovecs;
    final MemorySegment names;
    final MemorySegment controls;
    final MemorySegment payloads;
    /** Views of the segments above, native byte order. */
    final ByteBuffer headersView;
    final ByteBuffer iovecsView;
    final ByteBuffer namesView;
    final ByteBuffer controlsView;
    final ByteBuffer payloadsView;
    /** {@link #names} in network (big-endian) order: ports and IPv4 addresses. */
    final ByteBuffer namesBigEndian;
    /** Native address of {@link #payloads}. */
    private final long payloadBase;
    /** A {@link ByteBuffer} view of each payload slot, made once. */
    private final ByteBuffer[] payloadViews;

    MessageBatch(Arena arena, int capacity, int slotBytes, int controlBytes) {
        this.capacity = capacity;
        this.slotBytes = slotBytes;
        this.controlBytes = controlBytes;
        this.headers = arena.allocate((long) capacity * MMSGHDR_BYTES, 8);
        this.iovecs = arena.allocate((long) capacity * IOVEC_BYTES, 8);
        this.names = arena.allocate((long) capacity * SOCKADDR_IN_BYTES, 8);
        this.controls = arena.allocate((long) capacity * Math.max(controlBytes, 8), 8);
        this.payloads = arena.allocate((long) capacity * slotBytes, 64);
        this.headersView = nativeView(headers);
        this.iovecsView = nativeView(iovecs);
        this.namesView = nativeView(names);
        this.controlsView = nativeView(controls);
        this.payloadsView = payloads.asByteBuffer();
        this.payloadBase = payloads.address();
        this.namesBigEndian = names.asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        this.payloadViews = new ByteBuffer[capacity];
        for (int i = 0; i < capacity; i++) {
            MemorySegment payload = payload(i);
            payloadViews[i] = payload.asByteBuffer();
            iovecs.set(ValueLayout.ADDRESS, (long) i * IOVEC_BYTES, payload);
            iovecs.set(SIZE_T, (long) i * IOVEC_BYTES + 8, slotBytes);
            long h = (long) i * MMSGHDR_BYTES;
            headers.set(ValueLayout.ADDRESS, h + MSG_NAME, names.asSlice((long) i * SOCKADDR_IN_BYTES, SOCKADDR_IN_BYTES));
            headers.set(INT, h + MSG_NAMELEN, SOCKADDR_IN_BYTES);
            headers.set(ValueLayout.ADDRESS, h + MSG_IOV, iovecs.asSlice((long) i * IOVEC_BYTES, IOVEC_BYTES));
            headers.set(SIZE_T, h + MSG_IOVLEN, 1);
            headers.set(ValueLayout.ADDRESS, h + MSG_CONTROL, control(i));
            headers.set(SIZE_T, h + MSG_CONTROLLEN, controlBytes);
        }
    }

    private static ByteBuffer nativeView(MemorySegment segment) {
        return segment.asByteBuffer().order(ByteOrder.nativeOrder());
    }

    MemorySegment payload(int i) {
        return payloads.asSlice((long) i * slotBytes, slotBytes);
    }

    ByteBuffer payloadView(int i) {
        return payloadViews[i];
    }

    /** Native address of slot {@code i}'s own payload buffer. */
    long payloadAddress(int i) {
        return payloadBase + (long) i * slotBytes;
    }

    /**
     * Points message {@code i}'s iovec at {@code address}: its payload is sent from there (a slot
     * of the endpoint's {@link SendSlots}, or this batch's own slot again).
     */
    void pointAt(int i, long address) {
        iovecsView.putLong(i * IOVEC_BYTES, address);
    }

    int payloadOffset(int i) {
        return i * slotBytes;
    }

    int nameOffset(int i) {
        return i * SOCKADDR_IN_BYTES;
    }

    int controlOffset(int i) {
        return i * Math.max(controlBytes, 8);
    }

    private MemorySegment control(int i) {
        return controls.asSlice(controlOffset(i), Math.max(controlBytes, 8));
    }

    /**
     * Resets the value-result fields the kernel overwrote in the first {@code count} messages (those
     * the last {@code recvmmsg} returned; it writes no other), before the next {@code recvmmsg}.
     */
    void prepareReceive(int count) {
        ByteBuffer b = headersView;
        for (int i = 0; i < count; i++) {
            int h = i * MMSGHDR_BYTES;
            b.putInt(h + MSG_NAMELEN, SOCKADDR_IN_BYTES);
            b.putLong(h + MSG_CONTROLLEN, controlBytes);
            b.putInt(h + MSG_FLAGS, 0);
            b.putInt(h + MSG_LEN, 0);
        }
    }

    /** Bytes the kernel received into message {@code i}. */
    int receivedLength(int i) {
        return headersView.getInt(i * MMSGHDR_BYTES + MSG_LEN);
    }

    /** The {@code msg_flags} the kernel reported for message {@code i}. */
    int receivedFlags(int i) {
        return headersView.getInt(i * MMSGHDR_BYTES + MSG_FLAGS);
    }

    /** Length of the control data the kernel wrote for message {@code i}. */
    long receivedControlLength(int i) {
        return headersView.getLong(i * MMSGHDR_BYTES + MSG_CONTROLLEN);
    }

    /**
     * Makes message {@code i} of {@code sendmmsg} carry the payloads of slots {@code i..i+count-1}
     * (lengths from {@code lengths}), one iovec each, gathered by the kernel into one UDP payload
     * (one datagram, or one GSO run the kernel cuts again), with {@code controlLength} bytes of
     * control data.
     */
    void prepareSend(int i, int count, int[] lengths, int controlLength) {
        ByteBuffer v = iovecsView;
        for (int k = i; k < i + count; k++) {
            v.putLong(k * IOVEC_BYTES + 8, lengths[k]);
        }
        prepareHeader(i, count, controlLength);
    }

    /**
     * As {@link #prepareSend} for payloads that lie back to back from message {@code i}'s iovec
     * on: its one iovec covers all {@code totalBytes} of them.
     */
    void prepareSendContiguous(int i, long totalBytes, int controlLength) {
        iovecsView.putLong(i * IOVEC_BYTES + 8, totalBytes);
        prepareHeader(i, 1, controlLength);
    }

    /** Native address message {@code i}'s iovec points at. */
    long iovecAddress(int i) {
        return iovecsView.getLong(i * IOVEC_BYTES);
    }

    private void prepareHeader(int i, int iovecCount, int controlLength) {
        ByteBuffer b = headersView;
        int h = i * MMSGHDR_BYTES;
        b.putLong(h + MSG_IOVLEN, iovecCount);
        b.putInt(h + MSG_NAMELEN, SOCKADDR_IN_BYTES);
        b.putLong(h + MSG_CONTROLLEN, controlLength);
        b.putInt(h + MSG_FLAGS, 0);
    }
}
