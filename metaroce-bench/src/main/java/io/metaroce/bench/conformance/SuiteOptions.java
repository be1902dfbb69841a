package io.metaroce.bench.conformance;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * How the suite runs.
 *
 * @param target the address of the implementation under test (its conformance responder, [SPEC-CONF-1])
 * @param waitMillis how long the suite waits for one expected answer
 * @param quietMillis how long it listens to make sure something does NOT happen
 * @param capacityBytesPerSecond the receive capacity the responder divides ([SPEC-CONF-4]): 0 when
 *     its allocator is off, -1 when unknown (the rate-hint case then checks only what holds for
 *     every capacity)
 * @param requireEcn whether an implementation that reports no ECN counts fails the ECN case
 *     instead of skipping it
 * @param cases ids or id prefixes of the cases to run (empty: all)
 * @param seed seed of the suite's connection ids and shuffles
 * @param minRtoMillis the responder's minimum retransmission timeout as its operator runs it
 *     ([SPEC-CONF-5]; 20 by default): the timer cases check the IUT's copies against it
 * @param maxAckDelayMicros the responder's {@code maxAckDelayNanos} in microseconds (the spec's
 *     default 20 unless its operator says otherwise): the ACK-delay case checks against it
 * @param keepAliveMillis the responder's {@code keepAliveNanos} in milliseconds ([SPEC-CONF-13];
 *     the contract's 400 by default): the keep-alive case checks against it
 * @param idleTimeoutMillis the responder's {@code idleTimeoutNanos} in milliseconds ([SPEC-CONF-13];
 *     the contract's 1,200 by default): the idle-timeout case checks against it
 * @param fairSharePeriodMillis the responder's {@code fairSharePeriodNanos} in milliseconds
 *     ([SPEC-CONF-25]): 0 when not given (the fair-share case then SKIPs), otherwise at least
 *     {@link #MIN_FAIR_SHARE_PERIOD_MILLIS}
 * @param maxConsecutiveTimeouts the responder's {@code maxConsecutiveTimeouts} ([SPEC-CONF-30]; the
 *     §12.1 default 12 unless its operator says otherwise): the unreachable-peer case counts its
 *     timeouts against it
 * @param maxRtoMillis the responder's {@code maxRtoNanos} in milliseconds ([SPEC-CONF-30]; the §12.1
 *     default 1,000): with the minimum RTO and {@code maxConsecutiveTimeouts} it bounds how long the
 *     back-off to an unreachable peer lasts
 *
 * <p>Immutable; thread-safe.
 */
public record SuiteOptions(InetSocketAddress target, long waitMillis, long quietMillis, long capacityBytesPerSecond,
        boolean requireEcn, List<String> cases, long seed, long minRtoMillis, long maxAckDelayMicros,
        long keepAliveMillis, long idleTimeoutMillis, long fairSharePeriodMillis, int maxConsecutiveTimeouts,
        long maxRtoMillis) {
    /**
     * The shortest fair-share period the suite can judge by ([SPEC-CONF-25]): a sender is active for
     * two periods, and the suite keeps its slow sender's packets within a quarter period apart.
     */
    public static final long MIN_FAIR_SHARE_PERIOD_MILLIS = 20;
    /** The minimum RTO a responder SHOULD run with ([SPEC-CONF-5]), the suite's default. */
    public static final long DEFAULT_MIN_RTO_MILLIS = 20;
    /** The default {@code maxAckDelayNanos} of docs/spec.md §12.1, in microseconds. */
    public static final long DEFAULT_MAX_ACK_DELAY_MICROS = 20;
    /** The default {@code maxConsecutiveTimeouts} of docs/spec.md §12.1. */
    public static final int DEFAULT_MAX_CONSECUTIVE_TIMEOUTS = 12;
    /** The default {@code maxRtoNanos} of docs/spec.md §12.1, in milliseconds. */
    public static final long DEFAULT_MAX_RTO_MILLIS = 1_000;

    /** Validates. */
    public SuiteOptions {
        Objects.requireNonNull(target, "target");
        if (waitMillis < 1 || quietMillis < 1) {
            throw new IllegalArgumentException("waitMillis and quietMillis must be at least 1");
        }
        if (capacityBytesPerSecond < -1) {
            throw new IllegalArgumentException("capacity is " + capacityBytesPerSecond + " but must be -1 (unknown), 0"
                    + " (allocator off) or positive");
        }
        if (minRtoMillis < 1 || maxAckDelayMicros < 1) {
            throw new IllegalArgumentException("minRtoMillis and maxAckDelayMicros must be at least 1");
        }
        if (keepAliveMillis < 1 || idleTimeoutMillis <= keepAliveMillis) {
            throw new IllegalArgumentException("keepAliveMillis (" + keepAliveMillis + ") must be at least 1 and below"
                    + " idleTimeoutMillis (" + idleTimeoutMillis + ")");
        }
        if (fairSharePeriodMillis != 0 && fairSharePeriodMillis < MIN_FAIR_SHARE_PERIOD_MILLIS) {
            throw new IllegalArgumentException("fairSharePeriodMillis is " + fairSharePeriodMillis + " but must be 0 (not"
                    + " given) or at least " + MIN_FAIR_SHARE_PERIOD_MILLIS + ": run the responder with a longer period");
        }
        if (maxConsecutiveTimeouts < 1 || maxRtoMillis < minRtoMillis) {
            throw new IllegalArgumentException("maxConsecutiveTimeouts (" + maxConsecutiveTimeouts + ") must be at least 1"
                    + " and maxRtoMillis (" + maxRtoMillis + ") at least minRtoMillis (" + minRtoMillis + ")");
        }
        cases = List.copyOf(cases);
    }

    /** Options with the §12.1 {@code maxConsecutiveTimeouts} and {@code maxRtoNanos} ([SPEC-CONF-30]). */
    public SuiteOptions(InetSocketAddress target, long waitMillis, long quietMillis, long capacityBytesPerSecond,
            boolean requireEcn, List<String> cases, long seed, long minRtoMillis, long maxAckDelayMicros,
            long keepAliveMillis, long idleTimeoutMillis, long fairSharePeriodMillis) {
        this(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed, minRtoMillis,
                maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, fairSharePeriodMillis,
                DEFAULT_MAX_CONSECUTIVE_TIMEOUTS, Math.max(minRtoMillis, DEFAULT_MAX_RTO_MILLIS));
    }

    /** Options without the responder's fair-share period (the fair-share case SKIPs). */
    public SuiteOptions(InetSocketAddress target, long waitMillis, long quietMillis, long capacityBytesPerSecond,
            boolean requireEcn, List<String> cases, long seed, long minRtoMillis, long maxAckDelayMicros,
            long keepAliveMillis, long idleTimeoutMillis) {
        this(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed, minRtoMillis,
                maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, 0);
    }

    /** Options with the contract's keep-alive and idle timeout ([SPEC-CONF-13]). */
    public SuiteOptions(InetSocketAddress target, long waitMillis, long quietMillis, long capacityBytesPerSecond,
            boolean requireEcn, List<String> cases, long seed, long minRtoMillis, long maxAckDelayMicros) {
        this(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed, minRtoMillis,
                maxAckDelayMicros, ResponderContract.KEEP_ALIVE_MILLIS, ResponderContract.IDLE_TIMEOUT_MILLIS);
    }

    /** Options as before session 8 (no timer values given): the spec's and the contract's defaults. */
    public SuiteOptions(InetSocketAddress target, long waitMillis, long quietMillis, long capacityBytesPerSecond,
            boolean requireEcn, List<String> cases, long seed) {
        this(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed, DEFAULT_MIN_RTO_MILLIS,
                DEFAULT_MAX_ACK_DELAY_MICROS);
    }

    /** The same options with the responder's minimum RTO {@code millis}. */
    public SuiteOptions withMinRtoMillis(long millis) {
        return new SuiteOptions(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed, millis,
                maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, fairSharePeriodMillis, maxConsecutiveTimeouts,
                Math.max(millis, maxRtoMillis));
    }

    /** The same options with the responder's keep-alive {@code keepAlive} and idle timeout {@code idle}, ms. */
    public SuiteOptions withIdleTimers(long keepAlive, long idle) {
        return new SuiteOptions(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed,
                minRtoMillis, maxAckDelayMicros, keepAlive, idle, fairSharePeriodMillis, maxConsecutiveTimeouts,
                maxRtoMillis);
    }

    /** The same options with the responder's fair-share period {@code millis} ([SPEC-CONF-25]). */
    public SuiteOptions withFairSharePeriodMillis(long millis) {
        return new SuiteOptions(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed,
                minRtoMillis, maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, millis, maxConsecutiveTimeouts,
                maxRtoMillis);
    }

    /** The same options with the responder's receive capacity {@code bytesPerSecond} ([SPEC-CONF-4]). */
    public SuiteOptions withCapacity(long bytesPerSecond) {
        return new SuiteOptions(target, waitMillis, quietMillis, bytesPerSecond, requireEcn, cases, seed,
                minRtoMillis, maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, fairSharePeriodMillis,
                maxConsecutiveTimeouts, maxRtoMillis);
    }

    /**
     * The same options with the responder's {@code maxConsecutiveTimeouts} {@code timeouts} and idle
     * timeout {@code idleMillis} ([SPEC-CONF-30]).
     */
    public SuiteOptions withUnreachablePeer(int timeouts, long idleMillis) {
        return new SuiteOptions(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, cases, seed,
                minRtoMillis, maxAckDelayMicros, keepAliveMillis, idleMillis, fairSharePeriodMillis, timeouts,
                maxRtoMillis);
    }

    /** Defaults for {@code target}: waits of 2 s, quiet spells of 200 ms, the contract's capacity, every case. */
    public static SuiteOptions defaults(InetSocketAddress target) {
        return new SuiteOptions(target, 2_000, 200, ResponderContract.CAPACITY_BYTES_PER_SECOND, false, List.of(), 1);
    }

    /** The same options running only the cases {@code ids} (ids or prefixes). */
    public SuiteOptions withCases(List<String> ids) {
        return new SuiteOptions(target, waitMillis, quietMillis, capacityBytesPerSecond, requireEcn, ids, seed,
                minRtoMillis, maxAckDelayMicros, keepAliveMillis, idleTimeoutMillis, fairSharePeriodMillis,
                maxConsecutiveTimeouts, maxRtoMillis);
    }

    /** Whether the case {@code id} is selected. */
    public boolean selects(String id) {
        return cases.isEmpty() || cases.stream().anyMatch(c -> id.equals(c) || id.startsWith(c.endsWith(".") ? c : c + "."));
    }
}
