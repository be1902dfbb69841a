package io.metaroce.core.conn;

import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;
import io.metaroce.core.wire.WireConstants;
import org.agrona.collections.IntArrayQueue;

/**
 * Which work request sends its next packet: streams with unsent work take turns (round-robin),
 * and the READ responses this side serves alternate with them, so neither starves the other.
 * A stream refused as receiver-not-ready is paused until its retry time.
 *
 * <p>Each stream's send cursor (in {@link StreamTable}) points at its first work request with
 * unsent bytes; this class moves it. Not thread-safe; owned by its connection's {@link Sender}.
 */
final class SendScheduler {
    private final StreamTable streams;
    private final WorkRequests work;
    private static final int QUEUE_INITIAL = 8;
    /** Streams with unsent work, in round-robin order (replaced by a small one when idle: {@link #shrinkIfIdle}). */
    private IntArrayQueue readyStreams = new IntArrayQueue(QUEUE_INITIAL, -1);
    /** Streams paused by a receiver-not-ready NAK. */
    private IntArrayQueue pausedStreams = new IntArrayQueue(QUEUE_INITIAL, -1);
    /** READ responses this side is serving, in arrival order. */
    private IntArrayQueue responses = new IntArrayQueue(QUEUE_INITIAL, -1);
    private boolean responsesTurn;

    /** Whether stream {@code s} was paused by a receiver-not-ready NAK after {@code sentNanos} [SPEC-NAK-4]. */
    boolean pausedSince(int s, long sentNanos) {
        return streams.pausedUntilNanos(s) > sentNanos;
    }

    SendScheduler(StreamTable streams, WorkRequests work) {
        this.streams = streams;
        this.work = work;
    }

    /**
     * At the connection's idle point: each empty queue a burst grew is replaced by a small one
     * (agrona's queues do not shrink). Allocates; not the datapath.
     */
    void shrinkIfIdle() {
        readyStreams = small(readyStreams);
        pausedStreams = small(pausedStreams);
        responses = small(responses);
    }

    /** Whether a burst grew one of the queues past its initial size. */
    boolean grown() {
        return readyStreams.capacity() > QUEUE_INITIAL || pausedStreams.capacity() > QUEUE_INITIAL
                || responses.capacity() > QUEUE_INITIAL;
    }

    private static IntArrayQueue small(IntArrayQueue q) {
        return q.isEmpty() && q.capacity() > QUEUE_INITIAL ? new IntArrayQueue(QUEUE_INITIAL, -1) : q;
    }

    /** Puts stream {@code streamId} in the round-robin, unless it is there already. */
    void schedule(int streamId) {
        if (!streams.scheduled(streamId)) {
            streams.scheduled(streamId, true);
            readyStreams.addInt(streamId);
        }
    }

    /** Queues the READ response in work request {@code w}, to be sent in arrival order. */
    void queueResponse(int w) {
        responses.addInt(w);
    }

    /** The work request whose next packet goes out now, taking streams (and READ responses) in turn. */
    int nextWorkToSend(long nowNanos) {
        if (responses.isEmpty() && readyStreams.size() == 1) {
            // One stream ready and no READ response, as on a connection that sends on one stream:
            // when that stream has a packet to send and is not paused, the round robin would take
            // it off the queue and put it back, leaving the queue as it was; looked at in place, it
            // costs no queue update per packet (the turn between streams and responses still
            // flips, as it does below).
            int s = readyStreams.peekInt();
            int w = streams.sendCursor(s);
            if (w != StreamTable.NONE && !work.allSent[w] && streams.pausedUntilNanos(s) <= nowNanos) {
                responsesTurn = !responsesTurn;
                return w;
            }
        }
        return nextWorkToSendByRotation(nowNanos);
    }

    /**
     * {@link #nextWorkToSend} without its single-stream shortcut, always through the round robin's
     * queues: what the shortcut stands for (the tests compare the two).
     */
    int nextWorkToSendByRotation(long nowNanos) {
        // A response abandoned mid-way (its region closed) may still sit in the queue: skip it.
        while (!responses.isEmpty() && (work.kind[responses.peekInt()] != WorkRequests.READ_RESPONSE
                || work.allSent[responses.peekInt()])) {
            responses.pollInt();
        }
        responsesTurn = !responsesTurn;
        if (responsesTurn && !responses.isEmpty()) {
            return responses.peekInt();
        }
        int n = readyStreams.size();
        for (int i = 0; i < n; i++) {
            int s = readyStreams.pollInt();
            int w = streams.sendCursor(s);
            if (w != StreamTable.NONE && work.allSent[w]) {
                advanceCursor(w);
                w = streams.sendCursor(s);
            }
            if (w == StreamTable.NONE) {
                streams.scheduled(s, false);
                continue;
            }
            if (streams.pausedUntilNanos(s) > nowNanos) {
                pausedStreams.addInt(s);
                continue;
            }
            readyStreams.addInt(s);
            return w;
        }
        return responses.isEmpty() ? StreamTable.NONE : responses.peekInt();
    }

    /**
     * The work request {@link #nextWorkToSend} would return at {@code nowNanos}, without taking a
     * turn or changing any queue; {@link StreamTable#NONE} if none. For telling the congestion
     * controller the length of a connection's first packet [SPEC-CC-16], which must be the length
     * of the packet that then goes first. The queues are walked by rotating each once round, which
     * leaves them in their order and allocates nothing.
     */
    int peekWork(long nowNanos) {
        int response = firstLiveResponse();
        // nextWorkToSend flips the turn first: a response goes now if the turn is not yet its.
        if (!responsesTurn && response != StreamTable.NONE) {
            return response;
        }
        int chosen = StreamTable.NONE;
        int n = readyStreams.size();
        for (int i = 0; i < n; i++) {
            int s = readyStreams.pollInt();
            readyStreams.addInt(s);
            if (chosen != StreamTable.NONE) {
                continue;
            }
            int w = streams.sendCursor(s);
            if (w != StreamTable.NONE && work.allSent[w]) {
                w = nextNotAllSent(work.next[w]);
            }
            if (w != StreamTable.NONE && streams.pausedUntilNanos(s) <= nowNanos) {
                chosen = w;
            }
        }
        return chosen != StreamTable.NONE ? chosen : response;
    }

    /** The first queued READ response not abandoned or all sent, as nextWorkToSend skips to. */
    private int firstLiveResponse() {
        int found = StreamTable.NONE;
        int n = responses.size();
        for (int i = 0; i < n; i++) {
            int w = responses.pollInt();
            responses.addInt(w);
            if (found == StreamTable.NONE && work.kind[w] == WorkRequests.READ_RESPONSE && !work.allSent[w]) {
                found = w;
            }
        }
        return found;
    }

    /** {@code w} or the first request after it in its stream with packets left, as advanceCursor finds. */
    private int nextNotAllSent(int w) {
        while (w != StreamTable.NONE && work.allSent[w]) {
            w = work.next[w];
        }
        return w;
    }

    /**
     * Work requests of the first ready stream {@link #unsentDatagramBytesAtLeast} reads at most: a
     * bound on its cost (it runs at each next-timeout query), which is harmless because its answer
     * is a lower bound anyway. 16 requests of 2 KiB or more cover the default 32 KiB wake quantum.
     */
    private static final int UNSENT_WALK_REQUESTS = 16;

    /**
     * A lower bound on the datagram bytes (payload and headers) of the first transmissions
     * waiting at {@code nowNanos}, read without a scan and no further than {@code capBytes}: the
     * first queued READ response and up to {@value #UNSENT_WALK_REQUESTS} work requests of the
     * stream first in the round robin (unless paused), each counted as its unsent payload and one
     * packet header (a request of several packets has more, which only adds; no division). For
     * the paced wake-up's batch [SPEC-CC-38], which must not wait for bytes that are not there.
     * Allocates nothing; changes no queue.
     */
    long unsentDatagramBytesAtLeast(long nowNanos, long capBytes) {
        long bytes = 0;
        if (!responses.isEmpty()) {
            bytes += unsentDatagramBytes(responses.peekInt());
        }
        if (!readyStreams.isEmpty() && streams.pausedUntilNanos(readyStreams.peekInt()) <= nowNanos) {
            int w = streams.sendCursor(readyStreams.peekInt());
            for (int i = 0; i < UNSENT_WALK_REQUESTS && w != StreamTable.NONE && bytes < capBytes; i++) {
                bytes += unsentDatagramBytes(w);
                w = work.next[w];
            }
        }
        return bytes;
    }

    /** The datagram bytes of work request {@code w}'s packets not yet sent once, at least. */
    private long unsentDatagramBytes(int w) {
        if (work.allSent[w]) {
            return 0; // also a READ response abandoned mid-way, which nextWorkToSend skips
        }
        if (work.kind[w] == WorkRequests.READ) {
            return WireConstants.READ_REQUEST_BYTES;
        }
        return Math.max(0, work.length[w] - work.sendOffset[w]) + WireConstants.DATA_OVERHEAD_BYTES;
    }

    /** Whether a stream or a READ response may have a packet to send (streams paused by RNR excepted). */
    boolean hasWork() {
        return !readyStreams.isEmpty() || !responses.isEmpty();
    }

    /** Moves past work request {@code w}, whose every packet has been sent. */
    void advanceCursor(int w) {
        if (work.kind[w] == WorkRequests.READ_RESPONSE) {
            if (!responses.isEmpty() && responses.peekInt() == w) {
                responses.pollInt();
            }
            return;
        }
        int s = work.stream[w];
        if (streams.sendCursor(s) == w) {
            streams.sendCursor(s, nextNotAllSent(work.next[w]));
        }
    }

    /** Puts back in the round-robin the paused streams whose retry time has come. */
    void resumePaused(long nowNanos) {
        while (!pausedStreams.isEmpty() && streams.pausedUntilNanos(pausedStreams.peekInt()) <= nowNanos) {
            int s = pausedStreams.pollInt();
            streams.scheduled(s, false);
            if (streams.sendCursor(s) != StreamTable.NONE) {
                schedule(s);
            }
        }
    }

    /** When the first paused stream may resume, or {@link Long#MAX_VALUE}. */
    long nextResumeNanos() {
        return pausedStreams.isEmpty() ? Long.MAX_VALUE : streams.pausedUntilNanos(pausedStreams.peekInt());
    }

    /** Drops every queued READ response, freeing those not yet done (the connection is closing). */
    void dropResponses() {
        while (!responses.isEmpty()) {
            int w = responses.pollInt();
            if (work.kind[w] == WorkRequests.READ_RESPONSE && !work.done[w]) {
                work.done[w] = true;
                work.free(w);
            }
        }
    }
}
