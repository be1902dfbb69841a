package io.metaroce.core.sim.rocev2;

/**
 * One reliable-connected queue pair: its identity (local and remote QPN, the local socket whose
 * UDP source port fixes its one ECMP path, the peer's address), its state, its counters, and its
 * two halves, the {@link Requester} (with its DCQCN reaction point) and the {@link Responder}.
 *
 * <p>Not thread-safe.
 */
final class QueuePair {
    final int qpn;
    final int remoteQpn;
    final int localSocket;
    final Object remoteAddress;
    final QueuePairStats stats = new QueuePairStats();
    final DcqcnRateController rate;
    final Requester requester;
    final Responder responder;
    /** Whether the endpoint's control ring holds this queue pair. */
    boolean inControlRing;

    QueuePair(RoceV2Config config, int qpn, int remoteQpn, int localSocket, Object remoteAddress,
            int initialSendPsn, int initialReceivePsn) {
        this.qpn = qpn;
        this.remoteQpn = remoteQpn;
        this.localSocket = localSocket;
        this.remoteAddress = remoteAddress;
        this.rate = new DcqcnRateController(config);
        this.requester = new Requester(config, stats, rate, initialSendPsn);
        this.responder = new Responder(config, stats, initialReceivePsn);
    }

    boolean failed() {
        return requester.failed();
    }

    boolean hasControl() {
        return !failed() && responder.hasControl();
    }

    /** The earliest timer of this queue pair (retransmission, ACK coalescing, DCQCN increase). */
    long nextTimerNanos(boolean dcqcn) {
        if (failed()) {
            return Long.MAX_VALUE;
        }
        long t = Math.min(requester.rtoDeadlineNanos(), responder.ackDeadlineNanos());
        return dcqcn ? Math.min(t, rate.nextTimerNanos()) : t;
    }
}
