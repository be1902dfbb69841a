package io.metaroce.netty;

/**
 * Which socket layer a {@link UdpEndpoint} uses, chosen with {@link UdpEndpoint.Builder#datapath}.
 * {@link UdpEndpoint#datapathName()} and {@link UdpEndpointStats#datapath()} tell which one runs.
 */
public enum Datapath {
    /**
     * {@link #LINUX} where it can run (Linux, Netty's epoll transport present, an IPv4 bind address,
     * and the endpoint's own event loop or an epoll one), {@link #NIO} otherwise.
     */
    AUTO,
    /**
     * Linux sockets driven through {@code java.lang.foreign} on Netty's epoll event loop: reads the
     * ECN field of every datagram, sets ECN per datagram, batches with {@code recvmmsg} and
     * {@code sendmmsg}, allocates nothing per datagram. IPv4 only.
     */
    LINUX,
    /**
     * Netty's NIO datagram channel: portable, one system call per datagram, and blind to ECN (every
     * received datagram is reported Not-ECT and every datagram leaves Not-ECT).
     */
    NIO
}
