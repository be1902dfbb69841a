package io.metaroce.core.sack;

/**
 * Receives the verdicts of a {@link SendScoreboard}: which transmissions arrived and which were
 * lost. Implemented by the connection; primitive arguments so nothing is allocated per packet.
 * Called on the scoreboard's (single) thread only.
 */
public interface ScoreboardListener {
    /** The transmission {@code pathSequence} of packet {@code connectionSequence} arrived. */
    void onTransmissionAcked(int pathId, long pathSequence, long connectionSequence, int bytes, long sentAtNanos);

    /**
     * The transmissions {@code fromPsn} (inclusive) to {@code toPsn} (exclusive) of path
     * {@code pathId}, consecutive and each newly acknowledged, arrived: what
     * {@link #onTransmissionAcked} would hear for each of them in turn, which is what this default
     * does. Their records are read from {@code scoreboard} ({@link SendScoreboard#connectionSequenceOf},
     * {@link SendScoreboard#bytesOf}, {@link SendScoreboard#sentAtNanosOf}), valid during the call.
     * A listener may override it to do once per run what does not depend on the packet.
     */
    default void onTransmissionsAcked(int pathId, SendScoreboard scoreboard, long fromPsn, long toPsn) {
        for (long psn = fromPsn; psn < toPsn; psn++) {
            onTransmissionAcked(pathId, psn, scoreboard.connectionSequenceOf(psn), scoreboard.bytesOf(psn),
                    scoreboard.sentAtNanosOf(psn));
        }
    }

    /** The transmission {@code pathSequence} of packet {@code connectionSequence} was lost. */
    void onTransmissionLost(int pathId, long pathSequence, long connectionSequence, int bytes, boolean byTimeout);
}
