package io.metaroce.bench.conformance;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.cc.AimdController;

/**
 * A deliberately broken congestion controller: the engine's {@link AimdController}, every call
 * passed on ({@link ForwardingController}), except that it misreads one kind of congestion signal
 * ({@link Fault}). For the suite's tests that the congestion cases can fail.
 *
 * <p>Not thread-safe (one connection's, on its event loop).
 */
final class MisreadingAimdController extends ForwardingController {
    /** What the controller misreads. */
    enum Fault {
        /** ECN feedback arrives with no CE marks: the sender never hears a mark ([SPEC-CC-8]). */
        MARKS_UNSEEN,
        /** Every packet the feedback counts ECN-capable is taken as CE-marked: the marks never stop ([SPEC-CC-6]). */
        MARKS_NEVER_END,
        /** A lost packet only leaves the flight, as a discarded one: no loss cut ([SPEC-CC-9]). */
        LOSS_UNCUT,
        /** Every packet the window allows may leave at once: no pacing, the window sent in a burst ([SPEC-CC-13]). */
        UNPACED,
        /**
         * Never told of a path's failure or restoration: a path back from failure keeps the window it had
         * (halved by the losses that failed it) instead of restarting at the floor ([SPEC-CC-14]).
         */
        NOT_RESTARTED,
        /** Never told of a spurious loss: a cut the peer's later ACK proved needless is kept ([SPEC-CC-27]). */
        SPURIOUS_UNDONE_NEVER
    }

    private final Fault fault;

    MisreadingAimdController(EngineConfig config, Fault fault) {
        super(new AimdController(config));
        this.fault = fault;
    }

    @Override
    public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
        switch (fault) {
            case MARKS_UNSEEN -> inner.onEcnFeedback(pathId, newlyEct, 0, nowNanos);
            case MARKS_NEVER_END -> inner.onEcnFeedback(pathId, newlyEct, Math.max(newlyEct, newlyCe), nowNanos);
            case LOSS_UNCUT, UNPACED, NOT_RESTARTED, SPURIOUS_UNDONE_NEVER -> inner.onEcnFeedback(pathId, newlyEct, newlyCe, nowNanos);
        }
    }

    @Override
    public void onPacketLost(int pathId, int bytes, long nowNanos) {
        if (fault == Fault.LOSS_UNCUT) {
            inner.onPacketDiscarded(pathId, bytes, nowNanos);
        } else {
            inner.onPacketLost(pathId, bytes, nowNanos);
        }
    }

    @Override
    public void onSpuriousLoss(int pathId, int bytes, long nowNanos) {
        if (fault != Fault.SPURIOUS_UNDONE_NEVER) {
            inner.onSpuriousLoss(pathId, bytes, nowNanos);
        }
    }

    @Override
    public void onPathFailed(int pathId, long nowNanos) {
        if (fault != Fault.NOT_RESTARTED) {
            inner.onPathFailed(pathId, nowNanos);
        }
    }

    @Override
    public void onPathRestored(int pathId, long nowNanos) {
        if (fault != Fault.NOT_RESTARTED) {
            inner.onPathRestored(pathId, nowNanos);
        }
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        return fault == Fault.UNPACED ? nowNanos : inner.nextSendTimeNanos(pathId, nowNanos);
    }

    @Override
    public long pacedWakeNanos(int pathId, long nowNanos, long readyBytes) {
        return fault == Fault.UNPACED ? nowNanos : inner.pacedWakeNanos(pathId, nowNanos, readyBytes);
    }

    @Override
    public boolean pacingAnswersReusable() {
        return fault != Fault.UNPACED && inner.pacingAnswersReusable();
    }
}
