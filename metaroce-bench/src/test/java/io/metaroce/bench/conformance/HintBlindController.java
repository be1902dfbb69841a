package io.metaroce.bench.conformance;

import io.metaroce.core.cc.CongestionController;
import io.metaroce.core.cc.FixedWindowController;

/**
 * A deliberately broken congestion controller: a fixed window that never hears the receiver's
 * rate hint, so its sender exceeds a non-zero hint ([SPEC-SACK-9], [SPEC-CC-13]). For the suite's
 * test that the hint case can fail.
 *
 * <p>Not thread-safe (one connection's, on its event loop).
 */
final class HintBlindController implements CongestionController {
    private final FixedWindowController window;

    HintBlindController(long windowBytes) {
        this.window = new FixedWindowController(windowBytes);
    }

    @Override
    public long sendAllowanceBytes(int pathId, long nowNanos) {
        return window.sendAllowanceBytes(pathId, nowNanos);
    }

    @Override
    public long nextSendTimeNanos(int pathId, long nowNanos) {
        return window.nextSendTimeNanos(pathId, nowNanos);
    }

    @Override
    public void onPacketSent(int pathId, int bytes, long nowNanos) {
        window.onPacketSent(pathId, bytes, nowNanos);
    }

    @Override
    public void onPacketAcked(int pathId, int bytes, long rttNanos, long nowNanos) {
        window.onPacketAcked(pathId, bytes, rttNanos, nowNanos);
    }

    @Override
    public void onPacketLost(int pathId, int bytes, long nowNanos) {
        window.onPacketLost(pathId, bytes, nowNanos);
    }

    @Override
    public void onPacketDiscarded(int pathId, int bytes, long nowNanos) {
        window.onPacketDiscarded(pathId, bytes, nowNanos);
    }

    @Override
    public void onEcnFeedback(int pathId, long newlyEct, long newlyCe, long nowNanos) {
        window.onEcnFeedback(pathId, newlyEct, newlyCe, nowNanos);
    }

    /** The fault: the hint goes unheard. */
    @Override
    public void onRateHint(long bytesPerSecond, long nowNanos) {
        // ignored on purpose
    }
}
