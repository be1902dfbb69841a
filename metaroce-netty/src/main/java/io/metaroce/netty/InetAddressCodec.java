package io.metaroce.netty;

import io.metaroce.core.api.PeerAddressCodec;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Canonical bytes of a resolved {@link InetSocketAddress}: a family byte (4 or 6), the address
 * bytes, the port (big-endian u16) and, for IPv6, the scope id (big-endian u32). Equal addresses
 * give equal bytes; IPv4-mapped IPv6 addresses already resolve to {@code Inet4Address} in the JDK.
 *
 * <p>Stateless and thread-safe; use {@link #INSTANCE}.
 */
public final class InetAddressCodec implements PeerAddressCodec {
    /** The one instance. */
    public static final InetAddressCodec INSTANCE = new InetAddressCodec();

    private InetAddressCodec() {
    }

    @Override
    public int encode(Object address, byte[] out) {
        if (!(address instanceof InetSocketAddress socketAddress)) {
            throw new IllegalArgumentException("expected an InetSocketAddress, got "
                    + (address == null ? "null" : address.getClass().getName()));
        }
        InetAddress ip = socketAddress.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address " + socketAddress);
        }
        byte[] raw = ip.getAddress();
        int n = 0;
        out[n++] = (byte) (raw.length == 4 ? 4 : 6);
        System.arraycopy(raw, 0, out, n, raw.length);
        n += raw.length;
        int port = socketAddress.getPort();
        out[n++] = (byte) (port >>> 8);
        out[n++] = (byte) port;
        if (ip instanceof Inet6Address v6) {
            int scope = v6.getScopeId();
            out[n++] = (byte) (scope >>> 24);
            out[n++] = (byte) (scope >>> 16);
            out[n++] = (byte) (scope >>> 8);
            out[n++] = (byte) scope;
        }
        return n;
    }
}
