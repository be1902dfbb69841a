package io.metaroce.bench.cli.perf;

/**
 * What the server of a run checked and found, sent back to the client in the RESULT message.
 * Immutable and thread-safe.
 *
 * @param verified messages whose every byte matched
 * @param mismatches messages with at least one wrong byte
 * @param failures failed completions (and timeouts) on the server
 * @param retransmits retransmissions of the server's connection
 * @param droppedOnPurpose datagrams the server's datapath dropped on purpose ({@code --drop})
 * @param firstFailure the first failure, or empty
 */
record ServerResult(long verified, long mismatches, long failures, long retransmits, long droppedOnPurpose,
        String firstFailure) {

    /** Errors: mismatches plus failures. */
    public long errors() {
        return mismatches + failures;
    }
}
