package io.metaroce.netty.logging;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.logging.LogRecord;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of this module's tests (registered in {@code META-INF/services}): it records
 * every call of an {@code io.metaroce} logger at every level, debug and trace included, so that a
 * test can see what the datapath logs (R-JAVA-3); nothing of theirs is printed. Other loggers
 * (Netty's) go to {@code java.util.logging}, where Netty logs when SLF4J has no provider, so its
 * warnings still show in the test output as they did before this provider existed.
 */
public final class RecordingLoggerProvider implements SLF4JServiceProvider {
    private static final int MAX_RECORDED = 10_000;
    private static final List<String> RECORDED = new ArrayList<>();

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();
    private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
    private final ILoggerFactory factory = name -> name.startsWith("io.metaroce")
            ? loggers.computeIfAbsent(name, RecordingLogger::new)
            : loggers.computeIfAbsent(name, JulLogger::new);

    /** Every call recorded since the last {@link #clear()}, as "LEVEL logger: message" (at most 10,000). */
    public static synchronized List<String> recorded() {
        return List.copyOf(RECORDED);
    }

    /** Forgets what was recorded. */
    public static synchronized void clear() {
        RECORDED.clear();
    }

    private static synchronized void record(String line) {
        if (RECORDED.size() < MAX_RECORDED) {
            RECORDED.add(line);
        }
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        // Nothing to set up: the recording list is static so that tests can read it.
    }

    /** Enabled at every level; records the formatted message. */
    private static final class RecordingLogger extends AbstractLogger {
        RecordingLogger(String name) {
            this.name = name;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern,
                Object[] arguments, Throwable throwable) {
            record(level + " " + name + ": " + MessageFormatter.basicArrayFormat(messagePattern, arguments));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return true;
        }
    }

    /** Forwards to {@code java.util.logging} at the matching level, as Netty's own JDK logger does. */
    private static final class JulLogger extends AbstractLogger {
        private final transient java.util.logging.Logger jul;

        JulLogger(String name) {
            this.name = name;
            this.jul = java.util.logging.Logger.getLogger(name);
        }

        private static java.util.logging.Level julLevel(Level level) {
            return switch (level) {
                case ERROR -> java.util.logging.Level.SEVERE;
                case WARN -> java.util.logging.Level.WARNING;
                case INFO -> java.util.logging.Level.INFO;
                case DEBUG -> java.util.logging.Level.FINE;
                case TRACE -> java.util.logging.Level.FINEST;
            };
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern,
                Object[] arguments, Throwable throwable) {
            LogRecord entry = new LogRecord(julLevel(level),
                    MessageFormatter.basicArrayFormat(messagePattern, arguments));
            entry.setLoggerName(name);
            entry.setThrown(throwable);
            jul.log(entry);
        }

        @Override
        public boolean isTraceEnabled() {
            return jul.isLoggable(java.util.logging.Level.FINEST);
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return isTraceEnabled();
        }

        @Override
        public boolean isDebugEnabled() {
            return jul.isLoggable(java.util.logging.Level.FINE);
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return isDebugEnabled();
        }

        @Override
        public boolean isInfoEnabled() {
            return jul.isLoggable(java.util.logging.Level.INFO);
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return isInfoEnabled();
        }

        @Override
        public boolean isWarnEnabled() {
            return jul.isLoggable(java.util.logging.Level.WARNING);
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return isWarnEnabled();
        }

        @Override
        public boolean isErrorEnabled() {
            return jul.isLoggable(java.util.logging.Level.SEVERE);
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return isErrorEnabled();
        }
    }
}
