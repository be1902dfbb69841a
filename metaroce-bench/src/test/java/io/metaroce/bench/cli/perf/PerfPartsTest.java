package io.metaroce.bench.cli.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pieces of {@code metaroce perf} that need no network: patterns, control messages, layout, parsing, JSON. */
class PerfPartsTest {
    private static final long SEED = 0x7E57_5EEDL;

    @Test
    void aPatternMatchesItselfAndNoOtherKeyAndNeverAClearedBuffer() {
        SplittableRandom random = new SplittableRandom(SEED);
        Pattern pattern = new Pattern(random.nextLong());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(4096);
            for (int round = 0; round < 500; round++) {
                int length = 1 + random.nextInt(200);
                long offset = random.nextInt(64);
                long key = random.nextLong();
                String seed = "seed " + SEED + " round " + round;
                pattern.fill(m, offset, length, key);
                assertThat(pattern.matches(m, offset, length, key)).as(seed).isTrue();
                assertThat(pattern.matches(m, offset, length, key ^ 1)).as(seed).isFalse();
                assertThat(new Pattern(pattern.seed() + 1).matches(m, offset, length, key)).as(seed).isFalse();
                // One wrong byte anywhere is caught.
                long at = offset + random.nextInt(length);
                m.set(ValueLayout.JAVA_BYTE, at, (byte) (m.get(ValueLayout.JAVA_BYTE, at) ^ (1 << random.nextInt(8))));
                assertThat(pattern.matches(m, offset, length, key)).as(seed).isFalse();
                Pattern.poison(m, offset, length);
                assertThat(pattern.matches(m, offset, length, key)).as(seed).isFalse();
            }
        }
    }

    @Test
    void aPatternIsTheSameWhateverItsLengthAndAWrongByteAroundAChunkBoundaryIsCaught() {
        // fill and matches work in chunks of words: lengths around the chunk size (4 KiB) and its
        // multiples, at unaligned offsets, must give the prefix of one sequence and catch any byte.
        SplittableRandom random = new SplittableRandom(SEED);
        Pattern pattern = new Pattern(random.nextLong());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment longest = arena.allocate(3 * 4096 + 64);
            MemorySegment m = arena.allocate(3 * 4096 + 64);
            long key = random.nextLong();
            pattern.fill(longest, 0, 3 * 4096 + 7, key);
            for (int length : new int[] {4095, 4096, 4097, 4103, 8191, 8192, 8200, 12288, 12295}) {
                long offset = 1 + random.nextInt(31);
                String seed = "seed " + SEED + " length " + length;
                pattern.fill(m, offset, length, key);
                int words = length >>> 3;
                assertThat(m.asSlice(offset, 8L * words).mismatch(longest.asSlice(0, 8L * words))).as(seed).isEqualTo(-1);
                assertThat(pattern.matches(m, offset, length, key)).as(seed).isTrue();
                for (long at : new long[] {offset + 4095, offset + 4096, offset + length - 1, offset}) {
                    if (at >= offset + length) {
                        continue;
                    }
                    byte b = m.get(ValueLayout.JAVA_BYTE, at);
                    m.set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ 0x40));
                    assertThat(pattern.matches(m, offset, length, key)).as(seed + " byte " + at).isFalse();
                    m.set(ValueLayout.JAVA_BYTE, at, b);
                }
            }
        }
    }

    @Test
    void everyWordOfAPatternDiffersSoAPacketPlacedAtTheWrongOffsetIsCaught() {
        SplittableRandom random = new SplittableRandom(SEED);
        Pattern pattern = new Pattern(random.nextLong());
        int length = 1 << 20;
        int packet = 4056;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(length);
            long key = random.nextLong();
            pattern.fill(m, 0, length, key);
            java.util.Set<Long> words = new java.util.HashSet<>();
            for (long at = 0; at < length; at += 8) {
                words.add(m.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
            }
            assertThat(words).as("seed " + SEED).hasSize(length / 8);
            for (int round = 0; round < 50; round++) {
                pattern.fill(m, 0, length, key);
                long from = (long) random.nextInt(length / packet) * packet;
                long to = (long) random.nextInt(length / packet) * packet;
                if (from == to) {
                    continue;
                }
                MemorySegment.copy(m, from, m, to, packet); // a packet placed at another packet's offset
                assertThat(pattern.matches(m, 0, length, key)).as("seed %d round %d", SEED, round).isFalse();
            }
        }
    }

    @Test
    void theEndsOfAPatternAreFillsBytesAndTheirCheckCatchesAWrongEndButNotAWrongMiddle() {
        // A sampled check (perf --full-check-every N) writes and checks only a message's ends: the
        // same bytes fill writes there, the middle left as it was; a wrong key, a wrong end byte or
        // a message at a wrong offset fails; a wrong middle byte passes (only a full check sees it).
        SplittableRandom random = new SplittableRandom(SEED);
        Pattern pattern = new Pattern(random.nextLong());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment full = arena.allocate(9000);
            MemorySegment ends = arena.allocate(9000);
            for (int round = 0; round < 400; round++) {
                int length = 1 + random.nextInt(round < 100 ? 40 : 8200);
                long offset = random.nextInt(64);
                long key = random.nextLong();
                String seed = "seed " + SEED + " round " + round + " length " + length;
                pattern.fill(full, offset, length, key);
                ends.fill((byte) 0);
                pattern.fillEnds(ends, offset, length, key);
                int words = length >>> 3;
                boolean wholeMessage = length < Pattern.ENDS_MIN_LENGTH;
                for (int i = 0; i < length; i++) {
                    boolean atEnds = wholeMessage || i < 8 || i >= 8 * (words - 1);
                    byte want = atEnds ? full.get(ValueLayout.JAVA_BYTE, offset + i) : 0;
                    assertThat(ends.get(ValueLayout.JAVA_BYTE, offset + i)).as(seed + " byte " + i).isEqualTo(want);
                }
                assertThat(pattern.endsMatch(ends, offset, length, key)).as(seed).isTrue();
                assertThat(pattern.endsMatch(full, offset, length, key)).as(seed).isTrue();
                assertThat(pattern.endsMatch(ends, offset, length, key ^ 1)).as(seed).isFalse();
                if (length >= Pattern.ENDS_MIN_LENGTH) {
                    // A message of the same key starting a word later (a wrong placement) fails.
                    assertThat(pattern.endsMatch(full, offset + 8, length - 8, key)).as(seed).isFalse();
                }
                int endByte = wholeMessage || random.nextBoolean() ? random.nextInt(Math.min(8, length))
                        : 8 * (words - 1) + random.nextInt(length - 8 * (words - 1));
                flip(ends, offset + endByte, random);
                assertThat(pattern.endsMatch(ends, offset, length, key)).as(seed + " end byte " + endByte).isFalse();
                if (words > 2) {
                    long middle = offset + 8 + random.nextInt(8 * (words - 2));
                    flip(full, middle, random);
                    assertThat(pattern.endsMatch(full, offset, length, key)).as(seed).isTrue();
                    assertThat(pattern.matches(full, offset, length, key)).as(seed).isFalse();
                }
            }
        }
    }

    @Test
    void onlyRunsWhoseReceivesAreCheckedCanBeSampled() {
        // A latency run (the echo) and READ check every byte whatever --full-check-every says, so
        // neither claims a sampled check; SEND, WRITE_WITH_IMM and mixed consume receives and do.
        for (Op op : Op.values()) {
            RunParams bandwidth = new RunParams(op, 8192, 4, 1, 32, 1, 0, false, 1, 64);
            assertThat(bandwidth.sampled()).as(op.name()).isEqualTo(op != Op.read);
            assertThat(bandwidth.describe().contains("sampled")).as(op.name()).isEqualTo(op != Op.read);
            RunParams latency = new RunParams(op, 8192, 1, 1, 1, 1, 0, true, 1, 64);
            assertThat(latency.sampled()).as(op.name()).isFalse();
            assertThat(latency.describe()).as(op.name()).doesNotContain("sampled");
        }
    }

    @Test
    void aSampledRunRefusesAServerThatDoesNotAnnounceTheSampledCheck() {
        RunParams sampled = new RunParams(Op.send, 8192, 4, 1, 32, 1, 0, false, 1, 64);
        RunParams every = new RunParams(Op.send, 8192, 4, 1, 32, 1, 0, false, 1);
        RunParams read = new RunParams(Op.read, 8192, 4, 1, 32, 1, 0, false, 1, 64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(ControlMessage.BYTES);
            ControlMessage.ready(7, 1 << 20, 64).encode(m, 0);
            ControlMessage current = ControlMessage.decode(m, 0, ControlMessage.BYTES);
            assertThat(current.sampledCheckProblem(sampled)).isNull();
            // A server from before the sampled check answers READY with two values.
            new ControlMessage(ControlMessage.READY, new long[] {7, 1 << 20}, "").encode(m, 0);
            ControlMessage old = ControlMessage.decode(m, 0, ControlMessage.BYTES);
            assertThat(old.sampledCheckProblem(sampled)).contains("--full-check-every 64", "older", "this version");
            assertThat(old.sampledCheckProblem(every)).isNull();
            assertThat(old.sampledCheckProblem(read)).isNull();
            assertThat(ControlMessage.ready(7, 1 << 20, 16).sampledCheckProblem(sampled)).contains("announced 16");
        }
    }

    @Test
    void aSampledCheckTakesEveryNthMessageInFullAndTravelsWithTheParameters() {
        RunParams every = new RunParams(Op.send, 8192, 4, 1, 32, 1, 0, false, 1);
        RunParams sampled = new RunParams(Op.send, 8192, 4, 1, 32, 1, 0, false, 1, 16);
        assertThat(every.fullCheckEvery()).isEqualTo(1);
        assertThat(every.sampled()).isFalse();
        assertThat(sampled.sampled()).isTrue();
        for (long sequence = 0; sequence < 100; sequence++) {
            assertThat(every.checksInFull(sequence)).isTrue();
            assertThat(sampled.checksInFull(sequence)).as("message " + sequence).isEqualTo(sequence % 16 == 0);
        }
        assertThat(sampled.describe()).contains("sampled check (1 message in 16 checked in full");
        assertThat(every.describe()).doesNotContain("sampled");
        assertThat(new RunParams(Op.send, 8192, 4, 1, 32, 1, 0, false, 1, 0).problem()).contains("--full-check-every");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(ControlMessage.BYTES);
            ControlMessage.params(sampled).encode(m, 0);
            assertThat(ControlMessage.decode(m, 0, ControlMessage.BYTES).toParams()).isEqualTo(sampled);
            // A client that sends the nine values of before: every byte checked.
            new ControlMessage(ControlMessage.PARAMS, new long[] {Op.send.ordinal(), 8192, 4, 1, 32, 1, 0, 0, 1}, "")
                    .encode(m, 0);
            assertThat(ControlMessage.decode(m, 0, ControlMessage.BYTES).toParams()).isEqualTo(every);
        }
    }

    private static void flip(MemorySegment m, long at, SplittableRandom random) {
        m.set(ValueLayout.JAVA_BYTE, at, (byte) (m.get(ValueLayout.JAVA_BYTE, at) ^ (1 << random.nextInt(8))));
    }

    @Test
    void keysOfDifferentKindsAndMessagesDiffer() {
        assertThat(List.of(Pattern.receivedKey(1, 0), Pattern.receivedKey(2, 0), Pattern.receivedKey(1, 1),
                Pattern.readAreaKey(0), Pattern.readAreaKey(1), Pattern.writeAreaKey(0, 0), Pattern.writeAreaKey(0, 1),
                Pattern.pingKey(0), Pattern.pingKey(1))).doesNotHaveDuplicates();
    }

    @Test
    void controlMessagesSurviveTheirEncoding() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(ControlMessage.BYTES * 2L);
            RunParams p = new RunParams(Op.read, 4096, 7, 3, 9, 1_500_000_000L, 250_000_000L, false, -42);
            ControlMessage.params(p).encode(m, ControlMessage.BYTES);
            assertThat(ControlMessage.decode(m, ControlMessage.BYTES, ControlMessage.BYTES).toParams()).isEqualTo(p);

            ServerResult r = new ServerResult(10, 1, 2, 3, 4, "bytes differ: \"SEND\" 5 on stream 1 ✓");
            ControlMessage.result(r).encode(m, 0);
            assertThat(ControlMessage.decode(m, 0, ControlMessage.BYTES).toResult()).isEqualTo(r);

            ControlMessage.refused("x".repeat(500)).encode(m, 0);
            assertThat(ControlMessage.decode(m, 0, ControlMessage.BYTES).text()).hasSizeLessThan(ControlMessage.BYTES)
                    .startsWith("xxx");
        }
    }

    @Test
    void aForeignMessageIsRejectedWithAReason() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(ControlMessage.BYTES);
            assertThatThrownBy(() -> ControlMessage.decode(m, 0, ControlMessage.BYTES))
                    .hasMessageContaining("not a metaroce perf control message");
            assertThatThrownBy(() -> ControlMessage.decode(m, 0, 17)).hasMessageContaining("same version");
            ControlMessage.done(5).encode(m, 0);
            assertThatThrownBy(() -> ControlMessage.decode(m, 0, ControlMessage.BYTES).toParams())
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theServerLayoutKeepsItsAreasApartAndInsideTheRegion() {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 300; round++) {
            Op op = Op.values()[random.nextInt(Op.values().length)];
            boolean lat = random.nextInt(5) == 0;
            RunParams p = new RunParams(op, 1 + random.nextInt(9000), 1 + random.nextInt(16), 1, 1 + random.nextInt(64),
                    1, 0, lat, 1);
            ServerLayout l = ServerLayout.of(p);
            String seed = "seed " + SEED + " round " + round + " " + p;
            int size = p.size();
            // Every buffer the run may touch, as [start, end): no two overlap, all inside the region.
            List<long[]> buffers = new java.util.ArrayList<>();
            if (lat) {
                for (int i = 0; i < ServerLayout.ECHO_BUFFERS; i++) {
                    buffers.add(new long[] {l.echoOffset(i), l.echoOffset(i) + size});
                }
            } else {
                if (op.consumesReceives()) {
                    for (int s = 1; s <= p.streams(); s++) {
                        for (int q = 0; q < l.ring(); q++) {
                            buffers.add(new long[] {l.receiveOffset(s, q), l.receiveOffset(s, q) + size});
                        }
                    }
                    assertThat(l.receiveOffset(1, l.ring())).as(seed).isEqualTo(l.receiveOffset(1, 0));
                }
                for (int slot = 0; slot < p.depth(); slot++) {
                    if (op == Op.mixed) {
                        buffers.add(new long[] {l.writeOffset(slot), l.writeOffset(slot) + size});
                    }
                    if (op.readsServerMemory()) {
                        buffers.add(new long[] {l.readOffset(slot), l.readOffset(slot) + size});
                    }
                }
            }
            buffers.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int i = 0; i < buffers.size(); i++) {
                assertThat(buffers.get(i)[0]).as(seed).isNotNegative();
                assertThat(buffers.get(i)[1]).as(seed).isLessThanOrEqualTo(l.regionBytes());
                if (i > 0) {
                    assertThat(buffers.get(i)[0]).as(seed).isGreaterThanOrEqualTo(buffers.get(i - 1)[1]);
                }
            }
            assertThat(l.ring()).as(seed).isGreaterThanOrEqualTo(2 * l.perStream());
            if (p.problem() == null && op.consumesReceives() && !lat) {
                assertThat(l.postedReceives()).as(seed).isLessThanOrEqualTo(ServerLayout.MAX_POSTED_RECEIVES);
            }
        }
    }

    @Test
    void addressesParseWithAndWithoutPorts() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        assertThat(HostPort.parse("127.0.0.1", 7)).isEqualTo(new InetSocketAddress(loopback, 7));
        assertThat(HostPort.parse("127.0.0.1:0", 7)).isEqualTo(new InetSocketAddress(loopback, 0));
        assertThat(HostPort.parse("[::1]:9000", 7).getPort()).isEqualTo(9000);
        assertThat(HostPort.parse("::1", 7)).isEqualTo(new InetSocketAddress(HostPort.address("::1"), 7));
        assertThatThrownBy(() -> HostPort.parse("127.0.0.1:x", 7)).hasMessageContaining("port must be");
        assertThatThrownBy(() -> HostPort.parse("127.0.0.1:70000", 7)).hasMessageContaining("port must be");
        assertThatThrownBy(() -> HostPort.parse("[::1", 7)).hasMessageContaining("']'");
        assertThatThrownBy(() -> HostPort.parse(":80", 7)).hasMessageContaining("no address");
        assertThat(PerfClient.address(new InetSocketAddress(HostPort.address("::1"), 5))).isEqualTo("[0:0:0:0:0:0:0:1]:5");
    }

    @Test
    void theClientBindsTheAddressFamilyAndScopeOfItsServer() {
        assertThat(PerfClientCommand.defaultBind(HostPort.address("127.0.0.1"))).isEqualTo(HostPort.address("127.0.0.1"));
        assertThat(PerfClientCommand.defaultBind(HostPort.address("::1"))).isEqualTo(HostPort.address("::1"));
        assertThat(PerfClientCommand.defaultBind(HostPort.address("192.0.2.7")).isAnyLocalAddress()).isTrue();
        assertThat(PerfClientCommand.defaultBind(HostPort.address("2001:db8::7")))
                .isEqualTo(HostPort.address("::")).isInstanceOf(java.net.Inet6Address.class);
    }

    @Test
    void theJsonHasTheFieldsEscapesStringsAndNullsNonFiniteNumbers() {
        RunParams p = new RunParams(Op.send, 64, 1, 2, 1, 1_000_000_000L, 0, true, 1);
        PerfReport r = new PerfReport(p, 1.0, Double.NaN, 1234.5, 10, new long[MessageKind.values().length], 640, 1,
                0, 0, 2, 0, 0, 0, null, List.of(new PathRow(0, 4000, 5, 600, 12.25, 0, "est\"ab\\lished\n")),
                new LatencyPercentiles(10.5, 20, 30, 9), "linux", "fixed");
        String json = PerfJson.of(r);
        assertThat(json).contains("\"op\": \"lat\"", "\"size\": 64", "\"streams\": 1", "\"paths\": 2",
                "\"duration_s\": 1,", "\"goodput_gbps\": null", "\"messages_per_s\": 1234.5", "\"retransmits\": 3",
                "\"verified\": true", "\"errors\": 0", "\"datapath\": \"linux\"", "\"congestion_control\": \"fixed\"", "\"latency_us\": {\"p50\": 10.5, \"p99\": 20, \"p999\": 30}",
                "{\"path\": 0, \"src_port\": 4000, \"packets\": 5, \"bytes\": 600, \"srtt_us\": 12.25, "
                        + "\"ecn_fraction\": 0, \"state\": \"est\\\"ab\\\\lished\\n\"}");
        assertThat(io.metaroce.bench.cli.JsonText.quote("a\u0001b")).isEqualTo("\"a\\u0001b\"");
        assertThat(PerfJson.number(Double.POSITIVE_INFINITY)).isEqualTo("null");
        assertThat(PerfJson.number(1e-7)).isEqualTo("0");
        // Balanced braces and brackets, outside strings.
        String bare = json.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"");
        assertThat(bare.chars().filter(c -> c == '{').count()).isEqualTo(bare.chars().filter(c -> c == '}').count());
        assertThat(bare.chars().filter(c -> c == '[').count()).isEqualTo(bare.chars().filter(c -> c == ']').count());
        assertThat(bare).doesNotContain(",\n}").doesNotContain(",\n  ]");
    }

    @Test
    void runParametersOutOfRangeAreNamed() {
        RunParams ok = new RunParams(Op.send, 8192, 4, 4, 32, 1, 0, false, 1);
        assertThat(ok.problem()).isNull();
        assertThat(new RunParams(Op.send, 0, 4, 4, 32, 1, 0, false, 1).problem()).contains("--size");
        assertThat(new RunParams(Op.send, 8192, 0, 4, 32, 1, 0, false, 1).problem()).contains("--streams");
        assertThat(new RunParams(Op.send, 8192, 4, 65, 32, 1, 0, false, 1).problem()).contains("--paths");
        assertThat(new RunParams(Op.send, 8192, 4, 4, 0, 1, 0, false, 1).problem()).contains("--depth");
        assertThat(new RunParams(Op.send, 8192, 4, 4, 32, 0, 0, false, 1).problem()).contains("--duration");
        assertThat(new RunParams(Op.send, 16 << 20, 1024, 4, 4096, 1, 0, false, 1).problem()).contains("1 GiB");
        // The largest stream and depth counts fit the engine's limit of posted receives (with shallow rings).
        RunParams widest = new RunParams(Op.send, 64, RunParams.MAX_STREAMS, 4, RunParams.MAX_DEPTH, 1, 0, false, 1);
        assertThat(widest.problem()).isNull();
        assertThat(ServerLayout.of(widest).postedReceives()).isEqualTo(ServerLayout.MAX_POSTED_RECEIVES);
        // Small runs get deep rings: 16 times the messages a stream has in flight.
        assertThat(ServerLayout.of(ok).ring()).isEqualTo(16 * ServerLayout.of(ok).perStream());
    }

    @Test
    void aRestartedCpuMeterCountsOnlyTheJitTimeSinceTheRestart() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        assertThat(jit.isCompilationTimeMonitoringSupported()).isTrue();
        // The JVM has compiled for a while before the meter exists: that time must not show after a restart.
        assertThat(jit.getTotalCompilationTime()).as("JIT time before the meter").isPositive();
        CpuMeter meter = new CpuMeter();
        long totalAtRestart = jit.getTotalCompilationTime();
        meter.start();
        long counted = meter.jitMillis();
        long totalNow = jit.getTotalCompilationTime();
        assertThat(counted).isNotNegative().isLessThanOrEqualTo(totalNow - totalAtRestart);
    }

    @Test
    void theCpuMeterCountsTheCpuSpentSinceItsStartAndPerMessage() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        CpuMeter meter = new CpuMeter();
        long threadStart = threads.getCurrentThreadCpuTime();
        long spent = 0;
        long sink = 0;
        while (spent < 30_000_000L) { // 30 ms of this thread's CPU, however long the scheduler makes it take
            for (int i = 0; i < 100_000; i++) {
                sink += i * 31L ^ sink;
            }
            spent = threads.getCurrentThreadCpuTime() - threadStart;
        }
        assertThat(sink).isNotEqualTo(1); // keeps the loop
        long cpu = meter.cpuNanos();
        assertThat(cpu).as("process CPU since the start").isGreaterThanOrEqualTo(spent - 10_000_000L);
        assertThat(meter.jitMillis()).isNotNegative();
        String line = meter.line(1000);
        assertThat(line).matches("cpu: [0-9]+\\.[0-9]{2} s of the process over the measured part, [0-9]+\\.[0-9]{2} us per "
                + "message; JIT [0-9]+ ms");
        double perMessage = Double.parseDouble(line.replaceAll(".*part, ([0-9.]+) us per message.*", "$1"));
        assertThat(perMessage).as(line).isGreaterThanOrEqualTo((spent - 10_000_000L) / 1e3 / 1000);

        meter.start(); // a restart forgets what came before
        assertThat(meter.cpuNanos()).isLessThan(cpu);
    }
}
