package io.metaroce.core.sim.rocev2;

/**
 * The DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015) of one queue pair: the current rate {@code Rc} its packets are paced at, the
 * target rate {@code Rt}, and the congestion estimate {@code alpha}.
 *
 * <ul>
 *   <li>On a CNP: {@code Rt = Rc; Rc = max(Rmin, Rc (1 - alpha/2)); alpha = (1 - g) alpha + g};
 *       the timer and byte-counter stages restart from 0 and the timer from now.</li>
 *   <li>After every period {@code K} without a CNP: {@code alpha = (1 - g) alpha}. The periods
 *       run from the latest CNP; the decay is applied when {@code alpha} is next used (the same
 *       values a free-running timer restarted at each CNP would give, without its events).</li>
 *   <li>Rate increase events: the timer fires every {@code T} (stage counter {@code t}), the byte
 *       counter every {@code B} bytes sent (stage counter {@code bc}). At each event, after its
 *       counter advanced: fast recovery while {@code max(t, bc) <= F} ({@code Rc = (Rt + Rc)/2});
 *       hyper increase once {@code min(t, bc) > F} ({@code Rt += i Rhai} with
 *       {@code i = min(t, bc) - F}, then {@code Rc = (Rt + Rc)/2}); additive increase otherwise
 *       ({@code Rt += Rai}, then {@code Rc = (Rt + Rc)/2}). {@code Rt} never exceeds the line rate;
 *       the mean rounds up, so {@code Rc} reaches {@code Rt}. Increases stop once {@code Rc} is
 *       back at the line rate.</li>
 * </ul>
 * Rates are whole bits per second. A queue pair starts at the line rate with
 * {@code alpha = initialAlpha} and no timer running.
 *
 * <p>Not thread-safe.
 */
public final class DcqcnRateController {
    private final long lineRate;
    private final long minRate;
    private final long additiveIncrease;
    private final long hyperIncrease;
    private final double gain;
    private final long alphaPeriodNanos;
    private final long timerPeriodNanos;
    private final long byteCounterBytes;
    private final int fastRecoverySteps;

    private long currentRate;
    private long targetRate;
    private double alpha;
    /** Start of the running alpha period: the latest CNP (alpha decays per full period since). */
    private long alphaEpochNanos = Long.MIN_VALUE;
    private boolean increasing;
    private long nextTimerNanos = Long.MAX_VALUE;
    private int timerStage;
    private int byteStage;
    private long bytesSinceByteEvent;
    private long cnps;
    private long increaseEvents;

    /** A controller on {@code config}'s DCQCN parameters, at line rate. */
    public DcqcnRateController(RoceV2Config config) {
        this.lineRate = config.lineRateBitsPerSecond();
        this.minRate = config.minRateBitsPerSecond();
        this.additiveIncrease = config.additiveIncreaseBitsPerSecond();
        this.hyperIncrease = config.hyperIncreaseBitsPerSecond();
        this.gain = config.dcqcnGain();
        this.alphaPeriodNanos = config.alphaUpdatePeriodNanos();
        this.timerPeriodNanos = config.rateIncreaseTimerNanos();
        this.byteCounterBytes = config.byteCounterBytes();
        this.fastRecoverySteps = config.fastRecoverySteps();
        this.currentRate = lineRate;
        this.targetRate = lineRate;
        this.alpha = config.initialAlpha();
    }

    /** The current rate {@code Rc} packets are paced at, bits per second. */
    public long currentRateBitsPerSecond() {
        return currentRate;
    }

    /** The target rate {@code Rt}, bits per second. */
    public long targetRateBitsPerSecond() {
        return targetRate;
    }

    /** {@code alpha} as it stands at {@code nowNanos} (with the decay of every full period since the latest CNP). */
    public double alpha(long nowNanos) {
        return alpha * decayFactor(nowNanos);
    }

    /** CNPs handled. */
    public long cnpsHandled() {
        return cnps;
    }

    /** Rate increase events run (timer and byte counter). */
    public long increaseEvents() {
        return increaseEvents;
    }

    /** Timer stage {@code t}: timer events since the latest CNP. */
    public int timerStage() {
        return timerStage;
    }

    /** Byte-counter stage {@code bc}: byte-counter events since the latest CNP. */
    public int byteStage() {
        return byteStage;
    }

    /** When the rate-increase timer fires next, or {@link Long#MAX_VALUE} if it is not running. */
    public long nextTimerNanos() {
        return nextTimerNanos;
    }

    /** A CNP arrived: cut the rate by {@code alpha/2} and raise {@code alpha}. */
    public void onCnp(long nowNanos) {
        cnps++;
        alpha *= decayFactor(nowNanos);
        alphaEpochNanos = nowNanos;
        targetRate = currentRate;
        currentRate = Math.max(minRate, (long) (currentRate * (1 - alpha / 2)));
        alpha = (1 - gain) * alpha + gain;
        timerStage = 0;
        byteStage = 0;
        bytesSinceByteEvent = 0;
        increasing = true;
        nextTimerNanos = nowNanos + timerPeriodNanos;
    }

    /** Runs every rate-increase timer event due at {@code nowNanos}. */
    public void onTimeout(long nowNanos) {
        while (increasing && nextTimerNanos <= nowNanos) {
            nextTimerNanos += timerPeriodNanos;
            timerStage++;
            increase();
        }
    }

    /** {@code bytes} were sent (first transmissions and retransmissions alike): runs the byte counter. */
    public void onBytesSent(long bytes) {
        if (!increasing) {
            return;
        }
        bytesSinceByteEvent += bytes;
        while (increasing && bytesSinceByteEvent >= byteCounterBytes) {
            bytesSinceByteEvent -= byteCounterBytes;
            byteStage++;
            increase();
        }
    }

    private void increase() {
        increaseEvents++;
        int high = Math.max(timerStage, byteStage);
        int low = Math.min(timerStage, byteStage);
        if (low > fastRecoverySteps) {
            targetRate += (low - fastRecoverySteps) * hyperIncrease;
        } else if (high > fastRecoverySteps) {
            targetRate += additiveIncrease;
        }
        targetRate = Math.min(targetRate, lineRate);
        currentRate = (targetRate + currentRate + 1) >>> 1;
        if (currentRate >= lineRate) {
            currentRate = lineRate;
            increasing = false;
            nextTimerNanos = Long.MAX_VALUE;
        }
    }

    private double decayFactor(long nowNanos) {
        if (alphaEpochNanos == Long.MIN_VALUE || nowNanos <= alphaEpochNanos) {
            return 1;
        }
        long periods = (nowNanos - alphaEpochNanos) / alphaPeriodNanos;
        return periods == 0 ? 1 : power(1 - gain, periods);
    }

    /**
     * {@code base^exponent} by repeated squaring: exact IEEE multiplications, so the same on every
     * platform, and (unlike {@code StrictMath.pow}) it allocates nothing even when not inlined.
     */
    static double power(double base, long exponent) {
        double result = 1;
        double square = base;
        for (long e = exponent; e > 0 && result != 0; e >>>= 1) {
            if ((e & 1) != 0) {
                result *= square;
            }
            square *= square;
        }
        return result;
    }
}
