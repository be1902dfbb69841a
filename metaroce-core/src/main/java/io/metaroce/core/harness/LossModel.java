package io.metaroce.core.harness;

import java.nio.ByteBuffer;

/**
 * Decides, datagram by datagram, which ones the in-memory network drops on purpose, in addition
 * to the random loss of {@link NetworkConditions}. Tests use it to lose exactly the packet a
 * scenario is about (the last packet of a message, every ACK for a while, ...).
 */
@FunctionalInterface
public interface LossModel {
    /** Drops nothing. */
    LossModel NONE = (fromClient, pathId, datagram, length, nowNanos) -> false;

    /**
     * Whether to drop the datagram.
     *
     * @param fromClient whether the client sent it
     * @param pathId its path
     * @param datagram its bytes from index 0 (read only, absolute access)
     * @param length its length
     */
    boolean drop(boolean fromClient, int pathId, ByteBuffer datagram, int length, long nowNanos);
}
