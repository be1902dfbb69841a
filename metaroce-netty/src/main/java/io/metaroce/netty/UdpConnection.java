package io.metaroce.netty;

import io.metaroce.core.api.CloseReason;
import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.ConnectionState;
import io.metaroce.core.memory.MemoryRegion;
import java.util.concurrent.CompletableFuture;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * A thread-safe handle on one engine {@link Connection} of a {@link UdpEndpoint}.
 *
 * <p>Thread safety: every public method may be called from any thread. Posting methods queue a
 * task on the endpoint's event loop and return at once (on the event loop itself they post at
 * once, without a task); the returned future completes (on the
 * event loop) when the work request's completion arrives, or exceptionally with
 * {@link PostRejectedException} when the engine refuses it, or with the engine's
 * {@link IllegalArgumentException} on misuse. Dependent stages attached with the non-async
 * {@code CompletableFuture} methods run on the event loop and must not block.
 *
 * <p>Work request ids: the id passed by the application is returned in the {@link Completion}
 * unchanged; internally the datapath posts each request under its own per-connection counter, so
 * application ids may repeat or collide freely.
 *
 * <p>Zero-allocation posting: the {@code post...Direct} methods (for example
 * {@link #postSendDirect}) post straight into the engine, without a task or a future, and return
 * the engine's {@link PostResult} code. They must be called on the endpoint's event loop (from a
 * {@link CompletionSink}, or a task given to {@link UdpEndpoint#eventLoop()}), need a
 * {@link UdpEndpoint.Builder#completionSink}, which alone hears of their completions, and take
 * application ids in {@code [0, 2^63)}. Posting and completing this way allocate nothing. Posts
 * made on the event loop in one turn leave in one drive of the engine.
 */
public final class UdpConnection {
    private final UdpEndpoint owner;
    private final boolean client;
    private final long localId;
    private final CompletableFuture<CloseReason> closeFuture = new CompletableFuture<>();

    // ---- event-loop state ----
    private final Connection core;
    /** Socket-table indices this connection owns (its path sockets); empty on the accepting side. */
    private final int[] ownedSockets;
    private final Long2ObjectHashMap<Pending> pending = new Long2ObjectHashMap<>();
    private long nextWorkRequestId = 1;
    /** Each path's last reported state and, for repathing, when it was last moved. */
    private final int[] pathStates;
    private final long[] lastRepathNanos;
    private CompletableFuture<UdpConnection> connectFuture;
    private boolean ended;

    /**
     * Engine ids of direct posts: the application's id with this bit set, so their completions
     * need no table (ids of posts with futures are a counter from 1 and never have it).
     */
    private static final long DIRECT = Long.MIN_VALUE;

    private record Pending(long userId, CompletableFuture<Completion> future) {
    }

    /** How a queued post reaches the engine: {@code workRequestId} is the internal id. */
    @FunctionalInterface
    private interface Post {
        int apply(Connection connection, long workRequestId);
    }

    UdpConnection(UdpEndpoint owner, Connection core, int[] ownedSockets, CompletableFuture<UdpConnection> connectFuture) {
        this.owner = owner;
        this.core = core;
        this.client = core.isClient();
        this.localId = core.localId();
        this.ownedSockets = ownedSockets;
        this.connectFuture = connectFuture;
        this.pathStates = new int[core.pathCount()];
        this.lastRepathNanos = new long[core.pathCount()];
    }

    // ---- getters (thread-safe: immutable) ----

    /** This side's connection id. */
    public long localId() {
        return localId;
    }

    /** Whether this side opened the connection. */
    public boolean isClient() {
        return client;
    }

    /** The endpoint this connection belongs to. */
    public UdpEndpoint endpoint() {
        return owner;
    }

    /**
     * Completes with the reason once the connection has ended and every work request on it has
     * completed. Completes on the event loop.
     */
    public CompletableFuture<CloseReason> closeFuture() {
        return closeFuture;
    }

    /** A snapshot of the counters, taken on the event loop (blocks the caller until then). */
    public UdpConnectionStats stats() {
        return owner.callOnLoop(() -> owner.snapshot(this));
    }

    // ---- posting ----

    /** Posts a SEND; see {@link Connection#postSend}. */
    public CompletableFuture<Completion> postSend(int streamId, long workRequestId, MemoryRegion region, long offset,
            long length) {
        return post(workRequestId, streamId, (c, id) -> c.postSend(streamId, id, region, offset, length));
    }

    /** Posts a SEND with immediate data; see {@link Connection#postSendWithImmediate}. */
    public CompletableFuture<Completion> postSendWithImmediate(int streamId, long workRequestId, MemoryRegion region,
            long offset, long length, int immediate) {
        return post(workRequestId, streamId,
                (c, id) -> c.postSendWithImmediate(streamId, id, region, offset, length, immediate));
    }

    /** Posts a receive buffer; see {@link Connection#postRecv}. */
    public CompletableFuture<Completion> postRecv(int streamId, long workRequestId, MemoryRegion region, long offset,
            long length) {
        return post(workRequestId, streamId, (c, id) -> c.postRecv(streamId, id, region, offset, length));
    }

    /** Posts a WRITE; see {@link Connection#postWrite}. */
    public CompletableFuture<Completion> postWrite(int streamId, long workRequestId, MemoryRegion region, long offset,
            long length, int remoteKey, long remoteOffset) {
        return post(workRequestId, streamId,
                (c, id) -> c.postWrite(streamId, id, region, offset, length, remoteKey, remoteOffset));
    }

    /** Posts a WRITE_WITH_IMM; see {@link Connection#postWriteWithImmediate}. */
    public CompletableFuture<Completion> postWriteWithImmediate(int streamId, long workRequestId, MemoryRegion region,
            long offset, long length, int remoteKey, long remoteOffset, int immediate) {
        return post(workRequestId, streamId, (c, id) -> c.postWriteWithImmediate(streamId, id, region, offset, length,
                remoteKey, remoteOffset, immediate));
    }

    /** Posts a READ; see {@link Connection#postRead}. */
    public CompletableFuture<Completion> postRead(int streamId, long workRequestId, MemoryRegion region, long offset,
            long length, int remoteKey, long remoteOffset) {
        return post(workRequestId, streamId,
                (c, id) -> c.postRead(streamId, id, region, offset, length, remoteKey, remoteOffset));
    }

    // ---- zero-allocation posting (on the event loop; completions to the CompletionSink) ----

    /** {@link #postSend} without a future, on the event loop; returns a {@link PostResult} code. */
    public int postSendDirect(int streamId, long workRequestId, MemoryRegion region, long offset, long length) {
        checkDirect(workRequestId);
        return ended ? PostResult.CLOSED
                : posted(core.postSend(streamId, workRequestId | DIRECT, region, offset, length));
    }

    /** {@link #postSendWithImmediate} without a future, on the event loop; returns a {@link PostResult} code. */
    public int postSendWithImmediateDirect(int streamId, long workRequestId, MemoryRegion region, long offset,
            long length, int immediate) {
        checkDirect(workRequestId);
        return ended ? PostResult.CLOSED
                : posted(core.postSendWithImmediate(streamId, workRequestId | DIRECT, region, offset, length,
                        immediate));
    }

    /** {@link #postRecv} without a future, on the event loop; returns a {@link PostResult} code. */
    public int postRecvDirect(int streamId, long workRequestId, MemoryRegion region, long offset, long length) {
        checkDirect(workRequestId);
        return ended ? PostResult.CLOSED
                : posted(core.postRecv(streamId, workRequestId | DIRECT, region, offset, length));
    }

    /** {@link #postWrite} without a future, on the event loop; returns a {@link PostResult} code. */
    public int postWriteDirect(int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int remoteKey, long remoteOffset) {
        checkDirect(workRequestId);
        return ended ? PostResult.CLOSED
                : posted(core.postWrite(streamId, workRequestId | DIRECT, region, offset, length, remoteKey,
                        remoteOffset));
    }

    /** {@link #postWriteWithImmediate} without a future, on the event loop; returns a {@link PostResult} code. */
    public int postWriteWithImmediateDirect(int streamId, long workRequestId, MemoryRegion region, long offset,
            long length, int remoteKey, long remoteOffset, int immediate) {
        checkDirect(workRequestId);
        return ended ? PostResult.CLOSED
                : posted(core.postWriteWithImmediate(streamId, workRequestId | DIRECT, region, offset, length,
                        remoteKey, remoteOffset, immediate));
    }

    /** {@link #postRead} without a future, on the event loop; returns a {@link PostResult} code. */
    public int postReadDirect(int streamId, long workRequestId, MemoryRegion region, long offset, long length,
            int remoteKey, long remoteOffset) {
        checkDirect(workRequestId);
        return ended ? PostResult.CLOSED
                : posted(core.postRead(streamId, workRequestId | DIRECT, region, offset, length, remoteKey,
                        remoteOffset));
    }

    private void checkDirect(long workRequestId) {
        if (!owner.eventLoop().inEventLoop()) {
            throw new IllegalStateException("direct posts run on the endpoint's event loop: call them from the"
                    + " CompletionSink or a task given to endpoint().eventLoop(), or use the posting methods with"
                    + " futures");
        }
        if (!owner.hasCompletionSink()) {
            throw new IllegalStateException("direct posts report their completions only to a CompletionSink: set"
                    + " UdpEndpoint.Builder.completionSink");
        }
        if (workRequestId < 0) {
            throw new IllegalArgumentException("workRequestId is " + workRequestId
                    + " but direct posts take ids in [0, 2^63)");
        }
    }

    private int posted(int result) {
        if (result == PostResult.OK) {
            owner.requestDrive(); // once per event-loop turn, however many posts
        }
        return result;
    }

    /**
     * Closes gracefully: posted work finishes, then CLOSE is exchanged; returns {@link #closeFuture()}.
     * Thread-safe; never blocks.
     */
    public CompletableFuture<CloseReason> close() {
        owner.submit(() -> {
            if (!ended) {
                core.close();
            }
        }, () -> closeFuture.complete(CloseReason.LOCAL_ABORT)); // the endpoint is gone already
        return closeFuture;
    }

    /** Aborts at once: outstanding work completes with CONNECTION_CLOSED; returns {@link #closeFuture()}. */
    public CompletableFuture<CloseReason> abort() {
        owner.submit(() -> {
            if (!ended) {
                core.abort();
            }
        }, () -> closeFuture.complete(CloseReason.LOCAL_ABORT)); // the endpoint is gone already
        return closeFuture;
    }

    private CompletableFuture<Completion> post(long userId, int streamId, Post op) {
        CompletableFuture<Completion> f = new CompletableFuture<>();
        if (owner.eventLoop().inEventLoop()) {
            // Already on the loop (a completion's callback posting the next message): post now,
            // without a task, and leave in the drive this turn asks for.
            if (owner.isShutDown()) {
                f.completeExceptionally(new PostRejectedException(PostResult.CLOSED));
            } else {
                postNow(userId, op, f);
                owner.requestDrive();
            }
            return f;
        }
        owner.submit(() -> postNow(userId, op, f),
                () -> f.completeExceptionally(new PostRejectedException(PostResult.CLOSED)));
        return f;
    }

    private void postNow(long userId, Post op, CompletableFuture<Completion> f) {
        if (ended) {
            f.completeExceptionally(new PostRejectedException(PostResult.CLOSED));
            return;
        }
        long id = nextWorkRequestId++;
        int result;
        try {
            result = op.apply(core, id);
        } catch (RuntimeException e) {
            f.completeExceptionally(e);
            return;
        }
        if (result != PostResult.OK) {
            f.completeExceptionally(new PostRejectedException(result));
            return;
        }
        pending.put(id, new Pending(userId, f));
    }

    // ---- event-loop callbacks from UdpEndpoint ----

    Connection core() {
        return core;
    }

    int[] ownedSockets() {
        return ownedSockets;
    }

    void onCompletion(int streamId, long workRequestId, int opcode, int status, long bytes, int immediate,
            boolean hasImmediate) {
        if ((workRequestId & DIRECT) != 0) {
            owner.notifySink(this, streamId, workRequestId & ~DIRECT, opcode, status, bytes, immediate, hasImmediate);
            return;
        }
        Pending p = pending.remove(workRequestId);
        if (p != null) {
            owner.notifySink(this, streamId, p.userId, opcode, status, bytes, immediate, hasImmediate);
            Completion c = new Completion(p.userId, streamId, opcode, status, bytes, immediate, hasImmediate);
            owner.notifyCompletion(this, c);
            p.future.complete(c);
        }
    }

    /** Records path {@code pathId}'s new state; returns the one it had. */
    int recordPathState(int pathId, int state) {
        if (pathId < 0 || pathId >= pathStates.length) {
            return state;
        }
        int previous = pathStates[pathId];
        pathStates[pathId] = state;
        return previous;
    }

    long lastRepathNanos(int pathId) {
        return lastRepathNanos[pathId];
    }

    void lastRepathNanos(int pathId, long nanos) {
        lastRepathNanos[pathId] = nanos;
    }

    void onConnected() {
        CompletableFuture<UdpConnection> f = connectFuture;
        connectFuture = null;
        if (f != null) {
            f.complete(this);
        }
    }

    /** The connection ended (or the endpoint shut down): fail what is left, complete the close future. */
    void onEnded(CloseReason reason, Throwable cause) {
        if (ended) {
            return;
        }
        ended = true;
        CompletableFuture<UdpConnection> f = connectFuture;
        connectFuture = null;
        if (f != null) {
            f.completeExceptionally(cause != null ? cause
                    : new java.net.ConnectException("connection closed before it was established: " + reason));
        }
        if (!pending.isEmpty()) {
            for (Pending p : pending.values()) {
                if (cause != null) {
                    p.future.completeExceptionally(cause);
                } else {
                    // The engine completes every request before reporting the close; this is a safety net.
                    p.future.complete(new Completion(p.userId, -1, 0, CompletionStatus.CONNECTION_CLOSED, 0, 0, false));
                }
            }
            pending.clear();
        }
        closeFuture.complete(reason);
    }

    boolean isEnded() {
        return ended;
    }

    ConnectionState coreState() {
        return core.state();
    }

    @Override
    public String toString() {
        return "UdpConnection[" + Long.toHexString(localId) + (client ? ", client" : ", server") + "]";
    }
}
