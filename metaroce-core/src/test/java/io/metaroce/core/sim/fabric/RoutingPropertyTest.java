package io.metaroce.core.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link Routing} (which stores each distinct equal-cost group once and shares it between the
 * (switch, destination) pairs that use it) against a reference that computes every group on its
 * own: hop distances by Floyd-Warshall over a graph where hosts do not forward, and a switch's
 * group toward a host is its routable ports one hop closer, in port order.
 */
class RoutingPropertyTest {

    @Property(tries = 200)
    void everyGroupMatchesTheReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 6) int hosts,
            @ForAll @IntRange(min = 1, max = 8) int switches, @ForAll @IntRange(min = 0, max = 30) int extraLinks) {
        SplittableRandom random = new SplittableRandom(seed);
        int nodes = hosts + switches;
        List<int[]> links = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            links.add(new int[] {h, hosts + random.nextInt(switches)});
        }
        for (int i = 0; i < extraLinks; i++) {
            // Parallel links and links between any two switches: groups of several ports.
            links.add(new int[] {hosts + random.nextInt(switches), hosts + random.nextInt(switches)});
        }
        int ports = 2 * links.size();
        int[] portNode = new int[ports];
        int[] portPeer = new int[ports];
        boolean[] routable = new boolean[ports];
        int[] degree = new int[nodes];
        for (int l = 0; l < links.size(); l++) {
            for (int e = 0; e < 2; e++) {
                int p = 2 * l + e;
                portNode[p] = links.get(l)[e];
                portPeer[p] = p ^ 1;
                degree[portNode[p]]++;
            }
            boolean linkRoutable = random.nextInt(5) != 0;
            routable[2 * l] = linkRoutable;
            routable[2 * l + 1] = linkRoutable;
        }
        int[][] nodePorts = new int[nodes][];
        for (int n = 0; n < nodes; n++) {
            nodePorts[n] = new int[degree[n]];
        }
        int[] fill = new int[nodes];
        for (int p = 0; p < ports; p++) {
            nodePorts[portNode[p]][fill[portNode[p]]++] = p;
        }

        Routing routing = new Routing(nodes, hosts);
        // Twice, as after a withdrawal: the second computation must not keep anything of the first.
        routing.compute(nodePorts, portPeer, portNode, new boolean[ports]);
        routing.compute(nodePorts, portPeer, portNode, routable);

        int[][] reference = referenceGroups(nodes, hosts, nodePorts, portPeer, portNode, routable);
        int totalEntries = 0;
        for (int s = hosts; s < nodes; s++) {
            for (int dst = 0; dst < hosts; dst++) {
                int[] expected = reference[s * hosts + dst];
                totalEntries += expected.length;
                int[] actual = new int[routing.groupSize(s, dst)];
                for (int i = 0; i < actual.length; i++) {
                    actual[i] = routing.port(s, dst, i);
                }
                assertThat(actual).as("seed %d: switch %d toward host %d", seed, s, dst).containsExactly(expected);
            }
        }
        assertThat(routing.distinctEntries()).as("seed %d: shared groups are stored once", seed)
                .isLessThanOrEqualTo(totalEntries);
    }

    @Property(tries = 20)
    void aFatTreeStoresFewDistinctGroups(@ForAll @IntRange(min = 1, max = 4) int halfK) {
        FabricBuilder fabric = Topologies.fatTree(2 * halfK, 1, LinkSpec.of(100, 500, BufferPreset.SHALLOW));
        Network network = new Network(fabric, 1, 2048);
        Routing routing = network.routingForTest();
        int hosts = fabric.hostCount();
        int pairs = 0;
        for (int s = hosts; s < fabric.nodeCount(); s++) {
            for (int dst = 0; dst < hosts; dst++) {
                pairs += routing.groupSize(s, dst);
            }
        }
        // One group per down port plus one group of uplinks per edge and aggregation switch.
        assertThat(routing.distinctEntries()).isLessThan(Math.max(pairs / 4, 8) + 2 * fabric.nodeCount());
    }

    private static int[][] referenceGroups(int nodes, int hosts, int[][] nodePorts, int[] portPeer, int[] portNode,
            boolean[] routable) {
        int inf = Integer.MAX_VALUE / 4;
        int[][] groups = new int[nodes * hosts][];
        for (int dst = 0; dst < hosts; dst++) {
            // dist[v]: hops from v to dst, moving only through switches (and into dst itself).
            int[][] d = new int[nodes][nodes];
            for (int[] row : d) {
                Arrays.fill(row, inf);
            }
            for (int v = 0; v < nodes; v++) {
                d[v][v] = 0;
            }
            for (int p = 0; p < portNode.length; p++) {
                if (routable[p]) {
                    d[portNode[p]][portNode[portPeer[p]]] = Math.min(d[portNode[p]][portNode[portPeer[p]]], 1);
                }
            }
            for (int k = 0; k < nodes; k++) {
                if (k < hosts) {
                    continue; // a host relays nothing
                }
                for (int i = 0; i < nodes; i++) {
                    for (int j = 0; j < nodes; j++) {
                        if (d[i][k] + d[k][j] < d[i][j]) {
                            d[i][j] = d[i][k] + d[k][j];
                        }
                    }
                }
            }
            for (int s = hosts; s < nodes; s++) {
                List<Integer> group = new ArrayList<>();
                if (d[s][dst] < inf) {
                    for (int p : nodePorts[s]) {
                        int v = portNode[portPeer[p]];
                        if (routable[p] && (v >= hosts || v == dst) && d[v][dst] == d[s][dst] - 1) {
                            group.add(p);
                        }
                    }
                }
                groups[s * hosts + dst] = group.stream().mapToInt(Integer::intValue).toArray();
            }
        }
        return groups;
    }
}
