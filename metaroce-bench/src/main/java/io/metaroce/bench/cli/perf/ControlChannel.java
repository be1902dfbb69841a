package io.metaroce.bench.cli.perf;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.netty.Completion;
import io.metaroce.netty.UdpConnection;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control messages of a run ({@link ControlMessage}) on the reserved stream 0 of a
 * connection: SENDs into receives posted ahead. The exchange is strictly request-answer, so a
 * few buffers used in turn suffice.
 *
 * <p>Thread-safety: call from one thread (the side's main thread); completions arrive on the
 * event loop and only complete futures.
 */
final class ControlChannel {
    /** The stream the control messages use; data uses streams 1 and up. */
    public static final int STREAM = 0;
    private static final int BUFFERS = 4;

    private final UdpConnection connection;
    private final MemorySegment memory;
    private final MemoryRegion region;
    private int nextIn;
    private int nextOut;
    private long wrIds;

    /** Registers the channel's buffers (in {@code arena}) with the connection's endpoint. */
    public ControlChannel(UdpConnection connection, Arena arena) {
        this.connection = connection;
        this.memory = arena.allocate(2L * BUFFERS * ControlMessage.BYTES, 8);
        this.region = connection.endpoint().register(memory, Access.LOCAL_WRITE);
    }

    /** Posts a receive for the next control message; the future yields it, decoded. */
    public CompletableFuture<ControlMessage> expect() {
        long offset = (long) (nextIn++ % BUFFERS) * ControlMessage.BYTES;
        return connection.postRecv(STREAM, ++wrIds, region, offset, ControlMessage.BYTES).thenApply(c -> {
            if (!c.isSuccess()) {
                throw new IllegalStateException("control receive failed: " + c);
            }
            return ControlMessage.decode(memory, offset, c.byteLength());
        });
    }

    /** Sends {@code message}; the future completes when the peer has it. */
    public CompletableFuture<Completion> send(ControlMessage message) {
        long offset = (long) (BUFFERS + nextOut++ % BUFFERS) * ControlMessage.BYTES;
        message.encode(memory, offset);
        return connection.postSend(STREAM, ++wrIds, region, offset, ControlMessage.BYTES).thenApply(c -> {
            if (!c.isSuccess()) {
                throw new IllegalStateException("control send failed: " + c);
            }
            return c;
        });
    }

    /** Deregisters the buffers; call once the connection has ended. */
    public void release() {
        connection.endpoint().deregister(region);
    }

    /**
     * Waits for {@code future} at most {@code seconds}; turns every way it can fail into an
     * {@link PerfException} saying what was awaited.
     */
    public static <T> T await(CompletableFuture<T> future, double seconds, String what) {
        try {
            return future.get((long) (seconds * 1000), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new PerfException(what + ": nothing within " + seconds + " s");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException ce && ce.getCause() != null
                    ? ce.getCause() : e.getCause();
            throw new PerfException(what + ": " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException(what + ": interrupted", e);
        }
    }
}
