package io.metaroce.core.memory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A registered memory region: a contiguous range of memory (a {@link MemorySegment}) of at most
 * {@link ProtectionDomain#MAX_REGION_LENGTH} bytes, with access rights and two keys, created by
 * {@link ProtectionDomain#register}.
 *
 * <p>The {@linkplain #localKey() local key} names the region in this endpoint's own work requests;
 * the {@linkplain #remoteKey() remote key} is what the application hands to a peer so it can
 * WRITE into or READ from the region. Both are u32 values carried as {@code int}, never 0.
 *
 * <p>{@link #place} and {@link #copyOut} are the only ways the engine moves bytes into and out of
 * the region. They allocate nothing and never touch memory outside the region: a bad range throws
 * {@link IndexOutOfBoundsException} before any byte is copied. They are the last line of defence,
 * not the access check: callers first check the access with {@link ProtectionDomain#checkRemote}
 * or {@link ProtectionDomain#checkLocal} (see {@code docs/spec.md}, [SPEC-MEM-13]).
 *
 * <p>Closing the region deregisters it ({@link ProtectionDomain#deregister}); closing twice does
 * nothing. The region does not own its memory: closing it frees nothing, and the memory must stay
 * alive (its arena open) as long as the region is registered.
 *
 * <p>Not thread-safe: a region belongs to the event loop of its protection domain.
 */
public final class MemoryRegion implements AutoCloseable {
    private final ProtectionDomain protectionDomain;
    private final MemorySegment segment;
    /** Private absolute-access view used by place/copyOut; never handed out, so nobody can move its limit. */
    private final ByteBuffer view;
    /** The view handed out by {@link #buffer()}: the same instance every time. */
    private final ByteBuffer sharedView;
    private final int localKey;
    private final int remoteKey;
    private final int length;
    private final int access;
    private boolean open = true;

    MemoryRegion(ProtectionDomain protectionDomain, MemorySegment segment, ByteBuffer view,
                 int localKey, int remoteKey, int access) {
        this.protectionDomain = protectionDomain;
        this.segment = segment;
        this.view = view;
        this.sharedView = view.duplicate();
        this.localKey = localKey;
        this.remoteKey = remoteKey;
        this.length = view.capacity();
        this.access = access;
    }

    /** The key naming this region in local work requests (u32 as {@code int}, never 0). */
    public int localKey() {
        return localKey;
    }

    /**
     * The key a peer uses to name this region in WRITE, WRITE_WITH_IMM and READ (u32 as
     * {@code int}, never 0, never equal to {@link #localKey()}, unique among the live regions of
     * the protection domain, drawn at random).
     */
    public int remoteKey() {
        return remoteKey;
    }

    /** Length of the region in bytes (at most {@link ProtectionDomain#MAX_REGION_LENGTH}). */
    public long length() {
        return length;
    }

    /** The {@link Access} flags this region was registered with. */
    public int access() {
        return access;
    }

    /** Whether this region is still registered. */
    public boolean isOpen() {
        return open;
    }

    /**
     * Whether the engine may read or write the region now: registered, and its memory not freed
     * (an application may close the arena under a region without deregistering it).
     */
    public boolean isUsable() {
        return open && memoryAlive();
    }

    /** The protection domain this region was registered in. */
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    /**
     * The registered memory. For a region registered through a {@link ByteBuffer}, the segment
     * covers that buffer's position..limit at registration time.
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * A view of the region as a {@link ByteBuffer} with position 0 and limit {@link #length()}, for
     * the codec's payload copies. The SAME cached instance is returned every time (nothing is
     * allocated), so callers MUST use absolute get/put methods only and MUST NOT change its position,
     * limit, mark or byte order. {@link #place} and {@link #copyOut} do not depend on this buffer.
     * The buffer is read-only when the registered memory is; it stays usable after {@link #close()}
     * as long as the memory itself is alive, so callers check {@link #isOpen()} themselves.
     */
    public ByteBuffer buffer() {
        return sharedView;
    }

    /**
     * Copies {@code length} bytes from {@code src} (absolute index {@code srcIndex}, positions
     * untouched) into this region at {@code offset}.
     *
     * <p>The caller has checked the access already; this method still refuses a bad range (a
     * programming error) with {@link IndexOutOfBoundsException} before copying anything, so it never
     * writes outside the region. Zero allocation.
     *
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside the region
     *         or {@code [srcIndex, srcIndex + length)} is not inside {@code src}'s limit
     * @throws IllegalStateException if the region is closed (or its memory has been freed)
     * @throws java.nio.ReadOnlyBufferException if the registered memory is read-only
     */
    public void place(long offset, ByteBuffer src, int srcIndex, int length) {
        ensureOpen();
        checkRegionRange(offset, length);
        // The source's range is not checked here: the bulk put checks it first, the same test
        // (Objects.checkFromIndexSize against src's limit, IndexOutOfBoundsException) before
        // anything is copied, on every packet placed.
        view.put((int) offset, src, srcIndex, length);
    }

    /**
     * Copies {@code length} bytes from {@code src[srcIndex, srcIndex + length)} into this region at
     * {@code offset}, as {@link #place(long, ByteBuffer, int, int)} does from a buffer.
     *
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside the region
     *         or {@code [srcIndex, srcIndex + length)} is not inside {@code src}
     * @throws IllegalStateException if the region is closed (or its memory has been freed)
     * @throws java.nio.ReadOnlyBufferException if the registered memory is read-only
     */
    public void place(long offset, byte[] src, int srcIndex, int length) {
        ensureOpen();
        checkRegionRange(offset, length);
        view.put((int) offset, src, srcIndex, length);
    }

    /**
     * Copies {@code length} bytes from this region at {@code offset} into {@code dst} at absolute
     * index {@code dstIndex} (positions untouched). Zero allocation.
     *
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside the region
     *         or {@code [dstIndex, dstIndex + length)} is not inside {@code dst}'s limit
     * @throws IllegalStateException if the region is closed (or its memory has been freed)
     * @throws java.nio.ReadOnlyBufferException if {@code dst} is read-only
     */
    public void copyOut(long offset, ByteBuffer dst, int dstIndex, int length) {
        ensureOpen();
        checkRegionRange(offset, length);
        checkBufferRange(dst, dstIndex, length);
        dst.put(dstIndex, view, (int) offset, length);
    }

    /** Deregisters this region from its protection domain; does nothing if already closed. */
    @Override
    public void close() {
        protectionDomain.deregister(this);
    }

    /** Called by the protection domain when it deregisters this region. */
    void markClosed() {
        open = false;
    }

    /** Whether the memory under this region is still accessible (its arena, if any, is open). */
    boolean memoryAlive() {
        return segment.scope().isAlive();
    }

    /** Whether {@code [offset, offset + len)} lies inside this region; overflow-safe ([SPEC-MEM-8]). */
    boolean contains(long offset, long len) {
        return offset >= 0 && len >= 0 && offset <= length - len;
    }

    private void ensureOpen() {
        if (!open) {
            throw new IllegalStateException("memory region is closed (deregistered): " + this);
        }
    }

    private void checkRegionRange(long offset, int len) {
        if (!contains(offset, len)) {
            throw new IndexOutOfBoundsException("range [offset " + offset + ", length " + len
                    + ") is not inside the region of " + length + " bytes");
        }
    }

    private static void checkBufferRange(ByteBuffer buffer, int index, int len) {
        if (index < 0 || len < 0 || index > buffer.limit() - len) {
            throw new IndexOutOfBoundsException("range [index " + index + ", length " + len
                    + ") is not inside the buffer's limit " + buffer.limit());
        }
    }

    @Override
    public String toString() {
        return "MemoryRegion[localKey=0x" + Integer.toHexString(localKey)
                + ", remoteKey=0x" + Integer.toHexString(remoteKey)
                + ", length=" + length
                + ", access=" + Access.describe(access)
                + (open ? ", open" : ", closed")
                + (segment.isNative() ? ", native" : ", heap")
                + ']';
    }
}
