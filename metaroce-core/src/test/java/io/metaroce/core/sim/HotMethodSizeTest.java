package io.metaroce.core.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.attribute.CodeAttribute;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The methods the simulator's event loop calls on every hop or every controller question stay
 * small enough for HotSpot's C2 to inline them where they are hot: C2 does not inline a hot
 * callee of more than {@code FreqInlineSize} (325) bytes of bytecode, and then every call costs
 * a call and, after it, fresh reads of the caller's fields. {@code AimdController.ensure} (347
 * bytes, called by every question the next-timeout query asks) and {@code Network.enqueue} (415
 * bytes, every hop at a switch) were over it; see docs/benchmarks.md, "Simulator speed round
 * (session 10)". This test keeps them, and the other per-event methods found inlined, under it.
 */
class HotMethodSizeTest {
    /** C2's default {@code -XX:FreqInlineSize} on x86-64 and AArch64. */
    private static final int FREQ_INLINE_SIZE = 325;
    /** Bytecode of a hop's enqueue chain, callees it inlines included (see the test). */
    private static final int ENQUEUE_CHAIN_BUDGET = 850;

    private record Hot(String className, String method) {
    }

    private static final List<Hot> HOT = List.of(
            new Hot("io.metaroce.core.cc.AimdController", "ensure"),
            new Hot("io.metaroce.core.cc.AimdController", "sendAllowanceBytes"),
            new Hot("io.metaroce.core.cc.AimdController", "nextSendTimeNanos"),
            new Hot("io.metaroce.core.conn.Sender", "nextPacedSendNanos"),
            new Hot("io.metaroce.core.conn.Connection", "pacedSendNanos"),
            new Hot("io.metaroce.core.sim.fabric.Network", "enqueue"),
            new Hot("io.metaroce.core.sim.fabric.Network", "arrive"),
            new Hot("io.metaroce.core.sim.fabric.Network", "drain"),
            new Hot("io.metaroce.core.sim.fabric.Network", "pushRing"),
            new Hot("io.metaroce.core.sim.EventQueue", "push"),
            new Hot("io.metaroce.core.sim.EventQueue", "pop"),
            new Hot("io.metaroce.core.sim.EventQueue", "poll"));

    @Test
    void theEventLoopsPerHopAndPerQuestionMethodsStayUnderTheHotInliningLimit() throws IOException {
        for (Hot hot : HOT) {
            int size = largestCodeLength(hot);
            assertTrue(size > 0, hot.className() + "." + hot.method() + " not found (renamed?): update this list");
            assertTrue(size <= FREQ_INLINE_SIZE, hot.className() + "." + hot.method() + " has " + size
                    + " bytes of bytecode, over C2's hot inlining limit of " + FREQ_INLINE_SIZE
                    + ": move its rare branches into methods of their own");
        }
    }

    /**
     * A hop's enqueue inlines its port's drain, the ring push and the event push. Even under
     * {@code FreqInlineSize}, {@code enqueue} was still refused at some call sites as "already
     * compiled into a big method": when it compiles on its own before its callers, its machine
     * code, with those callees inlined, was over C2's {@code InlineSmallCode} (2,500 bytes on
     * x86-64), so whether a hop made a call depended on the compile order. Their rare parts (the
     * walk of a partly left ring, the ring's and the node array's growth) are therefore methods
     * of their own, and the common path's bytecode, summed over the chain, stays under a budget
     * (about 1,130 bytes when the rare parts were inline, about 810 without them; see
     * docs/benchmarks.md, "Simulator speed round (session 11)").
     */
    @Test
    void aHopsEnqueueChainKeepsItsRarePartsOutOfLine() throws IOException {
        List<Hot> chain = List.of(
                new Hot("io.metaroce.core.sim.fabric.Network", "enqueue"),
                new Hot("io.metaroce.core.sim.fabric.Network", "drain"),
                new Hot("io.metaroce.core.sim.fabric.Network", "pushRing"),
                new Hot("io.metaroce.core.sim.EventQueue", "push"),
                new Hot("io.metaroce.core.sim.EventQueue", "newNode"),
                new Hot("io.metaroce.core.sim.fabric.PacketPool", "length"),
                new Hot("io.metaroce.core.sim.fabric.PacketPool", "ecn"));
        int total = 0;
        for (Hot hot : chain) {
            int size = largestCodeLength(hot);
            assertTrue(size > 0, hot.className() + "." + hot.method() + " not found (renamed?): update this list");
            total += size;
        }
        assertTrue(total <= ENQUEUE_CHAIN_BUDGET, "a hop's enqueue chain has " + total
                + " bytes of bytecode, over its budget of " + ENQUEUE_CHAIN_BUDGET
                + ": keep rare branches (ring walks, growth, drops) in methods of their own");
        for (String rare : List.of("drainLeft", "growRing")) {
            assertTrue(largestCodeLength(new Hot("io.metaroce.core.sim.fabric.Network", rare)) > 0,
                    "Network." + rare + " (a rare part of the enqueue chain) is no longer out of line");
        }
        assertTrue(largestCodeLength(new Hot("io.metaroce.core.sim.EventQueue", "growNodes")) > 0,
                "EventQueue.growNodes is no longer out of line");
    }

    /**
     * The engine's DATA receive path: {@code PacketCodec.decodeData} was 338 bytes until its
     * field checks became one test with the one-by-one checks out of line ({@code dataFieldError});
     * under the limit C2 inlines it into {@code decode}, which saves a call with its argument
     * shuffling and field reloads on every DATA packet received; see docs/benchmarks.md, "Engine
     * pair round (session 13)".
     */
    @Test
    void theDataDecodeStaysUnderTheHotInliningLimit() throws IOException {
        Hot hot = new Hot("io.metaroce.core.wire.PacketCodec", "decodeData");
        int size = largestCodeLength(hot);
        assertTrue(size > 0, hot.className() + "." + hot.method() + " not found (renamed?): update this test");
        assertTrue(size <= FREQ_INLINE_SIZE, hot.className() + "." + hot.method() + " has " + size
                + " bytes of bytecode, over C2's hot inlining limit of " + FREQ_INLINE_SIZE
                + ": it runs for every DATA packet received; keep its rare branches in methods of their own");
    }

    /**
     * The endpoint's receive ({@code Endpoint.handleDatagram}) is inlined into a driver's loop only
     * when its own compiled code, compiled first, is under C2's {@code InlineSmallCode} (2,500
     * bytes on x86-64): over it, every datagram costs a call ("already compiled into a big
     * method"). In the 64-byte ping-pong it was 5,120 bytes with the ready marks in the dispatch,
     * inlined once for each part of a bundled datagram, and is 2,648 (inlined) with the mark at the
     * start of {@code Connection.handlePacket}, the dispatch's callee, out of line anyway; see
     * docs/benchmarks.md, "Ping-pong inlining round (session 17)". A compiled size is not in the
     * class file: the call sites that made it are what this checks, and the timeout poll's one
     * dirty-set search site (its compiled code 4,776 → 4,048 bytes with the heap's sift skip).
     */
    @Test
    void theEndpointsReceiveMarksInTheConnectionAndTheTimeoutPollSearchesOnce() throws IOException {
        Hot receive = new Hot("io.metaroce.core.conn.Endpoint", "handleDatagram");
        Hot dispatch = new Hot("io.metaroce.core.conn.Endpoint", "dispatch");
        for (Hot hot : List.of(receive, dispatch)) {
            int size = largestCodeLength(hot);
            assertTrue(size > 0 && size <= FREQ_INLINE_SIZE, hot.className() + "." + hot.method() + " has " + size
                    + " bytes of bytecode (not found, or over C2's hot inlining limit)");
        }
        assertEquals(0, callSites(dispatch, "scheduleChanged"),
                "Endpoint.dispatch marks nothing itself: Connection.handlePacket marks its connection");
        assertEquals(1, callSites(new Hot("io.metaroce.core.conn.Connection", "handlePacket"), "scheduleChanged"),
                "Connection.handlePacket marks its connection changed (the mark dispatch no longer makes)");
        assertEquals(1, callSites(new Hot("io.metaroce.core.conn.Endpoint", "pollTimeoutNanos"), "next"),
                "Endpoint.pollTimeoutNanos: one dirty-set search site");
    }

    @Test
    void theMeasureSeesAMethodOverTheLimit() throws IOException {
        // The growth that ensure hands off is itself over the limit: the measure can fail.
        assertTrue(largestCodeLength(new Hot("io.metaroce.core.cc.AimdController", "see")) > FREQ_INLINE_SIZE);
        assertEquals(-1, largestCodeLength(new Hot("io.metaroce.core.cc.AimdController", "noSuchMethod")));
    }

    /** Call sites of methods named {@code callee} in every overload of the method; -1 if there is none. */
    private static int callSites(Hot hot, String callee) throws IOException {
        int sites = -1;
        for (MethodModel m : parse(hot).methods()) {
            if (!m.methodName().equalsString(hot.method())) {
                continue;
            }
            sites = Math.max(sites, 0);
            for (var element : m) {
                if (element instanceof CodeModel code) {
                    for (var e : code) {
                        if (e instanceof InvokeInstruction invoke && invoke.name().equalsString(callee)) {
                            sites++;
                        }
                    }
                }
            }
        }
        return sites;
    }

    private static ClassModel parse(Hot hot) throws IOException {
        String resource = "/" + hot.className().replace('.', '/') + ".class";
        byte[] bytes;
        try (InputStream in = HotMethodSizeTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("class file " + resource + " not on the test class path");
            }
            bytes = in.readAllBytes();
        }
        return ClassFile.of().parse(bytes);
    }

    /** The bytecode length of the method's largest overload, or -1 if the class has no such method. */
    private static int largestCodeLength(Hot hot) throws IOException {
        ClassModel model = parse(hot);
        int largest = -1;
        for (MethodModel m : model.methods()) {
            if (!m.methodName().equalsString(hot.method())) {
                continue;
            }
            for (var element : m) {
                if (element instanceof CodeModel code && code instanceof CodeAttribute attribute) {
                    largest = Math.max(largest, attribute.codeLength());
                }
            }
        }
        return largest;
    }
}
