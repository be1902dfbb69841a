package io.metaroce.bench.conformance;

import io.metaroce.core.cc.FixedWindowController;

/**
 * A deliberately broken congestion controller: a fixed window that never hears the receiver's
 * rate hint, so its sender exceeds a non-zero hint ([SPEC-SACK-9], [SPEC-CC-13]). For the suite's
 * test that the hint case can fail.
 *
 * <p>Not thread-safe (one connection's, on its event loop).
 */
final class HintBlindController extends ForwardingController {
    HintBlindController(long windowBytes) {
        super(new FixedWindowController(windowBytes));
    }

    /** The fault: the hint goes unheard. */
    @Override
    public void onRateHint(long bytesPerSecond, long nowNanos) {
        // ignored on purpose
    }
}
