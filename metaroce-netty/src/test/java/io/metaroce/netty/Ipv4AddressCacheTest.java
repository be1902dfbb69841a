package io.metaroce.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class Ipv4AddressCacheTest {
    private static InetSocketAddress v4(int a, int b, int c, int d, int port) throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d}), port);
    }

    @Test
    void packsEachAddressToItsOwnValueWhateverTheOrderOfTheCalls() throws UnknownHostException {
        Ipv4AddressCache cache = new Ipv4AddressCache();
        InetSocketAddress a = v4(127, 0, 0, 1, 4791);
        InetSocketAddress b = v4(10, 1, 2, 3, 65535);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 4791);
        long packedA = Ipv4AddressCache.pack(0x7F00_0001, 4791);
        long packedB = Ipv4AddressCache.pack(0x0A01_0203, 65535);
        // The same object twice (a flow's datagrams), another, back, an equal copy, IPv6 between.
        InetSocketAddress[] order = {a, a, b, b, a, v4(127, 0, 0, 1, 4791), v6, a, v6, v6, b};
        long[] expected = {packedA, packedA, packedB, packedB, packedA, packedA, -1, packedA, -1, -1, packedB};
        for (int i = 0; i < order.length; i++) {
            assertEquals(expected[i], cache.toPacked(order[i]), "call " + i + ": " + order[i]);
        }
    }

    @Test
    void aPackedAddressTurnsBackIntoTheObjectItCameFrom() throws UnknownHostException {
        Ipv4AddressCache cache = new Ipv4AddressCache();
        InetSocketAddress a = v4(192, 168, 7, 9, 1);
        long packed = cache.toPacked(a);
        assertEquals(packed, cache.toPacked(a));
        assertSame(a, cache.toAddress(packed));
    }
}
