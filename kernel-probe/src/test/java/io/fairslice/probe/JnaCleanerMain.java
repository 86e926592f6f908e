package io.fairslice.probe;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

/**
 * The JVM {@link KernelProbesTest} inspects for JNA's cleaner thread, which must not be running yet when the probe is
 * made (so a JVM of its own): a thread standing for a web application's startup thread, whose context class loader is
 * a stand-in for the application's, makes the probe. Prints {@code key=value} lines: {@code cleanerBefore} (a cleaner
 * thread ran already), {@code platform}, {@code restored} (the thread's context class loader after the probe was made
 * is the application's again) and {@code cleanerLoader} ({@code application}, when the cleaner thread holds it).
 */
public final class JnaCleanerMain {

    static final String CLEANER = "JNA Cleaner";

    public static void main(String[] args) throws Exception {
        System.out.println("cleanerBefore=" + (cleaner() != null));
        URLClassLoader application = new URLClassLoader("application", new URL[0],
                JnaCleanerMain.class.getClassLoader());
        KernelProbe[] probe = new KernelProbe[1];
        boolean[] restored = new boolean[1];
        Thread startup = new Thread(() -> {
            probe[0] = KernelProbes.create(System.getProperty("os.name", ""), Path.of("/proc"), System.out::println);
            restored[0] = Thread.currentThread().getContextClassLoader() == application;
        }, "application-startup");
        startup.setContextClassLoader(application);
        startup.start();
        startup.join();
        System.out.println("platform=" + probe[0].platform());
        System.out.println("restored=" + restored[0]);
        Thread cleaner = cleaner(); // the probe's native buffers are reachable: it lingers
        ClassLoader loader = cleaner == null ? null : cleaner.getContextClassLoader();
        System.out.println("cleanerLoader=" + (cleaner == null ? "no-thread" : loader == application ? "application"
                : String.valueOf(loader)));
        probe[0].close();
    }

    private static Thread cleaner() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(CLEANER) && t.isAlive())
                .findFirst().orElse(null);
    }
}
