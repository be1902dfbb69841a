package io.metaroce.core.sim.rocev2;

import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;

/**
 * A bulk flow of the RoCEv2 baseline: one reliable-connected queue pair (so one UDP source port,
 * one ECMP route, whatever {@link FlowSpec#paths()} asks), on which the sender keeps
 * {@link FlowSpec#outstandingMessages()} SENDs posted, a new one as each completes. Delivered
 * bytes are counted at the responder, when a message's last packet arrives in order (the moment
 * the receiving application could use it). If the queue pair fails (retry limit), the messages it
 * had not completed fail with it and the flow posts no more: RoCEv2 has no path migration.
 *
 * <p>The baseline does not carry payload bytes, so there is nothing to verify: {@link #verified()}
 * is always true.
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
final class RoceV2Flow implements SimFlow {
    private final int id;
    private final RoceV2Host from;
    private final RoceV2Host to;
    private final FlowSpec spec;
    private final int senderQpn;
    private boolean posting;
    private boolean failed;
    private long posted;
    private long delivered;
    private long completed;
    private long failedBytes;
    private long outstandingBytes;
    private int outstanding;

    RoceV2Flow(int id, RoceV2Host from, RoceV2Host to, FlowSpec spec, int senderQpn) {
        this.id = id;
        this.from = from;
        this.to = to;
        this.spec = spec;
        this.senderQpn = senderQpn;
    }

    int id() {
        return id;
    }

    int senderQpn() {
        return senderQpn;
    }

    @Override
    public int sourceHost() {
        return from.host();
    }

    @Override
    public int destinationHost() {
        return to.host();
    }

    /** Queue pairs are set up out of band, ready at once. */
    @Override
    public boolean established() {
        return true;
    }

    @Override
    public void start(long nowNanos) {
        posting = true;
        fill();
    }

    @Override
    public void stopPosting() {
        posting = false;
    }

    private void fill() {
        while (posting && !failed && outstanding < spec.outstandingMessages() && posted < spec.totalBytes()) {
            int length = (int) Math.min(spec.messageBytes(), spec.totalBytes() - posted);
            if (!from.endpoint().postSend(senderQpn, length)) {
                return; // send queue full: the next completion retries
            }
            posted += length;
            outstandingBytes += length;
            outstanding++;
        }
    }

    void onCompleted(int bytes) {
        outstanding--;
        outstandingBytes -= bytes;
        completed += bytes;
        fill();
    }

    void onDelivered(int bytes) {
        delivered += bytes;
    }

    /** The sender's queue pair went to the error state: what it had outstanding is lost. */
    void onFailed() {
        if (failed) {
            return;
        }
        failed = true;
        failedBytes += outstandingBytes;
        outstandingBytes = 0;
        outstanding = 0;
    }

    @Override
    public long postedBytes() {
        return posted;
    }

    @Override
    public long deliveredBytes() {
        return delivered;
    }

    @Override
    public long completedBytes() {
        return completed;
    }

    @Override
    public long failedBytes() {
        return failedBytes;
    }

    @Override
    public int outstandingMessages() {
        return outstanding;
    }

    @Override
    public long retransmissions() {
        return from.endpoint().queuePairStats(senderQpn).retransmittedPackets();
    }

    @Override
    public boolean verified() {
        return true;
    }

    /** Whether the sender's queue pair failed. */
    boolean failed() {
        return failed;
    }
}
