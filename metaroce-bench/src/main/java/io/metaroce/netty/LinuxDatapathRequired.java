package io.metaroce.netty;

/** The socket benchmarks measure the Linux layer only: where it cannot run they stop, saying why. */
final class LinuxDatapathRequired {
    private LinuxDatapathRequired() {
    }

    /** Throws, with the layer's own reason, unless the Linux socket layer can run here. */
    static void check() {
        if (!LinuxSocketLayer.isAvailable()) {
            throw new IllegalStateException("the linux datapath cannot run here: "
                    + LinuxSocketLayer.unavailabilityCause());
        }
    }
}
