package io.fairslice.probe;

import io.fairslice.middleware.internal.Loggers;
import io.fairslice.probe.freebsd.FreeBsdKernelProbe;
import io.fairslice.probe.internal.NoOpKernelProbe;
import io.fairslice.probe.linux.LinuxKernelProbe;
import io.fairslice.probe.windows.WindowsKernelProbe;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Picks the probe for the running OS. Never throws: an unsupported OS, a failed self-check or a JNA failure gives a
 * {@link NoOpKernelProbe} and exactly one warning, so that nothing that uses the probe can break a request.
 */
public final class KernelProbes {

    private static final System.Logger LOG = Loggers.system(KernelProbes.class);

    private KernelProbes() {
    }

    /** The probe for this OS; warnings go to the {@code io.fairslice.probe.KernelProbes} logger. */
    public static KernelProbe create() {
        return create(System.getProperty("os.name", ""), Path.of("/proc"), KernelProbes::logWarning);
    }

    /**
     * The probe for {@code osName} (as in the {@code os.name} property), the Linux one reading {@code procRoot};
     * {@code warnings} receives the one warning when the result is the no-op probe.
     */
    public static KernelProbe create(String osName, Path procRoot, Consumer<String> warnings) {
        String os = osName.toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") && !os.startsWith("freebsd") && !os.startsWith("windows")) {
            return disabled(warnings, "no kernel probe for OS '" + osName + "' (supported: Linux, FreeBSD, Windows)");
        }
        try {
            return createLendingNoClassLoader(os, procRoot);
        } catch (ProbeUnavailableException e) {
            return disabled(warnings, "self-check failed on " + osName + ": " + e.getMessage());
        } catch (LinkageError | RuntimeException e) {
            return disabled(warnings, "native access failed on " + osName + " (JNA): " + e);
        }
    }

    /**
     * The probe for {@code os}, made with no context class loader on this thread. JNA starts its cleaner thread as
     * the first native memory is allocated, from the allocating thread, whose context class loader the cleaner keeps:
     * the probe is made on a web application's startup thread, so that was the application's, held after its
     * undeploy (Tomcat: "appears to have started a thread named [JNA Cleaner]"). Not the probe's own loader either:
     * that is the application's when the probe is in its WEB-INF/lib. The probe holds native memory from here until it
     * is dropped, so the cleaner runs on meanwhile and no allocation of the probe's on a request thread starts another.
     */
    private static KernelProbe createLendingNoClassLoader(String os, Path procRoot) throws ProbeUnavailableException {
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(null);
        try {
            if (os.startsWith("linux")) {
                return LinuxKernelProbe.create(procRoot);
            }
            if (os.startsWith("freebsd")) {
                return FreeBsdKernelProbe.create();
            }
            return WindowsKernelProbe.create();
        } finally {
            thread.setContextClassLoader(context); // before a warning: the host logs it under the application's
        }
    }

    private static KernelProbe disabled(Consumer<String> warnings, String reason) {
        warnings.accept("fairslice kernel probe disabled, requests are unaffected: " + reason);
        return new NoOpKernelProbe(reason);
    }

    private static void logWarning(String message) {
        LOG.log(System.Logger.Level.WARNING, message);
    }
}
