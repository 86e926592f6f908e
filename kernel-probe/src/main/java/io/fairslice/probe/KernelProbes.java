package io.fairslice.probe;

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

    private static final System.Logger LOG = System.getLogger(KernelProbes.class.getName());

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
        try {
            if (os.startsWith("linux")) {
                return LinuxKernelProbe.create(procRoot);
            }
            if (os.startsWith("freebsd")) {
                return FreeBsdKernelProbe.create();
            }
            if (os.startsWith("windows")) {
                return WindowsKernelProbe.create();
            }
            return disabled(warnings, "no kernel probe for OS '" + osName + "' (supported: Linux, FreeBSD, Windows)");
        } catch (ProbeUnavailableException e) {
            return disabled(warnings, "self-check failed on " + osName + ": " + e.getMessage());
        } catch (LinkageError | RuntimeException e) {
            return disabled(warnings, "native access failed on " + osName + " (JNA): " + e);
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
