package io.metaroce.core.sim.fabric;

/**
 * Switch buffer presets: the bytes each output port may queue before tail drop, and the ECN
 * threshold that goes with it. Shallow is the per-port share of a shallow-buffer data-centre
 * switch (tens of KB); deep is a deep-buffer (chassis) switch (tens of MB).
 *
 * <p>Immutable and thread-safe.
 */
public enum BufferPreset {
    /** 64 KiB per port, DCTCP threshold K = 20 KiB. */
    SHALLOW(64L << 10, 20L << 10),
    /** 32 MiB per port, DCTCP threshold K = 100 KiB (marking keeps queues short; the buffer absorbs bursts). */
    DEEP(32L << 20, 100L << 10);

    private final long bufferBytes;
    private final long ecnThresholdBytes;

    BufferPreset(long bufferBytes, long ecnThresholdBytes) {
        this.bufferBytes = bufferBytes;
        this.ecnThresholdBytes = ecnThresholdBytes;
    }

    /** Bytes an output port may hold. */
    public long bufferBytes() {
        return bufferBytes;
    }

    /** DCTCP marking threshold K. */
    public long ecnThresholdBytes() {
        return ecnThresholdBytes;
    }
}
