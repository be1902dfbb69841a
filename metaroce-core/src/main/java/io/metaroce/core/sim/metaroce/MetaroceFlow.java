package io.metaroce.core.sim.metaroce;

import io.metaroce.core.api.CompletionStatus;
import io.metaroce.core.api.PostResult;
import io.metaroce.core.conn.Connection;
import io.metaroce.core.conn.ConnectionState;
import io.metaroce.core.memory.Access;
import io.metaroce.core.memory.MemoryRegion;
import io.metaroce.core.sim.workload.FlowSpec;
import io.metaroce.core.sim.workload.SimFlow;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * A bulk MetaRoCE flow: the sender keeps {@link FlowSpec#outstandingMessages()} WRITE_WITH_IMM
 * messages posted back to back (a new one as each completes); the receiver keeps receives posted
 * for their immediates. Delivered bytes are counted at the receiver, from its
 * {@code RECV_WRITE_WITH_IMM} completions: that is when the data is placed and the receiving
 * application learns of it, so rates and fairness are those the receiver sees (the sender's own
 * completions lag by the acknowledgement's trip and are counted separately as completed bytes).
 *
 * <p>With verification on, message {@code i} goes from source slot {@code i mod outstanding} to
 * the same destination slot (slots hold distinct seeded bytes), and each receive completion checks
 * the destination slot against its source: a misplaced or corrupted byte fails the check.
 *
 * <p>Driven from the simulator's thread only; not thread-safe.
 */
final class MetaroceFlow implements SimFlow {
    private static final int STREAM = 0;
    private static final int RECEIVE_SLACK = 4;

    private final int id;
    private final int sourceHost;
    private final int destinationHost;
    private final FlowSpec spec;
    private final boolean verify;
    private final int slots;
    private final MemoryRegion source;
    private final MemoryRegion destination;
    private final MemoryRegion immediateSink;
    private Connection sender;
    private Connection receiver;
    private boolean posting;
    private long nextMessage;
    private long nextReceiveId;
    private long posted;
    private long delivered;
    private long completed;
    private long failed;
    private int outstanding;
    private boolean verified = true;

    MetaroceFlow(int id, MetaroceHost from, MetaroceHost to, FlowSpec spec, boolean verify, long seed) {
        this.id = id;
        this.sourceHost = from.host();
        this.destinationHost = to.host();
        this.spec = spec;
        this.verify = verify;
        this.slots = verify ? spec.outstandingMessages() : 1;
        long bytes = (long) spec.messageBytes() * slots;
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("messageBytes * outstanding (" + bytes + ") must fit one region");
        }
        ByteBuffer src = ByteBuffer.allocate((int) bytes);
        new SplittableRandom(seed).nextBytes(src.array());
        this.source = from.endpoint().protectionDomain().register(src, 0);
        this.destination = to.endpoint().protectionDomain().register(ByteBuffer.allocate((int) bytes),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.immediateSink = to.endpoint().protectionDomain().register(ByteBuffer.allocate(16), Access.LOCAL_WRITE);
    }

    int id() {
        return id;
    }

    FlowSpec spec() {
        return spec;
    }

    void senderConnection(Connection c) {
        this.sender = c;
    }

    /** The receiver accepted the connection: keep receives posted for every message that can be outstanding. */
    void receiverConnection(Connection c) {
        this.receiver = c;
        for (int i = 0; i < spec.outstandingMessages() + RECEIVE_SLACK; i++) {
            postReceive();
        }
    }

    private void postReceive() {
        int rc = receiver.postRecv(STREAM, nextReceiveId++, immediateSink, 0, 16);
        if (rc != PostResult.OK && rc != PostResult.CLOSED) {
            throw new IllegalStateException("flow " + id + ": posting a receive failed: " + PostResult.name(rc));
        }
    }

    @Override
    public int sourceHost() {
        return sourceHost;
    }

    @Override
    public int destinationHost() {
        return destinationHost;
    }

    @Override
    public boolean established() {
        return sender != null && sender.state() == ConnectionState.ESTABLISHED && receiver != null;
    }

    @Override
    public void start(long nowNanos) {
        if (!established()) {
            throw new IllegalStateException("flow " + id + " is not established yet: run the network until it is");
        }
        posting = true;
        fill();
    }

    @Override
    public void stopPosting() {
        posting = false;
    }

    private void fill() {
        while (posting && outstanding < spec.outstandingMessages() && posted < spec.totalBytes()) {
            long length = Math.min(spec.messageBytes(), spec.totalBytes() - posted);
            int slot = (int) (nextMessage % slots);
            long offset = (long) slot * spec.messageBytes();
            int rc = sender.postWriteWithImmediate(STREAM, nextMessage, source, offset, length,
                    destination.remoteKey(), offset, (int) nextMessage);
            if (rc != PostResult.OK) {
                return; // closed or queue full: the next completion retries
            }
            nextMessage++;
            posted += length;
            outstanding++;
        }
    }

    void onSenderCompletion(int status, long bytes) {
        outstanding--;
        if (status == CompletionStatus.SUCCESS) {
            completed += bytes;
        } else {
            failed += bytes;
        }
        fill();
    }

    void onReceiverCompletion(int status, long bytes, int immediate) {
        if (status == CompletionStatus.SUCCESS) {
            delivered += bytes;
            if (verify) {
                long offset = (long) Integer.remainderUnsigned(immediate, slots) * spec.messageBytes();
                if (destination.segment().asSlice(offset, bytes).mismatch(source.segment().asSlice(offset, bytes)) != -1) {
                    verified = false;
                }
            }
        }
        if (receiver.state() == ConnectionState.ESTABLISHED) {
            postReceive();
        }
    }

    @Override
    public long postedBytes() {
        return posted;
    }

    @Override
    public long deliveredBytes() {
        return delivered;
    }

    @Override
    public long completedBytes() {
        return completed;
    }

    @Override
    public long failedBytes() {
        return failed;
    }

    @Override
    public int outstandingMessages() {
        return outstanding;
    }

    @Override
    public long retransmissions() {
        return sender == null ? 0 : sender.stats().retransmissions();
    }

    @Override
    public boolean verified() {
        return verified;
    }

    /** The sender's connection (for path statistics), or null before it is opened. */
    Connection sender() {
        return sender;
    }
}
