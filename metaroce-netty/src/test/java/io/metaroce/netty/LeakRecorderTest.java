package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The leak check the datapath tests rely on does catch a leak. */
class LeakRecorderTest {
    static {
        LeakRecorder.install();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void reportsALeakedBuffer() throws InterruptedException {
        assertThat(LeakRecorder.isActive()).as("leak recorder installed before Netty's buffers").isTrue();
        LeakRecorder.collect();
        LeakRecorder.clear();
        leak();
        boolean seen = false;
        for (int i = 0; i < 20 && !seen; i++) {
            seen = LeakRecorder.collect().stream().anyMatch(s -> s.contains("ByteBuf"));
        }
        LeakRecorder.clear();
        assertThat(seen).as("a deliberately leaked buffer is reported").isTrue();
    }

    private static void leak() {
        ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeLong(42);
    }
}
