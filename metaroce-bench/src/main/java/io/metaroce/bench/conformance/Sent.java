package io.metaroce.bench.conformance;

/**
 * One datagram the suite sent on a path, as the suite's records keep it to judge the ACKs it gets
 * back. Immutable; thread-safe.
 *
 * @param path the path (and socket) it left on
 * @param pathSequence its PSN
 * @param connectionSequence its CSN, or -1 when it carried none a receiver could admit
 * @param timestampNanos the timestamp it carried
 * @param valid whether a conforming receiver records it ([SPEC-SACK-2]): false for a datagram
 *     the suite made invalid on purpose, or one the receiver must refuse
 */
public record Sent(int path, long pathSequence, long connectionSequence, long timestampNanos, boolean valid) {
}
