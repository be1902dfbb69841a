package io.metaroce.bench.conformance;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The suite's commands to a responder on the control stream ([SPEC-CONF-6]): each a SEND on
 * {@link ResponderContract#CONTROL_STREAM} whose first byte is the command, answered by a SEND on
 * that stream whose first byte repeats it.
 *
 * <p>Stateless; thread-safe.
 */
final class Commands {
    private Commands() {
    }

    /** The connection's region as the responder announced it ([SPEC-CONF-7]). */
    record Region(int remoteKey, long length) {
    }

    /** Asks for the connection's region ([SPEC-CONF-7]); fails the case if no valid announcement comes. */
    static Region region(WireSession s) {
        ByteBuffer reply = ByteBuffer.wrap(command(s, new byte[] {(byte) ResponderContract.COMMAND_REGION},
                "the region command"));
        Checks.check(reply.remaining() == ResponderContract.REGION_REPLY_BYTES, "the reply to the region command has %d"
                + " bytes, expected %d: [1][u32 remoteKey][u64 length] [SPEC-CONF-7]", reply.remaining(),
                ResponderContract.REGION_REPLY_BYTES);
        Region r = new Region(reply.getInt(1), reply.getLong(5));
        Checks.check(r.remoteKey() != 0 && r.length() >= ResponderContract.REGION_BYTES, "the responder announced"
                + " remote key %d and %d bytes; a region has a non-zero key [SPEC-MEM-3] and at least %d bytes"
                + " [SPEC-CONF-7]", r.remoteKey(), r.length(), ResponderContract.REGION_BYTES);
        return r;
    }

    /** Makes the responder post {@code receives} receives on the held stream ([SPEC-CONF-8]) and waits for its word. */
    static void postHeld(WireSession s, int receives) {
        command(s, new byte[] {(byte) ResponderContract.COMMAND_POST_HELD, (byte) (receives >>> 8), (byte) receives},
                "the post command");
    }

    /**
     * Sends the command that makes the responder open a client connection of {@code paths} paths
     * to {@code suite} ([SPEC-CONF-9]), without waiting for the reply ({@link #awaitConnectReply}):
     * the case listens on its server socket meanwhile, so that it reads each CONNECT when it arrives.
     */
    static int sendConnectTo(WireSession s, InetSocketAddress suite, int paths) {
        byte[] address = suite.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(5 + address.length);
        b.put((byte) ResponderContract.COMMAND_CONNECT).put((byte) paths).putShort((short) suite.getPort())
                .put((byte) address.length).put(address);
        int before = s.messagesOn(ResponderContract.CONTROL_STREAM).size();
        Scenarios.sendAll(s, s.send(ResponderContract.CONTROL_STREAM, b.array()), 0);
        return before;
    }

    /** Waits for the reply to the connect command sent when {@code before} replies had come. */
    static void awaitConnectReply(WireSession s, int before) {
        boolean answered = s.await(() -> s.messagesOn(ResponderContract.CONTROL_STREAM).size() > before);
        Checks.check(answered, "no reply to the connect command on stream %d within %d ms [SPEC-CONF-6]",
                ResponderContract.CONTROL_STREAM, s.waitNanos() / 1_000_000);
        byte[] reply = s.messagesOn(ResponderContract.CONTROL_STREAM).get(before).bytes();
        Checks.check(reply.length >= 1 && reply[0] == ResponderContract.COMMAND_CONNECT, "the reply to the connect"
                + " command does not start with %d [SPEC-CONF-6]", ResponderContract.COMMAND_CONNECT);
    }

    /** Makes the responder close the connection gracefully once it has replied ([SPEC-CONF-27]). */
    static void close(WireSession s) {
        command(s, new byte[] {(byte) ResponderContract.COMMAND_CLOSE}, "the close command");
    }

    /** Sends {@code command} and returns the responder's reply; fails the case if none comes. */
    private static byte[] command(WireSession s, byte[] command, String what) {
        int before = s.messagesOn(ResponderContract.CONTROL_STREAM).size();
        Scenarios.sendAll(s, s.send(ResponderContract.CONTROL_STREAM, command), 0);
        boolean answered = s.await(() -> s.messagesOn(ResponderContract.CONTROL_STREAM).size() > before);
        Checks.check(answered, "no reply to %s on stream %d within %d ms [SPEC-CONF-6]", what,
                ResponderContract.CONTROL_STREAM, s.waitNanos() / 1_000_000);
        List<WireSession.EchoMessage> replies = s.messagesOn(ResponderContract.CONTROL_STREAM);
        byte[] reply = replies.get(before).bytes();
        Checks.check(reply.length >= 1 && reply[0] == command[0], "the reply to %s starts with %s, expected %d"
                + " [SPEC-CONF-6]", what, reply.length == 0 ? "nothing" : Byte.toString(reply[0]), command[0]);
        return reply;
    }
}
