package io.metaroce.bench.cli.compare;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * Aeron reliable UDP unicast on 127.0.0.1: an embedded media driver (dedicated threading mode, its
 * conductor, sender and receiver yielding when idle: on a loaded two-core machine this measured
 * several times faster and with far lower latency than the shared mode or the default back-off,
 * which parks for up to a millisecond) in a temporary directory deleted afterwards, an {@code aeron:udp} channel (not IPC), a publication offer loop and a subscription
 * poll loop on two threads; and a 64-byte ping-pong over two such channels. Not thread-safe: one
 * run at a time (each call launches and closes its own driver).
 */
final class AeronPeer {
    /** The MTU that matches MetaRoCE's datagrams. */
    static final int LIKE_MTU = 4096;
    /** Aeron's best setting: the largest MTU (datagrams of up to 64 KiB, messages batched into them). */
    static final int BEST_MTU = 65_504;
    /** Receiver window and socket buffers: room for many 64 KiB datagrams (within rmem_max). */
    private static final int WINDOW = 2 << 20;
    private static final int STREAM = 1001;
    private static final int FRAGMENTS_PER_POLL = 256;
    private static final long CONNECT_TIMEOUT_NANOS = 10_000_000_000L;

    /** Streams messages of {@code size} bytes at {@code mtu} for {@code window}; the subscriber's goodput in Gb/s. */
    double blast(int size, int mtu, Window window) throws InterruptedException {
        try (Driver driver = Driver.launch(); Aeron aeron = driver.client()) {
            String channel = channel(freePort(), mtu);
            Subscription sub = aeron.addSubscription(channel, STREAM);
            Publication pub = aeron.addPublication(channel, STREAM);
            awaitConnected(pub);
            AtomicLong received = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Loop poller = new Loop() {
                final FragmentHandler handler = (buffer, offset, length, header) -> received.addAndGet(length);

                @Override
                int work() {
                    return sub.poll(handler, FRAGMENTS_PER_POLL);
                }
            };
            UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            Loop offerer = new Loop() {
                @Override
                int work() {
                    long result = pub.offer(message, 0, size);
                    if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
                        throw new IllegalStateException("Aeron publication failed: " + result);
                    }
                    return result > 0 ? 1 : 0;
                }
            };
            Thread polling = poller.start("aeron-poll", failure);
            Thread offering = offerer.start("aeron-offer", failure);
            double gbps = window.measureGbps(received);
            offerer.running = false;
            poller.running = false;
            offering.join(10_000);
            polling.join(10_000);
            if (failure.get() != null) {
                throw new IllegalStateException("Aeron run failed: " + failure.get(), failure.get());
            }
            return gbps;
        }
    }

    /** Ping-pong of {@code size}-byte messages over two channels at the matching MTU. */
    LatencyPercentiles pingPong(int size, Window window) throws InterruptedException {
        try (Driver driver = Driver.launch(); Aeron aeron = driver.client()) {
            String pingChannel = channel(freePort(), LIKE_MTU);
            String pongChannel = channel(freePort(), LIKE_MTU);
            Subscription pingSub = aeron.addSubscription(pingChannel, STREAM);
            Publication pingPub = aeron.addPublication(pingChannel, STREAM);
            Subscription pongSub = aeron.addSubscription(pongChannel, STREAM);
            Publication pongPub = aeron.addPublication(pongChannel, STREAM);
            awaitConnected(pingPub);
            awaitConnected(pongPub);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Loop echo = new Loop() {
                final FragmentHandler handler = (buffer, offset, length, header) -> {
                    while (pongPub.offer(buffer, offset, length) < 0) {
                        Thread.onSpinWait();
                    }
                };

                @Override
                int work() {
                    return pingSub.poll(handler, 1);
                }
            };
            Thread echoing = echo.start("aeron-echo", failure);
            Latency latency = new Latency();
            UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            int[] got = new int[1];
            FragmentHandler pong = (buffer, offset, length, header) -> got[0]++;
            long start = System.nanoTime();
            long now = start;
            while (now < window.end(start)) {
                long sent = System.nanoTime();
                while (pingPub.offer(message, 0, size) < 0) {
                    Thread.onSpinWait();
                }
                got[0] = 0;
                long giveUp = sent + 5_000_000_000L;
                while (got[0] == 0) {
                    if (pongSub.poll(pong, 1) == 0) {
                        Thread.onSpinWait();
                        if (System.nanoTime() > giveUp) {
                            throw new IllegalStateException("no Aeron pong within 5 s");
                        }
                    }
                }
                now = System.nanoTime();
                if (window.isWarm(start, now)) {
                    latency.record(now - sent);
                }
            }
            echo.running = false;
            echoing.join(10_000);
            return latency.percentiles();
        }
    }

    private static String channel(int port, int mtu) {
        return "aeron:udp?endpoint=127.0.0.1:" + port + "|mtu=" + mtu;
    }

    private static void awaitConnected(Publication pub) throws InterruptedException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
        while (!pub.isConnected()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Aeron publication did not connect within 10 s: " + pub.channel());
            }
            Thread.sleep(1);
        }
    }

    private static int freePort() {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A thread that calls {@link #work} until stopped, yielding when there was nothing to do. */
    private abstract static class Loop implements Runnable {
        volatile boolean running = true;
        private AtomicReference<Throwable> failure;

        abstract int work();

        Thread start(String name, AtomicReference<Throwable> failure) {
            this.failure = failure;
            return Thread.ofPlatform().name(name).daemon(true).start(this);
        }

        @Override
        public void run() {
            try {
                while (running) {
                    if (work() == 0) {
                        // Two cores are shared with the driver: give the CPU away rather than spin.
                        Thread.yield();
                    }
                }
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e);
            }
        }
    }

    /** An embedded media driver in its own temporary directory, removed on close. */
    private record Driver(MediaDriver driver, Path dir) implements AutoCloseable {

        static Driver launch() {
            Path dir;
            try {
                dir = Files.createTempDirectory("metaroce-compare-aeron-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            MediaDriver.Context ctx = new MediaDriver.Context()
                    .aeronDirectoryName(dir.resolve("aeron").toString())
                    .dirDeleteOnStart(true)
                    .dirDeleteOnShutdown(true)
                    .threadingMode(ThreadingMode.DEDICATED)
                    .conductorIdleStrategy(new YieldingIdleStrategy())
                    .senderIdleStrategy(new YieldingIdleStrategy())
                    .receiverIdleStrategy(new YieldingIdleStrategy())
                    .termBufferSparseFile(true)
                    .initialWindowLength(WINDOW)
                    .socketRcvbufLength(WINDOW)
                    .socketSndbufLength(WINDOW)
                    .warnIfDirectoryExists(false);
            try {
                return new Driver(MediaDriver.launchEmbedded(ctx), dir);
            } catch (RuntimeException e) {
                delete(dir);
                throw e;
            }
        }

        Aeron client() {
            return Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
        }

        @Override
        public void close() {
            try {
                driver.close();
            } finally {
                delete(dir);
            }
        }

        private static void delete(Path dir) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // best effort: a temporary directory left behind is not worth failing the run for
            }
        }
    }
}
