package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.netty.channel.EventLoop;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A patterned source region on the client, a target region on the server, and WRITEs of the
 * source in equal pieces over one stream, all posted at once, each required to succeed, the
 * target then checked byte for byte. Not thread-safe: one test thread.
 */
final class PatternedWrites {
    final MemoryRegion source;
    final MemoryRegion target;

    PatternedWrites(Arena arena, UdpEndpoint client, UdpEndpoint server, long bytes) {
        MemorySegment pattern = arena.allocate(bytes);
        for (long i = 0; i < bytes; i++) {
            pattern.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 13)));
        }
        source = client.register(pattern, Access.NONE);
        target = server.register(arena.allocate(bytes), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    /** WRITEs the whole source in {@code size}-byte pieces on stream 0 and waits for each. */
    void writeAll(UdpConnection connection, int size, long waitSeconds) throws Exception {
        long total = source.segment().byteSize();
        List<CompletableFuture<Completion>> writes = new ArrayList<>();
        for (long off = 0; off < total; off += size) {
            writes.add(connection.postWrite(0, off / size, source, off, size, target.remoteKey(), off));
        }
        awaitAll(writes, waitSeconds);
    }

    /**
     * As {@link #writeAll}, but each WRITE is posted by a task of its own on the connection's
     * event loop, which queues the next one's task after it: the posts reach the loop one by one
     * while it runs its tasks, as an application thread's do when the loop keeps up with it, and
     * each post's drive is queued between them. Made, not waited for: the interleaving is the
     * same on any host.
     */
    void writeAllOneByOne(UdpConnection connection, int size, long waitSeconds) throws Exception {
        long total = source.segment().byteSize();
        List<CompletableFuture<Completion>> writes = new ArrayList<>();
        CompletableFuture<Void> posted = new CompletableFuture<>();
        EventLoop loop = connection.endpoint().eventLoop();
        loop.execute(new Runnable() {
            private long off;

            @Override
            public void run() {
                try {
                    writes.add(connection.postWrite(0, off / size, source, off, size, target.remoteKey(), off));
                    off += size;
                    if (off < total) {
                        loop.execute(this);
                    } else {
                        posted.complete(null);
                    }
                } catch (RuntimeException e) {
                    posted.completeExceptionally(e);
                }
            }
        });
        posted.get(waitSeconds, TimeUnit.SECONDS); // the list is complete and published by then
        awaitAll(writes, waitSeconds);
    }

    private void awaitAll(List<CompletableFuture<Completion>> writes, long waitSeconds) throws Exception {
        for (CompletableFuture<Completion> w : writes) {
            Completion done = w.get(waitSeconds, TimeUnit.SECONDS);
            // The completion says why a WRITE failed (its status); without it a failure is a bare "false".
            assertThat(done.isSuccess()).as("WRITE succeeded: %s", done).isTrue();
        }
        assertThat(target.segment().mismatch(source.segment())).as("first differing byte").isEqualTo(-1L);
    }
}
