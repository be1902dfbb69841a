package io.metaroce.core.sim.metaroce;

import io.metaroce.core.api.PeerAddressCodec;
import io.metaroce.core.sim.SimAddress;

/**
 * Encodes a {@link SimAddress} as its host (4 bytes) and port (2 bytes), for the endpoint's
 * address-bound cookies.
 *
 * <p>Stateless and thread-safe.
 */
final class SimAddressCodec implements PeerAddressCodec {
    static final SimAddressCodec INSTANCE = new SimAddressCodec();

    @Override
    public int encode(Object address, byte[] out) {
        SimAddress a = (SimAddress) address;
        int h = a.host();
        out[0] = (byte) (h >>> 24);
        out[1] = (byte) (h >>> 16);
        out[2] = (byte) (h >>> 8);
        out[3] = (byte) h;
        out[4] = (byte) (a.port() >>> 8);
        out[5] = (byte) a.port();
        return 6;
    }
}
