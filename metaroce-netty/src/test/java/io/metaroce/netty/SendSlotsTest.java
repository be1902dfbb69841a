package io.metaroce.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The endpoint's in-place send slots: sizes, addresses, the order they are taken in, their reset and packing. */
class SendSlotsTest {
    static {
        LeakRecorder.install(); // before anything touches Netty's buffers (see LeakRecorder)
    }

    @Test
    void theSlotCountIsBoundedByTheSlotLimitAndTheMemoryLimit() {
        assertThat(new SendSlots(4096).capacity()).as("one lane before a second socket is seen").isEqualTo(SendSlots.MAX_SLOTS);
        assertThat(new SendSlots(65_507).capacity())
                .isEqualTo((int) (SendSlots.MAX_TOTAL_BYTES / 65_507));
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
            assertThat(slots.take(slotBytes, 0)).as("slot %d of %d is the last", i, slots.capacity())
                    .isEqualTo(i == slots.capacity() - 1);
            assertThat(slots.taken()).isEqualTo(i + 1);
        }
        slots.reset();
        assertThat(slots.taken()).isZero();
        assertThat(slots.currentAddress()).isEqualTo(first);
        assertThat(slots.current().getInt(0)).as("a reset frees the slots; their bytes stay until rewritten")
                .isEqualTo(0x5EED0000);
    }
    @Test
    void aBulkLengthPacksTheSlotsSoItsDatagramsLieBackToBackAndALongerOneSpansSlots() {
        int slotBytes = 4096;
        int bulk = 2839;
        SendSlots slots = new SendSlots(slotBytes);
        // Bulk datagrams with a shorter last packet of a message now and then: the vote packs anyway.
        int sent = 0;
        while (slots.stride() == slotBytes) {
            assertThat(sent).as("packed within a few hundred datagrams").isLessThan(4 * SendSlots.PACK_AFTER_DATAGRAMS);
            int length = sent % 21 == 20 ? 1500 : bulk;
            if (slots.take(length, 0) || sent % 21 == 20) {
                slots.reset();
            }
            sent++;
        }
        slots.reset();
        assertThat(slots.stride()).isEqualTo(bulk);
        assertThat(sent).isGreaterThanOrEqualTo(SendSlots.PACK_AFTER_DATAGRAMS);
        long base = slots.currentAddress();
        for (int i = 0; i < 5; i++) {
            assertThat(slots.currentAddress()).as("datagram %d starts where the one before ends", i)
                    .isEqualTo(base + (long) i * bulk);
            assertThat(slots.current().capacity()).as("every slot holds the largest datagram").isEqualTo(slotBytes);
            slots.take(bulk, 0);
        }
        long longer = slots.currentAddress();
        slots.take(slotBytes, 0);
        assertThat(slots.currentAddress()).as("a datagram longer than the stride takes the slots it spans")
                .isEqualTo(longer + 2L * bulk);
        assertThat(slots.capacity()).as("the same memory, more slots").isEqualTo(
                (int) (((long) SendSlots.MAX_SLOTS * slotBytes - slotBytes) / bulk) + 1);
    }

    @Test
    void smallDatagramsAndAnEvenMixOfLengthsDoNotPack() {
        SendSlots slots = new SendSlots(4096);
        for (int i = 0; i < 20 * SendSlots.PACK_AFTER_DATAGRAMS; i++) {
            // ACK-sized datagrams do not vote; two bulk lengths in turn never lead.
            int length = i % 3 == 0 ? 100 : (i % 3 == 1 ? 2839 : 3963);
            if (slots.take(length, 0)) {
                slots.reset();
            }
            if (i % 20 == 0) {
                slots.reset();
            }
        }
        assertThat(slots.stride()).isEqualTo(4096);
        assertThat(slots.restrides()).isZero();
    }

    @Test
    void aStrideSeenBeforeReusesItsViews() {
        SendSlots slots = new SendSlots(4096);
        ByteBuffer[] first = new ByteBuffer[2];
        int[] lengths = {2839, 3963, 2839, 3963};
        for (int round = 0; round < lengths.length; round++) {
            int length = lengths[round];
            for (int i = 0; i < 3 * SendSlots.PACK_AFTER_DATAGRAMS; i++) {
                if (slots.take(length, 0)) {
                    slots.reset();
                }
            }
            slots.reset();
            assertThat(slots.stride()).isEqualTo(length);
            if (round < 2) {
                first[round] = slots.current();
            } else {
                assertThat(slots.current()).as("round %d: the views kept for stride %d", round, length)
                        .isSameAs(first[round - 2]);
            }
        }
        assertThat(slots.restrides()).isEqualTo(4);
        // The unpacked stride and three packed ones are kept; a fourth packed length is not packed
        // at (no views made again and again), while a kept one still is.
        for (int length : new int[] {2000, 2500, 2000}) {
            for (int i = 0; i < 3 * SendSlots.PACK_AFTER_DATAGRAMS; i++) {
                if (slots.take(length, 0)) {
                    slots.reset();
                }
            }
            slots.reset();
        }
        assertThat(slots.stride()).as("2500 found every kept set taken").isEqualTo(2000);
        for (int i = 0; i < 3 * SendSlots.PACK_AFTER_DATAGRAMS; i++) {
            if (slots.take(2839, 0)) {
                slots.reset();
            }
        }
        slots.reset();
        assertThat(slots.current()).isSameAs(first[0]);
    }

    /**
     * Whatever the lengths and resets: every datagram taken since a reset lies inside the memory
     * and apart from the others, at the address of its view, which holds the largest datagram.
     */
    @Test
    void noDatagramOverlapsAnotherTakenSinceTheLastResetWhateverTheLengths() {
        long seed = System.nanoTime();
        System.out.println("SendSlotsTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int run = 0; run < 40; run++) {
            int slotBytes = 200 + random.nextInt(9000);
            SendSlots slots = new SendSlots(slotBytes);
            long memoryStart = slots.currentAddress();
            long memoryEnd = memoryStart + (long) Math.max(1, Math.min(SendSlots.MAX_SLOTS,
                    SendSlots.MAX_TOTAL_BYTES / slotBytes)) * slotBytes;
            int bulk = 1 + random.nextInt(slotBytes);
            int sockets = 1 + random.nextInt(6);
            long[] starts = new long[8 * SendSlots.MAX_SLOTS];
            long[] ends = new long[starts.length];
            int taken = 0;
            for (int d = 0; d < 3000; d++) {
                int length = random.nextInt(4) == 0 ? 1 + random.nextInt(slotBytes) : bulk;
                long at = slots.currentAddress();
                ByteBuffer view = slots.current();
                assertThat(view.capacity()).as("seed %d run %d", seed, run).isEqualTo(slotBytes);
                assertThat(MemorySegment.ofBuffer(view).address()).as("seed %d run %d", seed, run).isEqualTo(at);
                assertThat(at).as("seed %d run %d", seed, run).isGreaterThanOrEqualTo(memoryStart);
                assertThat(at + slotBytes).as("seed %d run %d: the view inside the memory", seed, run)
                        .isLessThanOrEqualTo(memoryEnd);
                for (int k = 0; k < taken; k++) {
                    assertThat(at >= ends[k] || at + length <= starts[k])
                            .as("seed %d run %d datagram %d overlaps one taken before", seed, run, d).isTrue();
                }
                starts[taken] = at;
                ends[taken] = at + length;
                taken++;
                // Mostly a round robin over a few sockets, as the engine's over a connection's paths.
                int socket = random.nextInt(5) == 0 ? random.nextInt(9) : 1 + d % sockets;
                boolean full = slots.take(length, socket);
                if (full || random.nextInt(30) == 0) {
                    slots.reset();
                    taken = 0;
                }
            }
        }
    }
    @Test
    void eachOfFourPathsInARoundRobinFillsALaneOfItsOwnSoItsDatagramsLieBackToBack() {
        int slotBytes = 4096;
        int bulk = 2839;
        SendSlots slots = new SendSlots(slotBytes);
        int[] sockets = {1, 2, 3, 4}; // a client's path sockets (0 is the listen socket)
        for (int d = 0; d < 2 * SendSlots.PACK_AFTER_DATAGRAMS; d++) {
            if (slots.take(bulk, sockets[d % 4]) || d % 80 == 79) {
                slots.reset();
            }
        }
        slots.reset();
        assertThat(slots.stride()).isEqualTo(bulk);
        long[] last = new long[5];
        for (int d = 0; d < 4 * 20; d++) {
            int socket = sockets[d % 4];
            long at = slots.currentAddress();
            if (d >= 4) {
                assertThat(at).as("datagram %d of socket %d starts where that socket's last one ended", d, socket)
                        .isEqualTo(last[socket] + bulk);
            }
            last[socket] = at;
            assertThat(slots.take(bulk, socket)).as("20 datagrams a lane fit").isFalse();
        }
        assertThat(slots.taken()).isEqualTo(80);
    }

    /**
     * A round robin over {@code sockets} with datagrams of {@code length} bytes after the slots
     * settled (packed, lanes cut): returns {back-to-back, not back-to-back, datagrams per flush},
     * a socket's datagram counted back to back when it starts where that socket's last one ended.
     */
    private static long[] roundRobin(SendSlots slots, int[] sockets, int length) {
        for (int d = 0; d < 4 * SendSlots.MAX_SLOTS; d++) {
            if (slots.take(length, sockets[d % sockets.length])) {
                slots.reset();
            }
        }
        slots.reset();
        java.util.Map<Integer, Long> last = new java.util.HashMap<>();
        long backToBack = 0;
        long not = 0;
        long flushes = 0;
        int datagrams = 4 * SendSlots.MAX_SLOTS;
        for (int d = 0; d < datagrams; d++) {
            int socket = sockets[d % sockets.length];
            long at = slots.currentAddress();
            Long end = last.get(socket);
            if (end != null) {
                if (end == at) {
                    backToBack++;
                } else {
                    not++;
                }
            }
            last.put(socket, at + length);
            if (slots.take(length, socket)) {
                slots.reset();
                last.clear();
                flushes++;
            }
        }
        return new long[] {backToBack, not, flushes == 0 ? datagrams : datagrams / flushes};
    }

    @Test
    void socketsEqualModuloFourGetLanesOfTheirOwn() {
        for (int[] sockets : new int[][] {{0, 4}, {0, 4, 8, 12}, {1, 2, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7}}) {
            SendSlots slots = new SendSlots(4096);
            long[] r = roundRobin(slots, sockets, 4096);
            String what = java.util.Arrays.toString(sockets);
            assertThat(slots.lanes()).as("%s: a lane per socket", what).isEqualTo(sockets.length);
            assertThat(r[1]).as("%s: datagrams not back to back", what).isZero();
            assertThat(r[0]).as("%s: back to back", what).isPositive();
            assertThat(r[2]).as("%s: datagrams per flush, a full send batch per socket at least", what)
                    .isGreaterThanOrEqualTo((long) sockets.length * LinuxSocketLayer.SEND_BATCH);
        }
    }

    @Test
    void onePathHasAllTheMemoryAndNinePathsShareEightLanes() {
        SendSlots one = new SendSlots(4096);
        long[] r = roundRobin(one, new int[] {1}, 2839);
        assertThat(one.lanes()).isEqualTo(1);
        assertThat(r[1]).isZero();
        assertThat(r[2]).as("one path flushes when all the slots are taken").isGreaterThanOrEqualTo(SendSlots.MAX_SLOTS);
        SendSlots nine = new SendSlots(4096);
        roundRobin(nine, new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 4096);
        assertThat(nine.lanes()).isEqualTo(SendSlots.MAX_LANES);
    }

    @Test
    void largeDatagramsStillFillAFullSendBatchPerPathWhereTheMemoryAllows() {
        int slotBytes = 65_507;
        for (int[] sockets : new int[][] {{1}, {1, 2}}) {
            SendSlots slots = new SendSlots(slotBytes);
            long[] r = roundRobin(slots, sockets, 40_000);
            String what = java.util.Arrays.toString(sockets);
            assertThat(r[1]).as("%s: datagrams not back to back", what).isZero();
            assertThat(r[2]).as("%s: datagrams per flush", what)
                    .isGreaterThanOrEqualTo((long) sockets.length * LinuxSocketLayer.SEND_BATCH);
        }
        // Four paths of 64 KiB datagrams: the memory limit, not the lanes, bounds each path's run.
        SendSlots four = new SendSlots(slotBytes);
        long[] r = roundRobin(four, new int[] {1, 2, 3, 4}, slotBytes);
        assertThat(r[1]).isZero();
        assertThat(r[2]).isEqualTo(SendSlots.MAX_TOTAL_BYTES / slotBytes);
    }
}
