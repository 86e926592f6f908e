package io.fairslice.tomcat;

import io.fairslice.middleware.internal.Loggers;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Initialises the bundle's native bindings once, with the bundle's own class loader as the thread's context class
 * loader, so that no web application's class loader is captured by them.
 *
 * <p>Why: the jar in {@code $CATALINA_BASE/lib} is shared by all web applications, but its classes are initialised
 * lazily, on whichever thread first uses them, and in Tomcat that is a web application's startup or request thread,
 * whose context class loader is the application's. Two such captures were found by the real-Tomcat integration test
 * (Tomcat's leak detection after an undeploy):
 * <ul>
 *   <li>JNA starts its cleaner thread from the first thread that registers a native resource; the thread inherits
 *       that thread's context class loader ("appears to have started a thread named [JNA Cleaner]"), and it stops
 *       when idle and is started again later by whoever comes next. Registering one object that is never
 *       collected makes the one cleaner thread start here and stay.</li>
 *   <li>The kernel probe's libc binding ({@code Native.register} in its static initialiser) kept the first web
 *       application's class loader reachable from outside the heap after it was undeployed; initialised here, it
 *       does not. The class names are the kernel probe's ({@code io.fairslice.probe.<os>.*LibC}); a missing one is
 *       skipped.</li>
 * </ul>
 */
final class NativeInit {

    private static final Logger LOG = Loggers.of(NativeInit.class);
    private static final Object PINNED = new Object();
    private static boolean done;

    private NativeInit() {
    }

    /** Call with the bundle's class loader as the thread's context class loader. */
    static synchronized void run() {
        if (done) {
            return;
        }
        done = true;
        ClassLoader bundle = NativeInit.class.getClassLoader();
        try {
            com.sun.jna.internal.Cleaner.getCleaner().register(PINNED, () -> { });
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            String binding = os.startsWith("linux") ? "io.fairslice.probe.linux.LinuxLibC"
                    : os.startsWith("freebsd") ? "io.fairslice.probe.freebsd.FreeBsdLibC" : null;
            if (binding != null) {
                Class.forName(binding, true, bundle);
            }
        } catch (LinkageError | ClassNotFoundException e) {
            // JNA or the probe missing, or no native library: the probe reports that itself when it starts
            LOG.log(Level.FINE, "fairslice: native bindings not initialised early", e);
        }
    }
}
