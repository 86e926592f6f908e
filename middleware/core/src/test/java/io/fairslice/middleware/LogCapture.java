package io.fairslice.middleware;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Records what one class logs (java.util.logging), from {@link #of} to {@link #close}: "LEVEL message" each. */
public final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
    }

    /** Starts recording what {@code type}'s logger logs. */
    public static LogCapture of(Class<?> type) {
        LogCapture capture = new LogCapture(Logger.getLogger(type.getName()));
        capture.logger.addHandler(capture);
        return capture;
    }

    /** The lines recorded so far, "LEVEL message" each. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    public void clear() {
        lines.clear();
    }

    @Override
    public void publish(LogRecord r) {
        lines.add(r.getLevel() + " " + r.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
