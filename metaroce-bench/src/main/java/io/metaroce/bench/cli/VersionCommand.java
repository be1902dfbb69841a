package io.metaroce.bench.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code metaroce version}: prints the same lines as {@code metaroce --version}. */
@Command(
        name = "version",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Print the metaroce version, the Java runtime and the OS/architecture.")
public final class VersionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        for (String line : VersionProvider.versionLines()) {
            out.println(line);
        }
        out.flush();
        return 0;
    }
}
