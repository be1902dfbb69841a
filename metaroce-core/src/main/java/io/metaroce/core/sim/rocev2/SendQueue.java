package io.metaroce.core.sim.rocev2;

/**
 * A queue pair's posted messages not yet acknowledged, oldest first, in a preallocated ring. Each
 * message owns a contiguous run of packet sequence numbers (a 64-bit count that never wraps; the
 * 24-bit PSN on the wire is derived from it). Messages are numbered from 0 in posting order, so a
 * cursor survives the head being removed.
 *
 * <p>Not thread-safe.
 */
final class SendQueue {
    private final int capacity;
    private final int payloadPerPacket;
    private final int[] bytes;
    private final int[] packets;
    private final long[] firstSeq;
    /** Number of the oldest message still queued. */
    private long headNumber;
    /** Number the next posted message gets. */
    private long tailNumber;
    /** Sequence number after the last packet posted. */
    private long endSeq;

    SendQueue(int capacity, int payloadPerPacket) {
        this.capacity = capacity;
        this.payloadPerPacket = payloadPerPacket;
        this.bytes = new int[capacity];
        this.packets = new int[capacity];
        this.firstSeq = new long[capacity];
    }

    /** Queues a message of {@code messageBytes}; false if the ring is full. */
    boolean offer(int messageBytes) {
        if (tailNumber - headNumber == capacity) {
            return false;
        }
        int i = index(tailNumber++);
        int n = (int) ((messageBytes + (long) payloadPerPacket - 1) / payloadPerPacket);
        bytes[i] = messageBytes;
        packets[i] = n;
        firstSeq[i] = endSeq;
        endSeq += n;
        return true;
    }

    int size() {
        return (int) (tailNumber - headNumber);
    }

    boolean isEmpty() {
        return tailNumber == headNumber;
    }

    long headNumber() {
        return headNumber;
    }

    long tailNumber() {
        return tailNumber;
    }

    long endSeq() {
        return endSeq;
    }

    /** Removes the oldest message. */
    void removeHead() {
        headNumber++;
    }

    int bytes(long number) {
        return bytes[index(number)];
    }

    int packets(long number) {
        return packets[index(number)];
    }

    long firstSeq(long number) {
        return firstSeq[index(number)];
    }

    long endSeq(long number) {
        int i = index(number);
        return firstSeq[i] + packets[i];
    }

    /** Payload of packet {@code k} (0-based) of message {@code number}. */
    int payloadOf(long number, long k) {
        int i = index(number);
        return k == packets[i] - 1 ? bytes[i] - (packets[i] - 1) * payloadPerPacket : payloadPerPacket;
    }

    /** Payload bytes of the packets {@code [fromSeq, toSeq)}, all inside message {@code number}. */
    long payloadBetween(long number, long fromSeq, long toSeq) {
        int i = index(number);
        long total = (toSeq - fromSeq) * payloadPerPacket;
        if (toSeq == firstSeq[i] + packets[i] && toSeq > fromSeq) {
            // The range includes the message's last packet, which may be short.
            total -= payloadPerPacket - (bytes[i] - (long) (packets[i] - 1) * payloadPerPacket);
        }
        return total;
    }

    /** Number of the queued message holding sequence number {@code seq} (which must be queued). */
    long find(long seq) {
        long n = headNumber;
        while (endSeq(n) <= seq) {
            n++;
        }
        return n;
    }

    private int index(long number) {
        return (int) (number % capacity);
    }
}
