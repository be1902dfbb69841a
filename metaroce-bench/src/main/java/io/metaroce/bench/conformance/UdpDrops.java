package io.metaroce.bench.conformance;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Datagrams the host's kernel dropped at given local UDP ports (their receive buffers were full),
 * read from the {@code drops} column of {@code /proc/net/udp} and {@code /proc/net/udp6}. The
 * suite assumes a network that loses nothing; over loopback the only loss is such a drop, at the
 * suite's sockets or at the implementation's, so a case that fails while the count grew cannot
 * judge ({@link ConformanceSuite}: SKIP, not FAIL).
 *
 * <p>Stateless; thread-safe.
 */
final class UdpDrops {
    private static final List<Path> TABLES = List.of(Path.of("/proc/net/udp"), Path.of("/proc/net/udp6"));

    private UdpDrops() {
    }

    /** The drops counted at sockets bound to any of {@code ports}, or -1 where the host does not say. */
    static long at(int... ports) {
        long total = 0;
        boolean read = false;
        for (Path table : TABLES) {
            List<String> lines;
            try {
                lines = Files.readAllLines(table);
            } catch (IOException | SecurityException e) {
                continue; // not Linux, or not readable: nothing known from this table
            }
            read = true;
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length < 13) {
                    continue;
                }
                int colon = f[1].lastIndexOf(':');
                int port = Integer.parseInt(f[1].substring(colon + 1), 16);
                for (int p : ports) {
                    if (p == port) {
                        total += Long.parseLong(f[f.length - 1]);
                    }
                }
            }
        }
        return read ? total : -1;
    }

    /** Whether {@code address} is one of this host's (so its sockets' drops can be read here). */
    static boolean local(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}
