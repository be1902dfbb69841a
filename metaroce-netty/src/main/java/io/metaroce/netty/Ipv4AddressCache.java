package io.metaroce.netty;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.Object2LongHashMap;

/**
 * Turns the raw IPv4 address and port of a received datagram into the {@link InetSocketAddress}
 * the engine is given, and an {@code InetSocketAddress} to send to back into raw form, without
 * allocating for peers seen before: the engine compares addresses with {@code equals}, and a
 * datapath that made a new address object per datagram would make garbage at line rate.
 *
 * <p>Bounded: when {@link #MAX_ENTRIES} addresses are known (a flood of spoofed sources), the
 * cache is emptied and refilled. Confined to the event loop.
 */
final class Ipv4AddressCache {
    static final int MAX_ENTRIES = 4096;
    private static final long MISSING = -1;

    private final Long2ObjectHashMap<InetSocketAddress> byRaw = new Long2ObjectHashMap<>();
    private final Object2LongHashMap<InetSocketAddress> byAddress = new Object2LongHashMap<>(MISSING);

    /** Address and port packed into one long: address in bits 16..47, port in bits 0..15. */
    static long pack(int address, int port) {
        return ((address & 0xFFFF_FFFFL) << 16) | (port & 0xFFFF);
    }

    /** The address object for a packed address, made once per address. */
    InetSocketAddress toAddress(long packed) {
        InetSocketAddress a = byRaw.get(packed);
        if (a == null) {
            a = remember(packed, create(packed));
        }
        return a;
    }

    /**
     * The address {@link #toPacked} last packed and its packed form. A connection's datagrams go to
     * the same address object (the engine keeps one per path), so the next datagram is usually
     * answered here, by identity, without the map's hash and {@code equals} (an
     * {@code InetSocketAddress} is immutable: its packed form never changes).
     */
    private InetSocketAddress lastPackedAddress;
    private long lastPacked = MISSING;

    /** The packed form of {@code address}, or -1 if it is not IPv4. */
    long toPacked(InetSocketAddress address) {
        if (address == lastPackedAddress) {
            return lastPacked;
        }
        long packed = packedOf(address);
        if (packed != MISSING) {
            lastPackedAddress = address;
            lastPacked = packed;
        }
        return packed;
    }

    /** {@link #toPacked} through the map. */
    private long packedOf(InetSocketAddress address) {
        long packed = byAddress.getValue(address);
        if (packed == MISSING) {
            if (!(address.getAddress() instanceof Inet4Address v4)) {
                return MISSING;
            }
            byte[] b = v4.getAddress();
            int raw = ((b[0] & 0xFF) << 24) | ((b[1] & 0xFF) << 16) | ((b[2] & 0xFF) << 8) | (b[3] & 0xFF);
            packed = pack(raw, address.getPort());
            remember(packed, address);
        }
        return packed;
    }

    private InetSocketAddress remember(long packed, InetSocketAddress address) {
        if (byRaw.size() >= MAX_ENTRIES) {
            byRaw.clear();
            byAddress.clear();
        }
        byRaw.put(packed, address);
        byAddress.put(address, packed);
        return address;
    }

    private static InetSocketAddress create(long packed) {
        int raw = (int) (packed >>> 16);
        byte[] b = {(byte) (raw >>> 24), (byte) (raw >>> 16), (byte) (raw >>> 8), (byte) raw};
        try {
            return new InetSocketAddress(InetAddress.getByAddress(b), (int) (packed & 0xFFFF));
        } catch (UnknownHostException e) {
            throw new AssertionError("4 bytes are always an IPv4 address", e);
        }
    }
}
