package io.metaroce.bench.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** One in-process run of the {@code metaroce} command tree, with its output captured. */
record CliRun(int exitCode, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = execute(out, err, args);
        return new CliRun(exitCode, out.toString(), err.toString());
    }

    private static int execute(StringWriter out, StringWriter err, String... args) {
        CommandLine cli = MetaroceCli.newCommandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    /** Starts a run on its own thread; its output can be watched while it runs. */
    static Background start(String... args) {
        StringWriter out = new StringWriter(); // backed by a StringBuffer: safe to read while written
        StringWriter err = new StringWriter();
        CompletableFuture<CliRun> done = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().daemon(true).name("cli-" + String.join("-", args)).unstarted(() -> {
            try {
                int exitCode = execute(out, err, args);
                done.complete(new CliRun(exitCode, out.toString(), err.toString()));
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        thread.start();
        return new Background(out, err, done, thread);
    }

    /** A run in progress. */
    record Background(StringWriter out, StringWriter err, CompletableFuture<CliRun> done, Thread thread) {

        /** Waits until the output has a match of {@code regex} and returns its first group. */
        String await(String regex, long seconds) throws InterruptedException {
            Pattern p = Pattern.compile(regex);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < deadline) {
                Matcher m = p.matcher(out.toString());
                if (m.find()) {
                    return m.group(1);
                }
                if (done.isDone()) {
                    break;
                }
                Thread.sleep(10);
            }
            throw new AssertionError("no '" + regex + "' in the output: " + out + err);
        }

        /** Waits for the end of the run. */
        CliRun join(long seconds) throws Exception {
            return done.get(seconds, TimeUnit.SECONDS);
        }
    }
}
