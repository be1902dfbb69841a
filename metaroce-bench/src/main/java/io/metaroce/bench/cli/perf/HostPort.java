package io.metaroce.bench.cli.perf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Parses {@code ADDR[:PORT]} as given on the command line: a host name or IPv4 address with an
 * optional {@code :PORT}, or an IPv6 address, bracketed when a port follows
 * ({@code [::1]:18515}). Thread-safe (stateless).
 */
public final class HostPort {
    /** The port perf servers listen on when none is given (the one perftest uses). */
    public static final int DEFAULT_PORT = 18515;

    private HostPort() {
    }

    /**
     * The socket address {@code text} names, with {@code defaultPort} if it has no port.
     *
     * @throws IllegalArgumentException with a message for the user if it is malformed or unknown
     */
    public static InetSocketAddress parse(String text, int defaultPort) {
        String host = text;
        int port = defaultPort;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("'" + text + "': missing ']'");
            }
            host = text.substring(1, close);
            String rest = text.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("'" + text + "': expected ':PORT' after ']'");
                }
                port = port(text, rest.substring(1));
            }
        } else if (text.indexOf(':') >= 0 && text.indexOf(':') == text.lastIndexOf(':')) {
            int colon = text.indexOf(':');
            host = text.substring(0, colon);
            port = port(text, text.substring(colon + 1));
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "': no address");
        }
        return new InetSocketAddress(address(host), port);
    }

    /** The address {@code host} names. */
    public static InetAddress address(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host '" + host + "'");
        }
    }

    private static int port(String text, String digits) {
        try {
            int p = Integer.parseInt(digits);
            if (p >= 0 && p <= 65_535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + text + "': the port must be a number in [0, 65535]");
    }
}
