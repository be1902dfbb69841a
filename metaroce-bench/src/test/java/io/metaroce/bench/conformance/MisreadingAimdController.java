package io.metaroce.bench.conformance;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;
import io.metaroce.core.cc.CongestionController;

/**
 * A deliberately broken congestion controller: the engine's {@link AimdController}, every call
 * passed on, except that it misreads one kind of congestion signal ({@link Fault}). For the suite's
 * tests that the congestion cases can fail.
 *
 * <p>Not thread-safe (one connection's, on its event loop).
 */
final class MisreadingAimdController implements CongestionController {
    /** What the controller misreads. */
    enum Fault {
        /** ECN feedback arrives with no CE marks: the sender never hears a mark ([SPEC-CC-8]). */
        MARKS_UNSEEN,
        /** Every packet the feedback counts ECN-capable is taken as CE-marked: the marks never stop ([SPEC-CC-6]). */
        MARKS_NEVER_END,
        /** A lost packet only leaves the flight, as a discarded one: no loss cut ([SPEC-CC-9]). */
        LOSS_UNCUT
    }

    private final AimdController aimd;
    private final Fault fault;

    MisreadingAimdController(EngineConfig config, Fault fault) {
        this.aimd = new AimdController(config);
        this.fault = fault;
    }

    @Override
    public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
        switch (fault) {
            case MARKS_UNSEEN -> aimd.onEcnFeedback(pathId, newlyEct, 0, nowNanos);
            case MARKS_NEVER_END -> aimd.onEcnFeedback(pathId, newlyEct, Math.max(newlyEct, newlyCe), nowNanos);
            case LOSS_UNCUT -> aimd.onEcnFeedback(pathId, newlyEct, newlyCe, nowNanos);
        }
    }

    @Override
    public void onPacketLost(int pathId, int bytes, long nowNanos) {
        if (fault == Fault.LOSS_UNCUT) {
            aimd.onPacketDiscarded(pathId, bytes, nowNanos);
        } else {
            aimd.onPacketLost(pathId, bytes, nowNanos);
        }
    }

    // ---- everything else as the engine's controller does it ----

    @Override
    public long sendAllowanceBytes(int pathId, long nowNanos) {
        return aimd.sendAllowanceBytes(pathId, nowNanos);
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        return aimd.nextSendTimeNanos(pathId, nowNanos);
    }

    @Override
    public long pacedWakeNanos(int pathId, long nowNanos, long readyBytes) {
        return aimd.pacedWakeNanos(pathId, nowNanos, readyBytes);
    }

    @Override
    public long pacedWakeReadyBytesCap() {
        return aimd.pacedWakeReadyBytesCap();
    }

    @Override
    public boolean pacingAnswersReusable() {
        return aimd.pacingAnswersReusable();
    }

    @Override
    public boolean allowanceQuestionSettled(int pathId, long nowNanos) {
        return aimd.allowanceQuestionSettled(pathId, nowNanos);
    }

    @Override
    public void onPacketSent(int pathId, int bytes, long nowNanos) {
        aimd.onPacketSent(pathId, bytes, nowNanos);
    }

    @Override
    public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
        aimd.onPacketAcked(pathId, bytes, rttNanos, nowNanos);
    }

    @Override
    public void onSpuriousLoss(int pathId, int bytes, long nowNanos) {
        aimd.onSpuriousLoss(pathId, bytes, nowNanos);
    }

    @Override
    public void onPacketDiscarded(int pathId, int bytes, long nowNanos) {
        aimd.onPacketDiscarded(pathId, bytes, nowNanos);
    }

    @Override
    public void onRateHint(long bytesPerSecond, long nowNanos) {
        aimd.onRateHint(bytesPerSecond, nowNanos);
    }

    @Override
    public void onAnnouncedShare(long bytesPerSecond, long nowNanos) {
        aimd.onAnnouncedShare(bytesPerSecond, nowNanos);
    }

    @Override
    public void onFirstPacketBytes(int datagramBytes, long nowNanos) {
        aimd.onFirstPacketBytes(datagramBytes, nowNanos);
    }

    @Override
    public void onPathFailed(int pathId, long nowNanos) {
        aimd.onPathFailed(pathId, nowNanos);
    }

    @Override
    public void onPathRestored(int pathId, long nowNanos) {
        aimd.onPathRestored(pathId, nowNanos);
    }

    @Override
    public void onPathNewData(int pathId, boolean takesNewData, long nowNanos) {
        aimd.onPathNewData(pathId, takesNewData, nowNanos);
    }
}
