package io.metaroce.core.conn;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.AccessCheck;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.memory.ProtectionDomain;
import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;

/**
 * Checks of the arguments of the posting methods of {@link Connection}. A bad argument is a bug
 * in the caller, so it throws, with a message that says what to do instead; a full queue or a
 * closed connection is not, and is a {@link io.metaroce.core.api.PostResult} code.
 */
final class PostArguments {
    private PostArguments() {
    }

    /** Throws unless {@code streamId} names a stream of {@code streams}. */
    static void checkStream(StreamTable streams, EngineConfig config, int streamId) {
        if (!streams.isValidId(streamId)) {
            throw new IllegalArgumentException("streamId " + streamId + " is out of range: use 0 to "
                    + (config.maxStreams() - 1) + " (EngineConfig.maxStreams)");
        }
    }

    /** Throws unless {@code [offset, +length)} of {@code region} is usable with {@code access} in {@code domain}. */
    static void checkLocal(ProtectionDomain domain, MemoryRegion region, long offset, long length, int access,
            String op) {
        if (region == null) {
            throw new IllegalArgumentException(op + ": region is null; register memory with the endpoint's protection domain first");
        }
        int check = domain.checkLocal(region, offset, length, access);
        if (check == AccessCheck.OK) {
            return;
        }
        String name = op + ": " + AccessCheck.name(check) + ": region " + region.localKey() + " (length "
                + region.length() + ", access " + Access.describe(region.access()) + ")";
        throw new IllegalArgumentException(switch (check) {
            case AccessCheck.UNKNOWN_KEY -> name + " is not registered in this connection's protection domain;"
                    + " register the memory with the protection domain of the endpoint that owns the connection";
            case AccessCheck.REGION_CLOSED -> name + " is closed (deregistered, or its memory was freed);"
                    + " register the memory again";
            case AccessCheck.OUT_OF_BOUNDS -> name + ": the range [" + offset + ", +" + length
                    + ") does not fit in the region; use offset >= 0, length >= 0, offset + length <= " + region.length();
            case AccessCheck.ACCESS_DENIED -> name + " lacks Access.LOCAL_WRITE, which the target of a receive or"
                    + " READ needs; register it with Access.LOCAL_WRITE";
            default -> name + " is not usable: " + AccessCheck.name(check);
        });
    }

    /** The public method that posts work of {@code kind}, for messages. */
    static String opName(byte kind) {
        return switch (kind) {
            case WorkRequests.SEND -> "postSend";
            case WorkRequests.WRITE -> "postWrite";
            case WorkRequests.WRITE_WITH_IMM -> "postWriteWithImmediate";
            case WorkRequests.READ -> "postRead";
            default -> "post";
        };
    }

    /** Throws unless {@code remoteOffset}, of work of {@code kind}, is not negative. */
    static void checkRemoteOffset(long remoteOffset, byte kind) {
        if (remoteOffset < 0) {
            throw new IllegalArgumentException(opName(kind) + ": remoteOffset must be >= 0, was " + remoteOffset);
        }
    }
}
