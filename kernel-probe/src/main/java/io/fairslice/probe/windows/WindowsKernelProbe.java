package io.fairslice.probe.windows;

import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.ProbeUnavailableException;

public final class WindowsKernelProbe {
    public static KernelProbe create() throws ProbeUnavailableException {
        throw new ProbeUnavailableException("WIP");
    }
}
