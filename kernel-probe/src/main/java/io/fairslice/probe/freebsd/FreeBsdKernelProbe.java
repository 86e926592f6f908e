package io.fairslice.probe.freebsd;

import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.ProbeUnavailableException;

public final class FreeBsdKernelProbe {
    public static KernelProbe create() throws ProbeUnavailableException {
        throw new ProbeUnavailableException("WIP");
    }
}
