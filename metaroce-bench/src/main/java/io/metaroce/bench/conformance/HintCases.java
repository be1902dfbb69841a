package io.metaroce.bench.conformance;

import java.util.List;
import java.util.Locale;

/**
 * The suite as a receiver that limits the IUT's sender: its ACKs carry a rate hint
 * ([SPEC-SACK-9]) and the IUT's echoes must keep to it ([SPEC-CC-12], [SPEC-CC-13]), judged by the
 * suite's clock alone ([SPEC-CONF-14]).
 *
 * <p>Stateless; thread-safe.
 */
final class HintCases {
    private static final int ECHO = ResponderContract.ECHO_STREAM;
    /** The hint the suite gives, datagram bytes per second: a few hundred milliseconds for the echoes below. */
    static final long HINT_BYTES_PER_SECOND = 500_000;
    /**
     * Echoes of a whole receive each ([SPEC-CONF-2]) the IUT sends under the hint: about 430 KB,
     * so that the burst allowance is a sixth of it and a sender at twice the hint shows.
     */
    private static final int MESSAGES = 6;
    /**
     * What a sender idle before may send back to back: 64 KiB, above {@code pacingBurstBytes}' default of
     * 56 KiB (§12.1), so an IUT with the larger burst of earlier versions passes too [SPEC-CONF-14].
     */
    static final long BURST_BYTES = 64 << 10;
    /** The most a sender may exceed the hint by for random loss ([SPEC-CC-25]): a third. */
    private static final double LOSS_ALLOWANCE = 4.0 / 3.0;

    private HintCases() {
    }

    static List<ConformanceCase> all() {
        return List.of(ConformanceCase.of("cc.hint-obeyed",
                "under the suite's rate hint, the IUT's echoes keep to the hint (a burst and a third allowed)",
                "SPEC-SACK-9, SPEC-CC-12, SPEC-CC-13, SPEC-CC-25, SPEC-CONF-14", "R-CC-2", HintCases::hintObeyed));
    }

    private static void hintObeyed(CaseContext c) {
        WireSession s = c.connect(1);
        s.rateHint(HINT_BYTES_PER_SECOND);
        // A first echo, acknowledged with the hint, gives the IUT's sender the hint before the echoes measured.
        Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(100, 131)), 0);
        Scenarios.awaitEchoes(s, 1, "a first SEND under the suite's rate hint");
        s.quiet(20);
        int from = s.data().size();
        long start = 0;
        for (int i = 0; i < MESSAGES; i++) {
            Sent last = Scenarios.sendAll(s, s.send(ECHO, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, 132 + i)), 0)
                    .getLast();
            if (i == 0) {
                // No echo can leave before this: the suite's clock, read before the IUT sends, is the start.
                start = last.timestampNanos();
            }
        }
        long total = (long) MESSAGES * ResponderContract.RECEIVE_BYTES;
        long wait = s.waitNanos() + (long) (2e9 * total / HINT_BYTES_PER_SECOND);
        boolean all = s.await(() -> s.echoes().size() >= 1 + MESSAGES, wait);
        Checks.check(all, "%d of %d echoes of %d bytes came within %d ms under a rate hint of %d bytes/s [SPEC-CONF-2]",
                s.echoes().size() - 1, MESSAGES, ResponderContract.RECEIVE_BYTES, wait / 1_000_000,
                HINT_BYTES_PER_SECOND);
        // Every prefix of the IUT's DATA since the start, against what the hint allows by its last arrival. A
        // datagram read late only moves its arrival later, which the bound allows more for: no false verdict.
        long bytes = 0;
        List<Received> data = s.data();
        long allowanceOnce = BURST_BYTES + 2L * s.ownMaxDatagram();
        for (int i = from; i < data.size(); i++) {
            Received r = data.get(i);
            bytes += r.length();
            double elapsed = Math.max(0, r.arrivalNanos() - start) / 1e9;
            double allowed = allowanceOnce + LOSS_ALLOWANCE * HINT_BYTES_PER_SECOND * elapsed;
            Checks.check(bytes <= allowed, "the IUT had sent %d bytes of DATA %.1f ms after the suite's first SEND"
                    + " left, more than the %.0f a hint of %d bytes/s allows (%d bytes of burst and two datagrams, a"
                    + " third more for random loss): %s bytes/s [SPEC-SACK-9], [SPEC-CC-13]", bytes, elapsed * 1e3,
                    allowed, HINT_BYTES_PER_SECOND, BURST_BYTES, String.format(Locale.ROOT, "%.0f",
                            (bytes - allowanceOnce) / Math.max(elapsed, 1e-9)));
        }
        for (int i = 0; i < MESSAGES; i++) {
            Scenarios.checkEcho(s, 1 + i, Scenarios.bytes(ResponderContract.RECEIVE_BYTES, 132 + i),
                    "an echo under the rate hint");
        }
        Scenarios.checkAllAcks(s);
    }
}
