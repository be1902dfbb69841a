package io.metaroce.core.conn;

import io.metaroce.core.api.PeerAddressCodec;
import io.metaroce.core.wire.WireConstants;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Issues and checks the anti-spoofing cookies of the handshake. A cookie is the time it was
 * issued and an HMAC-SHA256 (truncated to 16 bytes) over that time, the client's connection id
 * and the address the CONNECT came from, under a secret only this endpoint knows. An endpoint
 * creates connection state only for a CONNECT that returns a valid cookie, which proves the
 * client receives packets at the address it claims; a forged source address gets a CHALLENGE
 * sent elsewhere and creates nothing.
 *
 * <p>Not thread-safe.
 */
final class CookieAuthority {
    private static final int MAC_BYTES = 16;

    private final Mac mac;
    private final PeerAddressCodec addressCodec;
    private final byte[] addressBytes = new byte[PeerAddressCodec.MAX_BYTES];
    private final byte[] scratch = new byte[16];
    private final byte[] expected = new byte[MAC_BYTES];
    private final long lifetimeNanos;

    CookieAuthority(byte[] secret, PeerAddressCodec addressCodec, long lifetimeNanos) {
        if (secret == null || secret.length < 16) {
            throw new IllegalArgumentException("the cookie secret must be at least 16 random bytes");
        }
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.clone(), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
        this.addressCodec = addressCodec;
        this.lifetimeNanos = lifetimeNanos;
    }

    /** Writes a cookie for (client id, address) issued at {@code nowNanos} into {@code out}. */
    void issue(long clientId, Object address, long nowNanos, byte[] out) {
        putLong(out, 0, nowNanos);
        byte[] tag = tag(clientId, address, nowNanos);
        System.arraycopy(tag, 0, out, 8, MAC_BYTES);
    }

    /** Whether {@code cookie} was issued by this endpoint for (client id, address) and is still fresh. */
    boolean verify(byte[] cookie, long clientId, Object address, long nowNanos) {
        long issuedAt = getLong(cookie, 0);
        long age = nowNanos - issuedAt;
        if (age < 0 || age > lifetimeNanos) {
            return false;
        }
        byte[] tag = tag(clientId, address, issuedAt);
        System.arraycopy(cookie, 8, expected, 0, MAC_BYTES);
        return MessageDigest.isEqual(java.util.Arrays.copyOf(tag, MAC_BYTES), expected);
    }

    /** The time a cookie says it was issued (meaningful only for a cookie that {@link #verify} accepts). */
    static long issuedAt(byte[] cookie) {
        return getLong(cookie, 0);
    }

    private byte[] tag(long clientId, Object address, long issuedAt) {
        putLong(scratch, 0, issuedAt);
        putLong(scratch, 8, clientId);
        mac.update(scratch);
        int n = addressCodec.encode(address, addressBytes);
        mac.update(addressBytes, 0, n);
        return mac.doFinal();
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }

    static {
        if (8 + MAC_BYTES != WireConstants.COOKIE_BYTES) {
            throw new AssertionError("cookie layout does not match WireConstants.COOKIE_BYTES");
        }
    }
}
