package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The endpoint's in-place send slots: sizes, addresses, the order they are taken in and their reset. */
class SendSlotsTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    @Test
    void theSlotCountIsBoundedByTheSlotLimitAndTheMemoryLimit() {
        assertThat(new SendSlots(4096).capacity()).isEqualTo(SendSlots.MAX_SLOTS);
        assertThat(new SendSlots(65_507).capacity()).isEqualTo((int) (SendSlots.MAX_TOTAL_BYTES / 65_507));
        assertThat(new SendSlots(4096).slotBytes()).isEqualTo(4096);
        assertThatThrownBy(() -> new SendSlots(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slotBytes");
    }

    @Test
    void eachSlotIsAFullViewAtItsOwnAddressAndTakeSaysWhenTheLastIsTaken() {
        int slotBytes = 3000;
        SendSlots slots = new SendSlots(slotBytes);
        long first = slots.currentAddress();
        for (int i = 0; i < slots.capacity(); i++) {
            ByteBuffer view = slots.current();
            assertThat(view.isDirect()).isTrue();
            assertThat(view.position()).isZero();
            assertThat(view.capacity()).isEqualTo(slotBytes);
            long address = slots.currentAddress();
            assertThat(address).isEqualTo(first + (long) i * slotBytes);
            // What the engine encodes into the view is at the address the socket's iovec is given.
            view.putInt(0, 0x5EED0000 + i);
            view.put(slotBytes - 1, (byte) i);
            MemorySegment at = MemorySegment.ofAddress(address).reinterpret(slotBytes);
            assertThat(Integer.reverseBytes(at.get(ValueLayout.JAVA_INT_UNALIGNED, 0))).isEqualTo(0x5EED0000 + i);
            assertThat(at.get(ValueLayout.JAVA_BYTE, slotBytes - 1)).isEqualTo((byte) i);
            assertThat(slots.take()).as("slot %d of %d is the last", i, slots.capacity())
                    .isEqualTo(i == slots.capacity() - 1);
            assertThat(slots.taken()).isEqualTo(i + 1);
        }
        slots.reset();
        assertThat(slots.taken()).isZero();
        assertThat(slots.currentAddress()).isEqualTo(first);
        assertThat(slots.current().getInt(0)).as("a reset frees the slots; their bytes stay until rewritten")
                .isEqualTo(0x5EED0000);
    }
}
