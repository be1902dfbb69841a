package io.metaroce.bench.cli;

import io.metaroce.core.sim.fabric.BufferPreset;
import io.metaroce.core.sim.scenario.FabricSpeed;
import io.metaroce.core.sim.scenario.LossScenario;
import io.metaroce.core.sim.scenario.PermutationScenario;
import io.metaroce.core.sim.scenario.PlaneScalingScenario;
import io.metaroce.core.sim.scenario.ScenarioResult;
import io.metaroce.core.sim.scenario.Scenarios;
import io.metaroce.core.sim.scenario.SimParameters;
import io.metaroce.core.sim.scenario.TopologyKind;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code metaroce sim SCENARIO}: runs a scenario of the deterministic fabric simulator
 * ({@code io.metaroce.core.sim}) for each chosen protocol, prints a table per run, and optionally
 * writes JSON and a PNG chart. The simulator is deterministic: the same options give the same
 * figures (only the wall-clock speed varies). Wall time is measured here, around each run.
 */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = {"Runs a scenario in the deterministic fabric simulator, driving the real engine.",
                "Scenarios: incast, loss, failover, permutation, multiplane, planes (docs/simulator.md",
                "defines the metrics); 'speed' runs protocol-free traffic to time the simulator.",
                "The same options give the same figures; only the wall-clock speed varies."})
public final class SimCommand implements Callable<Integer> {
    /** Planes: connections in total by default (the announcement's "up to 4,000 concurrent connections"). */
    static final int DEFAULT_PLANE_CONNECTIONS = 4_000;
    /** Planes: the fat-tree arity by default (16 hosts, so 250 connections per host at the default count). */
    static final int PLANE_K = 4;
    /** Planes: measured virtual time per plane count by default. */
    static final long PLANE_DURATION_MICROS = 500;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SCENARIO",
            description = "incast, loss, failover, permutation, multiplane, planes or speed.")
    String scenario;

    @Option(names = "--senders", description = "Incast senders (default 64); flows of loss, failover and multiplane (default 8).")
    Integer senders;

    @Option(names = "--connections", description = "Planes: connections in total, dealt out over the hosts"
            + " (default " + DEFAULT_PLANE_CONNECTIONS + ").")
    Integer connections;

    @Option(names = "--loss", description = "Loss probability on every link, loss scenario (default ${DEFAULT-VALUE}).",
            defaultValue = "0.01")
    double loss;

    @Option(names = "--topology", description = "fat-tree, leaf-spine or multiplane (default: multiplane for the"
            + " multiplane and planes scenarios, which need it, fat-tree otherwise).")
    String topology;

    @Option(names = "--k", description = "Fat-tree arity; leaf-spine: k leaves of k/2 hosts, k/2 spines (default 8;"
            + " planes: " + PLANE_K + ").")
    Integer k;

    @Option(names = "--planes", split = ",", paramLabel = "N[,N...]", description = "Planes of the multiplane topology"
            + " (default 4 there, else 1); planes: the increasing plane counts to sweep (default 2,4,8).")
    List<Integer> planes;

    @Option(names = "--buffer", description = "shallow or deep switch buffers (default ${DEFAULT-VALUE}).",
            defaultValue = "shallow")
    String buffer;

    @Option(names = "--link-gbps", description = "Rate of every link in Gbit/s (default ${DEFAULT-VALUE}).",
            defaultValue = "100")
    double linkGbps;

    @Option(names = "--link-delay-ns", description = "Propagation delay of every link (default ${DEFAULT-VALUE}).",
            defaultValue = "500")
    long linkDelayNanos;

    @Option(names = "--seed", description = "Seed (default ${DEFAULT-VALUE}).", defaultValue = "1")
    long seed;

    @Option(names = "--protocol", description = "metaroce, rocev2 or both (default ${DEFAULT-VALUE}).", defaultValue = "both")
    String protocol;

    @Option(names = "--duration-us", description = "Measured virtual time in microseconds (default 5000; planes: "
            + PLANE_DURATION_MICROS + " per plane count).")
    Long durationMicros;

    @Option(names = "--paths", description = "Paths (UDP source ports) per flow (default 8; permutation: "
            + PermutationScenario.PATHS_PER_FLOW + ").")
    Integer paths;

    @Option(names = "--message-kib", description = "KiB per posted message (default ${DEFAULT-VALUE}).",
            defaultValue = "16")
    int messageKib;

    @Option(names = "--outstanding", description = "Messages kept posted per flow (default "
            + SimParameters.DEFAULT_OUTSTANDING_MESSAGES + "; loss: " + LossScenario.OUTSTANDING_MESSAGES + ").")
    Integer outstanding;

    @Option(names = "--withdraw-us", description = "Failover: routing withdraws the failed link this long after"
            + " the failure; negative: never (default ${DEFAULT-VALUE}).", defaultValue = "1000")
    long withdrawMicros;

    @Option(names = "--degrade-mark", description = "Multiplane: extra CE-marking probability on the degraded plane"
            + " (default ${DEFAULT-VALUE}).", defaultValue = "0.5")
    double degradeMark;

    @Option(names = "--degrade-loss", description = "Multiplane: loss probability on the degraded plane's links"
            + " (default ${DEFAULT-VALUE}).", defaultValue = "0")
    double degradeLoss;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON.")
    Path jsonFile;

    @Option(names = "--plot", paramLabel = "FILE", description = "Write a PNG chart of per-sender rate and queue depth"
            + " over time to FILE.")
    Path plotFile;

    /**
     * Runs the planes sweep for {@code protocol}. The scenario refuses a measured period shorter
     * than two telemetry buckets, which it knows only once it has built the fabric (a bucket is
     * half its base RTT): that refusal, like its other argument checks, is a usage error.
     */
    private ScenarioResult planes(SimParameters p, String protocol) {
        try {
            return PlaneScalingScenario.run(p, planeCounts(), SimProtocols.AVAILABLE.get(protocol)).report();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        SimParameters p = parameters();
        List<String> protocols = protocols();
        List<String> notes = new ArrayList<>();
        if (protocols.contains("rocev2") && p.paths() > 1) {
            notes.add("rocev2: one queue pair per flow, so one path (UDP source port); --paths applies to metaroce");
        }
        out.printf(Locale.ROOT, "sim %s: %s k=%d planes=%s, %s buffers, %.0f Gbit/s links, %d ns delay, seed %d,"
                + " %d us measured%n", scenario, p.topology().label(), p.k(), planeLabel(p),
                p.buffer().name().toLowerCase(Locale.ROOT), p.linkGbps(), p.linkDelayNanos(), p.seed(),
                p.durationNanos() / 1_000);
        notes.forEach(n -> out.println("note: " + n));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<ScenarioResult> results = new ArrayList<>();
        List<double[]> timings = new ArrayList<>();
        for (String name : protocols) {
            long cpu0 = threads.getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            ScenarioResult r = switch (scenario) {
                case "speed" -> FabricSpeed.run(p);
                case "planes" -> planes(p, name);
                default -> Scenarios.run(scenario, p, SimProtocols.AVAILABLE.get(name));
            };
            double wall = (System.nanoTime() - wall0) / 1e9;
            double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
            results.add(r);
            timings.add(new double[] {wall, cpu});
            printTable(out, r, wall, cpu);
        }
        if (results.size() > 1) {
            printSideBySide(out, results);
        }
        long events = results.stream().mapToLong(ScenarioResult::eventsProcessed).sum();
        double wall = timings.stream().mapToDouble(t -> t[0]).sum();
        double cpu = timings.stream().mapToDouble(t -> t[1]).sum();
        out.printf(Locale.ROOT, "simulator: %,d events in %.2f s wall (%.0f events/s), %.2f s CPU (%.0f events/s)%n",
                events, wall, events / wall, cpu, cpu > 0 ? events / cpu : 0);
        if (jsonFile != null) {
            Files.writeString(jsonFile, json(p, results, timings, notes, events / wall, cpu > 0 ? events / cpu : 0));
            out.println("json: " + jsonFile);
        }
        if (plotFile != null && scenario.equals("planes")) {
            SimChart.writeScaling(plotFile, "metaroce sim planes (" + p.senders() + " connections, k=" + p.k()
                    + ", seed " + seed + ")", planeCounts(), results);
            out.println("plot: " + plotFile);
        } else if (plotFile != null) {
            SimChart.write(plotFile, "metaroce sim " + scenario + " (" + p.topology().label() + ", seed " + seed + ")", results);
            out.println("plot: " + plotFile);
        }
        return 0;
    }

    private SimParameters parameters() {
        List<String> scenarios = List.of("incast", "loss", "failover", "permutation", "multiplane", "planes", "speed");
        if (!scenarios.contains(scenario)) {
            throw new ParameterException(spec.commandLine(), "unknown scenario '" + scenario + "': use one of " + scenarios);
        }
        boolean sweep = scenario.equals("planes");
        TopologyKind kind;
        try {
            kind = topology != null ? TopologyKind.parse(topology)
                    : scenario.equals("multiplane") || sweep ? TopologyKind.MULTIPLANE : TopologyKind.FAT_TREE;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--topology: " + e.getMessage());
        }
        if (sweep && kind != TopologyKind.MULTIPLANE) {
            throw new ParameterException(spec.commandLine(), "the planes scenario runs on the multiplane topology only:"
                    + " leave --topology out");
        }
        if (!sweep && planes != null && planes.size() != 1) {
            throw new ParameterException(spec.commandLine(), "--planes takes one count here; a list is for the planes"
                    + " scenario");
        }
        if (!sweep && connections != null) {
            throw new ParameterException(spec.commandLine(), "--connections is for the planes scenario; use --senders");
        }
        if (sweep && senders != null) {
            throw new ParameterException(spec.commandLine(), "the planes scenario counts --connections, not --senders");
        }
        int planeCount = sweep ? planeCounts().get(0)
                : planes != null ? planes.get(0) : kind == TopologyKind.MULTIPLANE ? 4 : 1;
        BufferPreset preset = switch (buffer) {
            case "shallow" -> BufferPreset.SHALLOW;
            case "deep" -> BufferPreset.DEEP;
            default -> throw new ParameterException(spec.commandLine(), "--buffer must be shallow or deep, got '" + buffer + "'");
        };
        int flows = sweep ? (connections != null ? connections : DEFAULT_PLANE_CONNECTIONS)
                : senders != null ? senders : scenario.equals("incast") ? 64 : 8;
        int arity = k != null ? k : sweep ? PLANE_K : 8;
        long micros = durationMicros != null ? durationMicros : sweep ? PLANE_DURATION_MICROS : 5_000;
        int pathsPerFlow = paths != null ? paths
                : scenario.equals("permutation") ? PermutationScenario.PATHS_PER_FLOW : SimParameters.defaults().paths();
        int slots = outstanding != null ? outstanding
                : scenario.equals("loss") ? LossScenario.OUTSTANDING_MESSAGES : SimParameters.defaults().outstandingMessages();
        if (messageKib < 1 || messageKib > 1 << 20) {
            throw new ParameterException(spec.commandLine(), "--message-kib must be in [1, 1048576]");
        }
        try {
            return new SimParameters(kind, arity, planeCount, preset, linkGbps, linkDelayNanos, seed, flows, loss,
                    micros * 1_000L, pathsPerFlow, messageKib << 10, slots,
                    withdrawMicros < 0 ? -1 : withdrawMicros * 1_000L, degradeMark, degradeLoss);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The planes scenario's plane counts: {@code --planes}, or {@link PlaneScalingScenario#DEFAULT_PLANES}. */
    private List<Integer> planeCounts() {
        List<Integer> counts = planes != null ? planes : PlaneScalingScenario.DEFAULT_PLANES;
        for (int i = 0; i < counts.size(); i++) {
            if (counts.get(i) < 1 || (i > 0 && counts.get(i) <= counts.get(i - 1))) {
                throw new ParameterException(spec.commandLine(), "--planes: plane counts must be >= 1 and increasing,"
                        + " got " + counts);
            }
        }
        if (counts.size() < 2) {
            throw new ParameterException(spec.commandLine(), "--planes: the planes scenario sweeps at least two plane"
                    + " counts, e.g. --planes 4,8");
        }
        return counts;
    }

    private String planeLabel(SimParameters p) {
        return scenario.equals("planes") ? planeCounts().stream().map(String::valueOf)
                .collect(java.util.stream.Collectors.joining(",")) : String.valueOf(p.planes());
    }

    private List<String> protocols() {
        if (scenario.equals("speed")) {
            return List.of("raw");
        }
        return switch (protocol) {
            case "both" -> List.of(SimProtocols.KNOWN);
            case "metaroce", "rocev2" -> List.of(protocol);
            default -> throw new ParameterException(spec.commandLine(),
                    "--protocol must be metaroce, rocev2 or both, got '" + protocol + "'");
        };
    }

    private static void printTable(PrintWriter out, ScenarioResult r, double wall, double cpu) {
        out.printf(Locale.ROOT, "%n%s / %s%n", r.scenario(), r.protocol());
        out.printf(Locale.ROOT, "  %-36s %s%n", "metric", "value");
        for (Map.Entry<String, Object> e : r.metrics().entrySet()) {
            out.printf(Locale.ROOT, "  %-36s %s%n", e.getKey(), format(e.getValue()));
        }
        out.printf(Locale.ROOT, "  %-36s %,d%n", "events", r.eventsProcessed());
        out.printf(Locale.ROOT, "  %-36s %.3f ms%n", "simulated", r.simulatedNanos() / 1e6);
        out.printf(Locale.ROOT, "  %-36s %.2f s (%.0f events/s)%n", "wall", wall, r.eventsProcessed() / wall);
        out.printf(Locale.ROOT, "  %-36s %.2f s%n", "cpu", cpu);
    }

    /** One row per metric, one column per protocol: the comparison the scenario exists for. */
    private static void printSideBySide(PrintWriter out, List<ScenarioResult> results) {
        out.printf(Locale.ROOT, "%n%s, side by side%n  %-36s", results.get(0).scenario(), "metric");
        for (ScenarioResult r : results) {
            out.printf(Locale.ROOT, " %16s", r.protocol());
        }
        out.println();
        for (String key : results.get(0).metrics().keySet()) {
            out.printf(Locale.ROOT, "  %-36s", key);
            for (ScenarioResult r : results) {
                Object v = r.metrics().get(key);
                out.printf(Locale.ROOT, " %16s", v == null ? "-" : format(v));
            }
            out.println();
        }
    }

    private static String format(Object v) {
        if (v instanceof Double d) {
            return String.format(Locale.ROOT, "%.4f", d).replaceAll("0+$", "").replaceAll("\\.$", ".0");
        }
        if (v instanceof Long l) {
            return String.format(Locale.ROOT, "%,d", l);
        }
        return String.valueOf(v);
    }

    private String json(SimParameters p, List<ScenarioResult> results, List<double[]> timings, List<String> notes,
            double eventsPerSecond, double eventsPerCpuSecond) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("scenario", scenario);
        params.put("topology", p.topology().label());
        params.put("k", p.k());
        params.put("planes", scenario.equals("planes") ? planeCounts() : p.planes());
        params.put("buffer", p.buffer().name().toLowerCase(Locale.ROOT));
        params.put("buffer_bytes", p.buffer().bufferBytes());
        params.put("ecn_threshold_bytes", p.buffer().ecnThresholdBytes());
        params.put("link_gbps", p.linkGbps());
        params.put("link_delay_ns", p.linkDelayNanos());
        params.put("seed", p.seed());
        params.put(scenario.equals("planes") ? "connections" : "senders", p.senders());
        params.put("loss", p.lossProbability());
        params.put("duration_us", p.durationNanos() / 1_000);
        params.put("paths", p.paths());
        params.put("message_bytes", p.messageBytes());
        params.put("outstanding_messages", p.outstandingMessages());
        params.put("withdraw_us", p.withdrawAfterNanos() < 0 ? -1 : p.withdrawAfterNanos() / 1000);
        params.put("degrade_mark", p.degradeMarkProbability());
        params.put("degrade_loss", p.degradeLossProbability());
        StringBuilder b = new StringBuilder("{\n");
        b.append("  \"parameters\": ").append(object(params, "  ")).append(",\n");
        for (int i = 0; i < results.size(); i++) {
            ScenarioResult r = results.get(i);
            Map<String, Object> m = new LinkedHashMap<>(r.metrics());
            m.put("events", r.eventsProcessed());
            m.put("simulated_ns", r.simulatedNanos());
            m.put("wall_s", timings.get(i)[0]);
            m.put("events_per_s", r.eventsProcessed() / timings.get(i)[0]);
            b.append("  \"").append(r.protocol()).append("\": ").append(object(m, "  ")).append(",\n");
        }
        // A protocol not run is null, so readers find both keys in every scenario's JSON.
        for (String name : SimProtocols.KNOWN) {
            if (!scenario.equals("speed") && results.stream().noneMatch(r -> r.protocol().equals(name))) {
                b.append("  \"").append(name).append("\": null,\n");
            }
        }
        b.append("  \"notes\": [");
        for (int i = 0; i < notes.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(JsonText.quote(notes.get(i)));
        }
        b.append("],\n");
        b.append("  \"events_per_s\": ").append(number(eventsPerSecond)).append(",\n");
        b.append("  \"events_per_cpu_s\": ").append(number(eventsPerCpuSecond)).append("\n}\n");
        return b.toString();
    }

    private static String object(Map<String, Object> m, String indent) {
        StringBuilder b = new StringBuilder("{\n");
        int i = 0;
        for (Map.Entry<String, Object> e : m.entrySet()) {
            b.append(indent).append("  ").append(JsonText.quote(e.getKey())).append(": ").append(value(e.getValue()));
            b.append(++i < m.size() ? ",\n" : "\n");
        }
        return b.append(indent).append("}").toString();
    }

    private static String value(Object v) {
        if (v instanceof Double d) {
            return number(d);
        }
        if (v instanceof Number || v instanceof Boolean) {
            return String.valueOf(v);
        }
        if (v instanceof List<?> list) {
            return list.stream().map(SimCommand::value).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
        }
        return JsonText.quote(String.valueOf(v));
    }

    private static String number(double d) {
        return Double.isFinite(d) ? String.valueOf(d) : "null";
    }

}
