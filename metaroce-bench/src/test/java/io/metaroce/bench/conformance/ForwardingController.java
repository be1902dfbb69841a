package io.metaroce.bench.conformance;

import io.metaroce.core.cc.CongestionController;

/**
 * A controller that hands every call, the default methods included, to another: the suite's
 * deliberately broken controllers extend it and override only the call they get wrong. A broken
 * controller that forwarded only some calls would silently turn the others into the interface's
 * defaults, and so break more than the one rule its test names. (The bench cannot use core's
 * test-only twin of this class: core publishes no test jar.)
 *
 * <p>Not thread-safe, like the controller it wraps.
 */
abstract class ForwardingController implements CongestionController {
    /** The controller every call goes to. */
    protected final CongestionController inner;

    /** Forwards to {@code inner}. */
    protected ForwardingController(CongestionController inner) {
        this.inner = inner;
    }

    @Override
    public long sendAllowanceBytes(int pathId, long nowNanos) {
        return inner.sendAllowanceBytes(pathId, nowNanos);
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        return inner.nextSendTimeNanos(pathId, nowNanos);
    }

    @Override
    public long pacedWakeNanos(int pathId, long nowNanos, long readyBytes) {
        return inner.pacedWakeNanos(pathId, nowNanos, readyBytes);
    }

    @Override
    public long pacedWakeReadyBytesCap() {
        return inner.pacedWakeReadyBytesCap();
    }

    @Override
    public boolean carriesNewData(int pathId, long nowNanos) {
        return inner.carriesNewData(pathId, nowNanos);
    }

    @Override
    public long newDataPathsAnswered() {
        return inner.newDataPathsAnswered();
    }

    @Override
    public long newDataPathsMask(long nowNanos) {
        return inner.newDataPathsMask(nowNanos);
    }

    @Override
    public void onConnectionId(long connectionId) {
        inner.onConnectionId(connectionId);
    }

    @Override
    public long allowanceQuestionChangesNanos(int pathId) {
        return inner.allowanceQuestionChangesNanos(pathId);
    }

    @Override
    public boolean pacingAnswersReusable() {
        return inner.pacingAnswersReusable();
    }

    @Override
    public boolean allowanceQuestionSettled(int pathId, long nowNanos) {
        return inner.allowanceQuestionSettled(pathId, nowNanos);
    }

    @Override
    public void onPacketSent(int pathId, int bytes, long nowNanos) {
        inner.onPacketSent(pathId, bytes, nowNanos);
    }

    @Override
    public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
        inner.onPacketAcked(pathId, bytes, rttNanos, nowNanos);
    }

    @Override
    public void onPacketLost(int pathId, int bytes, long nowNanos) {
        inner.onPacketLost(pathId, bytes, nowNanos);
    }

    @Override
    public void onSpuriousLoss(int pathId, int bytes, long nowNanos) {
        inner.onSpuriousLoss(pathId, bytes, nowNanos);
    }

    @Override
    public void onPacketDiscarded(int pathId, int bytes, long nowNanos) {
        inner.onPacketDiscarded(pathId, bytes, nowNanos);
    }

    @Override
    public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
        inner.onEcnFeedback(pathId, newlyEct, newlyCe, nowNanos);
    }

    @Override
    public void onRateHint(long bytesPerSecond, long nowNanos) {
        inner.onRateHint(bytesPerSecond, nowNanos);
    }

    @Override
    public void onAnnouncedShare(long bytesPerSecond, long nowNanos) {
        inner.onAnnouncedShare(bytesPerSecond, nowNanos);
    }

    @Override
    public void onFirstPacketBytes(int datagramBytes, long nowNanos) {
        inner.onFirstPacketBytes(datagramBytes, nowNanos);
    }

    @Override
    public void onPathFailed(int pathId, long nowNanos) {
        inner.onPathFailed(pathId, nowNanos);
    }

    @Override
    public void onPathRestored(int pathId, long nowNanos) {
        inner.onPathRestored(pathId, nowNanos);
    }

    @Override
    public void onPathNewData(int pathId, boolean takesNewData, long nowNanos) {
        inner.onPathNewData(pathId, takesNewData, nowNanos);
    }
}
