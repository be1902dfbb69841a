package io.metaroce.bench.cli.perf;

/**
 * Where things live in the server's one registered region, computed alike on both sides from the
 * {@link RunParams} (so only the region's remote key crosses the network):
 * <ol>
 *   <li>the receive area: per data stream a ring of {@link #ring()} message buffers, into which
 *       SENDs land and WRITE_WITH_IMMs write (the {@code n}-th receive-consuming message of a
 *       stream uses buffer {@code n % ring} of its ring, both for the receive it consumes and, for
 *       a WRITE_WITH_IMM, for its target), so the server checks both kinds in the same place;</li>
 *   <li>the write area: one buffer per client slot for the plain WRITEs of {@link Op#mixed},
 *       which the client reads back;</li>
 *   <li>the read area: one buffer per client slot holding {@link Pattern#readAreaKey} patterns,
 *       which READs fetch;</li>
 *   <li>for a latency run, the echo area: {@link #ECHO_BUFFERS} buffers the pings land in and are
 *       echoed from.</li>
 * </ol>
 * Immutable and thread-safe.
 */
final class ServerLayout {
    /** Buffers of the latency server's echo ring. */
    public static final int ECHO_BUFFERS = 4;
    /**
     * By default the receive ring per stream holds up to this many times the messages a stream can
     * have in flight. Deep rings matter when packets are lost: the client runs ahead of a stream's
     * oldest incomplete receive (a message still recovering a lost packet) by as many receives as
     * are posted beyond it, and a SEND that finds none waits for RNR retries; with 4 times the
     * stream depth, 5% loss cut goodput to a third, with 16 times it cost a few per cent. Without
     * loss they cost the receiver cache misses: at 8 KiB messages, depth 128 and 4 streams the
     * rings are 16 MiB, and placing a message's payload into them takes about 1 µs more than into
     * 2 MiB ({@link RunParams#receiveRingFactor} lets a lossless run ask for less).
     */
    static final int DEFAULT_RING_FACTOR = 16;
    /** The least ring: twice the messages a stream can have in flight. */
    static final int MIN_RING_FACTOR = 2;
    /** Receives the server keeps posted at most, over all streams (the engine's default limit is 16,384). */
    static final int MAX_POSTED_RECEIVES = 8192;
    /** Bytes the receive rings may take at most before the ring factor is lowered. */
    private static final long MAX_RING_BYTES = 256L << 20;

    private final int size;
    private final int streams;
    private final int ring;
    private final int perStream;
    private final long receiveArea;
    private final long writeArea;
    private final long readArea;
    private final long echoArea;
    private final long regionBytes;

    private ServerLayout(RunParams p) {
        size = p.size();
        streams = p.streams();
        boolean lat = p.latency();
        perStream = (p.depth() + p.streams() - 1) / p.streams();
        int factor = p.receiveRingFactor() == 0 ? DEFAULT_RING_FACTOR
                : Math.max(MIN_RING_FACTOR, Math.min(DEFAULT_RING_FACTOR, p.receiveRingFactor()));
        while (factor > MIN_RING_FACTOR && ((long) p.streams() * perStream * factor > MAX_POSTED_RECEIVES
                || (long) p.streams() * perStream * factor * size > MAX_RING_BYTES)) {
            // Not just factor / 2: a factor that is not a power of two (3, 6, 7, 12 to 15) would halve
            // past 2 to 1, a ring no deeper than what is in flight, so that the client reuses a buffer
            // before the server has checked it. 2 that still does not fit is refused by RunParams#problem.
            factor = Math.max(MIN_RING_FACTOR, factor / 2);
        }
        ring = factor * perStream;
        long receiveBytes = !lat && p.op().consumesReceives() ? (long) p.streams() * ring * size : 0;
        long writeBytes = !lat && p.op() == Op.mixed ? (long) p.depth() * size : 0;
        long readBytes = !lat && p.op().readsServerMemory() ? (long) p.depth() * size : 0;
        long echoBytes = lat ? (long) ECHO_BUFFERS * size : 0;
        receiveArea = 0;
        writeArea = receiveArea + receiveBytes;
        readArea = writeArea + writeBytes;
        echoArea = readArea + readBytes;
        regionBytes = Math.max(8, echoArea + echoBytes);
    }

    /** The layout of a run. */
    public static ServerLayout of(RunParams params) {
        return new ServerLayout(params);
    }

    /** Bytes of the server's region. */
    public long regionBytes() {
        return regionBytes;
    }

    /** Receives the server keeps posted over all streams. */
    long postedReceives() {
        return (long) ring * streams;
    }

    /** Buffers in each stream's receive ring. */
    public int ring() {
        return ring;
    }

    /** Most messages one stream has in flight: slots map to streams round-robin. */
    public int perStream() {
        return perStream;
    }

    /** Data stream of a client slot: 1 + slot mod streams (stream 0 is the control stream). */
    public static int streamOf(int slot, int streams) {
        return 1 + slot % streams;
    }

    /** Offset of the buffer of the {@code sequence}-th receive-consuming message on data stream {@code stream}. */
    public long receiveOffset(int stream, long sequence) {
        return receiveArea + ((long) (stream - 1) * ring + sequence % ring) * size;
    }

    /** Offset of a client slot's buffer in the write area. */
    public long writeOffset(int slot) {
        return writeArea + (long) slot * size;
    }

    /** Offset of buffer {@code slot} of the read area. */
    public long readOffset(int slot) {
        return readArea + (long) slot * size;
    }

    /** Offset of buffer {@code index} of the echo ring. */
    public long echoOffset(int index) {
        return echoArea + (long) index * size;
    }
}
