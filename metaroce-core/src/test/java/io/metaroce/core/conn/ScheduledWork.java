package io.metaroce.core.conn;

import io.metaroce.core.stream.StreamTable;
import io.metaroce.core.stream.WorkRequests;

/**
 * A {@link SendScheduler} with the stream and work tables it reads, and the two ways work reaches
 * it (a stream message posted at the tail of its stream, a READ response queued), for the
 * scheduler's property tests.
 */
final class ScheduledWork {
    final StreamTable streams = new StreamTable(16);
    final WorkRequests work = new WorkRequests(4_096);
    final SendScheduler scheduler = new SendScheduler(streams, work);

    ScheduledWork(int streamCount) {
        streams.ensure(streamCount - 1);
    }

    /** Posts a WRITE on stream {@code s} (at its tail, its cursor there if it had none) and schedules the stream. */
    int postMessage(int s) {
        int w = work.take();
        work.kind[w] = WorkRequests.WRITE;
        work.stream[w] = s;
        int tail = streams.workTail(s);
        if (tail == StreamTable.NONE || streams.sendCursor(s) == StreamTable.NONE) {
            streams.workHead(s, w);
            streams.sendCursor(s, w);
        } else {
            work.next[tail] = w;
        }
        streams.workTail(s, w);
        scheduler.schedule(s);
        return w;
    }

    /** Queues a READ response on stream {@code s}. */
    int queueResponse(int s) {
        int w = work.take();
        work.kind[w] = WorkRequests.READ_RESPONSE;
        work.stream[w] = s;
        scheduler.queueResponse(w);
        return w;
    }
}
