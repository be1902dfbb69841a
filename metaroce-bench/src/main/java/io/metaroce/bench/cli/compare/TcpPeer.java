package io.metaroce.bench.cli.compare;

import io.metaroce.bench.cli.perf.LatencyPercentiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * TCP through the JDK's blocking sockets on 127.0.0.1: a writer thread writes messages of the size,
 * a reader thread reads and counts; and a 64-byte ping-pong with TCP_NODELAY. Not thread-safe: one
 * run at a time (each call opens and closes its own sockets and threads).
 */
final class TcpPeer {
    private static final int READ_BUFFER = 256 << 10;

    /** Streams messages of {@code size} bytes for {@code window}; the reader's goodput in Gb/s. */
    double blast(int size, Window window) throws IOException, InterruptedException {
        AtomicLong received = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket out = new Socket()) {
            out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            try (Socket in = server.accept()) {
                Thread reader = Thread.ofPlatform().name("tcp-reader").daemon(true).start(() -> {
                    byte[] buf = new byte[Math.max(READ_BUFFER, size)];
                    try (InputStream is = in.getInputStream()) {
                        int n;
                        while ((n = is.read(buf)) >= 0) {
                            received.addAndGet(n);
                        }
                    } catch (IOException e) {
                        failure.compareAndSet(null, e);
                    }
                });
                Writer writer = new Writer(out, size, failure);
                Thread writing = Thread.ofPlatform().name("tcp-writer").daemon(true).start(writer);
                double gbps = window.measureGbps(received);
                writer.running = false;
                writing.join(10_000);
                out.close(); // the reader then sees the end of the stream
                reader.join(10_000);
                if (received.get() == 0 && failure.get() != null) {
                    throw new IOException("TCP moved nothing: " + failure.get(), failure.get());
                }
                return gbps;
            }
        }
    }

    /** 64-byte (or {@code size}) ping-pong with TCP_NODELAY over {@code window}. */
    LatencyPercentiles pingPong(int size, Window window) throws IOException, InterruptedException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket()) {
            client.setTcpNoDelay(true);
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            try (Socket echo = server.accept()) {
                echo.setTcpNoDelay(true);
                Thread echoing = Thread.ofPlatform().name("tcp-echo").daemon(true).start(() -> {
                    byte[] buf = new byte[size];
                    try (InputStream is = echo.getInputStream(); OutputStream os = echo.getOutputStream()) {
                        while (is.readNBytes(buf, 0, size) == size) {
                            os.write(buf);
                        }
                    } catch (IOException e) {
                        // the client closed the connection: the run is over
                    }
                });
                Latency latency = new Latency();
                byte[] buf = new byte[size];
                InputStream is = client.getInputStream();
                OutputStream os = client.getOutputStream();
                long start = System.nanoTime();
                long now = start;
                while (now < window.end(start)) {
                    long sent = System.nanoTime();
                    os.write(buf);
                    if (is.readNBytes(buf, 0, size) != size) {
                        throw new IOException("the TCP echo closed the connection");
                    }
                    now = System.nanoTime();
                    if (window.isWarm(start, now)) {
                        latency.record(now - sent);
                    }
                }
                client.close();
                echoing.join(10_000);
                return latency.percentiles();
            }
        }
    }

    /** Writes messages until told to stop. */
    private static final class Writer implements Runnable {
        private final Socket socket;
        private final int size;
        private final AtomicReference<Throwable> failure;
        private volatile boolean running = true;

        Writer(Socket socket, int size, AtomicReference<Throwable> failure) {
            this.socket = socket;
            this.size = size;
            this.failure = failure;
        }

        @Override
        public void run() {
            byte[] message = new byte[size];
            try {
                OutputStream os = socket.getOutputStream();
                while (running) {
                    os.write(message);
                }
            } catch (IOException e) {
                failure.compareAndSet(null, new UncheckedIOException(e));
            }
        }
    }
}
