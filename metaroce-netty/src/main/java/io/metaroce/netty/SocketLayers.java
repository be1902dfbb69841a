package io.metaroce.netty;

import io.netty.channel.EventLoopGroup;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

/** Picks the socket layer for a {@link Datapath}. */
final class SocketLayers {
    private SocketLayers() {
    }

    /**
     * The layer for {@code datapath} on this machine, for sockets bound to {@code bindAddresses},
     * running on {@code group} (null: a group the endpoint makes for the layer).
     *
     * @throws IllegalStateException if {@link Datapath#LINUX} was asked for and cannot run here
     */
    static SocketLayer forDatapath(Datapath datapath, List<InetAddress> bindAddresses, EventLoopGroup group) {
        boolean allIpv4 = bindAddresses.stream().allMatch(a -> a instanceof Inet4Address);
        return switch (datapath) {
            case NIO -> NioSocketLayer.INSTANCE;
            case LINUX -> {
                if (!LinuxSocketLayer.isAvailable()) {
                    throw new IllegalStateException("the linux datapath is not available here ("
                            + LinuxSocketLayer.unavailabilityCause() + "); use Datapath.AUTO or Datapath.NIO");
                }
                if (!allIpv4) {
                    throw new IllegalStateException("the linux datapath binds IPv4 addresses only, not " + bindAddresses
                            + "; use Datapath.AUTO or Datapath.NIO");
                }
                if (group != null && !LinuxSocketLayer.canRunOn(group)) {
                    throw new IllegalStateException("the linux datapath needs an epoll event loop group "
                            + "(MultiThreadIoEventLoopGroup with EpollIoHandler.newFactory())");
                }
                yield LinuxSocketLayer.INSTANCE;
            }
            case AUTO -> LinuxSocketLayer.isAvailable() && allIpv4
                    && (group == null || LinuxSocketLayer.canRunOn(group))
                    ? LinuxSocketLayer.INSTANCE : NioSocketLayer.INSTANCE;
        };
    }
}
