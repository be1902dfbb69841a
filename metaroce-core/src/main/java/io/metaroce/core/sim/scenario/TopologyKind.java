package io.metaroce.core.sim.scenario;

/**
 * The fabric shape a scenario runs on.
 *
 * <p>Immutable and thread-safe.
 */
public enum TopologyKind {
    /** A k-ary fat-tree: k^3/4 hosts, full bisection. */
    FAT_TREE,
    /** A two-tier leaf-spine: k leaves of k/2 hosts, k/2 spines (full bisection), k^2/2 hosts. */
    LEAF_SPINE,
    /** {@code planes} parallel k-ary fat-trees, each host with one NIC port per plane. */
    MULTIPLANE;

    /** Parses {@code fat-tree}, {@code leaf-spine} or {@code multiplane}. */
    public static TopologyKind parse(String s) {
        return switch (s) {
            case "fat-tree" -> FAT_TREE;
            case "leaf-spine" -> LEAF_SPINE;
            case "multiplane" -> MULTIPLANE;
            default -> throw new IllegalArgumentException("unknown topology '" + s + "': use fat-tree, leaf-spine or multiplane");
        };
    }

    /** The command-line spelling. */
    public String label() {
        return switch (this) {
            case FAT_TREE -> "fat-tree";
            case LEAF_SPINE -> "leaf-spine";
            case MULTIPLANE -> "multiplane";
        };
    }
}
