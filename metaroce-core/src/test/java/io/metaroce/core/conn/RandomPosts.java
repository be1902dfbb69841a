package io.metaroce.core.conn;

import io.metaroce.core.api.PostResult;
import io.metaroce.core.memory.MemoryRegion;
import java.util.SplittableRandom;

/**
 * The random work the many-connection property tests post: a READ (one in three) or a WRITE of
 * 1 B to 64 KiB at a random offset of two regions of {@code size} bytes, on one of four streams.
 */
final class RandomPosts {
    private RandomPosts() {
    }

    /**
     * Posts one on {@code c} if it is established, with work request id {@code id}; returns
     * whether the post was accepted. The draws are made only for an established connection.
     */
    static boolean readOrWrite(SplittableRandom rnd, Connection c, long id, MemoryRegion local, MemoryRegion remote,
            long size) {
        if (c.state() != ConnectionState.ESTABLISHED) {
            return false;
        }
        long length = 1 + rnd.nextLong(64 * 1024);
        long offset = rnd.nextLong(size - length);
        int stream = rnd.nextInt(4);
        int result = rnd.nextInt(3) == 0
                ? c.postRead(stream, id, local, offset, length, remote.remoteKey(), offset)
                : c.postWrite(stream, id, local, offset, length, remote.remoteKey(), offset);
        return result == PostResult.OK;
    }
}
