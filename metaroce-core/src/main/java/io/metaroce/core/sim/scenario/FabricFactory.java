package io.metaroce.core.sim.scenario;

import io.metaroce.core.sim.fabric.FabricBuilder;
import io.metaroce.core.sim.fabric.LinkSpec;
import io.metaroce.core.sim.fabric.Network;
import io.metaroce.core.sim.fabric.Topologies;

/**
 * Builds the fabric {@link SimParameters} describe, and the figures derived from it: base round
 * trip and bandwidth-delay product.
 *
 * <p>Stateless and thread-safe.
 */
public final class FabricFactory {
    /** Bytes of an acknowledgement frame assumed in the base round trip (a small datagram plus headers). */
    public static final int ACK_FRAME_BYTES = 128;

    private FabricFactory() {
    }

    /** The fabric of {@code p}. */
    public static FabricBuilder fabric(SimParameters p) {
        LinkSpec link = LinkSpec.of(p.linkGbps(), p.linkDelayNanos(), p.buffer());
        return switch (p.topology()) {
            case FAT_TREE -> Topologies.fatTree(p.k(), 1, link);
            case MULTIPLANE -> Topologies.fatTree(p.k(), p.planes(), link);
            case LEAF_SPINE -> Topologies.leafSpine(p.k(), p.k() / 2, p.k() / 2, 1, link, link);
        };
    }

    /**
     * Base round trip over {@code hops} links: propagation both ways, plus one serialization per
     * hop of a full frame of {@code datagramBytes} going and of an {@value #ACK_FRAME_BYTES}-byte
     * acknowledgement returning. No queueing.
     */
    public static long baseRttNanos(int hops, double linkGbps, long linkDelayNanos, int datagramBytes) {
        double nsPerByte = 8.0 / linkGbps;
        int frame = datagramBytes + Network.FRAME_OVERHEAD_BYTES + Network.WIRE_GAP_BYTES;
        return Math.round(hops * (2.0 * linkDelayNanos + frame * nsPerByte + ACK_FRAME_BYTES * nsPerByte));
    }

    /** Bytes a link of {@code linkGbps} carries in {@code nanos}. */
    public static double bytesIn(double linkGbps, long nanos) {
        return linkGbps / 8.0 * nanos;
    }
}
