package io.metaroce.bench.cli.perf;

/**
 * The client's traffic of a run, bandwidth ({@link BandwidthClient}) or latency
 * ({@link PingPongClient}), as the run loop of {@link PerfClient} drives it. Thread-safety: the
 * methods may be called from any thread; the traffic itself runs on the connection's event loop.
 */
interface ClientTraffic {
    /** Starts posting (on the event loop). */
    void start();

    /** Posts nothing new; {@link #active()} falls to 0 as what is in flight completes. */
    void stop();

    /** Messages (slots, rounds) still in flight. */
    int active();

    /**
     * Messages the server must have checked (receive-consuming messages, or pings) that completed
     * at the client; exact once {@link #active()} is 0.
     */
    long receiverMessages();
}
