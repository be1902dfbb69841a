package io.metaroce.core.sim;

/**
 * A simulated socket address: a host and one of its sockets. The socket's UDP port is
 * {@code PORT_BASE + socket}. Instances are interned by {@link io.metaroce.core.sim.fabric.Network#address},
 * so the simulator allocates nothing per datagram when it names a sender.
 *
 * <p>Immutable and thread-safe.
 */
public final class SimAddress {
    /** UDP port of socket 0; socket {@code s} is port {@code PORT_BASE + s}. */
    public static final int PORT_BASE = 49_152;

    private final int host;
    private final int socket;

    /** The address of {@code socket} on {@code host}; prefer the network's interned instances. */
    public SimAddress(int host, int socket) {
        if (host < 0 || socket < 0 || socket >= 65_536 - PORT_BASE) {
            throw new IllegalArgumentException("host must be >= 0 and socket in [0, " + (65_536 - PORT_BASE)
                    + "), got host " + host + ", socket " + socket);
        }
        this.host = host;
        this.socket = socket;
    }

    /** The host's index in the network. */
    public int host() {
        return host;
    }

    /** The socket id on that host. */
    public int socket() {
        return socket;
    }

    /** The UDP port of this address. */
    public int port() {
        return port(socket);
    }

    /** The UDP port of socket id {@code socket}. */
    public static int port(int socket) {
        return PORT_BASE + socket;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SimAddress a && a.host == host && a.socket == socket;
    }

    @Override
    public int hashCode() {
        return host * 65_537 + socket;
    }

    @Override
    public String toString() {
        return "host" + host + ":" + port();
    }
}
