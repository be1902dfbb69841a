package io.metaroce.netty;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Two hosts in network namespaces joined by {@code links} veth pairs, with ECMP routes between
 * them hashed on the UDP source port ({@code fib_multipath_hash_policy=1}), so each MetaRoCE path
 * (each source port) takes one link. Host A is 198.18.1.1, host B 198.18.2.1; link {@code i} is
 * {@code 198.18.0.(4i+1)} on A and {@code .(4i+2)} on B. nftables rules where a link enters host B
 * mark CE, drop a fraction, or black-hole it: out of the sender's sight, as on a real fabric (a rule
 * on the sender's own output would make its {@code sendmsg} fail with EPERM instead). {@link #close()} deletes the namespaces, which
 * removes every link, route and rule with them; stale namespaces of earlier runs are removed first.
 */
final class TwoHostFabric implements AutoCloseable {
    static final String PREFIX = "mrtest-";
    static final InetAddress HOST_A = address("198.18.1.1");
    static final InetAddress HOST_B = address("198.18.2.1");

    final String a;
    final String b;
    final int links;

    TwoHostFabric(int links) throws IOException {
        removeStale();
        String tag = Long.toString(ProcessHandle.current().pid(), 36);
        this.a = PREFIX + tag + "-a";
        this.b = PREFIX + tag + "-b";
        this.links = links;
        try {
            build();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void build() throws IOException {
        NetworkNamespaces.sh("ip netns add " + a);
        NetworkNamespaces.sh("ip netns add " + b);
        for (String ns : new String[] {a, b}) {
            NetworkNamespaces.sh("ip -n " + ns + " link set lo up");
            NetworkNamespaces.in(ns, "sysctl -q -w net.ipv4.fib_multipath_hash_policy=1");
            NetworkNamespaces.in(ns, "sysctl -q -w net.ipv4.conf.all.rp_filter=0");
            NetworkNamespaces.in(ns, "sysctl -q -w net.ipv4.conf.default.rp_filter=0");
            NetworkNamespaces.in(ns, "sysctl -q -w net.core.rmem_max=8388608");
            NetworkNamespaces.in(ns, "sysctl -q -w net.core.wmem_max=8388608");
        }
        NetworkNamespaces.sh("ip -n " + a + " addr add " + HOST_A.getHostAddress() + "/32 dev lo");
        NetworkNamespaces.sh("ip -n " + b + " addr add " + HOST_B.getHostAddress() + "/32 dev lo");
        StringBuilder toB = new StringBuilder("ip -n " + a + " route add " + HOST_B.getHostAddress() + "/32");
        StringBuilder toA = new StringBuilder("ip -n " + b + " route add " + HOST_A.getHostAddress() + "/32");
        for (int i = 0; i < links; i++) {
            String ia = interfaceA(i);
            String ib = interfaceB(i);
            NetworkNamespaces.sh("ip link add " + ia + " netns " + a + " type veth peer name " + ib + " netns " + b);
            NetworkNamespaces.sh("ip -n " + a + " addr add " + linkAddressA(i).getHostAddress() + "/30 dev " + ia);
            NetworkNamespaces.sh("ip -n " + b + " addr add " + linkAddressB(i).getHostAddress() + "/30 dev " + ib);
            // Jumbo frames, as on an AI fabric: a 4 KiB datagram is one frame, never IP fragments.
            NetworkNamespaces.sh("ip -n " + a + " link set " + ia + " mtu 9000 up");
            NetworkNamespaces.sh("ip -n " + b + " link set " + ib + " mtu 9000 up");
            NetworkNamespaces.in(a, "sysctl -q -w net.ipv4.conf." + ia + ".rp_filter=0");
            NetworkNamespaces.in(b, "sysctl -q -w net.ipv4.conf." + ib + ".rp_filter=0");
            toB.append(" nexthop via ").append(linkAddressB(i).getHostAddress()).append(" dev ").append(ia);
            toA.append(" nexthop via ").append(linkAddressA(i).getHostAddress()).append(" dev ").append(ib);
        }
        NetworkNamespaces.sh(toB.toString());
        NetworkNamespaces.sh(toA.toString());
        NetworkNamespaces.in(b, "nft add table ip mrtest");
        NetworkNamespaces.in(b, "nft add chain ip mrtest ingress { type filter hook prerouting priority 0 ; }");
    }

    /**
     * Host A's own address on {@code link} ({@code 198.18.0.(4 link + 1)}): bound as a plane's
     * address, it makes the link a plane, reached directly and never through the ECMP route.
     */
    static InetAddress linkAddressA(int link) {
        return address("198.18.0." + (4 * link + 1));
    }

    /** Host B's own address on {@code link} ({@code 198.18.0.(4 link + 2)}). */
    static InetAddress linkAddressB(int link) {
        return address("198.18.0." + (4 * link + 2));
    }

    static String interfaceA(int link) {
        return "mra" + link;
    }

    /** Host B's end of {@code link}, where the rules apply. */
    static String interfaceB(int link) {
        return "mrb" + link;
    }

    /** Marks CE on every ECN-capable packet that reaches host B over {@code link}. */
    void markCe(int link) throws IOException {
        NetworkNamespaces.in(b, "nft add rule ip mrtest ingress iifname " + interfaceB(link) + " ip ecn ect0 counter ip ecn set ce");
    }

    /** Drops, on average, one packet in {@code every} that reaches host B over {@code link}. */
    void dropOneIn(int link, int every) throws IOException {
        NetworkNamespaces.in(b, "nft add rule ip mrtest ingress iifname " + interfaceB(link) + " numgen random mod "
                + every + " == 0 counter drop");
    }

    /** Drops everything that reaches host B over {@code link}. */
    void blackHole(int link) throws IOException {
        NetworkNamespaces.in(b, "nft add rule ip mrtest ingress iifname " + interfaceB(link) + " counter drop");
    }

    /** The rules with their packet counters, for failure messages. */
    String rules() throws IOException {
        return NetworkNamespaces.in(b, "nft list chain ip mrtest ingress");
    }

    /** Removes every rule: the links carry everything again. */
    void clearRules() throws IOException {
        NetworkNamespaces.in(b, "nft flush chain ip mrtest ingress");
    }

    /**
     * Bytes host A has sent over {@code link} (bytes, not packets: a GSO send crosses a veth link
     * as one packet).
     */
    long bytesSentOver(int link) throws IOException {
        return Long.parseLong(NetworkNamespaces.in(a, "cat /sys/class/net/" + interfaceA(link)
                + "/statistics/tx_bytes").strip());
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (String ns : new String[] {a, b}) {
            if (ns == null) {
                continue;
            }
            try {
                NetworkNamespaces.sh("ip netns del " + ns);
            } catch (IOException e) {
                if (!e.getMessage().contains("No such file")) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Deletes namespaces left by runs that were killed before they could clean up. */
    private static void removeStale() throws IOException {
        List<String> stale = new ArrayList<>();
        for (String line : NetworkNamespaces.sh("ip netns list").split("\n")) {
            String name = line.strip().split(" ")[0];
            if (name.startsWith(PREFIX)) {
                String pid = name.substring(PREFIX.length()).split("-")[0];
                boolean alive = ProcessHandle.of(Long.parseLong(pid, 36)).isPresent();
                if (!alive) {
                    stale.add(name);
                }
            }
        }
        for (String name : stale) {
            NetworkNamespaces.sh("ip netns del " + name);
        }
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
