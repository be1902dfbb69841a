package io.metaroce.core.sim.rocev2;

/**
 * Every constant of the RoCEv2-like baseline transport ({@link RoceV2Endpoint}), with its
 * default, in one validated record. The defaults and their sources are listed in
 * {@code docs/baseline-rocev2.md} (a test checks that table against {@link #defaults()}).
 *
 * <p>Immutable and thread-safe. Build one with {@link #defaults()} and {@link #toBuilder()}, or
 * {@link #builder()}.
 *
 * @param lineRateBitsPerSecond the NIC's line rate: the port never sends faster, and every queue
 *     pair starts at it (the simulator's NIC rate)
 * @param mtuBytes largest datagram (UDP payload: headers, payload and ICRC), bytes; every packet of
 *     a message but the last carries {@code mtuBytes - 16} payload bytes. Both ends of a queue pair
 *     must use the same value
 * @param windowPackets most packets a queue pair has sent and not yet had acknowledged
 * @param sendQueueDepth most messages posted on a queue pair and not yet acknowledged
 * @param maxQueuePairs most queue pairs an endpoint holds
 * @param ackEveryPackets the responder acknowledges after this many in-order packets (and always
 *     at a message's end and when the requester asks)
 * @param maxAckDelayNanos the responder acknowledges an in-order packet no later than this
 * @param retransmitTimeoutNanos the requester's first retransmission timeout
 * @param maxRetransmitTimeoutNanos cap of the doubling retransmission timeout
 * @param retryCount timeouts in a row without progress the requester tolerates; one more puts the
 *     queue pair in the error state
 * @param dcqcnEnabled whether DCQCN rate control runs (when off a queue pair always sends at line
 *     rate and CNPs are only counted)
 * @param cnpIntervalNanos the notification point sends at most one CNP per queue pair per interval
 * @param dcqcnGain {@code g}: weight of a CNP in the moving average {@code alpha}
 * @param initialAlpha {@code alpha} before the first CNP
 * @param alphaUpdatePeriodNanos {@code K}: {@code alpha} decays by {@code (1 - g)} after every
 *     such period without a CNP
 * @param rateIncreaseTimerNanos {@code T}: period of the rate-increase timer
 * @param byteCounterBytes {@code B}: bytes sent per rate-increase byte-counter event
 * @param fastRecoverySteps {@code F}: increase events of fast recovery before additive increase
 * @param additiveIncreaseBitsPerSecond {@code Rai}: target-rate step of additive increase
 * @param hyperIncreaseBitsPerSecond {@code Rhai}: target-rate step of hyper increase
 * @param minRateBitsPerSecond floor of the current rate
 */
public record RoceV2Config(
        long lineRateBitsPerSecond,
        int mtuBytes,
        int windowPackets,
        int sendQueueDepth,
        int maxQueuePairs,
        int ackEveryPackets,
        long maxAckDelayNanos,
        long retransmitTimeoutNanos,
        long maxRetransmitTimeoutNanos,
        int retryCount,
        boolean dcqcnEnabled,
        long cnpIntervalNanos,
        double dcqcnGain,
        double initialAlpha,
        long alphaUpdatePeriodNanos,
        long rateIncreaseTimerNanos,
        long byteCounterBytes,
        int fastRecoverySteps,
        long additiveIncreaseBitsPerSecond,
        long hyperIncreaseBitsPerSecond,
        long minRateBitsPerSecond) {

    /** Smallest {@code mtuBytes}: headers and ICRC (16 bytes) and room for 240 payload bytes. */
    public static final int MIN_MTU_BYTES = 256;
    /** Largest {@code mtuBytes}: the UDP payload limit over IPv4. */
    public static final int MAX_MTU_BYTES = 65_507;
    /** Largest line rate: 10 Tb/s (keeps the pacing arithmetic in picoseconds exact). */
    public static final long MAX_LINE_RATE_BITS_PER_SECOND = 10_000_000_000_000L;
    /**
     * Largest window: half the 24-bit PSN space less one, so a PSN is never ambiguous between a
     * duplicate and a packet ahead (the InfiniBand rule for outstanding PSNs).
     */
    public static final int MAX_WINDOW_PACKETS = (1 << 23) - 1;

    /** Validates every field; throws {@link IllegalArgumentException} naming the field and the rule. */
    public RoceV2Config {
        range("lineRateBitsPerSecond", lineRateBitsPerSecond, 1_000_000L, MAX_LINE_RATE_BITS_PER_SECOND);
        range("mtuBytes", mtuBytes, MIN_MTU_BYTES, MAX_MTU_BYTES);
        range("windowPackets", windowPackets, 1, MAX_WINDOW_PACKETS);
        range("sendQueueDepth", sendQueueDepth, 1, 1 << 24);
        range("maxQueuePairs", maxQueuePairs, 1, 1 << 24);
        range("ackEveryPackets", ackEveryPackets, 1, 1 << 16);
        positive("maxAckDelayNanos", maxAckDelayNanos);
        positive("retransmitTimeoutNanos", retransmitTimeoutNanos);
        if (maxRetransmitTimeoutNanos < retransmitTimeoutNanos) {
            throw new IllegalArgumentException("maxRetransmitTimeoutNanos (" + maxRetransmitTimeoutNanos
                    + ") must be >= retransmitTimeoutNanos (" + retransmitTimeoutNanos + ")");
        }
        range("retryCount", retryCount, 0, 1_000_000);
        positive("cnpIntervalNanos", cnpIntervalNanos);
        if (!(dcqcnGain > 0 && dcqcnGain <= 1)) {
            throw new IllegalArgumentException("dcqcnGain is " + dcqcnGain + " but must be in (0, 1]");
        }
        if (!(initialAlpha >= 0 && initialAlpha <= 1)) {
            throw new IllegalArgumentException("initialAlpha is " + initialAlpha + " but must be in [0, 1]");
        }
        positive("alphaUpdatePeriodNanos", alphaUpdatePeriodNanos);
        positive("rateIncreaseTimerNanos", rateIncreaseTimerNanos);
        positive("byteCounterBytes", byteCounterBytes);
        range("fastRecoverySteps", fastRecoverySteps, 0, 1_000);
        range("additiveIncreaseBitsPerSecond", additiveIncreaseBitsPerSecond, 0, lineRateBitsPerSecond);
        range("hyperIncreaseBitsPerSecond", hyperIncreaseBitsPerSecond, 0, lineRateBitsPerSecond);
        range("minRateBitsPerSecond", minRateBitsPerSecond, 1, lineRateBitsPerSecond);
    }

    /**
     * The defaults: a 100 Gb/s NIC, DCQCN as published (Zhu et al., SIGCOMM 2015) and go-back-N
     * timers in the range ConnectX NICs are configured with. Sources in docs/baseline-rocev2.md.
     */
    public static RoceV2Config defaults() {
        return new RoceV2Config(
                100_000_000_000L, // lineRateBitsPerSecond: 100 Gb/s
                4096, // mtuBytes: MetaRoCE's maxDatagramBytes
                1024, // windowPackets
                4096, // sendQueueDepth
                1 << 16, // maxQueuePairs
                4, // ackEveryPackets: MetaRoCE's ackEveryPackets
                20_000L, // maxAckDelayNanos: 20 us, MetaRoCE's maxAckDelayNanos
                1_048_576L, // retransmitTimeoutNanos: 4.096 us * 2^8
                67_108_864L, // maxRetransmitTimeoutNanos: 4.096 us * 2^14
                7, // retryCount: InfiniBand's largest retry_cnt
                true, // dcqcnEnabled
                50_000L, // cnpIntervalNanos: N = 50 us
                1.0 / 256, // dcqcnGain: g = 1/256
                1.0, // initialAlpha
                55_000L, // alphaUpdatePeriodNanos: K = 55 us
                55_000L, // rateIncreaseTimerNanos: T = 55 us
                10L << 20, // byteCounterBytes: B = 10 MB
                5, // fastRecoverySteps: F = 5
                40_000_000L, // additiveIncreaseBitsPerSecond: Rai = 40 Mb/s
                400_000_000L, // hyperIncreaseBitsPerSecond: Rhai = 400 Mb/s
                100_000_000L); // minRateBitsPerSecond: 100 Mb/s
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder(defaults());
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Payload bytes of a full packet: {@code mtuBytes} less the BTH and the ICRC. */
    public int payloadBytesPerPacket() {
        return mtuBytes - RoceV2Codec.DATA_OVERHEAD_BYTES;
    }

    private static void range(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " is " + value + " but must be in [" + min + ", " + max + "]");
        }
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " is " + value + " but must be > 0");
        }
    }

    /** Mutable builder; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private long lineRateBitsPerSecond;
        private int mtuBytes;
        private int windowPackets;
        private int sendQueueDepth;
        private int maxQueuePairs;
        private int ackEveryPackets;
        private long maxAckDelayNanos;
        private long retransmitTimeoutNanos;
        private long maxRetransmitTimeoutNanos;
        private int retryCount;
        private boolean dcqcnEnabled;
        private long cnpIntervalNanos;
        private double dcqcnGain;
        private double initialAlpha;
        private long alphaUpdatePeriodNanos;
        private long rateIncreaseTimerNanos;
        private long byteCounterBytes;
        private int fastRecoverySteps;
        private long additiveIncreaseBitsPerSecond;
        private long hyperIncreaseBitsPerSecond;
        private long minRateBitsPerSecond;

        private Builder(RoceV2Config c) {
            lineRateBitsPerSecond = c.lineRateBitsPerSecond;
            mtuBytes = c.mtuBytes;
            windowPackets = c.windowPackets;
            sendQueueDepth = c.sendQueueDepth;
            maxQueuePairs = c.maxQueuePairs;
            ackEveryPackets = c.ackEveryPackets;
            maxAckDelayNanos = c.maxAckDelayNanos;
            retransmitTimeoutNanos = c.retransmitTimeoutNanos;
            maxRetransmitTimeoutNanos = c.maxRetransmitTimeoutNanos;
            retryCount = c.retryCount;
            dcqcnEnabled = c.dcqcnEnabled;
            cnpIntervalNanos = c.cnpIntervalNanos;
            dcqcnGain = c.dcqcnGain;
            initialAlpha = c.initialAlpha;
            alphaUpdatePeriodNanos = c.alphaUpdatePeriodNanos;
            rateIncreaseTimerNanos = c.rateIncreaseTimerNanos;
            byteCounterBytes = c.byteCounterBytes;
            fastRecoverySteps = c.fastRecoverySteps;
            additiveIncreaseBitsPerSecond = c.additiveIncreaseBitsPerSecond;
            hyperIncreaseBitsPerSecond = c.hyperIncreaseBitsPerSecond;
            minRateBitsPerSecond = c.minRateBitsPerSecond;
        }

        /** Sets {@link RoceV2Config#lineRateBitsPerSecond}. */
        public Builder lineRateBitsPerSecond(long v) { lineRateBitsPerSecond = v; return this; }
        /** Sets {@link RoceV2Config#mtuBytes}. */
        public Builder mtuBytes(int v) { mtuBytes = v; return this; }
        /** Sets {@link RoceV2Config#windowPackets}. */
        public Builder windowPackets(int v) { windowPackets = v; return this; }
        /** Sets {@link RoceV2Config#sendQueueDepth}. */
        public Builder sendQueueDepth(int v) { sendQueueDepth = v; return this; }
        /** Sets {@link RoceV2Config#maxQueuePairs}. */
        public Builder maxQueuePairs(int v) { maxQueuePairs = v; return this; }
        /** Sets {@link RoceV2Config#ackEveryPackets}. */
        public Builder ackEveryPackets(int v) { ackEveryPackets = v; return this; }
        /** Sets {@link RoceV2Config#maxAckDelayNanos}. */
        public Builder maxAckDelayNanos(long v) { maxAckDelayNanos = v; return this; }
        /** Sets {@link RoceV2Config#retransmitTimeoutNanos}. */
        public Builder retransmitTimeoutNanos(long v) { retransmitTimeoutNanos = v; return this; }
        /** Sets {@link RoceV2Config#maxRetransmitTimeoutNanos}. */
        public Builder maxRetransmitTimeoutNanos(long v) { maxRetransmitTimeoutNanos = v; return this; }
        /** Sets {@link RoceV2Config#retryCount}. */
        public Builder retryCount(int v) { retryCount = v; return this; }
        /** Sets {@link RoceV2Config#dcqcnEnabled}. */
        public Builder dcqcnEnabled(boolean v) { dcqcnEnabled = v; return this; }
        /** Sets {@link RoceV2Config#cnpIntervalNanos}. */
        public Builder cnpIntervalNanos(long v) { cnpIntervalNanos = v; return this; }
        /** Sets {@link RoceV2Config#dcqcnGain}. */
        public Builder dcqcnGain(double v) { dcqcnGain = v; return this; }
        /** Sets {@link RoceV2Config#initialAlpha}. */
        public Builder initialAlpha(double v) { initialAlpha = v; return this; }
        /** Sets {@link RoceV2Config#alphaUpdatePeriodNanos}. */
        public Builder alphaUpdatePeriodNanos(long v) { alphaUpdatePeriodNanos = v; return this; }
        /** Sets {@link RoceV2Config#rateIncreaseTimerNanos}. */
        public Builder rateIncreaseTimerNanos(long v) { rateIncreaseTimerNanos = v; return this; }
        /** Sets {@link RoceV2Config#byteCounterBytes}. */
        public Builder byteCounterBytes(long v) { byteCounterBytes = v; return this; }
        /** Sets {@link RoceV2Config#fastRecoverySteps}. */
        public Builder fastRecoverySteps(int v) { fastRecoverySteps = v; return this; }
        /** Sets {@link RoceV2Config#additiveIncreaseBitsPerSecond}. */
        public Builder additiveIncreaseBitsPerSecond(long v) { additiveIncreaseBitsPerSecond = v; return this; }
        /** Sets {@link RoceV2Config#hyperIncreaseBitsPerSecond}. */
        public Builder hyperIncreaseBitsPerSecond(long v) { hyperIncreaseBitsPerSecond = v; return this; }
        /** Sets {@link RoceV2Config#minRateBitsPerSecond}. */
        public Builder minRateBitsPerSecond(long v) { minRateBitsPerSecond = v; return this; }

        /** Validates and returns the configuration. */
        public RoceV2Config build() {
            return new RoceV2Config(lineRateBitsPerSecond, mtuBytes, windowPackets, sendQueueDepth, maxQueuePairs,
                    ackEveryPackets, maxAckDelayNanos, retransmitTimeoutNanos, maxRetransmitTimeoutNanos, retryCount,
                    dcqcnEnabled, cnpIntervalNanos, dcqcnGain, initialAlpha, alphaUpdatePeriodNanos,
                    rateIncreaseTimerNanos, byteCounterBytes, fastRecoverySteps, additiveIncreaseBitsPerSecond,
                    hyperIncreaseBitsPerSecond, minRateBitsPerSecond);
        }
    }
}
