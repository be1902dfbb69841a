package io.metaroce.netty;

import io.metaroce.core.api.PostResult;

/**
 * The engine refused a work request with a {@link PostResult} code other than OK (queue full,
 * connection closed or not yet connected); no completion will follow. Thread-safe (immutable).
 */
public final class PostRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int result;

    /** An exception for the {@link PostResult} code {@code result}. */
    public PostRejectedException(int result) {
        super("work request rejected: " + PostResult.name(result));
        this.result = result;
    }

    /** The {@link PostResult} code. */
    public int result() {
        return result;
    }
}
