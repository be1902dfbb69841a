package io.metaroce.bench.cli;

import io.metaroce.bench.cli.compare.CompareCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code metaroce} command-line tool: the top of the picocli command tree.
 *
 * <p>Every subcommand is its own class in this package and is registered in exactly one place: the
 * {@code subcommands} list of the {@link Command} annotation below. To add one, write the class
 * (annotated with {@code @Command(name = "...")}, implementing {@link Callable Callable&lt;Integer&gt;})
 * and append it to that list.
 *
 * <p>Exit codes follow picocli: 0 success, 1 a command failed with an exception, 2 a usage error
 * (unknown option, missing subcommand, bad parameter).
 */
@Command(
        name = "metaroce",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        synopsisSubcommandLabel = "COMMAND",
        description = {
            "MetaRoCE: an RDMA transport for AI traffic over UDP on lossy Ethernet, in pure Java.",
        },
        subcommands = {
            CompareCommand.class,
            ConformanceCommand.class,
            ConformanceResponderCommand.class,
            DemoCommand.class,
            PerfCommand.class,
            SimCommand.class,
            VersionCommand.class,
            CommandLine.HelpCommand.class,
        },
        footer = {"", "Run 'metaroce help COMMAND' for help on a command."})
public final class MetaroceCli implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Creates the configured command tree; used by {@link #main} and by tests. */
    public static CommandLine newCommandLine() {
        return new CommandLine(new MetaroceCli());
    }

    public static void main(String[] args) {
        int exitCode = newCommandLine().execute(args);
        System.exit(exitCode);
    }

    /** Invoked when no subcommand is given: that is a usage error. */
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }
}
