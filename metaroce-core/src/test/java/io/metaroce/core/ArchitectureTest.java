package io.metaroce.core;

import static com.tngtech.archunit.core.domain.JavaAccess.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameStartingWith;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameStartingWith;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.InstantSource;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/**
 * Enforces that metaroce-core is a sans-IO engine.
 *
 * <p>The core is a pure state machine: it is driven by its callers (the Netty UDP datapath, the
 * deterministic fabric simulator, the test harness), which hand it received datagrams, the current
 * time as a {@code long nowNanos}, and any randomness it needs; it hands back datagrams to send and
 * the next deadline at which it wants to be called. Given the same inputs it must produce the same
 * outputs, bit for bit, so that a simulation run is reproducible from its seed. These rules forbid
 * every way for the core to do I/O, start concurrency, read a clock or create randomness on its own.
 *
 * <p>Do not weaken a rule to make new code pass: pass the capability in from the driver instead.
 * Method references ({@code System::nanoTime}, {@code Random::new}) count as uses, like calls.
 */
class ArchitectureTest {

    private static final String CORE = "io.metaroce.core..";

    private static final JavaClasses CORE_CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.metaroce.core");

    // ---- I/O ----

    static final ArchRule NO_JAVA_NET = noClasses().that().resideInAPackage(CORE)
            .should().dependOnClassesThat().resideInAPackage("java.net..")
            .because("the core is sans-IO: sockets and addresses belong to the drivers (UDP datapath,"
                    + " simulator, harness); the core sees peers only as opaque values it is handed, so"
                    + " it runs identically over real UDP and over the deterministic simulator");

    static final ArchRule NO_NIO_CHANNELS = noClasses().that().resideInAPackage(CORE)
            .should().dependOnClassesThat().resideInAPackage("java.nio.channels..")
            .because("the core is sans-IO: it never reads or writes a channel itself; drivers pass"
                    + " received datagrams in and take datagrams to send out (pollTransmit)");

    static final ArchRule NO_NETTY = noClasses().that().resideInAPackage(CORE)
            .should().dependOnClassesThat().resideInAPackage("io.netty..")
            .because("Netty is one driver of the engine (metaroce-netty), not part of it; the sans-IO"
                    + " core must also run under the simulator and the test harness without Netty");

    // ---- concurrency ----

    static final ArchRule NO_THREADS_OR_EXECUTORS = noClasses().that().resideInAPackage(CORE)
            .should().dependOnClassesThat(threadsAndExecutors())
            .because("the core is sans-IO and single-threaded: one endpoint is driven by one thread or"
                    + " event loop owned by the driver; creating, starting or scheduling threads inside"
                    + " the core would make its behaviour depend on OS scheduling, not on its inputs");

    // ---- logging ----

    static final ArchRule NO_LOGGING = noClasses().that().resideInAPackage(CORE)
            .should().dependOnClassesThat().resideInAnyPackage("org.slf4j..", "java.util.logging..")
            .because("logging is I/O and reads the wall clock; the sans-IO core reports what happened"
                    + " through return values, events and counters that the driver may log");

    // ---- time ----

    static final ArchRule NO_SYSTEM_CLOCK = noClasses().that().resideInAPackage(CORE)
            .should().accessTargetWhere(targetIs(System.class, "nanoTime"))
            .orShould().accessTargetWhere(targetIs(System.class, "currentTimeMillis"))
            .because("time is an input: every entry point takes long nowNanos from the driver, so the"
                    + " simulator can run virtual time and every run is reproducible");

    static final ArchRule NO_JAVA_TIME_CLOCKS = noClasses().that().resideInAPackage(CORE)
            .should().accessTargetWhere(target(owner(resideInAPackage("java.time.."))).and(target(name("now")))
                    .as("access java.time.*.now(..)"))
            .orShould().dependOnClassesThat().belongToAnyOf(Clock.class, InstantSource.class)
            .because("time is an input: every entry point takes long nowNanos from the driver; reading"
                    + " a java.time clock (Instant.now, Clock) would make the core nondeterministic");

    // ---- randomness ----

    static final ArchRule NO_RANDOM_CONSTRUCTION = noClasses().that().resideInAPackage(CORE)
            .should().accessTargetWhere(constructorOf(Random.class))
            .because("randomness is an input: the driver passes a RandomGenerator in (seeded in the"
                    + " simulator, so a run replays exactly from its seed); new Random(..) inside the"
                    + " core would hide a second, unseeded source");

    static final ArchRule NO_SECURE_RANDOM_CONSTRUCTION = noClasses().that().resideInAPackage(CORE)
            .should().accessTargetWhere(constructorOf(SecureRandom.class))
            .orShould().accessTargetWhere(target(owner(belongToAnyOf(SecureRandom.class)))
                    .and(target(nameStartingWith("getInstance")))
                    .as("access SecureRandom.getInstance*(..)"))
            .because("randomness is an input: production drivers pass a strong generator in and the"
                    + " simulator a seeded one; a SecureRandom created inside the core cannot be"
                    + " replayed, so simulation runs would stop being deterministic");

    static final ArchRule NO_MATH_RANDOM = noClasses().that().resideInAPackage(CORE)
            .should().accessTargetWhere(targetIs(Math.class, "random"))
            .orShould().accessTargetWhere(targetIs(StrictMath.class, "random"))
            .because("Math.random() is a hidden global generator; randomness must be passed into the"
                    + " sans-IO core so that runs are reproducible from a seed");

    static final ArchRule NO_OTHER_HIDDEN_RANDOMNESS = noClasses().that().resideInAPackage(CORE)
            .should().accessTargetWhere(targetIs(ThreadLocalRandom.class, "current"))
            .orShould().accessTargetWhere(withoutArguments(SplittableRandom.class, JavaConstructor.CONSTRUCTOR_NAME))
            .orShould().accessTargetWhere(targetIs(RandomGenerator.class, "of"))
            .orShould().accessTargetWhere(targetIs(RandomGenerator.class, "getDefault"))
            .orShould().accessTargetWhere(withoutArguments(RandomGeneratorFactory.class, "create"))
            .orShould().accessTargetWhere(targetIs(UUID.class, "randomUUID"))
            .because("these are further ways to obtain an unseeded generator; randomness must be"
                    + " passed into the sans-IO core (as a RandomGenerator) so runs are reproducible."
                    + " Deriving a generator from a seed (new SplittableRandom(seed), split()) stays"
                    + " deterministic and is allowed");

    @Test
    void coreDoesNotUseJavaNet() {
        NO_JAVA_NET.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotUseNioChannels() {
        NO_NIO_CHANNELS.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotUseNetty() {
        NO_NETTY.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotCreateThreadsOrExecutors() {
        NO_THREADS_OR_EXECUTORS.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotLog() {
        NO_LOGGING.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotReadTheSystemClock() {
        NO_SYSTEM_CLOCK.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotReadJavaTimeClocks() {
        NO_JAVA_TIME_CLOCKS.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotConstructRandom() {
        NO_RANDOM_CONSTRUCTION.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotConstructSecureRandom() {
        NO_SECURE_RANDOM_CONSTRUCTION.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotUseMathRandom() {
        NO_MATH_RANDOM.check(CORE_CLASSES);
    }

    @Test
    void coreDoesNotObtainOtherUnseededRandomness() {
        NO_OTHER_HIDDEN_RANDOMNESS.check(CORE_CLASSES);
    }

    // ---- predicates ----

    /** java.lang.Thread (and its nested types) and the java.util.concurrent executors and pools. */
    private static DescribedPredicate<JavaClass> threadsAndExecutors() {
        DescribedPredicate<JavaClass> executors = resideInAPackage("java.util.concurrent")
                .and(simpleNameStartingWith("Executor")); // Executor, Executors, ExecutorService, ...
        return belongToAnyOf(Thread.class)
                .or(executors)
                .or(belongToAnyOf(ScheduledExecutorService.class, ThreadPoolExecutor.class,
                        ScheduledThreadPoolExecutor.class, ForkJoinPool.class))
                .as("java.lang.Thread, java.util.concurrent.Executor*, ScheduledExecutorService,"
                        + " ThreadPoolExecutor, ScheduledThreadPoolExecutor or ForkJoinPool");
    }

    /** A call to, or method reference of, {@code owner.methodName(..)} (any overload). */
    private static DescribedPredicate<JavaAccess<?>> targetIs(Class<?> owner, String methodName) {
        return target(owner(belongToAnyOf(owner))).and(target(name(methodName)))
                .as("access " + owner.getSimpleName() + "." + methodName + "(..)");
    }

    /** A call to, or reference of, the no-argument (hence unseeded) {@code owner.methodName()}. */
    private static DescribedPredicate<JavaAccess<?>> withoutArguments(Class<?> owner, String methodName) {
        String shown = methodName.equals(JavaConstructor.CONSTRUCTOR_NAME)
                ? "new " + owner.getSimpleName() + "()"
                : owner.getSimpleName() + "." + methodName + "()";
        return DescribedPredicate.describe("access " + shown, (JavaAccess<?> access) ->
                access.getTarget() instanceof AccessTarget.CodeUnitAccessTarget target
                        && target.getOwner().isEquivalentTo(owner)
                        && target.getName().equals(methodName)
                        && target.getRawParameterTypes().isEmpty());
    }

    /** A call to, or reference of, any constructor of {@code type} or of a subclass of it. */
    private static DescribedPredicate<JavaAccess<?>> constructorOf(Class<?> type) {
        return target(owner(assignableTo(type))).and(target(name(JavaConstructor.CONSTRUCTOR_NAME)))
                .as("construct " + type.getName() + " (or a subclass)");
    }
}
