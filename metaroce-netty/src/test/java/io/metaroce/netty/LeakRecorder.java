package io.metaroce.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Makes Netty leak reports fail tests: a {@link ResourceLeakDetectorFactory} whose detectors
 * record every leak they report. It must be installed before Netty's buffer classes initialise
 * (each test class calls {@link #install()} in a static initialiser); {@link #isActive()} says
 * whether it made the {@code ByteBuf} detector.
 */
final class LeakRecorder extends ResourceLeakDetectorFactory {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean byteBufDetectorMade;
    private static boolean installed;

    static synchronized void install() {
        if (!installed) {
            installed = true;
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
            ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new LeakRecorder());
        }
    }

    static boolean isActive() {
        // Touch the buffer classes so the ByteBuf detector exists.
        ByteBufAllocator.DEFAULT.buffer(1).release();
        return byteBufDetectorMade;
    }

    @Override
    @SuppressWarnings("deprecation") // the abstract method every factory must implement
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
        if (resource == ByteBuf.class) {
            byteBufDetectorMade = true;
        }
        return new ResourceLeakDetector<>(resource, samplingInterval) {
            @Override
            protected boolean needReport() {
                return true;
            }

            @Override
            protected void reportTracedLeak(String resourceType, String records) {
                LEAKS.add(resourceType + " leak:" + records);
            }

            @Override
            protected void reportUntracedLeak(String resourceType) {
                LEAKS.add(resourceType + " leak (untraced)");
            }
        };
    }

    /** Collects garbage and pokes the detector (it reports on the next allocation) a few times; returns the leaks. */
    static List<String> collect() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
            for (int k = 0; k < 10; k++) {
                ByteBufAllocator.DEFAULT.buffer(16).release();
                ByteBufAllocator.DEFAULT.directBuffer(16).release();
            }
        }
        return List.copyOf(LEAKS);
    }

    static void clear() {
        LEAKS.clear();
    }
}
