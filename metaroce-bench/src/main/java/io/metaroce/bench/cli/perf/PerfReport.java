package io.metaroce.bench.cli.perf;

import java.util.List;

/**
 * The outcome of one perf run, as the client sees it (with the server's RESULT folded in).
 * Immutable and thread-safe.
 *
 * @param params what was run
 * @param durationSeconds measured seconds (after the warm-up)
 * @param goodputGbps payload bits per second of the measured part, in Gb/s
 * @param messagesPerSecond messages (round trips for a latency run) per second of the measured part
 * @param messages messages completed in the whole run, warm-up included
 * @param messagesByKind messages completed per {@link MessageKind} (index = ordinal), client side
 * @param checkedBytes payload bytes of the messages checked, both sides, whole run (with a sampled check,
 *     {@link RunParams#sampled}, the messages checked by their ends only count whole too)
 * @param clientRetransmits retransmissions of the client's connection
 * @param clientTimeouts retransmission timeouts of the client's connection (a timeout of a packet
 *     whose ACK was only late makes a spurious retransmission)
 * @param clientLosses transmissions the client's connection declared lost (by timeout or by
 *     acknowledgement gaps)
 * @param serverRetransmits retransmissions of the server's connection (from its RESULT)
 * @param datapath the client's socket layer ({@code linux}, {@code nio})
 * @param droppedOnPurpose datagrams both datapaths dropped on purpose ({@code --drop})
 * @param mismatches messages with a wrong byte, both sides
 * @param failures failed completions or shortfalls, both sides
 * @param firstFailure the first mismatch or failure, or null
 * @param perPath the per-path table
 * @param latency round-trip percentiles of a latency run, else null
 * @param congestionControl the client connection's congestion controller ({@code aimd}, {@code fixed})
 */
public record PerfReport(RunParams params, double durationSeconds, double goodputGbps, double messagesPerSecond,
        long messages, long[] messagesByKind, long checkedBytes, long clientRetransmits, long clientTimeouts, long clientLosses, long serverRetransmits,
        long droppedOnPurpose, long mismatches, long failures, String firstFailure, List<PathRow> perPath,
        LatencyPercentiles latency, String datapath, String congestionControl) {

    /** Copies the mutable parts. */
    public PerfReport {
        messagesByKind = messagesByKind.clone();
        perPath = List.copyOf(perPath);
    }

    /** Retransmissions of both sides. */
    public long retransmits() {
        return clientRetransmits + serverRetransmits;
    }

    /** Mismatches plus failures. */
    public long errors() {
        return mismatches + failures;
    }

    /** Whether every message was checked and matched, with no failure, and something was moved. */
    public boolean verified() {
        return errors() == 0 && messages > 0;
    }

    /** Messages of one kind (client side). */
    public long messages(MessageKind kind) {
        return messagesByKind[kind.ordinal()];
    }

    /** The one-word result: {@code verified}, or what went wrong. */
    public String resultText() {
        if (mismatches > 0) {
            return "MISMATCH (" + mismatches + " messages differ; first: " + firstFailure + ")";
        } else if (failures > 0) {
            return "FAILED (" + failures + " failures; first: " + firstFailure + ")";
        } else if (messages == 0) {
            return "FAILED (no message completed)";
        }
        return "verified";
    }
}
