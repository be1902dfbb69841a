package io.metaroce.core.api;

/**
 * Turns the driver's address objects into bytes, so the engine can bind an anti-spoofing cookie
 * to the address a CONNECT came from without knowing what an address is.
 */
@FunctionalInterface
public interface PeerAddressCodec {
    /** Most bytes an address may take (an IPv6 address, a port and a scope). */
    int MAX_BYTES = 32;

    /**
     * Writes a canonical byte form of {@code address} (equal addresses give equal bytes) into
     * {@code out}, which is {@link #MAX_BYTES} long; returns the number of bytes written.
     */
    int encode(Object address, byte[] out);
}
