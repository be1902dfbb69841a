package io.metaroce.core.sim.fabric;

/**
 * Rate and propagation delay of a link (both directions), and the switch port settings at each of
 * its ends.
 *
 * <p>Immutable and thread-safe.
 *
 * @param gbps line rate in Gbit/s; serialization takes {@code frameBytes * 8 / gbps} ns, rounded
 *        to whole picoseconds per byte
 * @param propagationNanos one-way propagation delay
 * @param bufferBytes bytes a switch output port on this link may queue (host NIC queues are not
 *        limited: the host only hands the NIC a packet when the NIC is free)
 * @param ecn CE marking at a switch output port on this link
 */
public record LinkSpec(double gbps, long propagationNanos, long bufferBytes, EcnMarking ecn) {
    /** Validates. */
    public LinkSpec {
        if (!(gbps > 0 && gbps <= 8_000) || propagationNanos < 0 || bufferBytes <= 0 || ecn == null) {
            throw new IllegalArgumentException("a link needs 0 < gbps <= 8000, propagation >= 0, buffer > 0 and ECN"
                    + " settings, got " + gbps + " Gbit/s, " + propagationNanos + " ns, " + bufferBytes + " B");
        }
    }

    /** A link at {@code gbps} with {@code propagationNanos} delay and the buffer and DCTCP threshold of {@code preset}. */
    public static LinkSpec of(double gbps, long propagationNanos, BufferPreset preset) {
        return new LinkSpec(gbps, propagationNanos, preset.bufferBytes(), EcnMarking.threshold(preset.ecnThresholdBytes()));
    }

    /** Picoseconds to serialize one byte at this rate. */
    public long picosPerByte() {
        return Math.max(1, Math.round(8_000.0 / gbps));
    }
}
