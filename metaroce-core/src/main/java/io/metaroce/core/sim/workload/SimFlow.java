package io.metaroce.core.sim.workload;

/**
 * One bulk flow between two simulated hosts, as its protocol reports it. Byte counts are
 * application payload bytes; "delivered" is counted where the data becomes usable at the receiver
 * (for MetaRoCE: the receiver's completion of the message).
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
public interface SimFlow {
    /** The sending host. */
    int sourceHost();

    /** The receiving host. */
    int destinationHost();

    /** Whether the flow's connection is set up and {@link #start} may be called. */
    boolean established();

    /** Starts posting messages at {@code nowNanos} (the caller then wakes the source host). */
    void start(long nowNanos);

    /** Posts no more messages; those outstanding still complete. */
    void stopPosting();

    /** Bytes the application posted. */
    long postedBytes();

    /** Bytes delivered to the receiving application. */
    long deliveredBytes();

    /** Bytes whose messages completed successfully at the sender. */
    long completedBytes();

    /** Bytes whose messages completed with an error at the sender. */
    long failedBytes();

    /** Messages posted and not yet completed at the sender. */
    int outstandingMessages();

    /** Packets the sender retransmitted. */
    long retransmissions();

    /** Whether every byte delivered so far was checked equal to what was sent (true if the protocol does not check). */
    boolean verified();
}
