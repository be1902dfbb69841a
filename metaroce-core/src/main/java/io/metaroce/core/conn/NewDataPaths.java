package io.metaroce.core.conn;

import io.metaroce.core.cc.CongestionController;

/**
 * Which paths take new data [SPEC-CC-42], for a walk over a connection's paths at one time: the
 * controller's answers for the paths it answers together ({@link
 * CongestionController#newDataPathsAnswered}) read in one call at the walk's first question, the
 * others asked one by one. Asking per path cost a pass over the paths per path asked.
 */
final class NewDataPaths {
    private final CongestionController congestion;
    /** Whether {@link #answered} was read in this walk since the last question asked per path. */
    private boolean answeredRead;
    private long answered;
    /** Whether {@link #mask} was read since {@link #answered} was. */
    private boolean maskRead;
    private long mask;

    NewDataPaths(CongestionController congestion) {
        this.congestion = congestion;
    }

    /** A walk starts: what was read before may have changed. */
    void begin() {
        answeredRead = false;
    }

    /**
     * {@link CongestionController#carriesNewData} for path {@code pathId} at the walk's time
     * {@code nowNanos}. The mask is read only where a question would have been asked (the first
     * question's time counts); a question asked per path may change the other answers, so the
     * set and the mask are read again after it.
     */
    boolean carries(int pathId, long nowNanos) {
        if (!answeredRead) {
            answered = congestion.newDataPathsAnswered();
            answeredRead = true;
            maskRead = false;
        }
        if (pathId < Long.SIZE && (answered >>> pathId & 1) != 0) {
            if (!maskRead) {
                mask = congestion.newDataPathsMask(nowNanos);
                maskRead = true;
            }
            return (mask >>> pathId & 1) != 0;
        }
        answeredRead = false;
        return congestion.carriesNewData(pathId, nowNanos);
    }
}
