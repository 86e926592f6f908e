package io.fairslice.middleware.weaving;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The classes that received yield points and have been initialised, counted per defining class loader. A woven class
 * reports itself once, from its static initialiser, so the count grows as the application loads its code; zero after
 * the application has served requests means the weaving scope matched nothing.
 *
 * <p>One instance per class loader that holds the aspect (static state: the woven code reaches the aspect through
 * a static {@code aspectOf()}, so there is no object to hang this on). When the middleware sits in Tomcat's shared
 * {@code lib/}, that is one for all web applications, including ones undeployed since. The class loaders are held
 * weakly, so the classes of an undeployed application leave {@link #count()} when the JVM unloads them (a garbage
 * collection after the undeploy, once nothing holds the application's class loader); a leaked class loader stays
 * counted. {@link #count(ClassLoader)} counts one application's classes, {@link #countVisibleTo(ClassLoader)} the
 * woven classes an application runs (its own and those of the class loaders it delegates to). Recording happens once
 * per class initialisation, never on a request's path: one lock, one map update. Thread-safe; remembers the first
 * {@link #NAMES_KEPT} names for logs.
 */
public final class WovenClasses {

    /** How many class names are kept for messages; the counts themselves are exact. */
    public static final int NAMES_KEPT = 50;

    private static final WovenClasses JVM = new WovenClasses();

    /** Woven classes initialised per defining class loader (null: the boot loader, never woven in practice). */
    private final Map<ClassLoader, int[]> byLoader = new WeakHashMap<>();
    private final List<String> names = new ArrayList<>();

    /** Instances other than the one the aspect reports to exist for tests only. */
    WovenClasses() {
    }

    static void record(Class<?> type) {
        JVM.add(type);
    }

    /**
     * Woven classes initialised so far in class loaders that still exist: the classes of deployed applications and
     * of shared libraries, and those of undeployed applications until their class loader is collected.
     */
    public static int count() {
        return JVM.live();
    }

    /** Woven classes initialised so far by {@code application} and the class loaders below it (e.g. JSP loaders). */
    public static int count(ClassLoader application) {
        return JVM.liveIn(application);
    }

    /**
     * Woven classes that {@code application} runs: those initialised by its class loader and the loaders below it
     * ({@link #count(ClassLoader)}) and by the loaders it delegates to: shared libraries in a standalone Tomcat, the
     * application's own classes when an embedded server loads them from its class path. The per-application
     * {@code fairslice.weaving.classes} gauge.
     */
    public static int countVisibleTo(ClassLoader application) {
        return JVM.liveVisibleTo(application);
    }

    /** The first {@link #NAMES_KEPT} woven classes of the JVM, in initialisation order, unloaded ones included. */
    public static List<String> sample() {
        return JVM.names();
    }

    synchronized void add(Class<?> type) {
        byLoader.computeIfAbsent(type.getClassLoader(), loader -> new int[1])[0]++;
        if (names.size() < NAMES_KEPT) {
            names.add(type.getName());
        }
    }

    synchronized int live() {
        int sum = 0;
        for (int[] n : byLoader.values()) {
            sum += n[0];
        }
        return sum;
    }

    synchronized int liveIn(ClassLoader application) {
        int sum = 0;
        for (Map.Entry<ClassLoader, int[]> e : byLoader.entrySet()) {
            for (ClassLoader l = e.getKey(); l != null; l = l.getParent()) {
                if (l == application) {
                    sum += e.getValue()[0];
                    break;
                }
            }
        }
        return sum;
    }

    synchronized int liveVisibleTo(ClassLoader application) {
        int sum = liveIn(application);
        for (Map.Entry<ClassLoader, int[]> e : byLoader.entrySet()) {
            if (e.getKey() == null) {
                sum += e.getValue()[0]; // the boot loader: every application delegates to it
                continue;
            }
            for (ClassLoader l = application.getParent(); l != null; l = l.getParent()) {
                if (l == e.getKey()) {
                    sum += e.getValue()[0];
                    break;
                }
            }
        }
        return sum;
    }

    synchronized List<String> names() {
        return List.copyOf(names);
    }
}
