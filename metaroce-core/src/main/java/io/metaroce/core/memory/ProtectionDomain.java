package io.metaroce.core.memory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.random.RandomGenerator;

import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;

/**
 * A protection domain: the set of memory regions that the connections bound to it may access, and
 * the authority that checks every access against a region's bounds and rights.
 *
 * <p>Registering memory yields a {@link MemoryRegion} with a random, non-zero local key and remote
 * key. A peer names a region by its remote key; {@link #checkRemote} resolves the key and checks
 * the range and the right in one call, without allocating, and counts every refusal. The
 * connection engine answers a refused access with NAK code 2 (REMOTE_ACCESS_ERROR) and touches no
 * memory. Normative in {@code docs/spec.md}, section "Memory" ([SPEC-MEM-1] onwards).
 *
 * <p>After a region is deregistered its remote key is remembered for a while (the last
 * {@link #retiredKeyMemory()} retired keys): accesses naming it report
 * {@link AccessCheck#REGION_CLOSED} rather than {@link AccessCheck#UNKNOWN_KEY}, and the key is not
 * handed out again during that time, so a peer holding a stale key cannot reach a new region
 * that happens to draw the same key ([SPEC-MEM-4]).
 *
 * <p>Sans-IO and not thread-safe: a protection domain belongs to one event loop. Keys come from
 * the {@link RandomGenerator} given by the caller (use a strong, unpredictably seeded generator in
 * production, e.g. one seeded from {@link java.security.SecureRandom}; a seeded one in simulation).
 */
public final class ProtectionDomain {
    /**
     * Largest region, in bytes: {@value} ({@code Integer.MAX_VALUE - 8}, the largest memory the JDK
     * will view as one {@link ByteBuffer}). Register larger memory as several regions.
     */
    public static final long MAX_REGION_LENGTH = Integer.MAX_VALUE - 8;
    /** Default number of retired remote keys remembered (see the class comment): {@value}. */
    public static final int DEFAULT_RETIRED_KEY_MEMORY = 1024;
    /** Attempts at drawing a fresh key before concluding the generator is broken: {@value}. */
    static final int MAX_KEY_DRAWS = 1000;

    private final RandomGenerator keyRandom;
    private final Int2ObjectHashMap<MemoryRegion> byRemoteKey = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<MemoryRegion> byLocalKey = new Int2ObjectHashMap<>();
    /** Retired remote keys, oldest first from {@link #retiredHead}, and the same keys as a set. */
    private final int[] retiredRing;
    private final IntHashSet retired;
    private int retiredHead;
    private int retiredCount;
    private long refusals;
    private final long[] refusalsByCode = new long[AccessCheck.COUNT];

    /**
     * A protection domain that remembers the last {@link #DEFAULT_RETIRED_KEY_MEMORY} retired keys.
     *
     * @param keyRandom source of the keys; it should be unpredictable to peers
     */
    public ProtectionDomain(RandomGenerator keyRandom) {
        this(keyRandom, DEFAULT_RETIRED_KEY_MEMORY);
    }

    /**
     * @param keyRandom        source of the keys; it should be unpredictable to peers
     * @param retiredKeyMemory how many retired remote keys to remember (0 forgets them at once, so
     *                         accesses naming a deregistered region report UNKNOWN_KEY)
     */
    public ProtectionDomain(RandomGenerator keyRandom, int retiredKeyMemory) {
        this.keyRandom = Objects.requireNonNull(keyRandom, "keyRandom");
        if (retiredKeyMemory < 0) {
            throw new IllegalArgumentException("retiredKeyMemory must be >= 0, was " + retiredKeyMemory);
        }
        this.retiredRing = new int[retiredKeyMemory];
        // Sized so that remembering retiredKeyMemory keys never resizes the set.
        this.retired = new IntHashSet(Math.max(8, 2 * retiredKeyMemory));
    }

    /**
     * Registers a memory segment.
     *
     * @param segment     the memory; must be native, or a heap segment backed by a {@code byte[]};
     *                    at most {@link #MAX_REGION_LENGTH} bytes; its arena must stay open while
     *                    the region is registered
     * @param accessFlags {@link Access} flags
     * @throws IllegalArgumentException if the flags hold unknown bits, the segment is too long, is
     *         read-only while a write right is asked for, is not alive, or cannot be viewed as a
     *         {@link ByteBuffer}
     * @throws IllegalStateException if the key generator keeps returning used keys
     */
    public MemoryRegion register(MemorySegment segment, int accessFlags) {
        Objects.requireNonNull(segment, "segment");
        Access.validate(accessFlags);
        checkLength(segment.byteSize());
        checkWritable(segment.isReadOnly(), accessFlags, "segment");
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException("cannot register a segment whose arena is already closed");
        }
        ByteBuffer view;
        try {
            view = segment.asByteBuffer();
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException("cannot register this segment: it cannot be viewed as a ByteBuffer"
                    + " (heap segments must be backed by a byte[]; use a native segment or a byte[])", e);
        }
        return add(segment, view, accessFlags);
    }

    /**
     * Registers the bytes of a buffer from its position to its limit (at this moment; later changes
     * of the buffer's position or limit do not move the region). The buffer may be direct or heap.
     *
     * @throws IllegalArgumentException as {@link #register(MemorySegment, int)}, e.g. a read-only
     *         buffer with {@link Access#LOCAL_WRITE} or {@link Access#REMOTE_WRITE}
     */
    public MemoryRegion register(ByteBuffer buffer, int accessFlags) {
        Objects.requireNonNull(buffer, "buffer");
        Access.validate(accessFlags);
        checkWritable(buffer.isReadOnly(), accessFlags, "buffer");
        MemorySegment segment = MemorySegment.ofBuffer(buffer);
        return register(segment, accessFlags);
    }

    /**
     * The live region with this remote key, or {@code null} when the key is unknown, its region
     * deregistered, or its memory freed. Zero allocation.
     */
    public MemoryRegion lookupRemote(int remoteKey) {
        MemoryRegion region = byRemoteKey.get(remoteKey);
        return region != null && region.memoryAlive() ? region : null;
    }

    /**
     * The live region with this local key, or {@code null} when unknown or deregistered (or its memory
     * freed). Zero allocation.
     */
    public MemoryRegion lookupLocal(int localKey) {
        MemoryRegion region = byLocalKey.get(localKey);
        return region != null && region.memoryAlive() ? region : null;
    }

    /**
     * Checks an access by a peer: the region named by {@code remoteKey} is live, it grants every
     * right in {@code requiredAccess}, and {@code [offset, offset + length)} lies inside it. The
     * order of the checks, and so the code reported when several fail, is: key, rights, bounds
     * ([SPEC-MEM-9]). The bounds rule is overflow-safe: {@code offset >= 0 && length >= 0 &&
     * offset <= regionLength - length} ([SPEC-MEM-8]); a u64 offset or length of 2^63 or more, seen
     * as a negative {@code long}, is out of bounds. Every refusal is counted ([SPEC-MEM-11]).
     * Zero allocation.
     *
     * @param requiredAccess the right(s) needed, normally {@link Access#REMOTE_WRITE} or
     *                       {@link Access#REMOTE_READ}
     * @return an {@link AccessCheck} code
     * @throws IllegalArgumentException if {@code requiredAccess} holds unknown bits (a programming error)
     */
    public int checkRemote(int remoteKey, long offset, long length, int requiredAccess) {
        int code = evaluate(byRemoteKey.get(remoteKey), remoteKey, offset, length, requiredAccess);
        if (code != AccessCheck.OK) {
            refusals++;
            refusalsByCode[code]++;
        }
        return code;
    }

    /**
     * Checks a local access (placing incoming bytes into a RECV or READ target, or reading a SEND or
     * WRITE source): {@code region} belongs to this protection domain and is open,
     * {@code [offset, offset + length)} lies inside it, and it grants {@code requiredAccess}
     * ({@link Access#LOCAL_WRITE} to write; reading local memory needs no right, pass
     * {@link Access#NONE}). Not counted in {@link #refusals()}. Zero allocation.
     *
     * @return an {@link AccessCheck} code: {@link AccessCheck#UNKNOWN_KEY} for {@code null} or a
     *         region of another protection domain
     * @throws IllegalArgumentException if {@code requiredAccess} holds unknown bits (a programming error)
     */
    public int checkLocal(MemoryRegion region, long offset, long length, int requiredAccess) {
        if (region != null && region.protectionDomain() != this) {
            region = null;
        }
        // Key 0 is never issued, so a null region reports UNKNOWN_KEY; a closed one REGION_CLOSED.
        return evaluate(region, 0, offset, length, requiredAccess);
    }

    private int evaluate(MemoryRegion region, int remoteKey, long offset, long length, int requiredAccess) {
        if ((requiredAccess & ~Access.ALL) != 0) {
            Access.validate(requiredAccess);
        }
        if (region == null) {
            return remoteKey != 0 && retired.contains(remoteKey) ? AccessCheck.REGION_CLOSED : AccessCheck.UNKNOWN_KEY;
        }
        if (!region.isOpen() || !region.memoryAlive()) {
            return AccessCheck.REGION_CLOSED;
        }
        if ((region.access() & requiredAccess) != requiredAccess) {
            return AccessCheck.ACCESS_DENIED;
        }
        if (!region.contains(offset, length)) {
            return AccessCheck.OUT_OF_BOUNDS;
        }
        return AccessCheck.OK;
    }

    /** Count of {@link #checkRemote} results other than {@link AccessCheck#OK}. */
    public long refusals() {
        return refusals;
    }

    /** Count of {@link #checkRemote} results equal to {@code code} (0 for {@link AccessCheck#OK} or an unknown code). */
    public long refusals(int code) {
        return code > AccessCheck.OK && code < AccessCheck.COUNT ? refusalsByCode[code] : 0;
    }

    /** Number of live (registered, not yet deregistered) regions. */
    public int regionCount() {
        return byRemoteKey.size();
    }

    /** How many retired remote keys this domain remembers. */
    public int retiredKeyMemory() {
        return retiredRing.length;
    }

    /**
     * Deregisters a region: afterwards checks naming it report {@link AccessCheck#REGION_CLOSED}
     * (or {@link AccessCheck#UNKNOWN_KEY} once its key is forgotten) and it cannot be placed into.
     * Idempotent. The memory itself is not freed.
     *
     * @throws IllegalArgumentException if the region belongs to another protection domain
     */
    public void deregister(MemoryRegion region) {
        Objects.requireNonNull(region, "region");
        if (region.protectionDomain() != this) {
            throw new IllegalArgumentException("region belongs to another protection domain: " + region);
        }
        if (!region.isOpen()) {
            return;
        }
        region.markClosed();
        byRemoteKey.remove(region.remoteKey());
        byLocalKey.remove(region.localKey());
        retire(region.remoteKey());
    }

    private void retire(int remoteKey) {
        int capacity = retiredRing.length;
        if (capacity == 0) {
            return;
        }
        if (retiredCount == capacity) {
            retired.remove(retiredRing[retiredHead]);
            retiredRing[retiredHead] = remoteKey;
            retiredHead = (retiredHead + 1) % capacity;
        } else {
            retiredRing[(retiredHead + retiredCount) % capacity] = remoteKey;
            retiredCount++;
        }
        retired.add(remoteKey);
    }

    private MemoryRegion add(MemorySegment segment, ByteBuffer view, int accessFlags) {
        int localKey = drawKey(byLocalKey, 0, "local");
        int remoteKey = drawKey(byRemoteKey, localKey, "remote");
        MemoryRegion region = new MemoryRegion(this, segment, view, localKey, remoteKey, accessFlags);
        byLocalKey.put(localKey, region);
        byRemoteKey.put(remoteKey, region);
        return region;
    }

    /** Draws a key that is not 0, not {@code avoid}, not in use in {@code inUse}, and not a retired remote key ([SPEC-MEM-3], [SPEC-MEM-4]). */
    private int drawKey(Int2ObjectHashMap<MemoryRegion> inUse, int avoid, String kind) {
        for (int attempt = 0; attempt < MAX_KEY_DRAWS; attempt++) {
            int key = keyRandom.nextInt();
            if (key != 0 && key != avoid && !inUse.containsKey(key) && !retired.contains(key)) {
                return key;
            }
        }
        throw new IllegalStateException("could not draw a fresh " + kind + " key in " + MAX_KEY_DRAWS
                + " attempts: the key generator is not random (" + keyRandom + ")");
    }

    /** [SPEC-MEM-2] */
    private static void checkLength(long length) {
        if (length > MAX_REGION_LENGTH) {
            throw new IllegalArgumentException("a memory region is limited to " + MAX_REGION_LENGTH
                    + " bytes (Integer.MAX_VALUE - 8, the largest ByteBuffer), this one has " + length
                    + "; register it as several regions of at most that size");
        }
    }

    /** [SPEC-MEM-2] */
    private static void checkWritable(boolean readOnly, int accessFlags, String what) {
        if (readOnly && (accessFlags & Access.ANY_WRITE) != 0) {
            throw new IllegalArgumentException("cannot register a read-only " + what + " with "
                    + Access.describe(accessFlags & Access.ANY_WRITE)
                    + ": write rights need writable memory (register it with REMOTE_READ or NONE only)");
        }
    }

    @Override
    public String toString() {
        return "ProtectionDomain[regions=" + regionCount() + ", refusals=" + refusals + ']';
    }
}
