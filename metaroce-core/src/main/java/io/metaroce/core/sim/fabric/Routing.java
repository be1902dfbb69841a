package io.metaroce.core.sim.fabric;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Shortest-path ECMP routes: for every switch and destination host, the output ports that lead
 * one hop closer to the host. Computed by a breadth-first search from each host over the links
 * that are up (hosts never forward), so it serves any topology, and a multiplane fabric routes
 * each plane separately because its switches only reach a host through that plane's NIC port.
 * Recomputed when a failed link is withdrawn from routing.
 *
 * <p>Not thread-safe.
 */
final class Routing {
    /** Equal-cost groups wider than this are refused: the group's size shares an int with its offset. */
    static final int MAX_GROUP = 255;
    private final int nodes;
    private final int hosts;
    /**
     * Per {@code node * hosts + dst}: the group's offset in {@link #ports} shifted left by 8, or'ed
     * with its size (0: unreachable). One load gives both.
     */
    private final int[] group;
    /**
     * Every distinct group once. Most (switch, destination) pairs of a fabric share a group (every
     * destination outside an edge switch's pod leaves by the same uplinks), so this array stays a
     * few hundred entries and cache-resident, where one copy per pair (about 100 KB at k = 8) made
     * the port lookup one of the simulator's largest costs (a cache miss per hop).
     */
    private int[] ports = new int[1024];

    Routing(int nodes, int hosts) {
        this.nodes = nodes;
        this.hosts = hosts;
        this.group = new int[nodes * hosts];
    }

    void compute(int[][] nodePorts, int[] portPeer, int[] portNode, boolean[] routable) {
        int[] dist = new int[nodes];
        int[] queue = new int[nodes];
        int n = 0;
        int[][] groups = new int[nodes * hosts][];
        for (int dst = 0; dst < hosts; dst++) {
            Arrays.fill(dist, Integer.MAX_VALUE);
            dist[dst] = 0;
            int head = 0;
            int tail = 0;
            queue[tail++] = dst;
            while (head < tail) {
                int u = queue[head++];
                if (u != dst && u < hosts) {
                    continue; // hosts do not forward
                }
                for (int p : nodePorts[u]) {
                    if (!routable[p]) {
                        continue;
                    }
                    int v = portNode[portPeer[p]];
                    if (dist[v] == Integer.MAX_VALUE) {
                        dist[v] = dist[u] + 1;
                        queue[tail++] = v;
                    }
                }
            }
            for (int s = hosts; s < nodes; s++) {
                if (dist[s] == Integer.MAX_VALUE) {
                    continue;
                }
                int count = 0;
                int[] candidates = new int[nodePorts[s].length];
                for (int p : nodePorts[s]) {
                    int v = portNode[portPeer[p]];
                    if (routable[p] && dist[v] == dist[s] - 1 && (v >= hosts || v == dst)) {
                        candidates[count++] = p;
                    }
                }
                groups[s * hosts + dst] = Arrays.copyOf(candidates, count);
            }
        }
        Map<IntArrayKey, Integer> offsets = new HashMap<>();
        for (int i = 0; i < groups.length; i++) {
            int[] g = groups[i];
            if (g == null || g.length == 0) {
                group[i] = 0;
                continue;
            }
            if (g.length > MAX_GROUP) {
                throw new IllegalStateException("a switch has " + g.length + " equal-cost ports toward one host; at most "
                        + MAX_GROUP + " are supported");
            }
            Integer known = offsets.get(new IntArrayKey(g));
            int offset;
            if (known != null) {
                offset = known;
            } else {
                offset = n;
                if (n + g.length > ports.length) {
                    ports = Arrays.copyOf(ports, Math.max(ports.length * 2, n + g.length));
                }
                System.arraycopy(g, 0, ports, n, g.length);
                n += g.length;
                if (n >= 1 << 23) {
                    throw new IllegalStateException("routing table too large: " + n + " distinct group entries");
                }
                offsets.put(new IntArrayKey(g), offset);
            }
            group[i] = (offset << 8) | g.length;
        }
    }

    /** Number of equal-cost output ports at switch {@code node} toward host {@code dst} (0: unreachable). */
    int groupSize(int node, int dst) {
        return group[node * hosts + dst] & MAX_GROUP;
    }

    /** The {@code index}-th equal-cost output port at {@code node} toward {@code dst}. */
    int port(int node, int dst, int index) {
        return ports[(group[node * hosts + dst] >>> 8) + index];
    }

    /** Distinct port entries the table holds (every shared group once). */
    int distinctEntries() {
        int max = 0;
        for (int g : group) {
            if (g != 0) {
                max = Math.max(max, (g >>> 8) + (g & MAX_GROUP));
            }
        }
        return max;
    }

    /** A group's ports as a map key, compared by content. */
    private record IntArrayKey(int[] ports) {
        @Override
        public boolean equals(Object o) {
            return o instanceof IntArrayKey k && Arrays.equals(ports, k.ports);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ports);
        }
    }
}
