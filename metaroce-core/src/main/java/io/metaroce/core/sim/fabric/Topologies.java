package io.metaroce.core.sim.fabric;

/**
 * The standard fabric shapes. Every builder takes a {@code planes} count: {@code planes} parallel,
 * disjoint copies of the switch fabric, with each host owning one NIC port (link) per plane, so
 * {@code planes = 1} is the ordinary single-plane fabric and {@code planes > 1} the multiplane one.
 *
 * <p>Stateless and thread-safe.
 */
public final class Topologies {
    private Topologies() {
    }

    /**
     * A two-tier leaf-spine: {@code leaves} leaf switches with {@code hostsPerLeaf} hosts each, and
     * every leaf linked to each of {@code spines} spine switches. Host {@code h} hangs off leaf
     * {@code h / hostsPerLeaf}. Host links use {@code hostLink}; leaf-spine links {@code fabricLink}.
     */
    public static FabricBuilder leafSpine(int leaves, int spines, int hostsPerLeaf, int planes, LinkSpec hostLink,
            LinkSpec fabricLink) {
        if (leaves < 1 || spines < 1 || hostsPerLeaf < 1 || planes < 1) {
            throw new IllegalArgumentException("leaf-spine needs leaves, spines, hostsPerLeaf and planes >= 1");
        }
        FabricBuilder b = new FabricBuilder();
        for (int h = 0; h < leaves * hostsPerLeaf; h++) {
            b.addHost("h" + h);
        }
        for (int p = 0; p < planes; p++) {
            int[] leaf = new int[leaves];
            for (int l = 0; l < leaves; l++) {
                leaf[l] = b.addSwitch(name("leaf" + l, p, planes), 1, p);
            }
            for (int s = 0; s < spines; s++) {
                int spine = b.addSwitch(name("spine" + s, p, planes), 2, p);
                for (int l = 0; l < leaves; l++) {
                    b.link(leaf[l], spine, fabricLink);
                }
            }
            for (int h = 0; h < leaves * hostsPerLeaf; h++) {
                b.link(h, leaf[h / hostsPerLeaf], hostLink);
            }
        }
        return b;
    }

    /**
     * A k-ary fat-tree (k even): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core
     * switches, k^3/4 hosts, every link {@code link}. Host {@code h} is in pod
     * {@code h / (k/2)^2} under edge switch {@code (h / (k/2)) mod (k/2)}; aggregation switch
     * {@code a} of every pod links to core switches {@code a*(k/2) .. a*(k/2)+k/2-1}.
     */
    public static FabricBuilder fatTree(int k, int planes, LinkSpec link) {
        if (k < 2 || k % 2 != 0 || planes < 1) {
            throw new IllegalArgumentException("a fat-tree needs an even k >= 2 and planes >= 1, got k=" + k);
        }
        int half = k / 2;
        int hosts = k * k * k / 4;
        FabricBuilder b = new FabricBuilder();
        for (int h = 0; h < hosts; h++) {
            b.addHost("h" + h);
        }
        for (int p = 0; p < planes; p++) {
            int[] core = new int[half * half];
            for (int c = 0; c < core.length; c++) {
                core[c] = b.addSwitch(name("core" + c, p, planes), 3, p);
            }
            for (int pod = 0; pod < k; pod++) {
                int[] agg = new int[half];
                for (int a = 0; a < half; a++) {
                    agg[a] = b.addSwitch(name("agg" + pod + "." + a, p, planes), 2, p);
                    for (int c = 0; c < half; c++) {
                        b.link(agg[a], core[a * half + c], link);
                    }
                }
                for (int e = 0; e < half; e++) {
                    int edge = b.addSwitch(name("edge" + pod + "." + e, p, planes), 1, p);
                    for (int a = 0; a < half; a++) {
                        b.link(edge, agg[a], link);
                    }
                    for (int i = 0; i < half; i++) {
                        b.link(pod * half * half + e * half + i, edge, link);
                    }
                }
            }
        }
        return b;
    }

    private static String name(String base, int plane, int planes) {
        return planes == 1 ? base : base + "/p" + plane;
    }
}
