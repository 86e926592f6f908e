package io.fairslice.middleware;

import io.fairslice.middleware.spi.RequestListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A request listener that writes down what each thread is told ({@code enter light}, {@code move light heavy},
 * {@code exit heavy}, {@code task enter light}): found with ServiceLoader in every filter test; a test reads and
 * clears {@link #EVENTS}.
 */
public final class RecordingListener implements RequestListener {

    /** Per thread name, its events in order. */
    public static final Map<String, List<String>> EVENTS = new ConcurrentHashMap<>();

    private static void record(String event) {
        EVENTS.computeIfAbsent(Thread.currentThread().getName(), k -> new CopyOnWriteArrayList<>()).add(event);
    }

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public void enter(String requestClass) {
        record("enter " + requestClass);
    }

    @Override
    public void exit(String requestClass) {
        record("exit " + requestClass);
    }

    @Override
    public void taskEnter(String requestClass) {
        record("task enter " + requestClass);
    }

    @Override
    public void taskExit(String requestClass) {
        record("task exit " + requestClass);
    }

    @Override
    public void move(String from, String to) {
        record("move " + from + " " + to);
    }
}
