package io.metaroce.core.sim.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * Describes a fabric: hosts, switches and the links between them. Hosts are added first (they are
 * nodes {@code 0 .. hosts-1}); a host's links are its NIC ports, one per plane, in the order they
 * are added. {@link Topologies} builds the standard shapes with this; {@link Network} runs it.
 *
 * <p>Not thread-safe.
 */
public final class FabricBuilder {
    final List<String> nodeNames = new ArrayList<>();
    final List<Integer> nodeTier = new ArrayList<>();
    final List<Integer> nodePlane = new ArrayList<>();
    final List<int[]> links = new ArrayList<>();
    final List<LinkSpec> linkSpecs = new ArrayList<>();
    int hosts;
    int planes = 1;

    /** Adds a host (before any switch) and returns its node id. */
    public int addHost(String name) {
        if (nodeNames.size() != hosts) {
            throw new IllegalStateException("add every host before the first switch (hosts are nodes 0..hosts-1)");
        }
        hosts++;
        return addNode(name, 0, -1);
    }

    /**
     * Adds a switch in {@code plane} at {@code tier} (1 for top-of-rack/leaf, 2 for
     * aggregation/spine, 3 for core) and returns its node id.
     */
    public int addSwitch(String name, int tier, int plane) {
        if (tier < 1 || plane < 0) {
            throw new IllegalArgumentException("a switch has tier >= 1 and plane >= 0, got " + tier + ", " + plane);
        }
        planes = Math.max(planes, plane + 1);
        return addNode(name, tier, plane);
    }

    private int addNode(String name, int tier, int plane) {
        nodeNames.add(name);
        nodeTier.add(tier);
        nodePlane.add(plane);
        return nodeNames.size() - 1;
    }

    /** Links nodes {@code a} and {@code b} (both directions) and returns the link id. */
    public int link(int a, int b, LinkSpec spec) {
        if (a == b || a < 0 || b < 0 || a >= nodeNames.size() || b >= nodeNames.size()) {
            throw new IllegalArgumentException("link needs two distinct existing nodes, got " + a + " and " + b);
        }
        if (a < hosts && b < hosts) {
            throw new IllegalArgumentException("hosts do not link to hosts directly; put a switch between them");
        }
        links.add(new int[] {a, b});
        linkSpecs.add(spec);
        return links.size() - 1;
    }

    /** Hosts added so far. */
    public int hostCount() {
        return hosts;
    }

    /** Nodes added so far. */
    public int nodeCount() {
        return nodeNames.size();
    }
}
