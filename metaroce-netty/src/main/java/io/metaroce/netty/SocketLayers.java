package io.metaroce.netty;

/** Picks the socket layer for a {@link Datapath}. */
final class SocketLayers {
    private SocketLayers() {
    }

    static SocketLayer forDatapath(Datapath datapath) {
        return switch (datapath) {
            case AUTO, NIO -> NioSocketLayer.INSTANCE;
        };
    }
}
