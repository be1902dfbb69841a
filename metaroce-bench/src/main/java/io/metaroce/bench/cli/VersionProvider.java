package io.metaroce.bench.cli;

import picocli.CommandLine.IVersionProvider;

/**
 * Version lines for {@code metaroce --version} and {@code metaroce version}: the tool version from
 * the jar manifest's {@code Implementation-Version} (or {@code dev} when not run from the packaged
 * jar), the Java runtime, and the operating system and architecture.
 */
public final class VersionProvider implements IVersionProvider {

    /** Shown when the classes are not loaded from a jar whose manifest names a version. */
    static final String DEV_VERSION = "dev";

    @Override
    public String[] getVersion() {
        return versionLines();
    }

    /** The tool version: the manifest's {@code Implementation-Version}, else {@value #DEV_VERSION}. */
    public static String toolVersion() {
        Package pkg = VersionProvider.class.getPackage();
        String version = pkg == null ? null : pkg.getImplementationVersion();
        return version == null || version.isBlank() ? DEV_VERSION : version;
    }

    static String[] versionLines() {
        return new String[] {
            "metaroce " + toolVersion(),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "unknown vendor") + ", "
                    + System.getProperty("java.vm.name", "unknown VM") + ")",
            "OS " + System.getProperty("os.name", "unknown") + " " + System.getProperty("os.version", "")
                    + " (" + System.getProperty("os.arch", "unknown") + ")",
        };
    }
}
