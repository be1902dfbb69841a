package io.metaroce.bench.cli.perf;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Prints the final table of a run: goodput, messages/s, latency percentiles when measured,
 * retransmits, the per-path table and the result line. Thread-safe (stateless).
 */
public final class ReportPrinter {
    private ReportPrinter() {
    }

    /** Prints the whole report. */
    public static void print(PrintWriter out, PerfReport r) {
        out.println();
        if (r.latency() != null) {
            LatencyPercentiles l = r.latency();
            out.printf(Locale.ROOT, "%-14s p50 %9.1f   p99 %9.1f   p99.9 %9.1f  (round trip, us; %,d samples)%n",
                    "latency", l.p50Us(), l.p99Us(), l.p999Us(), l.samples());
        }
        out.printf(Locale.ROOT, "%-14s %12.3f Gb/s  (payload%s, measured %.2f s)%n", "goodput", r.goodputGbps(),
                r.params().latency() ? " both ways" : "", r.durationSeconds());
        out.printf(Locale.ROOT, "%-14s %,12.0f%s%n", "messages/s", r.messagesPerSecond(),
                r.params().latency() ? "  (round trips)" : "");
        out.printf(Locale.ROOT, "%-14s %,12d  (client %,d + server %,d; datagrams dropped on purpose: %,d; client "
                + "timeouts %,d, losses %,d)%n", "retransmits", r.retransmits(), r.clientRetransmits(),
                r.serverRetransmits(), r.droppedOnPurpose(), r.clientTimeouts(), r.clientLosses());
        out.printf(Locale.ROOT, "%-14s %12s  (%s)%n", "datapath", r.datapath(), "linux".equals(r.datapath())
                ? "FFM sockets on epoll: recvmmsg/sendmmsg, GSO/GRO, ECN read from the wire"
                : "Netty NIO: one datagram per system call, ECN not readable");
        out.printf(Locale.ROOT, "%-14s %12s  (%s)%n", "congestion", r.congestionControl(), "fixed".equals(r.congestionControl())
                ? "off: a fixed window"
                : "AIMD per path on ECN marks (on queueing delay where ECN is not read) and loss");
        printPaths(out, r);
        out.println();
        if (r.params().sampled()) {
            out.printf(Locale.ROOT, "result: %,d messages, sampled check (1 SEND/WRITE_WITH_IMM message in %,d of a "
                    + "stream checked byte for byte, the others by their first and last words): %s%n", r.messages(),
                    r.params().fullCheckEvery(), r.resultText());
        } else {
            out.printf(Locale.ROOT, "result: %,d messages, %,.1f MiB checked byte for byte: %s%n", r.messages(),
                    r.checkedBytes() / 1048576.0, r.resultText());
        }
        out.flush();
    }

    /** Prints the per-path table (the client connection's paths). */
    public static void printPaths(PrintWriter out, PerfReport r) {
        out.println();
        out.println("path  src_port     packets           bytes   srtt_us  ecn_fraction  state   (client side)");
        for (PathRow row : r.perPath()) {
            out.printf(Locale.ROOT, "%4d  %8d  %,10d  %,14d  %8.1f  %12.3f  %s%n", row.path(), row.srcPort(),
                    row.packets(), row.bytes(), row.srttUs(), row.ecnFraction(), row.state());
        }
    }
}
