package io.metaroce.core.sack;

/**
 * Receives the verdicts of a {@link SendScoreboard}: which transmissions arrived and which were
 * lost. Implemented by the connection; primitive arguments so nothing is allocated per packet.
 */
public interface ScoreboardListener {
    /** The transmission {@code pathSequence} of packet {@code connectionSequence} arrived. */
    void onTransmissionAcked(int pathId, long pathSequence, long connectionSequence, int bytes, long sentAtNanos);

    /** The transmission {@code pathSequence} of packet {@code connectionSequence} was lost. */
    void onTransmissionLost(int pathId, long pathSequence, long connectionSequence, int bytes, boolean byTimeout);
}
