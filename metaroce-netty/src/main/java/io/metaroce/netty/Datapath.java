package io.metaroce.netty;

/**
 * Which socket layer a {@link UdpEndpoint} uses, chosen with {@link UdpEndpoint.Builder#datapath}.
 */
public enum Datapath {
    /** The best layer available on this platform (today: {@link #NIO} everywhere). */
    AUTO,
    /**
     * Netty's NIO datagram channel: portable, one system call per datagram, and blind to ECN (every
     * received datagram is reported Not-ECT and every datagram leaves Not-ECT).
     */
    NIO
}
