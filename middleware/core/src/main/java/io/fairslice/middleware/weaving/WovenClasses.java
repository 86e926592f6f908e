package io.fairslice.middleware.weaving;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The classes that received yield points and have been initialised, in this class loader. A woven class reports
 * itself once, from its static initialiser, so the count grows as the application loads its code; zero after the
 * application has served requests means the weaving scope matched nothing.
 *
 * <p>One instance per class loader that holds the aspect (static state: the woven code reaches the aspect through
 * a static {@code aspectOf()}, so there is no object to hang this on). Thread-safe; remembers at most
 * {@link #NAMES_KEPT} names for logs.
 */
public final class WovenClasses {

    /** How many class names are kept for messages; the count itself is exact. */
    public static final int NAMES_KEPT = 50;

    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final List<String> NAMES = Collections.synchronizedList(new ArrayList<>());

    private WovenClasses() {
    }

    static void record(String className) {
        if (COUNT.incrementAndGet() <= NAMES_KEPT) {
            NAMES.add(className);
        }
    }

    /** How many woven classes have initialised so far. */
    public static int count() {
        return COUNT.get();
    }

    /** The first {@link #NAMES_KEPT} of them, in initialisation order. */
    public static List<String> sample() {
        synchronized (NAMES) {
            return List.copyOf(NAMES);
        }
    }
}
