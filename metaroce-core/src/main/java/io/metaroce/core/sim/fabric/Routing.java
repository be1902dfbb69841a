package io.metaroce.core.sim.fabric;

import java.util.Arrays;

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
    private final int nodes;
    private final int hosts;
    /** start[node * hosts + dst] .. start[...+1] index {@link #ports}. */
    private final int[] start;
    private int[] ports = new int[1024];

    Routing(int nodes, int hosts) {
        this.nodes = nodes;
        this.hosts = hosts;
        this.start = new int[nodes * hosts + 1];
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
        for (int i = 0; i < groups.length; i++) {
            start[i] = n;
            int[] g = groups[i];
            if (g == null) {
                continue;
            }
            if (n + g.length > ports.length) {
                ports = Arrays.copyOf(ports, Math.max(ports.length * 2, n + g.length));
            }
            System.arraycopy(g, 0, ports, n, g.length);
            n += g.length;
        }
        start[groups.length] = n;
    }

    /** Number of equal-cost output ports at switch {@code node} toward host {@code dst} (0: unreachable). */
    int groupSize(int node, int dst) {
        int i = node * hosts + dst;
        return start[i + 1] - start[i];
    }

    /** The {@code index}-th equal-cost output port at {@code node} toward {@code dst}. */
    int port(int node, int dst, int index) {
        return ports[start[node * hosts + dst] + index];
    }
}
