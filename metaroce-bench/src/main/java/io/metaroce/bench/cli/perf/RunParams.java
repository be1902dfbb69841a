package io.metaroce.bench.cli.perf;

import java.util.Locale;

/**
 * The parameters of one perf run. The client decides them and sends them to the server in the
 * first control message ({@link ControlMessage#params}), so the server needs only its address on
 * the command line. Immutable and thread-safe.
 *
 * @param op what is posted (ignored when {@code latency})
 * @param size bytes per message
 * @param streams data streams (ids 1..streams; stream 0 carries the control messages)
 * @param paths paths of the connection
 * @param depth messages in flight (1 for a latency run)
 * @param durationNanos measured time
 * @param warmupNanos time before the measured part, not counted
 * @param latency whether this is a ping-pong latency run
 * @param seed seed of the message patterns
 * @param fullCheckEvery 1: every SEND and WRITE_WITH_IMM message is filled and checked byte for
 *     byte; N &gt; 1: a sampled check, only every N-th message of each stream (receive number a
 *     multiple of N) is, the others have only their ends written and checked
 *     ({@link Pattern#fillEnds}, {@link Pattern#endsMatch}), as an application that does not
 *     touch every byte would (READ and the WRITEs the client reads back are always checked in full)
 * @param receiveRingFactor 0: the server's receive rings hold up to {@link ServerLayout#DEFAULT_RING_FACTOR}
 *     times the messages a stream has in flight (deep, for runs that lose packets); 2 to that: at most
 *     this many times, a smaller receive area whose buffers are reused sooner (still in the cache), for
 *     runs without loss ({@code compare}); where the limits on posted receives and ring bytes lower it,
 *     it is halved but never below {@link ServerLayout#MIN_RING_FACTOR}; see {@link ServerLayout}
 */
public record RunParams(Op op, int size, int streams, int paths, int depth, long durationNanos, long warmupNanos,
        boolean latency, long seed, int fullCheckEvery, int receiveRingFactor) {

    /** A run with the default (deep) receive rings. */
    public RunParams(Op op, int size, int streams, int paths, int depth, long durationNanos, long warmupNanos,
            boolean latency, long seed, int fullCheckEvery) {
        this(op, size, streams, paths, depth, durationNanos, warmupNanos, latency, seed, fullCheckEvery, 0);
    }

    /** A run that fills and checks every byte of every message. */
    public RunParams(Op op, int size, int streams, int paths, int depth, long durationNanos, long warmupNanos,
            boolean latency, long seed) {
        this(op, size, streams, paths, depth, durationNanos, warmupNanos, latency, seed, 1);
    }

    /**
     * Whether the receive-consuming message number {@code sequence} of its stream is filled and
     * checked in full (else by its ends only); both sides ask the same question.
     */
    public boolean checksInFull(long sequence) {
        return fullCheckEvery == 1 || sequence % fullCheckEvery == 0;
    }

    /**
     * Whether this run checks only a sample of its messages in full: {@code fullCheckEvery > 1} on a
     * bandwidth run of an op that consumes receives (SEND, WRITE_WITH_IMM, mixed). A latency run
     * (the echo) and READ check every byte whatever {@code fullCheckEvery} says.
     */
    public boolean sampled() {
        return fullCheckEvery > 1 && !latency && op.consumesReceives();
    }

    /** Largest --full-check-every. */
    public static final int MAX_FULL_CHECK_EVERY = 1 << 20;

    /** Largest --size. */
    public static final int MAX_SIZE = 16 << 20;
    /** Largest --streams (the engine's default maxStreams is 4096; stream 0 is the control stream). */
    public static final int MAX_STREAMS = 1024;
    /** Largest --depth. */
    public static final int MAX_DEPTH = 4096;
    /** Largest memory either side registers for data. */
    public static final long MAX_REGION_BYTES = 1L << 30;

    /**
     * What is wrong with these parameters, or null if nothing. Both sides check: the client before
     * it connects, the server when the parameters arrive.
     */
    public String problem() {
        if (op == null) {
            return "--op is missing";
        } else if (size < 1 || size > MAX_SIZE) {
            return "--size must be in [1, " + MAX_SIZE + "]";
        } else if (streams < 1 || streams > MAX_STREAMS) {
            return "--streams must be in [1, " + MAX_STREAMS + "]";
        } else if (paths < 1 || paths > 64) {
            return "--paths must be in [1, 64]";
        } else if (depth < 1 || depth > MAX_DEPTH) {
            return "--depth must be in [1, " + MAX_DEPTH + "]";
        } else if (durationNanos <= 0 || durationNanos > 86_400_000_000_000L) {
            return "--duration must be in (0, 86400] seconds";
        } else if (warmupNanos < 0 || warmupNanos > 86_400_000_000_000L) {
            return "--warmup must be in [0, 86400] seconds";
        } else if (fullCheckEvery < 1 || fullCheckEvery > MAX_FULL_CHECK_EVERY) {
            return "--full-check-every must be in [1, " + MAX_FULL_CHECK_EVERY + "]";
        } else if (receiveRingFactor != 0 && (receiveRingFactor < ServerLayout.MIN_RING_FACTOR
                || receiveRingFactor > ServerLayout.DEFAULT_RING_FACTOR)) {
            return "the receive ring factor must be 0 (the default) or in [" + ServerLayout.MIN_RING_FACTOR + ", "
                    + ServerLayout.DEFAULT_RING_FACTOR + "], got " + receiveRingFactor;
        } else if (!latency && op.consumesReceives()
                && ServerLayout.of(this).postedReceives() > ServerLayout.MAX_POSTED_RECEIVES) {
            return "the server would keep more than " + ServerLayout.MAX_POSTED_RECEIVES
                    + " receives posted even with receive rings of " + ServerLayout.MIN_RING_FACTOR
                    + " times the messages a stream has in flight; lower --depth or --streams";
        } else if (ServerLayout.of(this).regionBytes() > MAX_REGION_BYTES || 2L * depth * size > MAX_REGION_BYTES) {
            return "the run needs more than 1 GiB of registered memory; lower --size, --depth or --streams";
        }
        return null;
    }

    /** One line for the console. */
    public String describe() {
        String what = latency ? "ping-pong latency (SEND, echoed)" : op + ", depth " + depth;
        return String.format(Locale.ROOT, "%s, %d-byte messages, %d stream%s, %d path%s, %.1f s%s", what, size,
                streams, streams == 1 ? "" : "s", paths, paths == 1 ? "" : "s", durationNanos / 1e9,
                warmupNanos > 0 ? String.format(Locale.ROOT, " after %.1f s warm-up", warmupNanos / 1e9) : "")
                + (sampled() ? ", sampled check (1 message in " + fullCheckEvery + " checked in full, the others by their ends)"
                        : "");
    }
}
