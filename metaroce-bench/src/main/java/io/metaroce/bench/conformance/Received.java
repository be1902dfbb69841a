package io.metaroce.bench.conformance;

import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;

/**
 * One packet the implementation under test sent, decoded: a datagram, or one of the two packets
 * of a bundle ([SPEC-WIRE-30]). Not modified after it is made (the packet and payload are not
 * copied): safe to read from any thread once published.
 *
 * @param packet the decoded fields (a fresh instance, owned by this record)
 * @param payload DATA payload bytes (empty for other types)
 * @param path index of the suite socket it arrived on
 * @param length the packet's length in bytes
 * @param datagramLength the length of the datagram that carried it (longer for a bundle)
 * @param arrivalNanos {@link System#nanoTime()} when the suite read it
 */
public record Received(Packet packet, byte[] payload, int path, int length, int datagramLength, long arrivalNanos) {
    /** The packet's type code. */
    public int type() {
        return packet.type;
    }

    @Override
    public String toString() {
        Packet p = packet;
        return PacketType.name(p.type) + "[socket " + path + ", pathId " + p.pathId + ", csn " + p.connectionSequence
                + ", psn " + p.pathSequence + ", flags " + p.flags + ", " + length + " bytes]";
    }
}
