package io.metaroce.netty;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Linux network namespaces for tests: run {@code ip} and {@code nft} commands, and move the
 * calling thread into a namespace with {@code setns(2)} (through {@code java.lang.foreign}), so an
 * event loop and every socket it makes live inside that namespace.
 */
final class NetworkNamespaces {
    private static final int O_RDONLY = 0;
    private static final int CLONE_NEWNET = 0x40000000;
    private static final MethodHandle OPEN;
    private static final MethodHandle SETNS;
    private static final MethodHandle CLOSE;

    static {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        OPEN = linker.downcallHandle(libc.findOrThrow("open"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        SETNS = linker.downcallHandle(libc.findOrThrow("setns"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        CLOSE = linker.downcallHandle(libc.findOrThrow("close"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private NetworkNamespaces() {
    }

    /** Why namespace tests cannot run here, or null if they can. */
    static String whyUnavailable() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return "not Linux";
        }
        if (!LinuxSocketLayer.isAvailable()) {
            return "the linux datapath is unavailable: " + LinuxSocketLayer.unavailabilityCause();
        }
        for (String tool : new String[] {"ip", "nft"}) {
            if (!onPath(tool)) {
                return "'" + tool + "' is not installed (apt-get install -y iproute2 nftables)";
            }
        }
        try {
            String uid = run(List.of("id", "-u")).strip();
            if (!uid.equals("0")) {
                return "not root (uid " + uid + ")";
            }
        } catch (IOException e) {
            return "cannot tell whether this is root: " + e.getMessage();
        }
        return null;
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }

    /** Moves the calling thread into network namespace {@code name} (as made by {@code ip netns add}). */
    static void enter(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment path = arena.allocateFrom("/var/run/netns/" + name, StandardCharsets.UTF_8);
            int fd = (int) OPEN.invokeExact(path, O_RDONLY);
            if (fd < 0) {
                throw new IllegalStateException("cannot open network namespace " + name);
            }
            try {
                int rc = (int) SETNS.invokeExact(fd, CLONE_NEWNET);
                if (rc != 0) {
                    throw new IllegalStateException("setns into " + name + " failed");
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Runs a command (e.g. {@code ip ...}); returns its output, or throws with its output if it fails. */
    static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out.strip());
        }
        return out;
    }

    /** Runs a command given as one string split on spaces. */
    static String sh(String command) throws IOException {
        return run(List.of(command.split(" ")));
    }

    /** Runs {@code command} inside namespace {@code ns}. */
    static String in(String ns, String command) throws IOException {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(List.of(command.split(" ")));
        return run(c);
    }
}
