package io.metaroce.bench.cli.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The end of a client-side run, common to {@code perf client} and {@code perf loopback}: prints
 * the report, writes the JSON file if asked, and turns the result into the exit code. Thread-safe
 * (stateless).
 */
final class RunPrinter {
    private RunPrinter() {
    }

    /** Prints and writes {@code report}; returns 0 if it is verified, else 1. */
    static int finish(PrintWriter out, PerfReport report, Path jsonFile) {
        ReportPrinter.print(out, report);
        if (jsonFile != null) {
            try {
                Files.writeString(jsonFile, PerfJson.of(report));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + jsonFile + ": " + e.getMessage(), e);
            }
        }
        return report.verified() ? 0 : 1;
    }
}
